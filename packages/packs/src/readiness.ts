/** What is wrong with (or slowing) the database, for /readyz. */
export type DatabaseCondition = "unreachable" | "cannot_write" | "busy";

/**
 * Whether the server can take traffic, and if not (or only slowly) why, in words for an operator.
 * No addresses or driver messages: /readyz answers without a token.
 */
export interface Readiness {
  ready: boolean;
  database?: DatabaseCondition;
  reason?: string;
}

// SQLite result codes (extended ones share the prefix) that mean the file cannot take writes.
const CANNOT_WRITE: ReadonlyArray<[prefix: string, reason: string]> = [
  ["SQLITE_FULL", "the disk holding it is full, or the file reached its size limit"],
  ["SQLITE_READONLY", "it is read-only for this process"],
  ["SQLITE_IOERR", "its storage reported an I/O error"],
  ["SQLITE_CANTOPEN", "its file could not be opened"],
];

/** How long a failed write keeps an instance not ready without a write succeeding since. */
export const WRITE_FAILURE_HOLD_MS = 60_000;

function cannotWriteReason(error: unknown): string | undefined {
  let current = error;
  for (let depth = 0; depth < 6 && typeof current === "object" && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") {
      for (const [prefix, reason] of CANNOT_WRITE) if (code.startsWith(prefix)) return reason;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Remembers the last store call that failed because the SQLite file cannot be written. A probe
 * cannot find this out by itself: a rolled-back write never reaches the disk, so it passes on a
 * full one. The memory ends when the call that failed succeeds again, or after
 * WRITE_FAILURE_HOLD_MS: an instance taken out of service gets no calls to prove it recovered.
 */
export class WriteFailures {
  #last: { method: PropertyKey; reason: string; at: number } | undefined;

  /** Why the stores cannot write, or undefined when no write failed lately. */
  current(): string | undefined {
    const last = this.#last;
    if (last === undefined) return undefined;
    if (Date.now() - last.at >= WRITE_FAILURE_HOLD_MS) {
      this.#last = undefined;
      return undefined;
    }
    return last.reason;
  }

  /** The store, with each method call's outcome noted (methods run on the store itself). */
  watch<T extends object>(store: T): T {
    return new Proxy(store, {
      get: (target, property) => {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          let result: unknown;
          try {
            result = value.apply(target, args);
          } catch (error) {
            this.#failed(property, error);
            throw error;
          }
          if (!(result instanceof Promise)) {
            this.#succeeded(property);
            return result;
          }
          return result.then(
            (settled: unknown) => {
              this.#succeeded(property);
              return settled;
            },
            (error: unknown) => {
              this.#failed(property, error);
              throw error;
            },
          );
        };
      },
    });
  }

  #failed(method: PropertyKey, error: unknown): void {
    const reason = cannotWriteReason(error);
    if (reason !== undefined) this.#last = { method, reason, at: Date.now() };
  }

  #succeeded(method: PropertyKey): void {
    if (this.#last?.method === method) this.#last = undefined;
  }
}
