import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type RunningHttpServer, startHttpServer } from "../src/index.js";

// The MCP Inspector CLI is a client we did not write; it comes from the npm registry through npx.
const INSPECTOR = "@modelcontextprotocol/inspector@2.12.0";
let server: RunningHttpServer;

beforeAll(async () => {
  server = await startHttpServer({ host: "127.0.0.1", port: 0, db: ":memory:", demo: true, logLevel: "silent" });
});
afterAll(() => server.close());

// Asynchronous: the server under test runs in this process and must keep answering.
async function inspector(...args: string[]) {
  const argv = ["-y", INSPECTOR, "--cli", server.url, "--transport", "http", "--format", "json", ...args];
  try {
    const { stdout, stderr } = await promisify(execFile)("npx", argv, {
      encoding: "utf8",
      timeout: 180_000,
      env: { ...process.env, npm_config_loglevel: "error" },
    });
    return { status: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { status: e.code ?? 1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

it("the Inspector CLI lists the tools over HTTP with --strict and reports no schema problem", async () => {
  const run = await inspector("--method", "tools/list", "--strict");
  expect(run.status, run.stderr).toBe(0);
  const names = (JSON.parse(run.stdout) as { result: { tools: Array<{ name: string }> } }).result.tools.map(
    (t) => t.name,
  );
  for (const name of ["get_note", "search_tickets", "crm_bulk_update_tier"]) expect(names).toContain(name);
  expect(run.stderr).not.toMatch(/error/i);
}, 240_000);

it("the Inspector CLI calls get_note over HTTP", async () => {
  const run = await inspector("--method", "tools/call", "--tool-name", "get_note", "--tool-arg", "title=groceries");
  expect(run.status, run.stderr).toBe(0);
  expect(JSON.parse(run.stdout).result.structuredContent).toEqual({ title: "groceries", body: "milk, eggs", words: 2 });
}, 240_000);
