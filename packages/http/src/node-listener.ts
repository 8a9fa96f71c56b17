import type { IncomingMessage, ServerResponse } from "node:http";
import { requestBodyTooLargeMessage } from "@modelcontextprotocol/sdk/server/requestBody.js";
import type { Logger } from "@toolshed/schema";
import type { Exchange, HttpAnswer } from "./exchange.js";
import { HttpErrorCode, jsonRpcErrorResponse } from "./http-errors.js";
import type { Handled, Pipeline } from "./pipeline.js";
import type { HeaderReader } from "./wire.js";

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

/**
 * A body that a framework's parser has already read (Express's express.json(), a Fastify content
 * parser): its stream is drained, so its text is taken from `req.body` instead. Null: the stream
 * was read and nothing was left on `req.body`; undefined: the stream is unread.
 */
function bodyReadBefore(req: IncomingMessage): string | null | undefined {
  if (!req.readableEnded) return undefined;
  const body = (req as IncomingMessage & { body?: unknown }).body;
  if (body === undefined || body === null) return null;
  if (typeof body === "string") return body;
  if (Buffer.isBuffer(body)) return decoder.decode(body);
  return JSON.stringify(body);
}

/** The body as text, or the 413/400 answer, with the same rules as `readBody` for a Fetch Request. */
export function readNodeBody(
  req: IncomingMessage,
  maxBytes: number,
): Promise<{ text: string } | { response: Response }> {
  const tooLarge = () => ({
    response: jsonRpcErrorResponse(413, HttpErrorCode.Transport, requestBodyTooLargeMessage(maxBytes)),
  });
  const parsed = bodyReadBefore(req);
  if (parsed === null) {
    const description =
      "Bad Request: the request body was read before it reached the MCP endpoint; leave it unread, or keep the parsed body on req.body";
    return Promise.resolve({ response: jsonRpcErrorResponse(400, HttpErrorCode.Transport, description) });
  }
  if (parsed !== undefined) {
    if (Buffer.byteLength(parsed) > maxBytes) return Promise.resolve(tooLarge());
    return Promise.resolve({ text: parsed });
  }
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

/** How long a client may leave its answer unread before the connection is closed (30 s). */
export const DEFAULT_WRITE_TIMEOUT_MS = 30_000;

export interface NodeListenerOptions {
  /** See HttpAppOptions.writeTimeoutMs (default 30 000 ms; 0 turns it off). */
  writeTimeoutMs?: number;
  /** Where a closed slow reader is logged. */
  logger?: Logger;
}

/** What writing one answer needs to cut off a client that does not read it. */
interface SlowReaders {
  timeoutMs: number;
  /** Logs and closes the connection. */
  cutOff(res: ServerResponse): void;
}

/**
 * After the whole answer was handed to node:http: when part of it is still waiting in the process
 * (the kernel's buffers are full because the client does not read), the client has `timeoutMs` to
 * take it; then the connection is closed and the memory it held is freed.
 */
function finishWithin(res: ServerResponse, slow: SlowReaders | undefined): void {
  if (!slow || slow.timeoutMs <= 0 || res.writableFinished) return;
  // Everything already reached the kernel: nothing is held here (keep-alive timeouts do the rest).
  if ((res.socket?.writableLength ?? 0) === 0) return;
  const timer = setTimeout(() => {
    if (!res.writableFinished) slow.cutOff(res);
  }, slow.timeoutMs);
  timer.unref();
  const clear = () => clearTimeout(timer);
  res.once("finish", clear).once("close", clear);
}

/** Writes a Fetch Response (errors, SSE) to node:http; an SSE stream is relayed until it ends or the client leaves. */
export async function writeResponse(res: ServerResponse, response: Response, slow?: SlowReaders): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const body = response.body;
  if (!body || !headers["content-type"]?.startsWith("text/event-stream")) {
    const bytes = body ? Buffer.from(await response.arrayBuffer()) : undefined;
    if (bytes) headers["content-length"] = String(bytes.length);
    res.writeHead(response.status, headers).end(bytes);
    finishWithin(res, slow);
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
      if (!res.write(value) && !(await drained(res, slow?.timeoutMs ?? 0)) && slow) {
        slow.cutOff(res);
        break;
      }
    }
  } catch {
    // The stream failed or was cancelled: end what was sent.
  } finally {
    res.off("close", onClose);
    if (!res.writableEnded) res.end();
  }
}

