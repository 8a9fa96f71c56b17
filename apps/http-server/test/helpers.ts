import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { MCP_HEADERS, sseMessages } from "@toolshed/test-support";

export { connect, MCP_HEADERS, post, sseMessages } from "@toolshed/test-support";

export const APP_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
export const CLI = join(APP_DIR, "dist", "cli.js");
export const FIXTURE = join(APP_DIR, "test", "fixtures", "test-pack-server.mjs");

/** The global setup builds dist/; this only says so clearly when it is missing anyway. */
export function ensureBuilt(): void {
  if (existsSync(CLI) && existsSync(join(APP_DIR, "dist", "index.js"))) return;
  throw new Error(`${CLI} is missing; run npx tsup in ${APP_DIR}`);
}

const temps: string[] = [];
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "toolshed-http-"));
  temps.push(dir);
  return dir;
}
export function removeTempDirs(): void {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

export interface Started {
  proc: ChildProcess;
  url: string;
  base: string;
  port: number;
  stderr(): string;
  stdout(): string;
  logs(): LogLine[];
  /** Resolves with the exit code (or signal name) once the process has ended. */
  exited: Promise<number | string>;
  waitForLog(test: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
}

const running = new Set<ChildProcess>();

/** Starts dist/cli.js (or a script) on a free port and waits for its "listening" log line. */
export async function startServer(
  args: string[],
  options: { env?: Record<string, string>; script?: string; db?: string } = {},
): Promise<Started> {
  ensureBuilt();
  const db = options.db ?? join(tempDir(), "toolshed.db");
  const hasPort = args.includes("--port");
  const argv = [options.script ?? CLI, "--db", db, ...(hasPort ? [] : ["--port", "0"]), ...args];
  const proc = spawn(process.execPath, argv, {
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
      const check = () => {
        const hit = logs().find(test);
        if (hit) {
          waiters.delete(check);
          clearTimeout(timer);
          resolve(hit);
        } else if (proc.exitCode !== null || proc.signalCode !== null) {
          waiters.delete(check);
          clearTimeout(timer);
          reject(new Error(`server exited (${proc.exitCode ?? proc.signalCode}); stderr:\n${err}`));
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no matching log line in ${timeoutMs} ms; stderr:\n${err}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  const listening = await waitForLog((l) => typeof l.url === "string" && l.msg.startsWith("listening"));
  const url = listening.url as string;
  const parsed = new URL(url);
  return {
    proc,
    url,
    base: parsed.origin,
    port: Number(parsed.port),
    stderr: () => err,
    stdout: () => out,
    logs,
    exited,
    waitForLog,
  };
}

/** Runs the CLI to completion (for flag errors, --help, --version). */
export function runCli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  ensureBuilt();
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH ?? "", HOME: tempDir(), ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    running.add(proc);
    let stdout = "";
    let stderr = "";
    proc.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
    });
    proc.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    proc.on("exit", (code) => {
      running.delete(proc);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Kills every child still running (afterEach/afterAll). */
export async function killAll(): Promise<void> {
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

export function textOf(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content.map((c) => c.text ?? "").join("");
}

/** An HTTP request through node:http, which may send any Host header and chunked bodies. */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; chunks?: string[] } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: options.method ?? "POST", headers: options.headers ?? {}, agent: false },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          text += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    if (options.chunks) {
      for (const chunk of options.chunks) req.write(chunk);
      req.end();
    } else req.end(options.body);
  });
}

/** A POST whose answer is an SSE stream read event by event (subscriptions/listen). */
export async function openStream(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; contentType: string | null; next(): Promise<Record<string, unknown>>; close(): void }> {
  const controller = new AbortController();
  const res = await fetch(url, {
    method: "POST",
    signal: controller.signal,
    headers: { ...MCP_HEADERS, ...headers },
    body: JSON.stringify(body),
  });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  return {
    status: res.status,
    contentType: res.headers.get("content-type"),
    async next() {
      for (;;) {
        const end = buffered.indexOf("\n\n");
        const [event] = end >= 0 ? sseMessages(buffered.slice(0, end + 2)) : [];
        if (end >= 0) buffered = buffered.slice(end + 2);
        if (event) return event;
        if (end >= 0) continue;
        const { value, done } = await reader.read();
        if (done) throw new Error("the stream ended");
        buffered += decoder.decode(value, { stream: true });
      }
    },
    close: () => controller.abort(),
  };
}
