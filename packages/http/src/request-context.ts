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

/** A logger whose lines carry the id of the request being handled, if any (`recordOf`). */
export function recordingLogger(base: Logger, recordOf: () => RequestRecord | undefined): Logger {
  const withRequest = (obj: object): object => {
    const record = recordOf();
    return record ? { reqId: record.id, ...obj } : obj;
  };
  const logger: Logger = {
    error: (obj, msg) => base.error(withRequest(obj), msg),
    warn: (obj, msg) => base.warn(withRequest(obj), msg),
    info: (obj, msg) => base.info(withRequest(obj), msg),
    debug: (obj, msg) => base.debug(withRequest(obj), msg),
  };
  // Lets the runtime skip building lines the level drops.
  if (base.isLevelEnabled) logger.isLevelEnabled = (level) => base.isLevelEnabled?.(level) ?? true;
  return logger;
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
