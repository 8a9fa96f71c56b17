import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { STDIO_CLI } from "./paths.js";

/** One stdout line of the server: the parsed message, or the raw text when it is not JSON. */
export type StdoutLine = { ok: true; value: unknown } | { ok: false; raw: string };

/** The key an id is compared by (1 and "1" differ; null is its own key). */
export function idKey(id: unknown): string {
  return JSON.stringify(id === undefined ? null : id);
}

/**
 * The stdio server as a child process, spoken to in raw lines. Each exchange is followed by a
 * ping with an id of its own, so the answers that belong to one message are known.
 */
export class StdioChild {
  readonly process: ChildProcessWithoutNullStreams;
  #stderr = "";
  #lines: StdoutLine[] = [];
  #notify: (() => void) | undefined;
  #exchanges = 0;
  exitCode: number | null = null;
  exitSignal: NodeJS.Signals | null = null;

  private constructor(child: ChildProcessWithoutNullStreams) {
    this.process = child;
    createInterface({ input: child.stdout }).on("line", (line) => {
      let parsed: StdoutLine;
      try {
        parsed = { ok: true, value: JSON.parse(line) };
      } catch {
        parsed = { ok: false, raw: line };
      }
      this.#lines.push(parsed);
      this.#notify?.();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      // Keep the tail only: a long fuzz run logs a lot.
      this.#stderr = (this.#stderr + chunk.toString("utf8")).slice(-20_000);
    });
    child.on("exit", (code, signal) => {
      this.exitCode = code;
      this.exitSignal = signal;
      this.#notify?.();
    });
  }

  /**
   * Starts `toolshed-stdio` on a database file and initializes the session; with `options.node`,
   * on that Node binary instead of this process's (another Node line, e.g. for node:sqlite).
   */
  static async start(
    args: readonly string[],
    env: Record<string, string> = {},
    options: { node?: string } = {},
  ): Promise<StdioChild> {
    const child = spawn(options.node ?? process.execPath, [STDIO_CLI, ...args], {
      env: { ...process.env, TOOLSHED_LOG_LEVEL: "warn", ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const server = new StdioChild(child);
    const init = {
      jsonrpc: "2.0",
      id: "init",
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "reliability", version: "1" } },
    };
    const answers = await server.exchange(JSON.stringify(init), [idKey("init")], 30_000);
    if (!answers.some((a) => a.ok && (a.value as { result?: unknown }).result)) {
      throw new Error(`the stdio server did not initialize: ${JSON.stringify(answers)}\n${server.stderr}`);
    }
    server.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    return server;
  }

  get alive(): boolean {
    return this.exitCode === null && this.exitSignal === null;
  }

  get stderr(): string {
    return this.#stderr;
  }

  send(line: string): void {
    this.process.stdin.write(`${line}\n`);
  }

  /**
   * Sends one line and collects every answer until the answers with the expected ids and the
   * answer to a following ping have arrived. Returns the answers, the ping's left out.
   */
  async exchange(line: string, expectedIds: readonly string[], timeoutMs = 20_000): Promise<StdoutLine[]> {
    const sentinel = `sentinel-${++this.#exchanges}`;
    const start = this.#lines.length;
    this.send(line);
    this.send(JSON.stringify({ jsonrpc: "2.0", id: sentinel, method: "ping" }));
    const wanted = new Set([...expectedIds, idKey(sentinel)]);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const got = this.#lines.slice(start);
      const seen = new Set(got.filter((l) => l.ok).map((l) => idKey((l.value as { id?: unknown } | null)?.id)));
      if ([...wanted].every((id) => seen.has(id))) {
        this.#lines = [];
        return got.filter((l) => !(l.ok && idKey((l.value as { id?: unknown } | null)?.id) === idKey(sentinel)));
      }
      if (!this.alive) throw new Error(`the stdio server exited (${this.exitCode ?? this.exitSignal})\n${this.stderr}`);
      if (Date.now() > deadline) {
        throw new Error(`no answer within ${timeoutMs} ms for ${[...wanted].join(", ")}; got ${JSON.stringify(got)}`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 250);
        this.#notify = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** Closes stdin and waits for the exit; kills the process if it does not stop in time. */
  async stop(timeoutMs = 10_000): Promise<void> {
    if (!this.alive) return;
    const exited = new Promise<void>((resolve) => this.process.once("exit", () => resolve()));
    this.process.stdin.end();
    const timer = setTimeout(() => this.process.kill("SIGKILL"), timeoutMs);
    await exited;
    clearTimeout(timer);
  }
}
