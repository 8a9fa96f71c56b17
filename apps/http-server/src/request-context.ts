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
 * A logger whose lines carry the request's id and whose per-call log ("tool call") also fills
 * in the outcome of the request; `recordOf` finds the request being handled, if any.
 */
export function recordingLogger(base: Logger, recordOf: () => RequestRecord | undefined): Logger {
  const withRequest = (obj: object): object => {
    const record = recordOf();
    return record ? { reqId: record.id, ...obj } : obj;
  };
  return {
    error: (obj, msg) => base.error(withRequest(obj), msg),
    warn: (obj, msg) => base.warn(withRequest(obj), msg),
    debug: (obj, msg) => base.debug(withRequest(obj), msg),
    info(obj, msg) {
      const record = recordOf();
      if (record && msg === "tool call") {
        const o = obj as { outcome?: unknown };
        if (typeof o.outcome === "string") record.outcomes.push(o.outcome);
      }
      base.info(withRequest(obj), msg);
    },
  };
}

/**
 * The runtime's logger, for requests handled inside `runInRequest` (sessions mode, where calls
 * pass through the SDK transport). The stateless path hands its record over explicitly: the
 * async context costs every promise of the process once it is in use.
 */
export function requestAwareLogger(base: Logger): Logger {
  return recordingLogger(base, () => storage.getStore());
}
