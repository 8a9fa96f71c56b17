import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { hasNodeSqlite } from "../src/versions.js";

const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const VERSION: string = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version;

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "create-toolshed-pack-"));
  temps.push(dir);
  return dir;
}

function run(args: string[], cwd: string) {
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: "utf8", timeout: 30_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Every file under `dir`, relative, sorted. */
function filesIn(dir: string): string[] {
  const out: string[] = [];
  const visit = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) visit(path);
      else out.push(relative(dir, path));
    }
  };
  visit(dir);
  return out.sort();
}

const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8"));

const PACK_FILES = [
  ".gitignore",
  "README.md",
  "examples/stdio.ts",
  "package.json",
  "src/index.ts",
  "src/not-found.ts",
  "src/pack.ts",
  "src/prompts/review_item.ts",
  "src/resources/item.ts",
  "src/schemas.ts",
  "src/sqlite/migrations.ts",
  "src/sqlite/store.ts",
  "src/store.ts",
  "src/tools/add_item.ts",
  "src/tools/get_item.ts",
  "src/toolshed-pack.ts",
  "test/contract.test.ts",
  "test/descriptor.test.ts",
  "test/fuzz.test.ts",
  "test/store.test.ts",
  "test/tools.test.ts",
  "tsconfig.json",
  "tsup.config.ts",
  "vitest.config.ts",
];

/** A folder that looks like the Toolshed monorepo's root. */
function fakeMonorepo(name = "toolshed"): string {
  const root = tempDir();
  writeFileSync(join(root, "package.json"), JSON.stringify({ name, private: true }));
  writeFileSync(join(root, "pnpm-workspace.yaml"), "packages:\n  - packages/*\n");
  mkdirSync(join(root, "packages"));
  mkdirSync(join(root, ".changeset"));
  return root;
}

