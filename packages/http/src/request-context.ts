import { AsyncLocalStorage } from "node:async_hooks";
import type { Logger } from "@toolshed/schema";

/** What one HTTP request did, filled in as it is handled and logged when it ends. */
export interface RequestRecord {
  id: string;
  rpc: string[];
  tools: string[];
  outcomes: string[];
  /** The token's label (never its value). */
  tokenId?: string;
  sessionId?: string;
}

const storage = new AsyncLocalStorage<RequestRecord>();

export function runInRequest<T>(record: RequestRecord, fn: () => T): T {
  return storage.run(record, fn);
}

export function currentRequest(): RequestRecord | undefined {
  return storage.getStore();
}

/**
 * A logger whose lines carry the id of the request being handled, if any (`recordOf`). A class:
 * the stateless path makes one per request, and methods on a prototype cost nothing to make.
 */
class RecordingLogger implements Logger {
  readonly #base: Logger;
  readonly #recordOf: () => RequestRecord | undefined;

  constructor(base: Logger, recordOf: () => RequestRecord | undefined) {
    this.#base = base;
    this.#recordOf = recordOf;
  }

  #with(obj: object): object {
    const record = this.#recordOf();
    return record ? { reqId: record.id, ...obj } : obj;
  }

  error(obj: object, msg?: string): void {
    this.#base.error(this.#with(obj), msg);
  }

  warn(obj: object, msg?: string): void {
    this.#base.warn(this.#with(obj), msg);
  }

  info(obj: object, msg?: string): void {
    this.#base.info(this.#with(obj), msg);
  }

  debug(obj: object, msg?: string): void {
    this.#base.debug(this.#with(obj), msg);
  }

  /** Lets the runtime skip building lines the level drops. */
  isLevelEnabled(level: string): boolean {
    return this.#base.isLevelEnabled?.(level) ?? true;
  }
}

export function recordingLogger(base: Logger, recordOf: () => RequestRecord | undefined): Logger {
  return new RecordingLogger(base, recordOf);
}

/**
 * The runtime's logger, for requests handled inside `runInRequest` (sessions mode, where calls
 * pass through the SDK transport). The stateless path hands its record over explicitly: the
 * async context costs every promise of the process once it is in use.
 */
export function requestAwareLogger(base: Logger): Logger {
  return recordingLogger(base, () => storage.getStore());
}

/** Records a tools/call outcome on the request being handled (sessions mode). */
export function recordOutcome(_name: string, outcome: string): void {
  storage.getStore()?.outcomes.push(outcome);
}
