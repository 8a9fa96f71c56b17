import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { createNpmProject, npmInstall } from "../scripts/lib/npm-project.mjs";
import { packedTarballs } from "../scripts/lib/pack.mjs";
import { externalPeers, internalClosure, ROOT, readJson } from "../scripts/lib/workspace.mjs";

// The promise of @toolshed/http: a team that mounts its own pack in its own Express app (or serves
// the Fetch handler) installs the transport and what it needs, and no database driver or pack.

const cleanup: string[] = [];
afterAll(() => {
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
});

// The Express the examples are tested with.
const EXPRESS: string = readJson(join(ROOT, "packages", "http", "package.json")).devDependencies.express;

const APP = `
import { once } from "node:events";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createHttpApp } from "@toolshed/http";
import { definePack, defineTool } from "@toolshed/schema";
import express from "express";
import { z } from "zod";

const shout = defineTool({
  name: "shout",
  description: "Says the text back in capitals.",
  input: z.object({ text: z.string().max(100).describe("What to shout") }),
  output: z.object({ text: z.string() }),
  annotations: { readOnlyHint: true },
  handler: ({ text }) => ({ text: text.toUpperCase() }),
});
const silent = { error() {}, warn() {}, info() {}, debug() {} };
const TOKEN = "user-token-0123456789abcdef";
const http = createHttpApp({
  packs: [definePack({ name: "shout", tools: [shout] })],
  tokens: [{ id: "user", token: TOKEN, scopes: ["tools:read"] }],
  logger: silent,
});

const app = express();
app.use(express.json());
app.all("/mcp", http.nodeListener);
const server = app.listen(0, "127.0.0.1");
await once(server, "listening");
const client = new Client({ name: "user", version: "1.0.0" });
await client.connect(
  new StreamableHTTPClientTransport(new URL(\`http://127.0.0.1:\${server.address().port}/mcp\`), {
    requestInit: { headers: { Authorization: \`Bearer \${TOKEN}\` } },
  }),
);
const tools = (await client.listTools()).tools.map((tool) => tool.name);
const viaExpress = await client.callTool({ name: "shout", arguments: { text: "hello" } });
await client.close();

const call = (args) =>
  http.fetch(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: \`Bearer \${TOKEN}\`,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "shout", arguments: args } }),
    }),
  );
const fetched = await call({ text: "fetch" });
const invalid = await (await call({ text: 5 })).json();

await http.close();
server.close();
console.log(
  JSON.stringify({
    tools,
    express: viaExpress.structuredContent,
    fetch: { status: fetched.status, result: (await fetched.json()).result.structuredContent },
    invalid: { isError: invalid.result.isError, text: invalid.result.content[0].text.split("\\n")[0] },
  }),
);
`;

/** Every package installed under `dir`'s node_modules, nested ones included, by name. */
function installedPackages(nodeModules: string): Set<string> {
  const found = new Set<string>();
  const visit = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
      const names = entry.name.startsWith("@")
        ? readdirSync(join(dir, entry.name)).map((inner) => `${entry.name}/${inner}`)
        : [entry.name];
      for (const name of names) {
        found.add(name);
        visit(join(dir, name, "node_modules"));
      }
    }
  };
  visit(nodeModules);
  return found;
}

it("an npm project with @toolshed/http and Express serves its own pack from Express and a Fetch handler, with no database driver or pack installed", () => {
  const ours = internalClosure("@toolshed/http");
  expect(ours).toEqual(["@toolshed/errors", "@toolshed/http", "@toolshed/schema", "@toolshed/server"]);
  const tarballs = packedTarballs(ours);

  const project = createNpmProject("toolshed-http-user-");
  cleanup.push(project);
  npmInstall(project, [
    ...ours.map((name) => tarballs.get(name) as string),
    ...externalPeers(ours),
    `express@${EXPRESS}`,
  ]);

  const installed = installedPackages(join(project, "node_modules"));
  // The walk sees what was installed, so the absences below mean something.
  for (const present of ["express", "jose", "pino", "zod", "@modelcontextprotocol/sdk"]) {
    expect(installed.has(present), `${present} is not installed`).toBe(true);
  }
  expect([...installed].filter((name) => name.startsWith("@toolshed/")).sort()).toEqual(ours);
  for (const absent of [
    "better-sqlite3",
    "pg",
    "@toolshed/packs",
    "@toolshed/notes",
    "@toolshed/tickets",
    "@toolshed/crm",
    "@toolshed/storage",
  ]) {
    expect(installed.has(absent), `${absent} is installed`).toBe(false);
  }

  writeFileSync(join(project, "app.mjs"), APP);
  const run = spawnSync(process.execPath, ["app.mjs"], { cwd: project, encoding: "utf8", timeout: 60_000 });
  expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
  expect(JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "")).toEqual({
    tools: ["shout"],
    express: { text: "HELLO" },
    fetch: { status: 200, result: { text: "FETCH" } },
    invalid: { isError: true, text: "Invalid arguments for tool shout:" },
  });
});
