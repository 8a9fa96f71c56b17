import { type ChildProcess, spawn } from "node:child_process";
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

export interface Limits {
  /** Most bytes read for one message. */
  maxAnswerBytes: number;
  /** Called once when a message is longer: the transport has stopped reading by then. */
  onTooLarge(): void;
  /** Counts every byte received, for budgets across messages. */
  onBytes(count: number): void;
}

const GRACE_MS = 1000;

const hasExited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

function exited(child: ChildProcess, ms: number): Promise<boolean> {
  if (hasExited(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(hasExited(child)), ms);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/**
 * Ends a server process: closes its stdin, then SIGTERM, then SIGKILL, a grace period apart, and
 * drops its pipes so a process that ignores both cannot keep the audit running.
 */
export async function stopChild(child: ChildProcess): Promise<void> {
  child.stdin?.end();
  if (!(await exited(child, GRACE_MS))) {
    child.kill("SIGTERM");
    if (!(await exited(child, GRACE_MS))) {
      child.kill("SIGKILL");
      await exited(child, GRACE_MS);
    }
  }
  for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.destroy();
}

/**
 * The SDK's stdio client transport with a bound: a line longer than `maxAnswerBytes` is not
 * buffered (the SDK's ReadBuffer copies the whole buffer per chunk), the server is stopped instead.
 */
export class CappedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport["onmessage"];
  /** The end of the server's stderr, to explain a failed start. */
  stderrTail = "";
  private child?: ChildProcess;
  private parts: Buffer[] = [];
  private partBytes = 0;
  private stopped = false;
  private closed = false;

  constructor(
    private readonly target: { command: string; args?: string[]; env?: Record<string, string>; cwd?: string },
    private readonly limits: Limits,
  ) {}

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.target.command, this.target.args ?? [], {
        env: { ...process.env, ...this.target.env },
        cwd: this.target.cwd,
        stdio: ["pipe", "pipe", "pipe"],
        windowsHide: true,
      });
      this.child = child;
      child.once("error", (error) => {
        reject(error);
        this.onerror?.(error);
        this.fireClose();
      });
      child.once("spawn", () => resolve());
      child.once("close", () => this.fireClose());
      // A write to a server that has exited fails with EPIPE; "close" reports the exit.
      child.stdin?.on("error", () => {});
      child.stdout?.on("data", (chunk: Buffer) => this.read(chunk));
      child.stderr?.on("data", (chunk: Buffer) => {
        this.stderrTail = (this.stderrTail + chunk.toString()).slice(-4000);
      });
    });
  }

  private read(chunk: Buffer): void {
    if (this.stopped) return;
    this.limits.onBytes(chunk.length);
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      if (this.partBytes + end - start > this.limits.maxAnswerBytes) {
        this.tooLarge();
        return;
      }
      this.parts.push(chunk.subarray(start, end));
      const line = Buffer.concat(this.parts).toString("utf8").replace(/\r$/, "");
      this.parts = [];
      this.partBytes = 0;
      start = end + 1;
      if (line.trim() !== "") this.deliver(line);
      if (this.stopped) return;
    }
    this.partBytes += chunk.length - start;
    if (this.partBytes > this.limits.maxAnswerBytes) {
      this.tooLarge();
      return;
    }
    if (start < chunk.length) this.parts.push(chunk.subarray(start));
  }

  private deliver(line: string): void {
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.onmessage?.(message);
  }

  private tooLarge(): void {
    this.parts = [];
    this.partBytes = 0;
    // Stop reading now: what the server goes on writing stays in its pipe, not in this process.
    this.child?.stdout?.destroy();
    this.limits.onTooLarge();
    void this.close();
  }

  private fireClose(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (this.stopped || !stdin?.writable) return Promise.reject(new Error("Not connected"));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  async close(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    // Pending requests end now; the process gets its grace period after.
    this.fireClose();
    if (this.child) await stopChild(this.child);
  }
}
