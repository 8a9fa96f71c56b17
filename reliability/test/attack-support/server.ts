import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The real bin, as users run it; the tests never mount the app in-process. */
export const HTTP_CLI = join(dirname(fileURLToPath(import.meta.url)), "../../../apps/http-server/dist/cli.js");

export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

export interface ServerProcess {
  proc: ChildProcess;
  pid: number;
  /** The MCP endpoint, http://127.0.0.1:PORT/mcp */
  url: string;
  /** http://127.0.0.1:PORT */
  base: string;
  port: number;
  db: string;
  stderr(): string;
  logs(): LogLine[];
  /** Exit code (or signal name) once the process has ended. */
  exited: Promise<number | string>;
  waitForLog(test: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
}

const running = new Set<ChildProcess>();
const temps: string[] = [];

export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "toolshed-attack-"));
  temps.push(dir);
  return dir;
}

/** Starts dist/cli.js on a free port with its own SQLite file and waits for its "listening" line. */
export async function startHttpServer(
  args: readonly string[],
  options: { env?: Record<string, string>; db?: string } = {},
): Promise<ServerProcess> {
  if (!existsSync(HTTP_CLI)) throw new Error(`${HTTP_CLI} is missing; run npx tsup in apps/http-server`);
  const db = options.db ?? join(tempDir(), "toolshed.db");
  const proc = spawn(process.execPath, [HTTP_CLI, "--db", db, "--port", "0", ...args], {
    env: { PATH: process.env.PATH ?? "", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(proc);
  let err = "";
  const waiters = new Set<() => void>();
  proc.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString();
    for (const wake of [...waiters]) wake();
  });
  // Nothing should arrive on stdout; drain it anyway so a pipe never fills.
  proc.stdout?.resume();
  const exited = new Promise<number | string>((resolve) => {
    proc.on("exit", (code, signal) => {
      running.delete(proc);
      for (const wake of [...waiters]) wake();
      resolve(code ?? signal ?? -1);
    });
  });
  const logs = () =>
    err
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as LogLine);
  const waitForLog = (test: (line: LogLine) => boolean, timeoutMs = 30_000) =>
    new Promise<LogLine>((resolve, reject) => {
      const done = () => {
        waiters.delete(check);
        clearTimeout(timer);
      };
      const check = () => {
        const hit = logs().find(test);
        if (hit) {
          done();
          resolve(hit);
        } else if (proc.exitCode !== null || proc.signalCode !== null) {
          done();
          reject(new Error(`server exited (${proc.exitCode ?? proc.signalCode}); stderr:\n${err.slice(-4000)}`));
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no matching log line in ${timeoutMs} ms; stderr:\n${err.slice(-4000)}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  const listening = await waitForLog((l) => typeof l.url === "string" && l.msg.startsWith("listening"));
  const url = String(listening.url);
  const parsed = new URL(url);
  return {
    proc,
    pid: proc.pid ?? -1,
    url,
    base: parsed.origin,
    port: Number(parsed.port),
    db,
    stderr: () => err,
    logs,
    exited,
    waitForLog,
  };
}

/** SIGKILLs every server still running and removes the temporary folders (afterAll). */
export async function stopAll(): Promise<void> {
  await Promise.all(
    [...running].map(
      (proc) =>
        new Promise<void>((resolve) => {
          if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
          proc.once("exit", () => resolve());
          proc.kill("SIGKILL");
        }),
    ),
  );
  running.clear();
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
}
