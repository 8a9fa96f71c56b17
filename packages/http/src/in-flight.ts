/** What a shutdown can abort: an AbortController, or a request's Cancellation. */
import { countInFlight } from "./telemetry.js";

export interface Abortable {
  abort(reason: unknown): void;
}

/** Counts requests being served, so a shutdown can wait for them and then cancel the rest. */
export class InFlight {
  #count = 0;
  #waiters = new Set<() => void>();
  readonly #controllers = new Set<Abortable>();
  #stopReason: unknown;
  #stopped = false;

  get count(): number {
    return this.#count;
  }

  /**
   * Marks one request as started; the returned function ends it (calling it twice is harmless).
   * `controller` is aborted if the server stops waiting before the request ends.
   */
  begin(controller?: Abortable): () => void {
    this.#count++;
    const counted = countInFlight();
    if (controller) {
      if (this.#stopped) controller.abort(this.#stopReason);
      else this.#controllers.add(controller);
    }
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#count--;
      counted?.();
      if (controller) this.#controllers.delete(controller);
      if (this.#count === 0) for (const wake of [...this.#waiters]) wake();
    };
  }

  /** Resolves true once nothing is in flight, or false when `timeoutMs` passes first. */
  whenIdle(timeoutMs: number): Promise<boolean> {
    if (this.#count === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.#waiters.delete(wake);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(wake);
        resolve(false);
      }, timeoutMs);
      this.#waiters.add(wake);
    });
  }

  /** Aborts every request in flight, and any that begins later, with `reason`. */
  abortAll(reason: unknown): void {
    this.#stopped = true;
    this.#stopReason = reason;
    for (const controller of [...this.#controllers]) controller.abort(reason);
  }
}
