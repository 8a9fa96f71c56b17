import type { HeaderReader } from "./wire.js";

/**
 * One HTTP request as the pipeline reads it, whatever carried it (a Fetch Request, node:http).
 * Adapters build it and write the answer back; everything else happens in the pipeline.
 */
export interface Exchange {
  readonly method: string;
  /** The path without its query. */
  readonly path: string;
  /** The query string without its "?"; empty when there is none. */
  readonly query: string;
  /** The absolute request URL (from the Host header on node:http, so possibly unparsable). */
  readonly url: string;
  /**
   * True when the request target was a path (origin-form) and `url` was built from the Host
   * header, so the two cannot disagree; false when the URL came from elsewhere.
   */
  readonly targetIsPath: boolean;
  readonly headers: HeaderReader;
  /** The client's address, when the adapter knows it. */
  readonly address: string | undefined;
  /** The body as text, or the 413/400 answer. */
  readBody(maxBytes: number): Promise<{ text: string } | { response: Response }>;
  /** Calls `abort` if the client goes away before the answer is sent; returns the detach. */
  onClientGone(abort: (reason: Error) => void): () => void;
  /** The request as a Fetch Request (its body is not read from it), for the SDK's session transport. */
  toRequest(): Request;
}

/** A JSON answer not yet made a Response, so node:http can write it as it is. No `json`: an empty body. */
export interface JsonAnswer {
  status: number;
  json?: string;
  headers?: Record<string, string>;
}

/** What the pipeline answers: a Response (errors, SSE, sessions) or plain JSON. */
export type HttpAnswer = Response | JsonAnswer;

export const jsonAnswer = (status: number, body: unknown): JsonAnswer => ({ status, json: JSON.stringify(body) });

/** The answer as a Fetch Response. */
export function toResponse(answer: HttpAnswer): Response {
  if (answer instanceof Response) return answer;
  const headers: Record<string, string> = { ...answer.headers };
  if (answer.json !== undefined) headers["content-type"] = "application/json";
  return new Response(answer.json ?? null, { status: answer.status, headers });
}

/** Adds headers to an answer; a Response with immutable headers is copied once. */
export function withHeaders(answer: HttpAnswer, headers: Record<string, string>): HttpAnswer {
  if (!(answer instanceof Response)) {
    answer.headers = answer.headers ? Object.assign(answer.headers, headers) : headers;
    return answer;
  }
  let response = answer;
  try {
    for (const name in headers) response.headers.set(name, headers[name] as string);
  } catch {
    response = new Response(answer.body, answer);
    for (const name in headers) response.headers.set(name, headers[name] as string);
  }
  return response;
}
