import type { Logger } from "@toolshed/schema";
import { jsonBody, type SlowReaderGuard, whenBodyDone } from "./body-done.js";
import type { Exchange, HttpAnswer } from "./exchange.js";
import { DEFAULT_WRITE_TIMEOUT_MS } from "./node-listener.js";
import type { Pipeline } from "./pipeline.js";
import { readBody } from "./wire.js";

/**
 * Where the client's address comes from on runtimes that pass one next to the Request: `{ address }`,
 * or @hono/node-server's `env.incoming` (Hono's `c.env`).
 */
export type FetchEnv = { address?: string } | { incoming?: { socket?: { remoteAddress?: string } } } | undefined;

function addressOf(env: unknown): string | undefined {
  if (typeof env !== "object" || env === null) return undefined;
  const given = (env as { address?: unknown }).address;
  if (typeof given === "string") return given;
  return (env as { incoming?: { socket?: { remoteAddress?: string } } }).incoming?.socket?.remoteAddress;
}

class FetchExchange implements Exchange {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly url: string;
  readonly targetIsPath = false;
  readonly headers: Headers;
  readonly address: string | undefined;
  readonly #request: Request;

  constructor(request: Request, env: unknown) {
    this.#request = request;
    this.method = request.method;
    this.url = request.url;
    this.headers = request.headers;
    this.address = addressOf(env);
    const url = new URL(request.url);
    this.path = url.pathname;
    this.query = url.search.slice(1);
  }

  readBody(maxBytes: number) {
    return readBody(this.#request, maxBytes);
  }

  onClientGone(abort: (reason: Error) => void): () => void {
    const signal = this.#request.signal;
    const onAbort = () => abort(new Error("the client went away"));
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    return () => signal.removeEventListener("abort", onAbort);
  }

  toRequest(): Request {
    return this.#request;
  }
}

export interface FetchHandlerOptions {
  /**
   * A chunk of the answer the host has not taken from the body this long (ms) stops the body, so
   * the host closes the connection, and is logged (default 30 000; 0 turns it off). It works with
   * hosts that wait for the client before taking more, as @hono/node-server does.
   */
  writeTimeoutMs?: number;
  logger?: Pick<Logger, "warn">;
}

/** The pipeline as a Fetch handler, `(request) => Promise<Response>`: Hono, Bun, Deno, workers. */
export function createFetchHandler(
  pipeline: Pipeline,
  options: FetchHandlerOptions = {},
): (request: Request, env?: FetchEnv) => Promise<Response> {
  const timeoutMs = options.writeTimeoutMs ?? DEFAULT_WRITE_TIMEOUT_MS;
  return async (request, env) => {
    const exchange = new FetchExchange(request, env);
    const handled = await pipeline.handle(exchange);
    const guard: SlowReaderGuard | undefined =
      timeoutMs > 0
        ? {
            timeoutMs,
            cutOff() {
              options.logger?.warn(
                { timeoutMs, address: exchange.address },
                `closed a connection whose client did not read its answer within ${timeoutMs} ms`,
              );
            },
          }
        : undefined;
    const { response, streamed } = toGuardedResponse(handled.answer, guard !== undefined);
    // Small answers fit the socket's buffers: only streams are watched.
    return whenBodyDone(response, () => handled.sent(response.status), streamed ? guard : undefined);
  };
}

/** The answer as a Response; a large JSON body in chunks, so the guard can see the client stop. */
function toGuardedResponse(answer: HttpAnswer, guarded: boolean): { response: Response; streamed: boolean } {
  if (answer instanceof Response) {
    const sse = answer.headers.get("content-type")?.startsWith("text/event-stream") === true;
    return { response: answer, streamed: sse };
  }
  const headers: Record<string, string> = { ...answer.headers };
  if (answer.json === undefined)
    return { response: new Response(null, { status: answer.status, headers }), streamed: false };
  headers["content-type"] = "application/json";
  const body = jsonBody(answer.json, guarded);
  return { response: new Response(body, { status: answer.status, headers }), streamed: typeof body !== "string" };
}
