import { spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { stripVTControlCharacters } from "node:util";
import { afterAll, expect, it } from "vitest";
import { cleanEnv } from "../scripts/lib/npm-project.mjs";
import { packedTarballs } from "../scripts/lib/pack.mjs";
import { internalClosure } from "../scripts/lib/workspace.mjs";

// The promise of create-toolshed-pack: `npm create toolshed-pack@latest my-pack` writes a pack that
// installs, passes its own tests (on @toolshed/testing) and builds, with nothing but npm. The
// @toolshed packages come from tarballs of this checkout instead of the registry.

const cleanup: string[] = [];
afterAll(() => {
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
});

/** The user's environment: no npm settings of the workspace run, no vitest state of this one. */
function userEnv(): NodeJS.ProcessEnv {
  const env = cleanEnv();
  for (const key of Object.keys(env)) {
    if (/^(VITEST|TOOLSHED_)/.test(key) || key === "NODE_ENV" || key === "NODE_OPTIONS") delete env[key];
  }
  return env;
}

function run(command: string, args: string[], cwd: string) {
  const result = spawnSync(command, args, {
    cwd,
    env: userEnv(),
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    timeout: 1_500_000,
  });
  // Without colour codes, so the output reads as a user sees it in a log.
  const output = stripVTControlCharacters(`${result.stdout ?? ""}\n${result.stderr ?? ""}`);
  return { status: result.status, output: output.slice(-8000) };
}

// npm install builds better-sqlite3 from source: over ten minutes on a loaded 2-core machine.
it("create-toolshed-pack from its tarball writes a pack whose own npm test and npm run build pass", {
  timeout: 1_800_000,
}, async () => {
  const ours = [
    ...new Set([
      "create-toolshed-pack",
      ...internalClosure("@toolshed/testing"),
      ...internalClosure("@toolshed/storage"),
      ...internalClosure("@toolshed/server"),
    ]),
  ].sort();
  expect(ours).toEqual([
    "@toolshed/errors",
    "@toolshed/schema",
    "@toolshed/server",
    "@toolshed/storage",
    "@toolshed/testing",
    "create-toolshed-pack",
  ]);
  const tarballs = packedTarballs(ours);

  // As `npm create toolshed-pack my-pack` does (npm exec --package create-toolshed-pack -- create-toolshed-pack my-pack).
  const work = mkdtempSync(join(tmpdir(), "toolshed-scaffold-user-"));
  cleanup.push(work);
  const created = run(
    "npx",
    ["--yes", "--package", tarballs.get("create-toolshed-pack") as string, "--", "create-toolshed-pack", "my-pack"],
    work,
  );
  expect(created.status, created.output).toBe(0);
  expect(created.output).toContain("Created my-pack in my-pack (a standalone npm project).");
  const project = join(work, "my-pack");

  // The scaffold asks for this release's @toolshed packages; point them at the tarballs. Overrides
  // keep the registry's copies out of the tree when one package asks for another.
  const file = join(project, "package.json");
  const manifest = JSON.parse(readFileSync(file, "utf8"));
  const local = (name: string) => `file:${tarballs.get(name)}`;
  const overrides: Record<string, string> = {};
  for (const field of ["dependencies", "devDependencies"] as const) {
    for (const name of Object.keys(manifest[field])) {
      if (!name.startsWith("@toolshed/")) continue;
      expect(tarballs.has(name), `${name} was not packed`).toBe(true);
      manifest[field][name] = local(name);
      overrides[name] = local(name);
    }
  }
  writeFileSync(file, `${JSON.stringify({ ...manifest, overrides }, null, 2)}\n`);

  const installed = run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], project);
  expect(installed.status, installed.output).toBe(0);

  const tested = run("npm", ["test"], project);
  expect(tested.status, tested.output).toBe(0);
  expect(tested.output).toMatch(/Test Files {2}5 passed \(5\)/);
  // The first run writes the contract snapshot the README says to commit.
  const snapshot = JSON.parse(readFileSync(join(project, "contract.snapshot.json"), "utf8"));
  expect(snapshot.tools.map((tool: { name: string }) => tool.name)).toEqual(["my_get_item", "my_add_item"]);

  const typechecked = run("npm", ["run", "typecheck"], project);
  expect(typechecked.status, typechecked.output).toBe(0);

  const built = run("npm", ["run", "build"], project);
  expect(built.status, built.output).toBe(0);
  expect(readdirSync(join(project, "dist")).sort()).toEqual(
    expect.arrayContaining(["index.d.ts", "index.js", "index.js.map"]),
  );

  // The built package works as its users import it.
  writeFileSync(
    join(project, "use.mjs"),
    `import { myPack, SqliteMyStore, toolshedPack } from "my-pack";
const pack = myPack({ store: SqliteMyStore.open(":memory:"), closeStore: true });
console.log(JSON.stringify({ name: pack.name, tools: pack.tools.map((t) => t.name), prompts: pack.prompts.map((p) => p.name), descriptor: [toolshedPack.kind, toolshedPack.name, toolshedPack.version] }));
await pack.close();
`,
  );
  const used = run(process.execPath, ["use.mjs"], project);
  expect(used.status, used.output).toBe(0);
  expect(JSON.parse(used.output.trim().split("\n")[0] ?? "")).toEqual({
    name: "my",
    tools: ["my_get_item", "my_add_item"],
    prompts: ["my_review_item"],
    descriptor: ["packDescriptor", "my", "0.1.0"],
  });
  expect(existsSync(join(project, "node_modules", "@toolshed", "testing", "dist", "index.js"))).toBe(true);

  // A team serves it beside @toolshed/notes with no server code: installed in a folder's
  // node_modules, named in toolshed.config.json, served by toolshed-stdio over real stdio.
  const team = join(work, "team");
  mkdirSync(join(team, "node_modules"), { recursive: true });
  symlinkSync(project, join(team, "node_modules", "my-pack"), "dir");
  writeFileSync(
    join(team, "toolshed.config.json"),
    JSON.stringify({ packs: { "@toolshed/notes": {}, "my-pack": {} }, server: { db: "team.db" } }),
  );
  const stdioCli = fileURLToPath(new URL("../../apps/stdio-server/dist/cli.js", import.meta.url));
  const checked = run(process.execPath, [stdioCli, "--check-config"], team);
  expect(checked.status, checked.output).toBe(0);
  expect(checked.output).toContain(
    "  my 0.1.0: Items: add one and read it back, with an item resource and a review prompt\n",
  );
  expect(checked.output).toContain("    tools: my_get_item, my_add_item\n");
  const answers = await stdioSession(stdioCli, team, [
    { method: "tools/call", params: { name: "my_add_item", arguments: { text: "from the team's shed" } } },
    { method: "tools/call", params: { name: "my_get_item", arguments: { id: 1 } } },
    { method: "tools/call", params: { name: "my_get_item", arguments: { id: 99 } } },
    { method: "tools/call", params: { name: "get_note", arguments: { title: "none" } } },
  ]);
  expect(answers[0]).toMatchObject({ result: { structuredContent: { id: 1, text: "from the team's shed" } } });
  expect(answers[1]).toMatchObject({ result: { structuredContent: { id: 1, text: "from the team's shed" } } });
  // The pack's errors keep the taxonomy across its own copy of @toolshed/errors.
  expect(answers[2]).toMatchObject({
    result: { isError: true, _meta: { "toolshed.dev/error": { code: "not_found" } } },
  });
});

/** Starts toolshed-stdio in `cwd`, initializes, sends each request in turn and returns the answers. */
async function stdioSession(cli: string, cwd: string, requests: { method: string; params: unknown }[]) {
  const child = spawn(process.execPath, [cli], { cwd, env: userEnv(), stdio: ["pipe", "pipe", "pipe"] });
  const lines = createInterface({ input: child.stdout });
  const pending = new Map<number, (answer: Record<string, unknown>) => void>();
  lines.on("line", (line) => {
    const message = JSON.parse(line) as Record<string, unknown>;
    if (typeof message.id === "number") pending.get(message.id)?.(message);
  });
  const ask = (id: number, method: string, params: unknown) =>
    new Promise<Record<string, unknown>>((resolve) => {
      pending.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    });
  try {
    await ask(0, "initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "scaffold-test", version: "1" },
    });
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    const answers = [];
    for (const [i, request] of requests.entries()) answers.push(await ask(i + 1, request.method, request.params));
    return answers;
  } finally {
    child.stdin.end();
    await new Promise((resolve) => child.once("exit", resolve));
  }
}