/** Resolves true once `res` drains (or closes), false when `timeoutMs` (if > 0) passes first. */
function drained(res: ServerResponse, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const wake = (ok: boolean) => {
      if (timer) clearTimeout(timer);
      res.off("drain", onDrain).off("close", onDrain);
      resolve(ok);
    };
    const onDrain = () => wake(true);
    res.once("drain", onDrain).once("close", onDrain);
    if (timeoutMs > 0) timer = setTimeout(() => wake(false), timeoutMs);
  });
}

/** A node:http request as the pipeline reads it; each part is worked out only when asked for. */
class NodeExchange implements Exchange {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly headers: HeaderReader;
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  readonly #target: string;
  #url: string | undefined;

  constructor(req: IncomingMessage, res: ServerResponse) {
    this.#req = req;
    this.#res = res;
    this.method = req.method ?? "GET";
    this.headers = nodeHeaders(req);
    const target = req.url ?? "/";
    this.#target = target;
    // An absolute-form target (`POST http://host/mcp`) carries its own authority; the Host check compares them.
    const pathAndQuery = target.startsWith("/") ? target : URL.canParse(target) ? pathOf(new URL(target)) : target;
    const at = pathAndQuery.indexOf("?");
    this.path = at < 0 ? pathAndQuery : pathAndQuery.slice(0, at);
    this.query = at < 0 ? "" : pathAndQuery.slice(at + 1);
  }

  get targetIsPath(): boolean {
    return this.#target.startsWith("/");
  }

  get url(): string {
    if (this.#url !== undefined) return this.#url;
    if (!this.#target.startsWith("/")) this.#url = this.#target;
    else {
      const tls = (this.#req.socket as { encrypted?: boolean }).encrypted === true;
      this.#url = `${tls ? "https" : "http"}://${this.headers.get("host") ?? "localhost"}${this.#target}`;
    }
    return this.#url;
  }

  get address(): string | undefined {
    return this.#req.socket.remoteAddress;
  }

  readBody(maxBytes: number) {
    return readNodeBody(this.#req, maxBytes);
  }

  onClientGone(abort: (reason: Error) => void): () => void {
    const res = this.#res;
    const onClose = () => {
      if (!res.writableFinished) abort(new Error("the client went away"));
    };
    res.once("close", onClose);
    return () => res.off("close", onClose);
  }

  toRequest(): Request {
    const headers = new Headers();
    const raw = this.#req.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      try {
        headers.append(raw[i] as string, raw[i + 1] as string);
      } catch {
        // A header Fetch refuses (bad characters) is left out; admission already checked what matters.
      }
    }
    return new Request(this.url, { method: this.method, headers });
  }
}

const pathOf = (url: URL) => `${url.pathname}${url.search}`;

function writeAnswer(res: ServerResponse, answer: HttpAnswer, slow: SlowReaders): Promise<void> | undefined {
  if (answer instanceof Response) return writeResponse(res, answer, slow);
  const headers: Record<string, string | number> = answer.headers ?? {};
  if (answer.json === undefined) {
    res.writeHead(answer.status, headers).end();
    return;
  }
  headers["content-type"] = "application/json";
  headers["content-length"] = Buffer.byteLength(answer.json);
  res.writeHead(answer.status, headers).end(answer.json);
  finishWithin(res, slow);
}

/**
 * The pipeline as a node:http request listener (`http.createServer(listener)`, or a route of
 * Express or Fastify). Answers are written on node:http's own objects: building Fetch Requests,
 * Responses and web streams for a small call cost more than the call itself.
 */
export function createNodeListener(
  pipeline: Pipeline,
  options: NodeListenerOptions = {},
): (req: IncomingMessage, res: ServerResponse) => void {
  const timeoutMs = options.writeTimeoutMs ?? DEFAULT_WRITE_TIMEOUT_MS;
  const slow: SlowReaders = {
    timeoutMs,
    cutOff(res) {
      options.logger?.warn(
        { timeoutMs, unsentBytes: res.socket?.writableLength, address: res.socket?.remoteAddress },
        `closed a connection whose client did not read its answer within ${timeoutMs} ms`,
      );
      res.destroy();
    },
  };
  return (req, res) => {
    let handled: Handled | undefined;
    let closed = false;
    // The answer is reported sent when the connection is done with it (or the client left first).
    res.once("close", () => {
      if (handled) handled.sent(res.statusCode);
      else closed = true;
    });
    pipeline.handle(new NodeExchange(req, res)).then(
      (h) => {
        handled = h;
        if (closed) return h.sent(res.statusCode);
        const writing = writeAnswer(res, h.answer, slow);
        // Writing failed after the headers went out (a stream broke): nothing more can be said.
        writing?.catch(() => res.destroy());
      },
      () => res.destroy(),
    );
  };
}
