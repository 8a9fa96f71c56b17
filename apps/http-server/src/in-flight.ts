/** Counts requests being served, so a shutdown can wait for them and then cut the rest. */
export class InFlight {
  #count = 0;
  #waiters = new Set<() => void>();
  readonly #abort = new AbortController();

  get count(): number {
    return this.#count;
  }

  /** Aborted when the server stops waiting for in-flight calls. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** Marks one request as started; the returned function ends it (calling it twice is harmless). */
  begin(): () => void {
    this.#count++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#count--;
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

  abortAll(reason: unknown): void {
    this.#abort.abort(reason);
  }
}
