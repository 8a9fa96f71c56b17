/** What to do about a client that stops taking an answer's body. */
export interface SlowReaderGuard {
  /** How long a written chunk may wait for the client to take it (ms); 0 turns the guard off. */
  timeoutMs: number;
  /** Called once when the body is stopped because the client did not take it in time. */
  cutOff(): void;
}

// A JSON answer larger than this goes out in chunks of this size, so a host that waits for the
// client between chunks (backpressure) shows when the client stops reading.
const CHUNK_BYTES = 64 * 1024;

/** A JSON answer's body: the string as is when small, else a stream of 64 KiB chunks. */
export function jsonBody(json: string, guarded: boolean): string | ReadableStream<Uint8Array> {
  if (!guarded || json.length * 3 <= CHUNK_BYTES) return json;
  const bytes = Buffer.from(json);
  if (bytes.length <= CHUNK_BYTES) return json;
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      controller.enqueue(bytes.subarray(at, at + CHUNK_BYTES));
      at += CHUNK_BYTES;
      if (at >= bytes.length) controller.close();
    },
  });
}

/**
 * Calls `done` once the response has been sent: at once for a plain body, at the end (or
 * cancel) of a streamed one, so logs and shutdown see SSE answers through to their end. With a
 * guard, a streamed body whose chunk the client has not taken within its timeout is stopped (the
 * host then closes the connection) and the guard told, so a client that never reads cannot hold
 * an answer in memory.
 */
export function whenBodyDone(response: Response, done: () => void, guard?: SlowReaderGuard): Response {
  const body = response.body;
  const sse = response.headers.get("content-type")?.startsWith("text/event-stream") === true;
  const guarded = guard !== undefined && guard.timeoutMs > 0;
  if (!body || (!sse && !guarded)) {
    done();
    return response;
  }
  if (!sse) done();
  const reader = body.getReader();
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    if (sse) done();
  };
  let timer: NodeJS.Timeout | undefined;
  const wrapped = new ReadableStream<Uint8Array>({
    async pull(controller) {
      // The client took the last chunk: the host asks for the next one.
      clearTimeout(timer);
      try {
        const { done: end, value } = await reader.read();
        if (end) {
          controller.close();
          finish();
          return;
        }
        controller.enqueue(value);
        if (guarded) {
          timer = setTimeout(() => {
            controller.error(new Error("the client did not read its answer in time"));
            reader.cancel().catch(() => {});
            finish();
            guard.cutOff();
          }, guard.timeoutMs);
          timer.unref?.();
        }
      } catch (error) {
        controller.error(error);
        finish();
      }
    },
    async cancel(reason) {
      clearTimeout(timer);
      finish();
      await reader.cancel(reason);
    },
  });
  return new Response(wrapped, { status: response.status, statusText: response.statusText, headers: response.headers });
}
