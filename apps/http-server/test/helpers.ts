import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type HttpProcess, startHttpProcess, tempDir, trackChild } from "@toolshed/test-support";

export {
  connect,
  type HttpProcess,
  killChildren,
  type LogLine,
  MCP_HEADERS,
  openStream,
  post,
  removeTempDirs,
  resultText,
  sseMessages,
  tempDir,
} from "@toolshed/test-support";

export const APP_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
export const CLI = join(APP_DIR, "dist", "cli.js");
export const FIXTURE = join(APP_DIR, "test", "fixtures", "test-pack-server.mjs");

/** The global setup builds dist/; this only says so clearly when it is missing anyway. */
export function ensureBuilt(): void {
  if (existsSync(CLI) && existsSync(join(APP_DIR, "dist", "index.js"))) return;
  throw new Error(`${CLI} is missing; run npx tsup in ${APP_DIR}`);
}

/** Starts dist/cli.js (or a script taking its flags) on a free port and waits for its "listening" log line. */
export async function startServer(
  args: string[],
  options: { env?: Record<string, string>; script?: string; db?: string } = {},
): Promise<HttpProcess> {
  ensureBuilt();
  return startHttpProcess(options.script ?? CLI, args, options);
}

/** Runs the CLI to completion (for flag errors, --help, --version). */
export function runCli(
  args: string[],
  env: Record<string, string> = {},
  cwd?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  ensureBuilt();
  return new Promise((resolve) => {
    const proc = trackChild(
      spawn(process.execPath, [CLI, ...args], {
        env: { PATH: process.env.PATH ?? "", HOME: tempDir("http").dir, ...env },
        stdio: ["ignore", "pipe", "pipe"],
        ...(cwd === undefined ? {} : { cwd }),
      }),
    );
    let stdout = "";
    let stderr = "";
    proc.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
    });
    proc.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    proc.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
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
