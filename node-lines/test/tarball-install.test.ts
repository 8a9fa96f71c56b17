import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, createNpmProject } from "../../release/scripts/lib/npm-project.mjs";
import { PNPM, packedTarballs } from "../../release/scripts/lib/pack.mjs";
import { externalPeers, internalClosure } from "../../release/scripts/lib/workspace.mjs";
import { CI, nodeLine } from "./lines.js";

// Issue 17: a pnpm user and an npm user each install a pack from tarballs on Node 24 with default
// settings (no build approval) and it works, through node:sqlite.
//
// What "no build approval needed" is checked by: the install exits 0 with no setting about builds,
// prints no request to approve one (pnpm's approve-builds, npm's install-scripts approve), and leaves
// no compiled better-sqlite3 addon in the project: nothing was built, so there was nothing to approve.
// The script then shows the pack works on node:sqlite without better-sqlite3 ever loading.

const FIXTURE = join(import.meta.dirname, "fixtures", "notes-user.mjs");
const OURS = [...new Set([...internalClosure("@toolshed/notes"), ...internalClosure("@toolshed/server")])].sort();
const line = nodeLine(24);

const cleanup: string[] = [];
let tarballs: Map<string, string>;
beforeAll(() => {
  if ("problem" in line) return;
  tarballs = packedTarballs(OURS);
});
afterAll(() => {
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
});

/** The workspace-free environment of a user whose `node` (and so npm's and pnpm's) is Node 24. */
function node24Env(bin: string): NodeJS.ProcessEnv {
  const env = cleanEnv();
  env.PATH = `${dirname(bin)}${delimiter}${env.PATH ?? ""}`;
  return env;
}

/** Runs a package manager in `cwd`; resolves with its exit code, output and seconds taken. */
function install(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const started = Date.now();
  return new Promise<{ code: number | null; output: string; seconds: number }>((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString("utf8")).slice(-20_000);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output, seconds: Math.round((Date.now() - started) / 1000) }));
  });
}

/** Compiled better-sqlite3 addons anywhere under the project's node_modules (pnpm's store layout included). */
function compiledAddons(dir: string): string[] {
  const found: string[] = [];
  const walk = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const inner = join(path, entry.name);
      if (entry.isDirectory()) walk(inner);
      else if (entry.name === "better_sqlite3.node") found.push(inner);
    }
  };
  if (existsSync(join(dir, "node_modules"))) walk(join(dir, "node_modules"));
  return found;
}

/** The fixture run with Node 24 in the project: what the notes pack did there. */
function runFixture(bin: string, project: string): unknown {
  copyFileSync(FIXTURE, join(project, "notes-user.mjs"));
  const run = spawnSync(bin, ["notes-user.mjs", join(project, "data", "notes.db")], {
    cwd: project,
    env: node24Env(bin),
    encoding: "utf8",
    timeout: 120_000,
  });
  expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
  return JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "");
}

const APPROVAL = /approve-builds|install-scripts approve|ERR_PNPM_IGNORED_BUILDS/;

describe("Node 24: a pack installed from tarballs with default settings works through node:sqlite", () => {
  if ("problem" in line) {
    if (CI) {
      it("has a Node 24 binary", () => {
        throw new Error(line.problem);
      });
    } else {
      it.skip(`skipped: no Node 24 binary: ${line.problem}`, () => {});
    }
    return;
  }
  const { bin, version } = line;
  const specs = () => [...OURS.map((name) => tarballs.get(name) as string), ...externalPeers(OURS)];
  const expected = {
    node: version,
    driver: "node",
    betterSqlite3Loaded: false,
    created: { isError: false, tags: ["kitchen"] },
    found: ["Pancakes"],
  };

  it(`npm (${version}): npm install of @toolshed/notes and what it needs`, async ({ annotate }) => {
    const project = createNpmProject("toolshed-node24-npm-");
    cleanup.push(project);
    const env = node24Env(bin);
    const done = await install("npm", ["install", "--no-audit", "--no-fund", ...specs()], project, env);
    const addons = compiledAddons(project);
    await annotate(
      `npm install on ${version}: exit ${done.code} in ${done.seconds} s; better-sqlite3 ${existsSync(join(project, "node_modules", "better-sqlite3")) ? "installed" : "not installed"}, compiled addons: ${addons.length}`,
    );
    // Soft: the fixture still runs, so a failure shows whether the pack works all the same.
    expect.soft(done.code, done.output).toBe(0);
    expect.soft(done.output).not.toMatch(APPROVAL);
    expect.soft(addons, done.output).toEqual([]);
    expect(runFixture(bin, project)).toEqual(expected);
  });

  it(`pnpm (${version}): pnpm add of @toolshed/notes and what it needs`, async ({ annotate }) => {
    const project = createNpmProject("toolshed-node24-pnpm-");
    cleanup.push(project);
    // Only so that the tarballs' own @toolshed dependencies come from these tarballs, not the registry
    // (npm does that by itself); no setting about builds.
    writeFileSync(
      join(project, "pnpm-workspace.yaml"),
      `overrides:\n${OURS.map((name) => `  "${name}": "file:${tarballs.get(name)}"\n`).join("")}`,
    );
    const env = node24Env(bin);
    const done = await install("npx", [...PNPM, "add", ...specs()], project, env);
    const addons = compiledAddons(project);
    await annotate(
      `pnpm add on ${version}: exit ${done.code} in ${done.seconds} s; compiled better-sqlite3 addons: ${addons.length}`,
    );
    // Soft: the fixture still runs, so a failure shows whether the pack works all the same.
    expect.soft(done.code, done.output).toBe(0);
    expect.soft(done.output).not.toMatch(APPROVAL);
    expect.soft(addons, done.output).toEqual([]);
    expect(runFixture(bin, project)).toEqual(expected);
  });
});
