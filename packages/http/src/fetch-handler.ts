import { whenBodyDone } from "./body-done.js";
import { type Exchange, toResponse } from "./exchange.js";
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

/** The pipeline as a Fetch handler, `(request) => Promise<Response>`: Hono, Bun, Deno, workers. */
export function createFetchHandler(pipeline: Pipeline): (request: Request, env?: FetchEnv) => Promise<Response> {
  return async (request, env) => {
    const handled = await pipeline.handle(new FetchExchange(request, env));
    const response = toResponse(handled.answer);
    return whenBodyDone(response, () => handled.sent(response.status));
  };
}
