import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { codeBlocks, DOC_EXAMPLES, docPages, ROOT, readmeFolders } from "./markdown.js";

// docs/examples/stdio-main.ts is what a desktop client starts: run it the way one does, from a
// folder that is not the user's (clients often use `/`), and see where its database goes.
const cleanup: string[] = [];
afterAll(() => {
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
});

it("the stdio example keeps its database in the user's folder, whatever folder the client starts it in", async () => {
  // Compiled next to docs-check's node_modules, so its imports resolve as in a user's project.
  const cache = join(ROOT, "docs-check", "node_modules", ".cache");
  mkdirSync(cache, { recursive: true });
  const build = mkdtempSync(join(cache, "stdio-main-"));
  const home = mkdtempSync(join(tmpdir(), "toolshed-home-"));
  const clientCwd = mkdtempSync(join(tmpdir(), "toolshed-client-cwd-"));
  cleanup.push(build, home, clientCwd);
  const source = readFileSync(join(DOC_EXAMPLES, "stdio-main.ts"), "utf8");
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  const main = join(build, "main.mjs");
  writeFileSync(main, outputText);

  const server = spawn(process.execPath, [main], {
    cwd: clientCwd,
    env: { ...process.env, HOME: home, USERPROFILE: home },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  server.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  server.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => server.on("exit", (code) => resolve(code)));
  const send = (message: object) => server.stdin.write(`${JSON.stringify(message)}\n`);
  send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "desktop", version: "1" } },
  });
  send({ jsonrpc: "2.0", method: "notifications/initialized" });
  send({
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "create_note", arguments: { title: "a", body: "b" } },
  });
  const deadline = Date.now() + 30_000;
  while (!stdout.includes('"id":2') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  server.stdin.end();
  expect(await exited, stderr).toBe(0);

  const answer = stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { id?: number; result?: { structuredContent?: unknown } })
    .find((message) => message.id === 2);
  expect(answer?.result?.structuredContent, stdout).toMatchObject({ title: "a", body: "b", version: 1 });
  // Nothing in the folder the client chose; the notes are in the user's data folder.
  expect(readdirSync(clientCwd)).toEqual([]);
  expect(existsSync(join(home, ".my-notes", "notes.db"))).toBe(true);
});

describe("desktop client configurations in docs/ and the READMEs", () => {
  // A path the server opens must not depend on the folder the client starts it in.
  const absolute = (path: string) => /^(\/|~\/|[A-Za-z]:[\\/])/.test(path);
  type Config = { mcpServers?: Record<string, { command: string; args?: string[]; env?: Record<string, string> }> };
  const configs = [...docPages(), ...readmeFolders().map((folder) => join(folder, "README.md"))]
    .flatMap((file) => codeBlocks(file))
    .filter((block) => block.lang === "json" && block.code.includes('"mcpServers"'));

  it("name the database and the server's own files by absolute paths", () => {
    expect(configs.length).toBeGreaterThan(3);
    for (const block of configs) {
      const where = `${block.file}:${block.line}`;
      for (const server of Object.values((JSON.parse(block.code) as Config).mcpServers ?? {})) {
        const args = server.args ?? [];
        const db = args[args.indexOf("--db") + 1];
        if (args.includes("--db")) expect(absolute(db ?? ""), `${where}: --db ${db}`).toBe(true);
        const fromEnv = server.env?.TOOLSHED_DB;
        if (fromEnv !== undefined) expect(absolute(fromEnv), `${where}: TOOLSHED_DB ${fromEnv}`).toBe(true);
        if (server.command === "node") expect(absolute(args[0] ?? ""), `${where}: node ${args[0]}`).toBe(true);
      }
    }
  });
});
