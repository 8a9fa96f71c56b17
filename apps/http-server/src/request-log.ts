import { randomUUID } from "node:crypto";
import type { Logger } from "@toolshed/schema";
import type { MiddlewareHandler } from "hono";
import { whenBodyDone } from "./body-done.js";
import { type RequestRecord, runInRequest } from "./request-context.js";

// A client's own request id is kept when it is short and plain, so logs can be joined up.
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The client's address when served by @hono/node-server; undefined when mounted elsewhere. */
export function clientAddress(env: unknown): string | undefined {
  const incoming = (env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress;
}

const one = (list: string[]) => (list.length === 0 ? undefined : list.length === 1 ? list[0] : list);

/**
 * One JSON log line per request, written when the response has been sent (the end of an SSE
 * stream): id (also the x-request-id header), method, path, status, JSON-RPC method, tool,
 * outcome, session, the token's label (never the token) and duration.
 */
export function requestLog(logger: Logger): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    const given = c.req.header("x-request-id");
    const record: RequestRecord = {
      id: given && SAFE_ID.test(given) ? given : randomUUID(),
      rpc: [],
      tools: [],
      outcomes: [],
    };
    await runInRequest(record, () => next());
    let res = c.res;
    try {
      res.headers.set("x-request-id", record.id);
    } catch {
      // Immutable headers (a fetched Response): copy once.
      res = new Response(res.body, res);
      res.headers.set("x-request-id", record.id);
    }
    const path = new URL(c.req.url).pathname;
    c.res = whenBodyDone(res, () => {
      const line = {
        reqId: record.id,
        method: c.req.method,
        path,
        status: res.status,
        rpc: one(record.rpc),
        tool: one(record.tools),
        outcome: one(record.outcomes),
        sessionId: record.sessionId,
        tokenId: record.tokenId,
        remote: clientAddress(c.env),
        durationMs: Math.round((performance.now() - started) * 100) / 100,
      };
      if (res.status >= 500) logger.warn(line, "request");
      else logger.info(line, "request");
    });
  };
}
