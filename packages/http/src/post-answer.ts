import type { JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import type { Cancellation } from "@toolshed/server/internal";
import { type JsonRpcErrorResponse, type Meta, MetaKey } from "@toolshed/server/internal";
import type { BatchBudget } from "./batch-budget.js";
import type { Answer, Reply } from "./dispatcher.js";
import type { JsonAnswer } from "./exchange.js";

// How a stateless POST is answered: one JSON body, or an SSE stream when a call asked for
// progress or logs (so they arrive before its answer) or is a listen stream.

export const SSE_HEADERS = {
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-cache, no-transform",
  Connection: "keep-alive",
  "X-Accel-Buffering": "no",
} as const;

const KEEP_ALIVE_MS = 15_000;

export const json = (status: number, body: unknown): JsonAnswer => ({ status, json: JSON.stringify(body) });

/** Whether the answer streams (SSE): the call asked for progress or logs, or it is a listen stream. */
export function streams(method: string, meta: Meta | undefined): boolean {
  return (
    meta?.progressToken !== undefined || meta?.[MetaKey.logLevel] !== undefined || method === "subscriptions/listen"
  );
}

/**
 * One JSON array of a batch's answers: the invalid messages' errors first, then each request's
 * answer while the budget lasts (past it, a small `too_large` error in its place).
 */
export function batchAnswer(
  requests: readonly JSONRPCRequest[],
  answers: readonly (Answer | undefined)[],
  errors: readonly JsonRpcErrorResponse[],
  budget: BatchBudget,
): JsonAnswer {
  const parts = errors.map((e) => budget.take(e));
  requests.forEach((request, i) => {
    const answer = answers[i];
    if (answer !== undefined) parts.push(budget.take(answer, request));
  });
  return { status: 200, json: `[${parts.join(",")}]` };
}

/** Notification bytes a stream may hold for a client that does not read it (the final answer is not counted). */
const MAX_UNREAD_BYTES = 1024 * 1024;
const BY_BYTES: QueuingStrategy<Uint8Array> = { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength };

/**
 * The answers of `requests` (after `errors`) as one SSE stream: each request's notifications as
 * they come, then its answer. The client closing the stream, or not reading it, cancels the calls.
 */
export function sseAnswer(
  requests: readonly JSONRPCRequest[],
  errors: readonly JsonRpcErrorResponse[],
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
