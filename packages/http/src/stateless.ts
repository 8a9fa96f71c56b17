import { MAX_BATCH_SIZE } from "@modelcontextprotocol/sdk/server/requestBody.js";
import type { JSONRPCMessage, JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import type { AuthInfo } from "@toolshed/schema";
import { JsonRpcCode, type TraceContextCarrier } from "@toolshed/server";
import {
  checkJsonRpcMessage,
  DEFAULT_MAX_BATCH_BYTES,
  isModernRequest,
  type JsonRpcErrorResponse,
  MetaKey,
  parseJsonRpcText,
  traceContextOf,
} from "@toolshed/server/internal";
import type { Charge } from "./admission.js";
import { BatchBudget } from "./batch-budget.js";
import type { Cancellation } from "./cancellation.js";
import type { CallContext, Dispatch, Reply } from "./dispatcher.js";
import type { JsonAnswer } from "./exchange.js";
import { HttpErrorCode, jsonResponse, jsonRpcErrorResponse } from "./http-errors.js";
import type { RequestRecord } from "./request-context.js";
import { countRefused } from "./telemetry.js";
import {
  checkModernHeaders,
  checkPostHeaders,
  checkProtocolVersion,
  type HeaderReader,
  hasModernHeader,
} from "./wire.js";

export const SSE_HEADERS = {
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-cache, no-transform",
  Connection: "keep-alive",
  "X-Accel-Buffering": "no",
} as const;

const KEEP_ALIVE_MS = 15_000;

/**
 * The 403 insufficient_scope answer for a lone request the caller may see but lacks a scope for
 * (the spec's step-up challenge); undefined to dispatch it.
 */
export type ScopeCheck = (request: JSONRPCRequest, authInfo: AuthInfo | undefined) => Response | undefined;

export interface StatelessOptions {
  dispatch: Dispatch;
  maxBodyBytes: number;
  /** Largest JSON answer to one batch in bytes (default 16 MiB); calls past it get a `too_large` error. 0: no limit. */
  maxBatchBytes?: number;
  checkScopes?: ScopeCheck;
  /**
   * Takes one of the caller's subscriptions/listen slots, freed when the stream ends; false when
   * the caller holds its quota (a 429).
   */
  openListen?: () => boolean;
}

// For messages that passed checkJsonRpcMessage. The SDK's type guards run a Zod parse per
// message, a large share of a small call's cost.
const isRequest = (m: JSONRPCMessage): m is JSONRPCRequest => "method" in m && "id" in m;
const isInitialize = (m: JSONRPCMessage) => isRequest(m) && m.method === "initialize";

/** Messages to dispatch and the error answers for those that cannot be, from one request body. */
export type ParsedBody =
  | { ok: true; batch: boolean; messages: JSONRPCMessage[]; errors: JsonRpcErrorResponse[] }
  | { ok: false; response: Response };

/** Parses a POST body as one JSON-RPC message or a batch, with the answers C12 requires. */
export function parseBody(text: string): ParsedBody {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, response: jsonResponse(400, parseJsonRpcText(text).responses[0]) };
  }
  if (Array.isArray(value) && value.length > MAX_BATCH_SIZE) {
    return {
      ok: false,
      response: jsonRpcErrorResponse(
        400,
        HttpErrorCode.InvalidRequest,
        `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`,
      ),
    };
  }
  if (Array.isArray(value) && value.length === 0) {
    return { ok: false, response: jsonResponse(400, parseJsonRpcText("[]").responses[0]) };
  }
  const batch = Array.isArray(value);
  const messages: JSONRPCMessage[] = [];
  const errors: JsonRpcErrorResponse[] = [];
  for (const item of batch ? (value as unknown[]) : [value]) {
    const checked = checkJsonRpcMessage(item);
    if (checked.ok) messages.push(checked.message);
    else if (checked.response) errors.push(checked.response);
  }
  if (messages.some(isInitialize) && messages.length + errors.length > 1) {
    return {
      ok: false,
      response: jsonRpcErrorResponse(
        400,
        HttpErrorCode.InvalidRequest,
        "Invalid Request: Only one initialization request is allowed",
      ),
    };
  }
  return { ok: true, batch, messages, errors };
}

function metaOf(request: JSONRPCRequest): Record<string, unknown> | undefined {
  const meta = (request.params as { _meta?: unknown } | undefined)?._meta;
  return typeof meta === "object" && meta !== null ? (meta as Record<string, unknown>) : undefined;
}

/** Whether the answer streams (SSE): the call asked for progress or logs, or it is a listen stream. */
function streams(request: JSONRPCRequest): boolean {
  const meta = metaOf(request);
  return (
    meta?.progressToken !== undefined ||
    meta?.[MetaKey.logLevel] !== undefined ||
    request.method === "subscriptions/listen"
  );
}