describe("usage", () => {
  it("prints the help and the version", () => {
    const help = run(["--help"], tempDir());
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: create-toolshed-pack <name> \[options\]/);
    for (const flag of ["--dir", "--description", "--workspace", "--standalone", "--force"]) {
      expect(help.stdout).toContain(flag);
    }
    expect(run(["--version"], tempDir())).toEqual({ status: 0, stdout: `${VERSION}\n`, stderr: "" });
  });

  it.each([
    [[], "give the package name of the new pack, e.g. create-toolshed-pack my-pack"],
    [["a", "b"], 'give one package name, got 2 (a b); quote a description with spaces: --description "…"'],
    [
      ["my-pack", "--colour"],
      "unknown option --colour; the options are --dir, --description, --workspace, --standalone, --force, --help, --version",
    ],
    [["my-pack", "--dir"], '--dir needs a value, e.g. --dir packs/my-pack or --description "Weather tools"'],
    [["my-pack", "--dir", " "], "--dir is empty; give a value or leave it out"],
    [["my-pack", "--workspace", "--standalone"], "choose one of --workspace and --standalone"],
    [["My Pack"], '"My Pack" has capital letters; npm names are lowercase; try my-pack'],
    [
      ["my pack!"],
      '"my pack!" has characters npm does not allow in a name (only lowercase letters, digits, "-", ".", "_" and "~"); try my-pack',
    ],
    [[".hidden"], '".hidden" starts with "."; npm names cannot; try hidden'],
    [
      ["@Acme/Weather"],
      'the scope "@Acme" is not a valid npm scope (lowercase letters, digits, "-", "." and "_", not first); try @acme/weather',
    ],
    [["a/b"], '"a/b" has a "/" outside a scope; a name is name or @scope/name; try a-b'],
    [["fs"], '"fs" is reserved (a Node.js module or an npm name); choose another, such as fs-pack'],
    [["x".repeat(215)], "the package name is 215 characters long; npm allows at most 214"],
  ])("exits 2 with a hint, and no stack trace, for %j", (args, message) => {
    const dir = tempDir();
    const result = run(args, dir);
    expect(result).toEqual({
      status: 2,
      stdout: "",
      stderr: `create-toolshed-pack: ${message}\nRun create-toolshed-pack --help for the options.\n`,
    });
    expect(readdirSync(dir)).toEqual([]);
  });

  it("exits 2 for --workspace outside the Toolshed monorepo, and writes nothing", () => {
    const dir = tempDir();
    const result = run(["my-pack", "--workspace"], dir);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("--workspace needs a folder inside the Toolshed monorepo");
    expect(result.stderr).toContain("use --standalone for a plain npm project");
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe("a standalone pack", () => {
  it("writes the pack's files into ./<name> and says what to run next", () => {
    const cwd = tempDir();
    const result = run(["my-pack"], cwd);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const dir = join(cwd, "my-pack");
    expect(filesIn(dir)).toEqual(PACK_FILES);
    expect(result.stdout).toContain("Created my-pack in my-pack (a standalone npm project).");
    expect(result.stdout).toContain('Pack "my": tools my_get_item and my_add_item.');
    for (const file of PACK_FILES) expect(result.stdout).toContain(`  created    ${file}\n`);
    expect(result.stdout).toContain("Next:\n  cd my-pack\n  npm install\n  npm test\n  npm run build\n\n");
    // Until the first release, npm install cannot fetch @toolshed packages: say what works instead.
    expect(result.stdout).toMatch(
      /so npm install fails \(E404\)\. In a\nclone of Toolshed, run npm run pack-local -- @toolshed\/server @toolshed\/storage @toolshed\/testing\nand run the npm install line it prints in my-pack instead: https:\/\/github\.com\/toolshed-dev\/toolshed\/blob\/main\/docs\/install\.md\n$/,
    );
    expect(readFileSync(join(dir, "README.md"), "utf8")).toContain(
      "## Test\n\nUntil Toolshed's first release its packages are not on npm, so `npm install` fails (E404). In a\n" +
        "clone of Toolshed, run `npm run pack-local -- @toolshed/server @toolshed/storage @toolshed/testing`\n",
    );
  });

  it("depends on the @toolshed packages of its own release, and pins its dev tools", () => {
    const cwd = tempDir();
    expect(run(["@acme/weather-pack", "--description", "Weather for models"], cwd).status).toBe(0);
    const manifest = readJson(join(cwd, "weather-pack", "package.json"));
    expect(manifest).toMatchObject({
      name: "@acme/weather-pack",
      version: "0.1.0",
      description: "Weather for models",
      type: "module",
      scripts: { build: "tsup", test: "vitest run", typecheck: "tsc --noEmit" },
      dependencies: {
        "@toolshed/errors": `^${VERSION}`,
        "@toolshed/schema": `^${VERSION}`,
        "@toolshed/storage": `^${VERSION}`,
      },
      peerDependencies: { "@modelcontextprotocol/sdk": "^1.32.0", zod: "^4.0.0" },
    });
    expect(Object.keys(manifest.devDependencies).sort()).toEqual(
      [
        "@modelcontextprotocol/sdk",
        "@toolshed/server",
        "@toolshed/testing",
        "@types/node",
        "tsup",
        "typescript",
        "vitest",
        "zod",
        // The store's tests need the native SQLite driver on a Node without node:sqlite.
        ...(hasNodeSqlite() ? [] : ["better-sqlite3"]),
      ].sort(),
    );
    expect(manifest.devDependencies["@toolshed/testing"]).toBe(`^${VERSION}`);
    expect(Object.values(manifest.devDependencies).some((v) => String(v).startsWith("catalog:"))).toBe(false);
    expect(readJson(join(cwd, "weather-pack", "tsconfig.json")).extends).toBeUndefined();
  });

  it("names the pack and its tools after the package name without scope or -pack", () => {
    const cwd = tempDir();
    expect(run(["@acme/weather-pack"], cwd).status).toBe(0);
    const src = join(cwd, "weather-pack", "src");
    expect(readFileSync(join(src, "pack.ts"), "utf8")).toContain('name: "weather",');
    expect(readFileSync(join(src, "pack.ts"), "utf8")).toContain("export function weatherPack(");
    expect(readFileSync(join(src, "tools", "get_item.ts"), "utf8")).toContain('name: "weather_get_item",');
    expect(readFileSync(join(src, "tools", "add_item.ts"), "utf8")).toContain('name: "weather_add_item",');
    expect(readFileSync(join(src, "resources", "item.ts"), "utf8")).toContain('uriTemplate: "weather://items/{id}",');
    expect(readFileSync(join(src, "sqlite", "store.ts"), "utf8")).toContain("export class SqliteWeatherStore ");
  });

  it("writes into --dir, relative to where it runs", () => {
    const cwd = tempDir();
    const result = run(["my-pack", "--dir", "packs/tools"], cwd);
    expect(result.status).toBe(0);
    expect(filesIn(join(cwd, "packs", "tools"))).toEqual(PACK_FILES);
    expect(result.stdout).toContain("Created my-pack in packs/tools");
    expect(result.stdout).toContain("  cd packs/tools\n");
  });

  it("writes into an empty folder that exists, also the current one", () => {
    const cwd = tempDir();
    const result = run(["my-pack", "--dir", "."], cwd);
    expect(result.status).toBe(0);
    expect(filesIn(cwd)).toEqual(PACK_FILES);
    expect(result.stdout).not.toContain("  cd ");
  });
});

describe("a folder that is not empty", () => {
  function occupied() {
    const cwd = tempDir();
    const dir = join(cwd, "my-pack");
    mkdirSync(dir);
    writeFileSync(join(dir, "package.json"), '{"name":"mine"}\n');
    writeFileSync(join(dir, "notes.txt"), "keep me\n");
    return { cwd, dir };
  }

  it("is refused without --force, and left as it was", () => {
    const { cwd, dir } = occupied();
    const result = run(["my-pack"], cwd);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      `create-toolshed-pack: ${dir} is not empty (notes.txt, package.json); choose an empty or new folder with --dir, or pass --force to write into it (files that would change are kept as <file>.bak)\nRun create-toolshed-pack --help for the options.\n`,
    );
    expect(filesIn(dir)).toEqual(["notes.txt", "package.json"]);
    expect(readFileSync(join(dir, "package.json"), "utf8")).toBe('{"name":"mine"}\n');
  });

  it("takes the pack with --force, keeping every replaced file as <file>.bak", () => {
    const { cwd, dir } = occupied();
    const result = run(["my-pack", "--force"], cwd);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("  replaced   package.json (the old one is package.json.bak)\n");
    expect(filesIn(dir)).toEqual([...PACK_FILES, "notes.txt", "package.json.bak"].sort());
    expect(readFileSync(join(dir, "package.json.bak"), "utf8")).toBe('{"name":"mine"}\n');
    expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("keep me\n");
    expect(readJson(join(dir, "package.json")).name).toBe("my-pack");

    // Again: identical files stay as they are; a changed one gets the next free backup name.
    writeFileSync(join(dir, "README.md"), "my edits\n");
    const again = run(["my-pack", "--force"], cwd);
    expect(again.status).toBe(0);
    expect(again.stdout).toContain("  unchanged  package.json\n");
    expect(again.stdout).toContain("  replaced   README.md (the old one is README.md.bak)\n");
    writeFileSync(join(dir, "README.md"), "more edits\n");
    expect(run(["my-pack", "--force"], cwd).stdout).toContain(
      "  replaced   README.md (the old one is README.md.bak.1)\n",
    );
    expect(readFileSync(join(dir, "README.md.bak"), "utf8")).toBe("my edits\n");
    expect(readFileSync(join(dir, "README.md.bak.1"), "utf8")).toBe("more edits\n");
  });

  // Issue 36: a link planted in the target must not make the scaffold write outside it.
  it("is refused with --force when a folder in it is a symbolic link, and nothing is written anywhere", () => {
    const cwd = tempDir();
    const outside = join(cwd, "outside");
    mkdirSync(outside);
    const dir = join(cwd, "my-pack");
    mkdirSync(dir);
    symlinkSync(outside, join(dir, "src"));
    const result = run(["my-pack", "--force"], cwd);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(
      `create-toolshed-pack: ${join(dir, "src")} is a symbolic link; the scaffold writes only real files and folders inside ${dir}: remove the link, or choose another folder with --dir`,
    );
    expect(readdirSync(outside)).toEqual([]);
    expect(readdirSync(dir)).toEqual(["src"]);
  });

  it("is refused with --force when a file it would write is a dangling link, and the link's target is not created", () => {
    const cwd = tempDir();
    const dir = join(cwd, "my-pack");
    mkdirSync(dir);
    const target = join(cwd, "planted-profile");
    symlinkSync(target, join(dir, "README.md"));
    const result = run(["my-pack", "--force"], cwd);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`${join(dir, "README.md")} is a symbolic link`);
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(dir)).toEqual(["README.md"]);
  });

  it("is refused when it is a file", () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, "my-pack"), "");
    const result = run(["my-pack"], cwd);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(
      `${join(cwd, "my-pack")} is a file, not a folder; choose another folder with --dir`,
    );
  });
});

