import { randomUUID } from "node:crypto";
import type { Logger } from "@toolshed/schema";
import type { Context, MiddlewareHandler } from "hono";
import { whenBodyDone } from "./body-done.js";
import type { RequestRecord } from "./request-context.js";

// A client's own request id is kept when it is short and plain, so logs can be joined up.
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The client's address when served by @hono/node-server; undefined when mounted elsewhere. */
export function clientAddress(env: unknown): string | undefined {
  const incoming = (env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress;
}

/** A request's record, with the client's x-request-id when it is safe to log, a new id otherwise. */
export function newRequestRecord(given: string | null | undefined): RequestRecord {
  return { id: given && SAFE_ID.test(given) ? given : randomUUID(), rpc: [], tools: [], outcomes: [] };
}

const one = (list: string[]) => (list.length === 0 ? undefined : list.length === 1 ? list[0] : list);

/**
 * The one log line of a request: id (also the x-request-id header), method, path, status,
 * JSON-RPC method, tool, outcome, session, the token's label (never the token) and duration.
 */
export function logRequest(
  logger: Logger,
  record: RequestRecord,
  request: { method: string; path: string; status: number; remote: string | undefined; started: number },
): void {
  const line = {
    reqId: record.id,
    method: request.method,
    path: request.path,
    status: request.status,
    rpc: one(record.rpc),
    tool: one(record.tools),
    outcome: one(record.outcomes),
    sessionId: record.sessionId,
    tokenId: record.tokenId,
    remote: request.remote,
    durationMs: Math.round((performance.now() - request.started) * 100) / 100,
  };
  if (request.status >= 500) logger.warn(line, "request");
  else logger.info(line, "request");
}

const RECORD_KEY = "toolshed.request";

/** The record `requestLog` keeps for a request, when the middleware runs. */
export function recordOf(c: Context): RequestRecord | undefined {
  return c.get(RECORD_KEY as never) as RequestRecord | undefined;
}

/** Hono middleware: a request's log line, written when the response has been sent (the end of an SSE stream). */
export function requestLog(logger: Logger): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    const record = newRequestRecord(c.req.header("x-request-id"));
    c.set(RECORD_KEY as never, record as never);
    await next();
    let res = c.res;
    try {
      res.headers.set("x-request-id", record.id);
    } catch {
      // Immutable headers (a fetched Response): copy once.
      res = new Response(res.body, res);
      res.headers.set("x-request-id", record.id);
    }
    const path = new URL(c.req.url).pathname;
    c.res = whenBodyDone(res, () =>
      logRequest(logger, record, {
        method: c.req.method,
        path,
        status: res.status,
        remote: clientAddress(c.env),
        started,
      }),
    );
  };
}
