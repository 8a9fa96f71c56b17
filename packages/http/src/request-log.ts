import { randomUUID } from "node:crypto";
import type { Logger } from "@toolshed/schema";
import type { Exchange } from "./exchange.js";
import type { RequestRecord } from "./request-context.js";

// A client's own request id is kept when it is short and plain, so logs can be joined up.
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A request's record, with the client's x-request-id when it is safe to log, a new id otherwise. */
export function newRequestRecord(given: string | null | undefined): RequestRecord {
  return { id: given && SAFE_ID.test(given) ? given : randomUUID(), rpc: [], tools: [], outcomes: [] };
}

/** What one HTTP request was and did, once its answer has been sent: the request log's line. */
export interface RequestSummary {
  /** The request id, also sent back as the x-request-id header. */
  reqId: string;
  method: string;
  path: string;
  status: number;
  /** JSON-RPC method(s), tool name(s) and tool outcome(s): one value, or a list for a batch. */
  rpc?: string | string[];
  tool?: string | string[];
  outcome?: string | string[];
  sessionId?: string;
  /** The credential's label (never the token). */
  tokenId?: string;
  remote?: string;
  durationMs: number;
}

const one = (list: string[]) => (list.length === 0 ? undefined : list.length === 1 ? list[0] : list);

export function summarize(record: RequestRecord, ex: Exchange, status: number, started: number): RequestSummary {
  const summary: RequestSummary = {
    reqId: record.id,
    method: ex.method,
    path: ex.path,
    status,
    durationMs: Math.round((performance.now() - started) * 100) / 100,
  };
  const rpc = one(record.rpc);
  if (rpc !== undefined) summary.rpc = rpc;
  const tool = one(record.tools);
  if (tool !== undefined) summary.tool = tool;
  const outcome = one(record.outcomes);
  if (outcome !== undefined) summary.outcome = outcome;
  if (record.sessionId !== undefined) summary.sessionId = record.sessionId;
  if (record.tokenId !== undefined) summary.tokenId = record.tokenId;
  if (ex.address !== undefined) summary.remote = ex.address;
  return summary;
}

/** Hears each request's summary; `wants` may say a status's summary is not needed, so it is not built. */
export type RequestListener = ((summary: RequestSummary) => void) & { wants?: (status: number) => boolean };

/** The default request log: one JSON line per request, a warning for 5xx. */
export function logRequests(logger: Logger): RequestListener {
  const log: RequestListener = (summary) => {
    if (summary.status >= 500) logger.warn(summary, "request");
    else logger.info(summary, "request");
  };
  // The level is read per request: pino's can change while the server runs.
  log.wants = (status) => status >= 500 || logger.isLevelEnabled?.("info") !== false;
  return log;
}
