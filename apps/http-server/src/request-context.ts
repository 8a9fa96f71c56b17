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
 * The logger the runtime writes to: every line carries the HTTP request id, and the runtime's
 * per-call log ("tool call") also fills in the outcome of the request being handled. The async
 * context follows the call into the SDK transport in sessions mode too.
 */
export function requestAwareLogger(base: Logger): Logger {
  const withRequest = (obj: object): object => {
    const record = storage.getStore();
    return record ? { reqId: record.id, ...obj } : obj;
  };
  return {
    error: (obj, msg) => base.error(withRequest(obj), msg),
    warn: (obj, msg) => base.warn(withRequest(obj), msg),
    debug: (obj, msg) => base.debug(withRequest(obj), msg),
    info(obj, msg) {
      const record = storage.getStore();
      if (record && msg === "tool call") {
        const o = obj as { outcome?: unknown };
        if (typeof o.outcome === "string") record.outcomes.push(o.outcome);
      }
      base.info(withRequest(obj), msg);
    },
  };
}