/** One stateless POST as the handler needs it, from a Fetch Request or from node:http. */
export interface StatelessPost {
  headers: HeaderReader;
  readBody(maxBytes: number): Promise<{ text: string } | { response: Response }>;
  /** Aborted when the client goes away or the server stops waiting (see InFlight.begin). */
  cancel: Cancellation;
  /** The request's log record. */
  record?: RequestRecord;
  /** Charges the calls of a batch beyond the first to the caller's rate allowance (a 429 when refused). */
  charge?: Charge;
}

const json = (status: number, body: unknown): JsonAnswer => ({ status, json: JSON.stringify(body) });

/**
 * POST /mcp without sessions: every request is answered from the shared runtime. JSON by
 * default; SSE when a call asked for progress, so progress and log notifications arrive first.
 */
export async function answerStatelessPost(
  post: StatelessPost,
  authInfo: AuthInfo | undefined,
  options: StatelessOptions,
): Promise<Response | JsonAnswer> {
  const rejected = checkPostHeaders(post.headers);
  if (rejected) return rejected;
  const body = await post.readBody(options.maxBodyBytes);
  if ("response" in body) {
    if (body.response.status === 413) countRefused("body_too_large");
    return body.response;
  }
  const parsed = parseBody(body.text);
  if (!parsed.ok) return parsed.response;
  const { batch, messages, errors } = parsed;
  if (isModernPost(post.headers, batch, messages)) return answerModernPost(post, authInfo, options, parsed);
  if (!messages.some(isInitialize)) {
    const badVersion = checkProtocolVersion(post.headers);
    if (badVersion) return badVersion;
  }
  const requests = messages.filter(isRequest);
  // The POST paid for one call; a batch pays for each of its requests before any runs.
  if (requests.length > 1 && post.charge) {
    const refused = await post.charge(requests.length - 1);
    if (refused) return refused;
  }
  if (requests.length === 0) {
    // Notifications and responses only: nothing to answer, except messages that were invalid.
    if (errors.length === 0) return { status: 202 };
    return json(400, batch ? errors : errors[0]);
  }
  if (!batch && errors.length === 0 && options.checkScopes) {
    const challenge = options.checkScopes(requests[0] as JSONRPCRequest, authInfo);
    if (challenge) return refusedForScope(challenge);
  }
  const { cancel } = post;
  const ctx = callContext(post, authInfo);
  const stream = requests.some(streams);
  if (!stream) {
    if (!batch && errors.length === 0) {
      return json(200, (await options.dispatch(requests[0] as JSONRPCRequest, ctx))?.answer);
    }
    const answers = await Promise.all(requests.map(async (m) => (await options.dispatch(m, ctx))?.answer));
    if (!batch) return json(200, [...errors, ...answers][0]);
    const budget = new BatchBudget(options.maxBatchBytes ?? DEFAULT_MAX_BATCH_BYTES);
    const parts = errors.map((e) => budget.take(e));
    requests.forEach((request, i) => {
      const answer = answers[i];
      if (answer !== undefined) parts.push(budget.take(answer, request));
    });
    return { status: 200, json: `[${parts.join(",")}]` };
  }
  const budget = batch ? new BatchBudget(options.maxBatchBytes ?? DEFAULT_MAX_BATCH_BYTES) : undefined;
  return sseAnswer(requests, errors, (m, notify) => options.dispatch(m, withNotify(ctx, notify)), cancel, budget);
}

/** A 403 insufficient_scope answer, counted. */
function refusedForScope(challenge: Response): Response {
  countRefused("forbidden");
  return challenge;
}

/**
 * What the calls of one POST share. A class: its signal is a getter on the prototype, made only
 * if a handler asks for it, and an object literal with a getter is slow to make.
 */
class PostContext implements CallContext {
  readonly cancel: Cancellation;
  readonly #headers: HeaderReader;
  authInfo?: AuthInfo;
  record?: RequestRecord;
  era?: "modern";

  constructor(post: StatelessPost, authInfo: AuthInfo | undefined, era?: "modern") {
    this.cancel = post.cancel;
    this.#headers = post.headers;
    if (era) this.era = era;
    if (authInfo) this.authInfo = authInfo;
    if (post.record) this.record = post.record;
  }

  get signal(): AbortSignal {
    return this.cancel.signal;
  }

