import { brandErrorClass } from "@toolshed/errors/internal";
/** A value a user or operator passed that cannot work; the message says what would. */
export class HttpConfigError extends Error {
  override name = "HttpConfigError";
}
brandErrorClass(HttpConfigError, "HttpConfigError");

/** HTTP-level JSON-RPC error codes, as the SDK's Streamable HTTP transport uses them. */
export const HttpErrorCode = {
  /** Transport-level rejections (headers, limits, auth); the SDK uses -32000 for these. */
  Transport: -32000,
  SessionNotFound: -32001,
  ParseError: -32700,
  InvalidRequest: -32600,
  InternalError: -32603,
} as const;

/**
 * A JSON-RPC error answer with id null, the body the SDK's transport sends for requests it
 * rejects before dispatch; clients can always parse it.
 */
export function jsonRpcErrorResponse(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });
}

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });
}
