import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { removeTempDirs, tempDir } from "@toolshed/test-support";

export { tempDir } from "@toolshed/test-support";

export const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));

const children = new Set<ChildProcess>();
const clients = new Set<Client>();

/**
 * A clean environment: no TOOLSHED_* from the machine, and HOME in a temp folder so the
 * default database never lands in the real home.
 */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: tempDir("stdio").dir };
  return { ...env, ...extra };
}

/** Starts dist/cli.js with the SDK's stdio client transport and connects a Client to it. */
export async function connectClient(args: string[], env: Record<string, string> = cleanEnv()) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, ...args], env, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const client = new Client({ name: "stdio-e2e", version: "1.0.0" });
  clients.add(client);
  await client.connect(transport);
  return { client, transport, stderr: () => stderr };
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** dist/cli.js as a raw child process: lines in, lines out. */
export function spawnCli(args: string[], env: Record<string, string> = cleanEnv()) {
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
  children.add(child);
  let stdout = "";
  let stderr = "";
  const waiters: Array<() => void> = [];
  const wake = () => {
    for (const w of waiters.splice(0)) w();
  };
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
    wake();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
    wake();
  });
  const exited = new Promise<Exit>((resolve) => {
    child.once("exit", (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
      wake();
    });
  });
  const until = async (done: () => boolean, what: string, timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${what}\nstdout:\n${stdout}\nstderr:\n${stderr}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  };
  const lines = () => stdout.split("\n").filter((l) => l !== "");
  return {
    child,
    exited,
    stdout: () => stdout,
    stderr: () => stderr,
    lines,
    /** Parsed stdout lines. */
    messages: () => lines().map((l) => JSON.parse(l) as Record<string, unknown>),
    send(message: string | object) {
      child.stdin.write(typeof message === "string" ? message : `${JSON.stringify(message)}\n`);
    },
    /** Waits for at least `n` stdout lines. */
    waitForLines: (n: number) => until(() => lines().length >= n, `${n} stdout lines`),
    /** Waits until stderr has a log line with this msg. */
    waitForLog: (msg: string) => until(() => stderr.includes(`"msg":"${msg}"`), `log "${msg}"`),
  };
}

/** Runs dist/cli.js to its end with stdin closed at once. */
export async function runCli(args: string[], env: Record<string, string> = cleanEnv()) {
  const cli = spawnCli(args, env);
  cli.child.stdin.end();
  const exit = await cli.exited;
  return { ...exit, stdout: cli.stdout(), stderr: cli.stderr() };
}

export const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

export const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };

/** Closes clients, kills children still running and removes temp folders. */
export async function cleanup(): Promise<void> {
  await Promise.allSettled([...clients].map((c) => c.close()));
  clients.clear();
  for (const child of children) child.kill("SIGKILL");
  children.clear();
  removeTempDirs();
}
