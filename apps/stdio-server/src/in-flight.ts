import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js";

type Id = string | number;

/**
 * Wraps a transport and counts the requests it has delivered but not yet answered, so a
 * shutdown can wait for them instead of dropping their answers.
 */
export class InFlightTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

  readonly #inner: Transport;
  readonly #pending = new Set<Id>();
  #idle: Array<() => void> = [];

  constructor(inner: Transport) {
    this.#inner = inner;
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => {
      this.#track(message);
      this.onmessage?.(message, extra);
    };
  }

  /** Requests received and not yet answered. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Resolves when no request is waiting for its answer. */
  idle(): Promise<void> {
    if (this.#pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    await this.#inner.send(message, options);
    if (!("method" in message) && "id" in message) this.#done(message.id as Id);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  #track(message: JSONRPCMessage) {
    if (!("method" in message)) return;
    if ("id" in message) this.#pending.add(message.id);
    // A cancelled request is never answered (MCP cancellation), so it stops counting.
    else if (message.method === "notifications/cancelled") {
      const id = (message.params as { requestId?: Id } | undefined)?.requestId;
      if (id !== undefined) this.#done(id);
    }
  }

  #done(id: Id) {
    this.#pending.delete(id);
    if (this.#pending.size > 0) return;
    for (const resolve of this.#idle.splice(0)) resolve();
  }
}
