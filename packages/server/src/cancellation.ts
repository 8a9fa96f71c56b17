import type { CancelSignal } from "./run-tool.js";

/**
 * One request's cancellation (client gone, shutdown deadline). Listeners are a plain set, and
 * the AbortSignal a handler may ask for is made only then: on Node 20 an AbortSignal costs more
 * than a small tool call.
 */
export class Cancellation implements CancelSignal {
  aborted = false;
  reason: unknown;
  readonly settleMs: number;
  #listeners: Set<() => void> | undefined;
  #controller: AbortController | undefined;

  /** `settleMs`: see CancelSignal (a task's cancel waits for what its handler applied). */
  constructor(settleMs = 0) {
    this.settleMs = settleMs;
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.aborted) this.#controller.abort(this.reason);
    }
    return this.#controller.signal;
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.#controller?.abort(reason);
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (listeners) for (const listener of listeners) listener();
  }

  /** Listeners run once, at the abort. */
  addEventListener(_type: "abort", listener: () => void): void {
    if (this.aborted) return;
    this.#listeners ??= new Set();
    this.#listeners.add(listener);
  }

  removeEventListener(_type: "abort", listener: () => void): void {
    this.#listeners?.delete(listener);
  }
}
