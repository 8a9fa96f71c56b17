import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNpmProject, npmInstallAsync, runTsc } from "../scripts/lib/npm-project.mjs";
import { packedTarballs } from "../scripts/lib/pack.mjs";
import { CATALOG, externalPeers, internalClosure, nativeSqlitePeers, ROOT } from "../scripts/lib/workspace.mjs";

// docs/getting-started.md "CommonJS or ES modules": its TypeScript example (docs/examples, also valid
// JavaScript as written) and its CommonJS block, run from the packed packages as a user would.
const EXAMPLE = readFileSync(join(ROOT, "docs", "examples", "module-modes.ts"), "utf8");
const GUIDE = readFileSync(join(ROOT, "docs", "getting-started.md"), "utf8");

function commonJsBlock(): string {
  const section = GUIDE.split(/^## CommonJS or ES modules$/m)[1]?.split(/^## /m)[0] ?? "";
  const block = /^```js\n([\s\S]*?)^```$/m.exec(section)?.[1];
  if (!block) throw new Error('docs/getting-started.md: no js block under "## CommonJS or ES modules"');
  return block;
}

const OURS = [...new Set([...internalClosure("@toolshed/notes"), ...internalClosure("@toolshed/server")])];
const cleanup: string[] = [];
let commonJsProject: Promise<string>;
let esmProject: Promise<string>;

/** What the example prints: the tool's structured result and the template read. */
const EXPECTED = {
  note: { title: "groceries", body: "milk, eggs" },
  resource: { uri: "note://groceries", text: "milk, eggs" },
};

async function installed(prefix: string, type: "commonjs" | "module", tarballs: Map<string, string>): Promise<string> {
  const project = createNpmProject(prefix, type);
  cleanup.push(project);
  const files = OURS.map((name) => {
    const file = tarballs.get(name);
    if (!file) throw new Error(`no tarball for ${name}`);
    return file;
  });
  await npmInstallAsync(project, [
    ...files,
    ...externalPeers(OURS),
    `@types/node@${CATALOG["@types/node"]}`,
    ...nativeSqlitePeers(OURS),
  ]);
  return project;
}

beforeAll(() => {
  // Both install at once: each compiles better-sqlite3 on one core where no prebuilt one is cached.
  const tarballs = packedTarballs();
  commonJsProject = installed("toolshed-cjs-user-", "commonjs", tarballs);
  esmProject = installed("toolshed-esm-user-", "module", tarballs);
  // Failures surface in the tests that await them; this only stops an unhandled rejection.
  commonJsProject.catch(() => {});
  esmProject.catch(() => {});
});

afterAll(() => {
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
});

function node(project: string, file: string) {
  return spawnSync(process.execPath, [file], { cwd: project, encoding: "utf8", timeout: 120_000 });
}

function printed(run: ReturnType<typeof node>): unknown {
  expect(run.stderr).toBe("");
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "");
}

/** tsc as a user runs it: strict, library types checked too, "module": "nodenext". */
function compileTypeScript(project: string): string {
  writeFileSync(join(project, "example.ts"), EXAMPLE);
  const tsc = runTsc(project, ["example.ts"], { outDir: "out" });
  expect(tsc.output).toBe("");
  expect(tsc.status).toBe(0);
  return readFileSync(join(project, "out", "example.js"), "utf8");
}

describe("the packages in a CommonJS project (npm init -y) and an ES module one", () => {
  it("CommonJS, JavaScript: the guide's require() block runs; the ES module example as a .js file stops as the guide says", async () => {
    const project = await commonJsProject;
    expect(JSON.parse(readFileSync(join(project, "package.json"), "utf8")).type).toBe("commonjs");
    const block = commonJsBlock();
    // The guide calls it the same program as the TypeScript example: only the imports differ.
    const body = (code: string) => code.slice(code.indexOf("async function main"));
    expect(body(block)).toBe(body(EXAMPLE));
    writeFileSync(join(project, "index.js"), block);
    expect(printed(node(project, "index.js"))).toMatchObject(EXPECTED);

    writeFileSync(join(project, "imported.js"), EXAMPLE);
    const imported = node(project, "imported.js");
    expect(imported.status).not.toBe(0);
    expect(imported.stderr).toContain("SyntaxError: Cannot use import statement outside a module");
  });

  it("CommonJS, TypeScript: tsc compiles the example to require() with no type error, and it runs", async () => {
    const project = await commonJsProject;
    const emitted = compileTypeScript(project);
    expect(emitted).toContain('require("@toolshed/server")');
    expect(printed(node(project, join("out", "example.js")))).toMatchObject(EXPECTED);
  });

  it("ES module, JavaScript: the example, saved as .js, runs", async () => {
    const project = await esmProject;
    expect(JSON.parse(readFileSync(join(project, "package.json"), "utf8")).type).toBe("module");
    writeFileSync(join(project, "index.js"), EXAMPLE);
    expect(printed(node(project, "index.js"))).toMatchObject(EXPECTED);
  });

  it("ES module, TypeScript: tsc keeps the imports with no type error, and it runs", async () => {
    const project = await esmProject;
    const emitted = compileTypeScript(project);
    expect(emitted).toContain('from "@toolshed/server"');
    expect(printed(node(project, join("out", "example.js")))).toMatchObject(EXPECTED);
  });
});
