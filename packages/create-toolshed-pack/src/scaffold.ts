import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { type PackNames, packageNameProblem, packNames } from "./name.js";
import { changeset, packFiles, type TemplateContext } from "./templates/index.js";
import { findToolshedWorkspace } from "./workspace.js";

export interface ScaffoldOptions {
  /** npm package name of the new pack, e.g. `my-pack` or `@acme/weather-pack`. */
  name: string;
  /**
   * Folder to write the pack into (default `./<name without scope>`, and in the Toolshed monorepo
   * `packages/<name without scope>`). Relative to `cwd`.
   */
  dir?: string;
  /** One line for package.json and the README. */
  description?: string;
  /** `workspace` (inside the Toolshed monorepo) or `standalone` (a plain npm project); detected by default. */
  mode?: "workspace" | "standalone";
  /** Write into a folder that is not empty. Files that would change are first renamed to `<file>.bak`. */
  force?: boolean;
  /** Where relative paths start (default `process.cwd()`). */
  cwd?: string;
}

/** What happened to one file. */
export interface WrittenFile {
  /** Absolute path. */
  path: string;
  /** `unchanged`: it already held exactly this text. `replaced`: the old one was kept as `backup`. */
  action: "created" | "replaced" | "unchanged";
  backup?: string;
}

export interface ScaffoldResult {
  dir: string;
  mode: "workspace" | "standalone";
  names: PackNames;
  /** The monorepo root in workspace mode. */
  workspaceRoot?: string;
  files: WrittenFile[];
}

/**
 * Thrown for anything the caller can fix; `usage` is true when the way it was called is at fault
 * (a bad name, a folder that is not empty), false for failures of the file system.
 */
export class ScaffoldError extends Error {
  readonly usage: boolean;
  constructor(message: string, options: { usage: boolean; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ScaffoldError";
    this.usage = options.usage;
  }
}

/** The version of this package: the Toolshed release its packs are made for. */
export function toolshedVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
  return manifest.version;
}

const posix = (path: string) => path.split(sep).join("/");

/** Writes a new pack; never replaces a file without keeping the old one. */
export function scaffoldPack(options: ScaffoldOptions): ScaffoldResult {
  const problem = packageNameProblem(options.name);
  if (problem !== undefined) throw new ScaffoldError(problem, { usage: true });
  const names = packNames(options.name);
  const cwd = resolve(options.cwd ?? process.cwd());
  const detected = findToolshedWorkspace(options.dir === undefined ? cwd : resolve(cwd, options.dir));
  if (options.mode === "workspace" && detected === undefined) {
    throw new ScaffoldError(
      '--workspace needs a folder inside the Toolshed monorepo (a pnpm workspace whose root package.json is named "toolshed"); run it from the checkout or pass --dir inside it, or use --standalone for a plain npm project',
      { usage: true },
    );
  }
  const mode = options.mode ?? (detected === undefined ? "standalone" : "workspace");
  const root = mode === "workspace" ? detected : undefined;
  const dir =
    options.dir !== undefined
      ? resolve(cwd, options.dir)
      : root !== undefined
        ? join(root, "packages", names.unscoped)
        : join(cwd, names.unscoped);

  checkTarget(dir, options.force ?? false);
  const ctx: TemplateContext = {
    names,
    description: options.description?.trim() || `Toolshed tool pack ${names.pack}: tools for MCP servers`,
    toolshedVersion: toolshedVersion(),
    mode,
    rootFromPack: root === undefined ? "" : posix(relative(dir, root)) || ".",
    packFromRoot: root === undefined ? "" : posix(relative(root, dir)),
    sourceCondition: root !== undefined && existsSync(join(root, "vitest.shared.ts")),
  };
  const planned: Array<[string, string]> = [...packFiles(ctx)].map(([path, text]) => [join(dir, path), text]);
  if (root !== undefined) {
    const file = join(root, ".changeset", `${names.packageName.replace(/^@/, "").replace("/", "-")}.md`);
    if (existsSync(file) && readFileSync(file, "utf8") !== changeset(ctx) && !options.force) {
      throw new ScaffoldError(
        `${file} exists already; pass --force to keep it as ${file}.bak and write a new one, or remove it`,
        { usage: true },
      );
    }
    planned.push([file, changeset(ctx)]);
  }
  // Nothing is written when any planned path goes through a symbolic link.
  for (const [path] of planned) refuseLinks(root !== undefined && !path.startsWith(dir) ? root : dir, path);
  const files = planned.map(([path, text]) => writeSafely(path, text));
  return { dir, mode, names, ...(root === undefined ? {} : { workspaceRoot: root }), files };
}

function checkTarget(dir: string, force: boolean): void {
  if (!existsSync(dir)) return;
  if (!statSync(dir).isDirectory()) {
    throw new ScaffoldError(`${dir} is a file, not a folder; choose another folder with --dir`, { usage: true });
  }
  const entries = readdirSync(dir);
  if (entries.length > 0 && !force) {
    const shown = entries.slice(0, 5).join(", ") + (entries.length > 5 ? `, … (${entries.length} in all)` : "");
    throw new ScaffoldError(
      `${dir} is not empty (${shown}); choose an empty or new folder with --dir, or pass --force to write into it (files that would change are kept as <file>.bak)`,
      { usage: true },
    );
  }
}

/**
 * Refuses a planned file when it, or a folder between `base` and it, is a symbolic link: a link
 * planted in the target (say src -> /etc, or a dangling src/index.ts -> ~/.profile) would make the
 * scaffold write outside the folder it was given.
 */
function refuseLinks(base: string, path: string): void {
  const parts = relative(base, path).split(sep);
  let at = base;
  for (const part of parts) {
    at = join(at, part);
    let link = false;
    try {
      link = lstatSync(at).isSymbolicLink();
    } catch {
      return; // does not exist yet: nothing below it exists either
    }
    if (link) {
      throw new ScaffoldError(
        `${at} is a symbolic link; the scaffold writes only real files and folders inside ${base}: remove the link, or choose another folder with --dir`,
        { usage: true },
      );
    }
  }
}

function writeSafely(path: string, text: string): WrittenFile {
  try {
    if (existsSync(path)) {
      if (statSync(path).isFile() && readFileSync(path, "utf8") === text) return { path, action: "unchanged" };
      const backup = freeName(`${path}.bak`);
      renameSync(path, backup);
      // "wx": never through a link or onto a file that appeared meanwhile.
      writeFileSync(path, text, { flag: "wx" });
      return { path, action: "replaced", backup };
    }
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text, { flag: "wx" });
    return { path, action: "created" };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    throw new ScaffoldError(`cannot write ${path} (${code}); choose a folder you can write with --dir`, {
      usage: false,
      cause: error,
    });
  }
}

function freeName(base: string): string {
  if (!existsSync(base)) return base;
  for (let i = 1; ; i++) if (!existsSync(`${base}.${i}`)) return `${base}.${i}`;
}

/** `path` relative to `from` when that is shorter, else absolute; for messages. */
export function shortPath(path: string, from: string): string {
  const rel = relative(from, path);
  if (rel === "") return ".";
  return isAbsolute(rel) || rel.length >= path.length ? path : rel;
}