describe("inside the Toolshed monorepo", () => {
  it("is detected, writes packages/<name> with workspace and catalog versions, and a changeset", () => {
    const root = fakeMonorepo();
    mkdirSync(join(root, "apps"));
    const result = run(["@acme/weather-pack", "--description", "Weather for models"], join(root, "apps"));
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const dir = join(root, "packages", "weather-pack");
    expect(filesIn(dir)).toEqual(PACK_FILES.filter((file) => file !== ".gitignore"));
    const manifest = readJson(join(dir, "package.json"));
    expect(manifest.version).toBe(VERSION);
    expect(manifest.dependencies).toEqual({
      "@toolshed/errors": "workspace:^",
      "@toolshed/schema": "workspace:^",
      "@toolshed/storage": "workspace:^",
    });
    expect(manifest.devDependencies).toEqual({
      "@modelcontextprotocol/sdk": "catalog:",
      "@toolshed/server": "workspace:^",
      "@toolshed/testing": "workspace:^",
      "@types/node": "catalog:",
      tsup: "catalog:",
      typescript: "catalog:",
      vitest: "catalog:",
      zod: "catalog:",
    });
    expect(readJson(join(dir, "tsconfig.json")).extends).toBe("../../tsconfig.base.json");
    expect(readFileSync(join(dir, "vitest.config.ts"), "utf8")).toContain('name: "weather-pack"');
    expect(manifest.exports["."]).toEqual({ types: "./dist/index.d.ts", default: "./dist/index.js" });
    expect(readFileSync(join(root, ".changeset", "acme-weather-pack.md"), "utf8")).toBe(
      '---\n"@acme/weather-pack": minor\n---\n\nNew pack @acme/weather-pack: Weather for models\n',
    );
    expect(result.stdout).toContain("(a package of the Toolshed monorepo)");
    expect(result.stdout).toContain("  created    packages/weather-pack/src/index.ts\n");
    expect(result.stdout).toContain("  created    .changeset/acme-weather-pack.md\n");
    expect(result.stdout).toContain("Next:\n  cd ..\n  npx -y pnpm@12.4.2 install\n");
    expect(result.stdout).toContain("npx -y pnpm@12.4.2 --filter @acme/weather-pack test");
    expect(result.stdout).toContain('add "@acme/weather-pack" to the fixed group in .changeset/config.json');
    // In the monorepo the packages come from the workspace: no note about the registry.
    expect(result.stdout).not.toContain("pack-local");
    expect(readFileSync(join(dir, "README.md"), "utf8")).not.toContain("pack-local");
  });

  it("resolves workspace packages to their sources in tests when the monorepo shares that vitest setup", () => {
    const root = fakeMonorepo();
    writeFileSync(join(root, "vitest.shared.ts"), "export const sharedProject = {};\n");
    expect(run(["my-pack"], root).status).toBe(0);
    const dir = join(root, "packages", "my-pack");
    const manifest = readJson(join(dir, "package.json"));
    const built = { types: "./dist/index.d.ts", default: "./dist/index.js" };
    expect(manifest.exports["."]).toEqual({ "@toolshed/source": "./src/index.ts", ...built });
    expect(Object.keys(manifest.exports["."])[0]).toBe("@toolshed/source");
    expect(manifest.publishConfig.exports["."]).toEqual(built);
    const config = readFileSync(join(dir, "vitest.config.ts"), "utf8");
    expect(config).toContain('import { sharedProject } from "../../vitest.shared.js";');
    expect(config).toContain("mergeConfig(");
  });

  it("honours --dir, and --standalone makes a plain npm project there", () => {
    const root = fakeMonorepo();
    expect(run(["my-pack", "--dir", "tools/my-pack", "--workspace"], root).status).toBe(0);
    expect(readJson(join(root, "tools", "my-pack", "tsconfig.json")).extends).toBe("../../tsconfig.base.json");

    const standalone = run(["other-pack", "--standalone"], root);
    expect(standalone.status).toBe(0);
    const manifest = readJson(join(root, "other-pack", "package.json"));
    expect(manifest.dependencies["@toolshed/schema"]).toBe(`^${VERSION}`);
    expect(readdirSync(join(root, ".changeset"))).toEqual(["my-pack.md"]);
  });

  it("is not another pnpm workspace", () => {
    const root = fakeMonorepo("someone-else");
    const result = run(["my-pack"], root);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("(a standalone npm project)");
    expect(filesIn(join(root, "my-pack"))).toEqual(PACK_FILES);
  });

  it("refuses to replace another changeset of the same name without --force", () => {
    const root = fakeMonorepo();
    writeFileSync(join(root, ".changeset", "my-pack.md"), "mine\n");
    const result = run(["my-pack"], root);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`${join(root, ".changeset", "my-pack.md")} exists already; pass --force`);
    expect(readdirSync(join(root, "packages"))).toEqual([]);
  });
});
