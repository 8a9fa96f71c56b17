import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { killChildren, removeTempDirs, startHttpProcess, tempDir, trackChild } from "@toolshed/test-support";

export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const AUDIT_DIR = join(ROOT, "packages", "audit");
export const CLI = join(AUDIT_DIR, "dist", "cli.js");
export const STDIO_SERVER = join(ROOT, "apps", "stdio-server", "dist", "cli.js");
export const HTTP_SERVER = join(ROOT, "apps", "http-server", "dist", "cli.js");
export const fixture = (name: string) => join(AUDIT_DIR, "test", "fixtures", name);
export const example = (name: string) => join(AUDIT_DIR, "examples", name);

/** A fresh SQLite path in a temporary folder, removed by cleanUp(). */
export function tempDb(): string {
  return tempDir("audit").file("toolshed.db");
}

/** Runs dist/cli.js to completion; `nodeArgs` go to Node before the script. */
export function runCli(
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; nodeArgs?: string[] } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [...(options.nodeArgs ?? []), CLI, ...args], {
      cwd: options.cwd ?? AUDIT_DIR,
      env: { PATH: process.env.PATH ?? "", ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    trackChild(proc);
    let stdout = "";
    let stderr = "";
    proc.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
    });
    proc.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    proc.on("exit", (code) => {
      resolve({ code, stdout, stderr });
    });
  });
}

/** Starts Toolshed's HTTP server on a free port with a temporary database; resolves with its /mcp URL. */
export async function startHttpServer(): Promise<string> {
  return (await startHttpProcess(HTTP_SERVER, ["--log-level", "info"])).url;
}

/** Starts a fixture script that prints its /mcp URL on stdout; resolves with that URL. */
export function startFixtureServer(name: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [fixture(name)], { stdio: ["ignore", "pipe", "pipe"] });
    trackChild(proc);
    let out = "";
    let err = "";
    proc.stderr.on("data", (c: Buffer) => {
      err += c.toString();
    });
    proc.stdout.on("data", (c: Buffer) => {
      out += c.toString();
      const line = out.split("\n")[0];
      if (out.includes("\n") && line) resolve(line.trim());
    });
    proc.on("exit", (code) => reject(new Error(`${name} exited (${code}) before listening: ${err.slice(-500)}`)));
  });
}

/** A loopback URL on a port that was free a moment ago, so nothing answers there. */
export function closedPortUrl(): Promise<string> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(`http://127.0.0.1:${port}/mcp`));
    });
  });
}

/** Stops every server a test started and removes temporary folders. */
export async function cleanUp(): Promise<void> {
  await killChildren();
  removeTempDirs();
}