  /** The W3C trace context headers, read only when telemetry records and `_meta` carries none. */
  get traceContext(): TraceContextCarrier | undefined {
    return traceContextOf((name) => this.#headers.get(name));
  }
}

/** The context with a notification sink, for a streamed answer; the signal stays a lazy getter. */
function withNotify(ctx: CallContext, notify: NonNullable<CallContext["notify"]>): CallContext {
  return Object.assign(Object.create(ctx) as CallContext, { notify });
}

function callContext(post: StatelessPost, authInfo: AuthInfo | undefined, era?: "modern"): CallContext {
  return new PostContext(post, authInfo, era);
}

/**
 * A 2026-07-28 POST: by its MCP-Protocol-Version header, or a lone request that names its
 * version in `_meta` (or is server/discover). Such a request never opens a session.
 */
function isModernPost(headers: HeaderReader, batch: boolean, messages: JSONRPCMessage[]): boolean {
  if (hasModernHeader(headers)) return true;
  const first = messages[0];
  return !batch && first !== undefined && isRequest(first) && isModernRequest(first.method, first.params);
}

/** The id an error answer carries: the request's when the body had a usable one. */
const errorAnswer = (id: string | number | null, code: number, message: string) =>
  json(400, { jsonrpc: "2.0", id, error: { code, message } });

async function answerModernPost(
  post: StatelessPost,
  authInfo: AuthInfo | undefined,
  options: StatelessOptions,
  parsed: { batch: boolean; messages: JSONRPCMessage[]; errors: JsonRpcErrorResponse[] },
): Promise<Response | JsonAnswer> {
  const { batch, messages, errors } = parsed;
  const first = messages[0];
  if (batch) {
    const id = first && isRequest(first) ? first.id : null;
    return errorAnswer(
      id,
      JsonRpcCode.InvalidRequest,
      "Invalid Request: 2026-07-28 takes one JSON-RPC message per POST, not a batch",
    );
  }
  if (errors.length > 0) return json(400, errors[0]);
  if (!first || !isRequest(first)) return { status: 202 };
  const mismatch = checkModernHeaders(post.headers, first);
  if (mismatch) return errorAnswer(first.id, JsonRpcCode.HeaderMismatch, mismatch);
  const challenge = options.checkScopes?.(first, authInfo);
  if (challenge) return refusedForScope(challenge);
  if (first.method === "subscriptions/listen" && options.openListen && !options.openListen()) {
    countRefused("listen_limit");
    return json(429, {
      jsonrpc: "2.0",
      id: first.id,
      error: {
        code: HttpErrorCode.Transport,
        message:
          "Too Many Requests: this client has as many subscriptions/listen streams open as the server allows; close one, or listen for several resources in one stream (notifications.resourceSubscriptions takes a list of URIs)",
      },
    });
  }
  const { cancel } = post;
  const ctx = callContext(post, authInfo, "modern");
  if (streams(first)) {
    return sseAnswer([first], [], (m, notify) => options.dispatch(m, withNotify(ctx, notify)), cancel);
  }
  const reply = await options.dispatch(first, ctx);
  return reply ? json(reply.status, reply.answer) : { status: 202 };
}

/** Notification bytes a stream may hold for a client that does not read it (the final answer is not counted). */
const MAX_UNREAD_BYTES = 1024 * 1024;
const BY_BYTES: QueuingStrategy<Uint8Array> = { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength };

function sseAnswer(
  requests: JSONRPCRequest[],
  errors: JsonRpcErrorResponse[],
  dispatch: (m: JSONRPCRequest, notify: (n: unknown) => void) => Promise<Reply | undefined>,
  calls: Cancellation,
  budget?: BatchBudget,
): Response {
  const encoder = new TextEncoder();
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  let open = true;
  const send = (text: string) => {
    if (!open || !controller) return;
    try {
      controller.enqueue(encoder.encode(text));
    } catch {
      open = false;
    }
  };
  const writeText = (text: string) => send(`event: message\ndata: ${text}\n\n`);
  const write = (message: unknown) => writeText(JSON.stringify(message));
  // A client that stops reading a stream (a listen stream may last for hours) would have every
  // notification queued here: past the cap the stream ends and its calls are cancelled.
  const notify = (message: unknown) => {
    if (open && controller && (controller.desiredSize ?? 0) < -MAX_UNREAD_BYTES) {
      open = false;
      clearInterval(keepAlive);
      const reason = new Error("the client did not read its stream");
      controller.error(reason);
      calls.abort(reason);
      return;
    }
    write(message);
  };
  const keepAlive = setInterval(() => send(": keepalive\n\n"), KEEP_ALIVE_MS);
  keepAlive.unref();
  const finish = () => {
    clearInterval(keepAlive);
    if (!open) return;
    open = false;
    try {
      controller?.close();
    } catch {
      // already closed by a cancel
    }
  };
  const readable = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
      },
      cancel() {
        // The client went away: stop the calls, nobody can read their answers.
        open = false;
        clearInterval(keepAlive);
        calls.abort(new Error("the client closed the stream"));
      },
    },
    BY_BYTES,
  );
  for (const e of errors) write(e);
  void Promise.all(
    requests.map(async (m) => {
      const answer = (await dispatch(m, notify))?.answer;
      if (answer) writeText(budget ? budget.take(answer, m) : JSON.stringify(answer));
    }),
  ).finally(finish);
  return new Response(readable, { status: 200, headers: SSE_HEADERS });
}
