import { type ChildProcess, spawn } from "node:child_process";
import { tempDir } from "./fs.js";

/** One JSON log line of a server on stderr. */
export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

/** A `toolshed-http` process (or a script that takes its flags) listening on a free port. */
export interface HttpProcess {
  proc: ChildProcess;
  pid: number;
  /** The MCP endpoint, http://127.0.0.1:PORT/mcp */
  url: string;
  /** http://127.0.0.1:PORT */
  base: string;
  port: number;
  /** The SQLite file it was given with --db. */
  db: string;
  stderr(): string;
  stdout(): string;
  /** The JSON lines on stderr so far, parsed. */
  logs(): LogLine[];
  /** Resolves with the exit code (or signal name) once the process has ended. */
  exited: Promise<number | string>;
  /** Resolves with the first log line `test` accepts; rejects when the process exits first or after `timeoutMs`. */
  waitForLog(test: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
}

const running = new Set<ChildProcess>();

/**
 * Starts `script` (an http-server dist/cli.js, or a script with the same flags) with Node, on
 * `--port 0` unless `args` name a port and on a SQLite file of its own unless `options.db` names
 * one, and waits for its "listening" log line. The environment is only PATH plus `options.env`.
 */
export async function startHttpProcess(
  script: string,
  args: readonly string[],
  options: { env?: Record<string, string>; db?: string } = {},
): Promise<HttpProcess> {
  const db = options.db ?? tempDir("http").file("toolshed.db");
  const port = args.includes("--port") ? [] : ["--port", "0"];
  const proc = spawn(process.execPath, [script, "--db", db, ...port, ...args], {
    env: { PATH: process.env.PATH ?? "", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(proc);
  let err = "";
  let out = "";
  const waiters = new Set<() => void>();
  proc.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString();
    for (const wake of [...waiters]) wake();
  });
  proc.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
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
    stdout: () => out,
    logs,
    exited,
    waitForLog,
  };
}

/** Has killChildren() end `child` too, if it still runs then; returns it. */
export function trackChild<C extends ChildProcess>(child: C): C {
  running.add(child);
  child.once("exit", () => running.delete(child));
  return child;
}

/** SIGKILLs every child of this test file that startHttpProcess() started or trackChild() was given and still runs. */
export async function killChildren(): Promise<void> {
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
}
