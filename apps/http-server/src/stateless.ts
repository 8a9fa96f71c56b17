import { MAX_BATCH_SIZE } from "@modelcontextprotocol/sdk/server/requestBody.js";
import {
  isInitializeRequest,
  isJSONRPCRequest,
  type JSONRPCMessage,
  type JSONRPCRequest,
} from "@modelcontextprotocol/sdk/types.js";
import type { AuthInfo } from "@toolshed/schema";
import { checkJsonRpcMessage, type JsonRpcErrorResponse, parseJsonRpcText } from "@toolshed/server";
import type { Answer, Dispatch } from "./dispatcher.js";
import { HttpErrorCode, jsonResponse, jsonRpcErrorResponse } from "./http-errors.js";
import { linkedAbort } from "./linked-abort.js";
import { checkPostHeaders, checkProtocolVersion, readBody } from "./wire.js";

export const SSE_HEADERS = {
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-cache, no-transform",
  Connection: "keep-alive",
  "X-Accel-Buffering": "no",
} as const;

const KEEP_ALIVE_MS = 15_000;

export interface StatelessOptions {
  dispatch: Dispatch;
  maxBodyBytes: number;
  /** Aborted when the server stops waiting for calls (shutdown deadline). */
  stopSignal: AbortSignal;
}

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
  if (messages.some(isInitializeRequest) && messages.length + errors.length > 1) {
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

function progressTokenOf(request: JSONRPCRequest): unknown {
  const meta = (request.params as { _meta?: { progressToken?: unknown } } | undefined)?._meta;
  return meta?.progressToken;
}

/**
 * POST /mcp without sessions: every request is answered from the shared runtime. JSON by
 * default; SSE when a call asked for progress, so progress and log notifications arrive first.
 */
export async function handleStatelessPost(
  request: Request,
  authInfo: AuthInfo | undefined,
  options: StatelessOptions,
): Promise<Response> {
  const rejected = checkPostHeaders(request.headers);
  if (rejected) return rejected;
  const body = await readBody(request, options.maxBodyBytes);
  if ("response" in body) return body.response;
  const parsed = parseBody(body.text);
  if (!parsed.ok) return parsed.response;
  const { batch, messages, errors } = parsed;
  if (!messages.some(isInitializeRequest)) {
    const badVersion = checkProtocolVersion(request.headers);
    if (badVersion) return badVersion;
  }
  const requests = messages.filter(isJSONRPCRequest);
  if (requests.length === 0) {
    // Notifications and responses only: nothing to answer, except messages that were invalid.
    if (errors.length === 0) return new Response(null, { status: 202 });
    return jsonResponse(400, batch ? errors : errors[0]);
  }
  const link = linkedAbort([request.signal, options.stopSignal]);
  const ctx = { ...(authInfo ? { authInfo } : {}), signal: link.controller.signal };
  const stream = requests.some((r) => progressTokenOf(r) !== undefined);
  if (!stream) {
    try {
      const answers = await Promise.all(requests.map((m) => options.dispatch(m, ctx)));
      const all = [...errors, ...answers.filter((a): a is Answer => a !== undefined)];
      return jsonResponse(200, batch ? all : all[0]);
    } finally {
      link.dispose();
    }
  }
  return sseAnswer(requests, errors, (m, notify) => options.dispatch(m, { ...ctx, notify }), link);
}

function sseAnswer(
  requests: JSONRPCRequest[],
  errors: JsonRpcErrorResponse[],
  dispatch: (m: JSONRPCRequest, notify: (n: unknown) => void) => Promise<Answer | undefined>,
  link: { controller: AbortController; dispose(): void },
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
  const write = (message: unknown) => send(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  const keepAlive = setInterval(() => send(": keepalive\n\n"), KEEP_ALIVE_MS);
  keepAlive.unref();
  const finish = () => {
    clearInterval(keepAlive);
    link.dispose();
    if (!open) return;
    open = false;
    try {
      controller?.close();
    } catch {
      // already closed by a cancel
    }
  };
  const readable = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    cancel() {
      // The client went away: stop the calls, nobody can read their answers.
      open = false;
      clearInterval(keepAlive);
      link.controller.abort(new Error("the client closed the stream"));
    },
  });
  for (const e of errors) write(e);
  void Promise.all(
    requests.map(async (m) => {
      const answer = await dispatch(m, write);
      if (answer) write(answer);
    }),
  ).finally(finish);
  return new Response(readable, { status: 200, headers: SSE_HEADERS });
}
