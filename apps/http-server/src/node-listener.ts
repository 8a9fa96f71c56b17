import type { IncomingMessage, ServerResponse } from "node:http";
import { getRequestListener } from "@hono/node-server";
import { requestBodyTooLargeMessage } from "@modelcontextprotocol/sdk/server/requestBody.js";
import { newErrorRef } from "@toolshed/errors";
import type { Logger } from "@toolshed/schema";
import { Cancellation } from "./cancellation.js";
import { HttpErrorCode, jsonRpcErrorResponse } from "./http-errors.js";
import { admit, type McpRouteOptions } from "./mcp-route.js";
import type { RequestRecord } from "./request-context.js";
import { logRequest, newRequestRecord } from "./request-log.js";
import { answerStatelessPost, type JsonAnswer } from "./stateless.js";
import { answeredWithoutSession, type HeaderReader } from "./wire.js";

export interface NodeListenerOptions {
  /** The MCP endpoint's path. */
  path: string;
  route: McpRouteOptions;
  /** Where the per-request log lines go. */
  requestLogger: Logger;
  /** Everything but a stateless POST to `path` goes here, through @hono/node-server. */
  fetch: (request: Request, env?: unknown) => Promise<Response>;
}

/**
 * node:http's request headers read the way Fetch `Headers` reads them. node:http keeps only the
 * first of a repeated Host, Authorization or Content-Type; Fetch joins every value, so a repeat
 * fails its check on both paths alike. Repeats are rare: look for them only when there are some.
 */
export function nodeHeaders(req: IncomingMessage): HeaderReader {
  const headers = req.headers;
  let count = 0;
  for (const _ in headers) count++;
  const repeated = count * 2 !== req.rawHeaders.length;
  return {
    get(name) {
      if (repeated) return req.headersDistinct[name]?.join(", ") ?? null;
      const value = headers[name];
      return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
    },
  };
}

const decoder = new TextDecoder();

const unreadable = () => ({
  response: jsonRpcErrorResponse(400, HttpErrorCode.Transport, "Bad Request: the request body could not be read"),
});

/** The body as text, or the 413/400 answer, with the same rules as `readBody` for a Fetch Request. */
export function readNodeBody(
  req: IncomingMessage,
  maxBytes: number,
): Promise<{ text: string } | { response: Response }> {
  const tooLarge = () => ({
    response: jsonRpcErrorResponse(413, HttpErrorCode.Transport, requestBodyTooLargeMessage(maxBytes)),
  });
  if (Number(req.headers["content-length"]) > maxBytes) return Promise.resolve(tooLarge());
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (outcome: { text: string } | { response: Response }) => {
      req.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
      resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      // Past the limit the rest is left to node:http, which discards it: closing the connection
      // on a client still sending could reset it before the 413 is read.
      if (size > maxBytes) done(tooLarge());
      else chunks.push(chunk);
    };
    const onEnd = () => done({ text: decoder.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)) });
    const onError = () => done(unreadable());
    const onClose = () => {
      if (!req.complete) done(unreadable());
    };
    req.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
  });
}

function writeJson(res: ServerResponse, answer: JsonAnswer, requestId: string): void {
  if (answer.json === undefined) {
    res.writeHead(answer.status, { "x-request-id": requestId }).end();
    return;
  }
  res
    .writeHead(answer.status, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(answer.json),
      "x-request-id": requestId,
    })
    .end(answer.json);
}

/** Writes a Fetch Response (errors, SSE) to node:http; an SSE stream is relayed until it ends or the client leaves. */
export async function writeResponse(res: ServerResponse, response: Response, requestId: string): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  headers["x-request-id"] = requestId;
  const body = response.body;
  if (!body || !headers["content-type"]?.startsWith("text/event-stream")) {
    const bytes = body ? Buffer.from(await response.arrayBuffer()) : undefined;
    if (bytes) headers["content-length"] = String(bytes.length);
    res.writeHead(response.status, headers).end(bytes);
    return;
  }
  res.writeHead(response.status, headers).flushHeaders();
  const reader = body.getReader();
  const onClose = () => void reader.cancel(new Error("the client went away")).catch(() => {});
  res.once("close", onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      if (!res.write(value)) await drained(res);
    }
  } catch {
    // The stream failed or was cancelled: end what was sent.
  } finally {
    res.off("close", onClose);
    if (!res.writableEnded) res.end();
  }
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const wake = () => {
      res.off("drain", wake).off("close", wake);
      resolve();
    };
    res.once("drain", wake).once("close", wake);
  });
}

/**
 * A node:http request listener. A stateless POST to the MCP path is answered here, on node:http's
 * own objects, with the same checks, limits and logs as the Hono route; building Fetch Requests,
 * Responses and web streams for it cost more than the call itself. Everything else goes to `fetch`.
 */
export function createNodeListener(o: NodeListenerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const fallback = getRequestListener(o.fetch);
  const { route } = o;

  async function serve(req: IncomingMessage, res: ServerResponse, record: RequestRecord): Promise<void> {
    const headers = nodeHeaders(req);
    const url = `http://${headers.get("host") ?? "localhost"}${o.path}`;
    const admitted = await admit(
      {
        headers,
        query: "",
        url,
        address: req.socket.remoteAddress,
        record,
      },
      route,
    );
    if (!admitted.ok) return writeResponse(res, admitted.response, record.id);
    const cancel = new Cancellation();
    const end = route.inFlight.begin(cancel);
    const onClose = () => {
      if (!res.writableFinished) cancel.abort(new Error("the client went away"));
    };
    res.once("close", onClose);
    try {
      const answer = await answerStatelessPost(
        {
          headers,
          readBody: (max) => readNodeBody(req, max),
          cancel,
          record,
          ...(admitted.charge ? { charge: admitted.charge } : {}),
        },
        admitted.authInfo,
        { dispatch: route.dispatch, maxBodyBytes: route.maxBodyBytes },
      );
      if (answer instanceof Response) await writeResponse(res, answer, record.id);
      else writeJson(res, answer, record.id);
    } finally {
      res.off("close", onClose);
      end();
    }
  }

  return (req, res) => {
    if (req.method !== "POST" || req.url !== o.path || (route.sessions && !answeredWithoutSession(nodeHeaders(req)))) {
      void fallback(req, res);
      return;
    }
    const started = performance.now();
    const given = req.headers["x-request-id"];
    const record = newRequestRecord(Array.isArray(given) ? given[0] : given);
    res.once("close", () =>
      logRequest(o.requestLogger, record, {
        method: "POST",
        path: o.path,
        status: res.statusCode,
        remote: req.socket.remoteAddress,
        started,
      }),
    );
    serve(req, res, record).catch((error: unknown) => {
      const ref = newErrorRef();
      route.logger.error({ ref, err: error }, "unhandled error answering an HTTP request");
      if (res.headersSent) res.destroy();
      else
        void writeResponse(
          res,
          jsonRpcErrorResponse(500, HttpErrorCode.InternalError, `Internal error (ref ${ref})`),
          record.id,
        );
    });
  };
}
