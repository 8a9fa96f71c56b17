import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { HTTP_CLI } from "./paths.js";

export interface HttpAnswer {
  status: number;
  contentType: string;
  /** The raw body text. */
  text: string;
  /** JSON-RPC messages in the body: the JSON value (one message or a batch) or each SSE `data:` line. */
  messages: unknown[];
  /** Set when the body claims JSON or SSE but does not parse. */
  parseError?: string;
}

/** The headers a Streamable HTTP client sends with every POST. */
export const MCP_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-11-25",
};

/** Reads a fetch Response into the JSON-RPC messages it carries, JSON or SSE alike. */
export async function readAnswer(response: Response): Promise<HttpAnswer> {
  const text = await response.text();
  const contentType = response.headers.get("content-type") ?? "";
  const answer: HttpAnswer = { status: response.status, contentType, text, messages: [] };
  try {
    if (contentType.startsWith("application/json")) {
      const value: unknown = JSON.parse(text);
      answer.messages = Array.isArray(value) ? value : [value];
    } else if (contentType.startsWith("text/event-stream")) {
      for (const line of text.split(/\r?\n/)) {
        if (line.startsWith("data:")) answer.messages.push(JSON.parse(line.slice(5)));
      }
    }
  } catch (error) {
    answer.parseError = (error as Error).message;
  }
  return answer;
}

/** `toolshed-http` as a child process on a free loopback port. */
export class HttpChild {
  readonly process: ChildProcessWithoutNullStreams;
  readonly url: string;
  #stderr: { text: string };
  exitCode: number | null = null;

  private constructor(child: ChildProcessWithoutNullStreams, url: string, stderr: { text: string }) {
    this.process = child;
    this.url = url;
    this.#stderr = stderr;
    child.on("exit", (code, signal) => {
      this.exitCode = code ?? (signal ? -1 : 0);
    });
  }

  /** `options.env` replaces the environment; `uid` and `gid` start it as another user; `node` is the Node binary. */
  static async start(
    args: readonly string[],
    options: { env?: NodeJS.ProcessEnv; uid?: number; gid?: number; node?: string } = {},
  ): Promise<HttpChild> {
    const child = spawn(options.node ?? process.execPath, [HTTP_CLI, "--port", "0", "--log-level", "info", ...args], {
      env: options.env ?? process.env,
      stdio: ["pipe", "pipe", "pipe"],
      ...(options.uid === undefined ? {} : { uid: options.uid }),
      ...(options.gid === undefined ? {} : { gid: options.gid }),
    });
    const stderr = { text: "" };
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`toolshed-http did not start:\n${stderr.text}`)), 30_000);
      child.stderr.on("data", (chunk: Buffer) => {
        stderr.text = (stderr.text + chunk.toString("utf8")).slice(-20_000);
        const found = /listening on (http:\/\/\S+\/mcp)/.exec(stderr.text);
        if (found?.[1]) {
          clearTimeout(timer);
          resolve(found[1]);
        }
      });
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`toolshed-http exited with ${code}:\n${stderr.text}`));
      });
    });
    return new HttpChild(child, url, stderr);
  }

  get alive(): boolean {
    return this.exitCode === null;
  }

  get stderr(): string {
    return this.#stderr.text;
  }

  /** POSTs a raw body to /mcp. */
  async post(body: string, headers: Record<string, string> = MCP_HEADERS): Promise<HttpAnswer> {
    const response = await fetch(this.url, { method: "POST", headers, body, signal: AbortSignal.timeout(30_000) });
    return readAnswer(response);
  }

  /** SIGTERM, then SIGKILL if it has not exited in time. */
  async stop(timeoutMs = 15_000): Promise<void> {
    if (!this.alive) return;
    const exited = new Promise<void>((resolve) => this.process.once("exit", () => resolve()));
    this.process.kill("SIGTERM");
    const timer = setTimeout(() => this.process.kill("SIGKILL"), timeoutMs);
    await exited;
    clearTimeout(timer);
  }
}
