import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Limits } from "./stdio-transport.js";

/** An HTTP request that got no response headers in time. */
export class NoAnswerError extends Error {
  override name = "NoAnswerError";
  constructor(readonly timeoutMs: number) {
    super(`no HTTP answer in ${timeoutMs} ms (--timeout)`);
  }
}

/** A body longer than the audit reads. */
export class TooLargeError extends Error {
  override name = "TooLargeError";
  constructor(readonly limit: number) {
    super(`an answer over ${limit} bytes (--max-answer)`);
  }
}

/** Reads at most `limit` bytes of a body, then errors it (which cancels the download). */
export function cappedBody(
  body: ReadableStream<Uint8Array>,
  limit: number,
  onBytes: (count: number) => void = () => {},
  onTooLarge: () => void = () => {},
): ReadableStream<Uint8Array> {
  let seen = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        onBytes(chunk.byteLength);
        if (seen > limit) {
          onTooLarge();
          controller.error(new TooLargeError(limit));
        } else controller.enqueue(chunk);
      },
    }),
  );
}

const NO_BODY = new Set([101, 204, 205, 304]);

/**
 * fetch for the SDK's HTTP transport: response headers within `timeoutMs` (the SDK waits forever
 * for the answer to a notification), and at most `maxAnswerBytes` per body.
 */
export function cappedFetch(timeoutMs: number, limits: Limits): FetchLike {
  return async (url, init) => {
    const timer = new AbortController();
    const timeout = setTimeout(() => timer.abort(new NoAnswerError(timeoutMs)), timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, timer.signal]) : timer.signal;
    let response: Response;
    try {
      response = await fetch(url, { ...init, signal });
    } catch (error) {
      throw timer.signal.aborted ? timer.signal.reason : error;
    } finally {
      clearTimeout(timeout);
    }
    if (!response.body || NO_BODY.has(response.status) || (response.status >= 300 && response.status < 400))
      return response;
    return new Response(cappedBody(response.body, limits.maxAnswerBytes, limits.onBytes, limits.onTooLarge), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** The text of a body, at most `limit` bytes of it. */
export async function cappedText(response: Response, limit: number): Promise<string> {
  if (!response.body) return "";
  return new Response(cappedBody(response.body, limit)).text();
}
