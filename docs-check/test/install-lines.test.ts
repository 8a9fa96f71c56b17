import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { codeBlocks, DOCS, docPages, ROOT, readmeFolders } from "./markdown.js";

// Until the first release the @toolshed packages are not on the npm registry, so every command that
// installs or runs one from it fails (404). Each such line keeps its registry form (right once
// published) but must have, nearby, the form that works today or a link to docs/install.md.
// Nearby: in the same code block, or in the paragraph right before or right after the line's
// code block or paragraph.
const NOTE = join(DOCS, "install.md");
const WORKING_FORM = /npm run pack-local|node scripts\/pack\.mjs|node \S*(?:apps|packages)\/[\w-]+\/dist\/cli\.js/;
// These packs keep their data in SQLite: on Node before 22.16 (no node:sqlite) the better-sqlite3
// peer has to be installed next to them (docs/servers.md#sqlite-drivers).
const SQLITE_PACKS = ["@toolshed/notes", "@toolshed/tickets", "@toolshed/crm", "@toolshed/packs"];

interface Chunk {
  kind: "code" | "text";
  lang: string;
  /** 1-based line of each entry of `lines`. */
  start: number;
  lines: string[];
}

/** A markdown file as fenced code blocks and paragraphs (runs of non-blank lines; a heading alone). */
export function chunks(text: string): Chunk[] {
  const out: Chunk[] = [];
  const lines = text.split("\n");
  let current: Chunk | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (current?.kind === "code") {
      if (/^\s*```\s*$/.test(line)) current = undefined;
      else current.lines.push(line);
      continue;
    }
    const fence = /^\s*```(\w*)/.exec(line);
    if (fence) {
      current = { kind: "code", lang: fence[1] ?? "", start: i + 2, lines: [] };
      out.push(current);
    } else if (line.trim() === "") current = undefined;
    else if (line.startsWith("#")) {
      out.push({ kind: "text", lang: "", start: i + 1, lines: [line] });
      current = undefined;
    } else if (current) current.lines.push(line);
    else {
      current = { kind: "text", lang: "", start: i + 1, lines: [line] };
      out.push(current);
    }
  }
  return out;
}

export interface Command {
  text: string;
  /** It runs a package (npx, npm create) rather than installing it. */
  runs: boolean;
  /** Packages it takes from the registry (install) or runs from it (npx, npm create). */
  packages: string[];
}

const COMMAND =
  /(?:^|[\s;&|(])(npm\s+(?:i|install|add|create|init|exec)|npx|pnpm\s+(?:add|dlx|create)|yarn\s+(?:add|dlx|create))(?=\s|$)([^#;&|`]*)/g;

/**
 * `@scope/name@1.2.3` → `@scope/name`; a path, a tarball or a placeholder (`@toolshed/…`,
 * `<package>`) → undefined: not a package taken from the registry.
 */
function registryName(spec: string): string | undefined {
  if (/^[./~…$<]|\.tgz$|^(?:file|https?|git\+\w+):|[…*]/.test(spec)) return undefined;
  const at = spec.indexOf("@", 1);
  return at === -1 ? spec : spec.slice(0, at);
}

/** `toolshed-pack` → `create-toolshed-pack`, `@acme/x` → `@acme/create-x`, as npm create does. */
function createPackage(name: string): string {
  const slash = name.indexOf("/");
  return slash === -1 ? `create-${name}` : `${name.slice(0, slash)}/create-${name.slice(slash + 1)}`;
}

/** The registry commands in a line of shell or in an inline code span. */
export function commandsIn(text: string): Command[] {
  const found: Command[] = [];
  for (const match of text.matchAll(COMMAND)) {
    const verb = (match[1] ?? "").replace(/\s+/g, " ");
    const words = (match[2] ?? "").trim().split(/\s+/).filter(Boolean);
    const packages: string[] = [];
    const runs = verb === "npx" || / (?:exec|dlx|create|init)$/.test(verb);
    for (let i = 0; i < words.length; i++) {
      const word = words[i] ?? "";
      if (word === "--") break;
      const packageFlag = /^(?:-p|--package)(?:=(.+))?$/.exec(word);
      if (packageFlag) {
        const name = registryName(packageFlag[1] ?? words[++i] ?? "");
        if (name) packages.push(name);
        continue;
      }
      if (word.startsWith("-")) continue;
      const name = registryName(word.replace(/^["']|["']$/g, ""));
      if (name) packages.push(/ (?:create|init)$/.test(verb) ? createPackage(name) : name);
      // npx and npm create run one package; the words after it are its own arguments.
      if (runs) break;
    }
    found.push({ text: `${verb} ${words.join(" ")}`.trim(), runs, packages });
  }
  return found;
}

/** Commands a JSON client configuration runs: `{"command": "npx", "args": [...]}`. */
function jsonCommands(code: string): Command[] {
  let value: unknown;
  try {
    value = JSON.parse(code);
  } catch {
    return [];
  }
  const found: Command[] = [];
  const walk = (node: unknown) => {
    if (!node || typeof node !== "object") return;
    const { command, args } = node as { command?: unknown; args?: unknown };
    if (typeof command === "string" && Array.isArray(args)) {
      found.push(...commandsIn([command, ...args.map(String)].join(" ")));
    }
    for (const child of Object.values(node)) walk(child);
  };
  walk(value);
  return found;
}

const isToolshed = (name: string) => name.startsWith("@toolshed/") || name === "create-toolshed-pack";

/** The name of each package in packages/* and apps/*, and whether it is private. */
function repositoryPackages(): Map<string, boolean> {
  const names = new Map<string, boolean>();
  for (const group of ["packages", "apps"]) {
    for (const entry of readdirSync(join(ROOT, group), { withFileTypes: true })) {
      const manifest = join(ROOT, group, entry.name, "package.json");
      if (!entry.isDirectory() || !existsSync(manifest)) continue;
      const { name, private: isPrivate } = JSON.parse(readFileSync(manifest, "utf8")) as {
        name: string;
        private?: boolean;
      };
      names.set(name, isPrivate === true);
    }
  }
  return names;
}

/** What is wrong with the install lines of one markdown file, one line per problem. */
export function installProblems(file: string, text: string, packages: Map<string, boolean>): string[] {
  const problems: string[] = [];
  const all = chunks(text);
  // A link to docs/install.md from this file, wherever the file is.
  const pointsAtNote = (line: string) =>
    [...line.matchAll(/\]\(([^)#\s]*install\.md)(?:#[^)]*)?\)/g)].some(
      ([, target = ""]) => join(ROOT, file, "..", target) === NOTE,
    );
  // The note itself is where every registry form sits next to the one that works today.
  const isNote = join(ROOT, file) === NOTE;
  const helps = (chunk: Chunk | undefined) =>
    isNote || chunk?.lines.some((line) => WORKING_FORM.test(line) || pointsAtNote(line)) === true;
  all.forEach((chunk, index) => {
    const near = helps(chunk) || helps(all[index - 1]) || helps(all[index + 1]);
    const commands = chunk.lines.map((line, i) => {
      const at = `${file}:${chunk.start + i}`;
      if (chunk.kind === "code" && chunk.lang === "json") return { at, list: [] };
      if (chunk.kind === "code") return { at, list: commandsIn(line.replace(/\s#\s.*$/, "")) };
      return { at, list: [...line.matchAll(/`([^`]+)`/g)].flatMap(([, span = ""]) => commandsIn(span)) };
    });
    if (chunk.kind === "code" && chunk.lang === "json") {
      commands.push({ at: `${file}:${chunk.start}`, list: jsonCommands(chunk.lines.join("\n")) });
    }
    const installsSqliteDriver = commands.some(({ list }) => list.some((c) => c.packages.includes("better-sqlite3")));
    for (const { at, list } of commands) {
      for (const command of list) {
        const ours = command.packages.filter(isToolshed);
        if (ours.length === 0) continue;
        for (const name of ours) {
          if (!packages.has(name))
            problems.push(`${at}: \`${command.text}\` names ${name}, no package in packages/ or apps/`);
          else if (packages.get(name)) problems.push(`${at}: \`${command.text}\` names ${name}, a private package`);
        }
        if (!near) {
          problems.push(
            `${at}: \`${command.text}\` takes ${ours.join(", ")} from the npm registry, where it is not yet; ` +
              "give the form that works today (npm run pack-local, node …/dist/cli.js) or link docs/install.md nearby",
          );
        }
        // A PostgreSQL-only line (with pg) needs no SQLite driver.
        const packs = ours.filter((name) => SQLITE_PACKS.includes(name));
        if (!command.runs && packs.length > 0 && !command.packages.includes("pg") && !installsSqliteDriver) {
          problems.push(
            `${at}: \`${command.text}\` installs ${packs.join(", ")} without better-sqlite3, which its SQLite store needs on Node before 22.16`,
          );
        }
      }
    }
  });
  return problems;
}

const pages = [
  ...docPages(),
  ...readmeFolders()
    .slice(1) // the repository's own README is not a package's
    .map((folder) => join(folder, "README.md")),
];

describe("install lines", () => {
  const packages = repositoryPackages();

  it("finds the registry commands and the packages they name", () => {
    expect(commandsIn("npm i @toolshed/notes@0.1.0 zod --save-dev")[0]?.packages).toEqual(["@toolshed/notes", "zod"]);
    expect(commandsIn("npx -y @toolshed/stdio-server --db x.db")[0]?.packages).toEqual(["@toolshed/stdio-server"]);
    expect(commandsIn("npm create toolshed-pack@latest my-pack -- --force")[0]?.packages).toEqual([
      "create-toolshed-pack",
    ]);
    expect(commandsIn("yarn add @toolshed/crm && pnpm add @toolshed/http")).toHaveLength(2);
    expect(commandsIn("npm install /x/toolshed-notes-0.1.0.tgz ./y.tgz better-sqlite3@12.11.1")[0]?.packages).toEqual([
      "better-sqlite3",
    ]);
    expect(commandsIn("npm run pack-local -- @toolshed/notes")).toEqual([]);
  });

  it("reports a registry line with no working form near it, an unknown package and a pack without better-sqlite3", () => {
    const page = (body: string) => installProblems("docs/example.md", body, packages);
    expect(page("```sh\nnpm i @toolshed/notes better-sqlite3\n```\n")).toEqual([
      expect.stringContaining(
        "docs/example.md:2: `npm i @toolshed/notes better-sqlite3` takes @toolshed/notes from the npm registry",
      ),
    ]);
    expect(page("Run `npx @toolshed/nope`.\n\nSee [install](install.md).\n")).toEqual([
      "docs/example.md:1: `npx @toolshed/nope` names @toolshed/nope, no package in packages/ or apps/",
    ]);
    expect(page("```sh\nnpm i @toolshed/tickets zod\n```\n\n[Before the release](install.md).\n")).toEqual([
      expect.stringContaining("installs @toolshed/tickets without better-sqlite3"),
    ]);
    // Two paragraphs away is not nearby; a link to another install.md is not the note.
    expect(page("`npx @toolshed/audit`\n\nx\n\n[a](install.md)\n")).toHaveLength(1);
    expect(page("`npx @toolshed/audit` [a](other/install.md)\n")).toHaveLength(1);
    expect(page('```json\n{"s": {"command": "npx", "args": ["-y", "@toolshed/stdio-server"]}}\n```\n')).toHaveLength(1);
    expect(page("```sh\nnpx @toolshed/audit -- node x.js\nnode apps/x/dist/cli.js\n```\n")).toEqual([]);
  });

  // A reader installs what the first install line of the page says, then runs its examples.
  it.each(["getting-started.md", "packs/notes.md", "packs/tickets.md", "packs/crm.md"])(
    "docs/%s: its install line names every @toolshed package its examples import",
    (page) => {
      const blocks = codeBlocks(join(DOCS, page));
      const imported = new Set(
        blocks
          .filter((b) => b.lang === "ts")
          .flatMap((b) => [...b.code.matchAll(/from "(@toolshed\/[\w-]+)/g)].map(([, name = ""]) => name)),
      );
      const install = blocks.find((b) => b.lang === "sh")?.code ?? "";
      const named = new Set(install.split("\n").flatMap((line) => commandsIn(line).flatMap((c) => c.packages)));
      expect(imported.size).toBeGreaterThan(0);
      expect([...imported].filter((name) => !named.has(name))).toEqual([]);
    },
  );

  it.each(pages.map((path) => [relative(ROOT, path), path]))("%s", (file, path) => {
    expect(installProblems(file, readFileSync(path, "utf8"), packages)).toEqual([]);
  });
});
