import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { parseJsonRpcText } from "./jsonrpc.js";
import { JsonRpcCode } from "./jsonrpc-error.js";

export interface StdioTransportOptions {
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
  /** Longest accepted line in bytes (default 4 MiB); longer ones are answered -32600 and skipped. */
  maxLineBytes?: number;
}

/**
 * Newline-delimited JSON-RPC over stdio. Unlike the SDK's transport, a line that is not valid
 * JSON or not a valid message is answered (-32700, -32600) instead of dropped, so no client
 * waits for a timeout (C12); nothing else is ever written to stdout.
 */
export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #stdin: NodeJS.ReadableStream;
  readonly #stdout: NodeJS.WritableStream;
  readonly #maxLineBytes: number;
  #chunks: Buffer[] = [];
  #size = 0;
  #skipping = false;
  #closed = false;
  #drained: Promise<void> | undefined;

  constructor(options: StdioTransportOptions = {}) {
    this.#stdin = options.stdin ?? process.stdin;
    this.#stdout = options.stdout ?? process.stdout;
    this.#maxLineBytes = options.maxLineBytes ?? 4 * 1024 * 1024;
  }

  async start(): Promise<void> {
    this.#stdin.on("data", this.#onData);
    this.#stdin.on("error", this.#onError);
    this.#stdin.on("end", this.#onEnd);
  }

  #onError = (error: Error) => this.onerror?.(error);
  #onEnd = () => void this.close();

  #onData = (chunk: Buffer | string) => {
    let buf = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    for (let nl = buf.indexOf(10); nl !== -1; nl = buf.indexOf(10)) {
      const head = buf.subarray(0, nl);
      buf = buf.subarray(nl + 1);
      if (this.#skipping) {
        this.#skipping = false;
        this.#reset();
        continue;
      }
      if (this.#size + head.length > this.#maxLineBytes) {
        this.#reset();
        this.#tooLarge();
        continue;
      }
      this.#chunks.push(head);
      const line = Buffer.concat(this.#chunks).toString("utf8").replace(/\r$/, "");
      this.#reset();
      this.#handleLine(line);
    }
    if (buf.length === 0 || this.#skipping) return;
    if (this.#size + buf.length > this.#maxLineBytes) {
      // Answer now and drop the rest of this line as it arrives, so memory stays bounded.
      this.#reset();
      this.#skipping = true;
      this.#tooLarge();
      return;
    }
    this.#size += buf.length;
    this.#chunks.push(buf);
  };

  #tooLarge() {
    void this.#write({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: JsonRpcCode.InvalidRequest,
        message: `Invalid Request: message larger than ${this.#maxLineBytes} bytes`,
      },
    });
  }

  #reset() {
    this.#chunks = [];
    this.#size = 0;
  }

  #handleLine(line: string) {
    if (line.trim() === "") return;
    const { messages, responses } = parseJsonRpcText(line);
    for (const response of responses) void this.#write(response);
    for (const message of messages) this.onmessage?.(message);
  }

  /**
   * Writes one line. While stdout is full (a client that does not read its answers), reading
   * stdin stops, so requests wait in the pipe instead of answers in this process's memory; one
   * drain wait is shared by every write.
   */
  #write(message: unknown): Promise<void> {
    if (this.#closed) return Promise.resolve();
    if (this.#stdout.write(`${JSON.stringify(message)}\n`)) return this.#drained ?? Promise.resolve();
    this.#drained ??= new Promise((resolve) => {
      this.#stdin.pause();
      this.#stdout.once("drain", () => {
        this.#drained = undefined;
        if (!this.#closed) this.#stdin.resume();
        resolve();
      });
    });
    return this.#drained;
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.#write(message);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stdin.off("data", this.#onData);
    this.#stdin.off("error", this.#onError);
    this.#stdin.off("end", this.#onEnd);
    this.#reset();
    this.onclose?.();
  }
}
