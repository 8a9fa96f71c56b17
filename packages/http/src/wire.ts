import { readRequestBody, requestBodyTooLargeMessage } from "@modelcontextprotocol/sdk/server/requestBody.js";
import { isJsonContentType } from "@modelcontextprotocol/sdk/shared/mediaType.js";
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { LEGACY_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS } from "@toolshed/server";
import { METHOD_TARGETS, type Meta, MetaKey } from "@toolshed/server/internal";
import { HttpErrorCode, jsonRpcErrorResponse } from "./http-errors.js";

// The Streamable HTTP rules the SDK's transport enforces, with its status codes and messages,
// shared by the stateless dispatcher and the sessions mode.

/** The header access the checks need: Fetch `Headers`, or node:http's headers behind `nodeHeaders`. */
export interface HeaderReader {
  /** The value for a lower-case name, repeated headers joined with ", "; null when absent. */
  get(name: string): string | null;
}

/** 406 unless Accept lists both JSON and SSE; 415 unless the body is JSON. */
export function checkPostHeaders(headers: HeaderReader): Response | undefined {
  // Accept is a comma-separated list of media types, which are case-insensitive (RFC 9110).
  const accept = headers.get("accept")?.toLowerCase();
  if (!accept?.includes("application/json") || !accept.includes("text/event-stream")) {
    return jsonRpcErrorResponse(
      406,
      HttpErrorCode.Transport,
      "Not Acceptable: Client must accept both application/json and text/event-stream",
    );
  }
  if (!isJsonContentType(headers.get("content-type"))) {
    return jsonRpcErrorResponse(
      415,
      HttpErrorCode.Transport,
      "Unsupported Media Type: Content-Type must be application/json",
    );
  }
  return undefined;
}

/** Whether a POST speaks 2026-07-28 by its MCP-Protocol-Version header. */
export function hasModernHeader(headers: HeaderReader): boolean {
  const version = headers.get("mcp-protocol-version");
  return version !== null && MODERN_PROTOCOL_VERSIONS.includes(version);
}

/**
 * In sessions mode, whether a POST is answered stateless instead of by the SDK transport: a 2026-07-28
 * header, or, on a request without a session, a version header that no 2025 revision has (the
 * stateless path answers it in its era: -32022 for a 2026-style request, 400 for a 2025 one).
 */
export function answeredWithoutSession(headers: HeaderReader): boolean {
  const version = headers.get("mcp-protocol-version");
  if (version === null) return false;
  if (MODERN_PROTOCOL_VERSIONS.includes(version)) return true;
  return headers.get("mcp-session-id") === null && !LEGACY_PROTOCOL_VERSIONS.includes(version);
}

const SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;

/** A header value as the client meant it: `=?base64?…?=` is decoded (2026-07-28); undefined when that is malformed. */
export function decodeHeaderValue(value: string): string | undefined {
  if (!value.startsWith("=?base64?")) return value;
  const match = SENTINEL.exec(value);
  if (!match || (match[1] as string).length % 4 !== 0) return undefined;
  return Buffer.from(match[1] as string, "base64").toString("utf8");
}

/**
 * The 2026-07-28 header rules for one request (HTTP 400, -32020, with its id): MCP-Protocol-Version
 * equals the `_meta` version, Mcp-Method equals the method, and Mcp-Name the tool, prompt or
 * resource named in the body. A body with no `_meta` version is left to the envelope check (-32602).
 */
export function checkModernHeaders(
  headers: HeaderReader,
  request: { id: string | number; method: string; params?: unknown },
  meta: Meta | undefined,
): string | undefined {
  const metaVersion = meta?.[MetaKey.protocolVersion];
  if (typeof metaVersion !== "string") return undefined;
  const header = headers.get("mcp-protocol-version");
  if (header === null)
    return `Header mismatch: the MCP-Protocol-Version header is required (send ${metaVersion}, the version in _meta)`;
  if (header !== metaVersion) {
    return `Header mismatch: MCP-Protocol-Version header ${JSON.stringify(header)} does not match _meta["${MetaKey.protocolVersion}"] ${JSON.stringify(metaVersion)}`;
  }
  const method = headers.get("mcp-method");
  if (method === null) return `Header mismatch: the Mcp-Method header is required (send ${request.method})`;
  if (method !== request.method) {
    return `Header mismatch: Mcp-Method header ${JSON.stringify(method)} does not match the body's method ${JSON.stringify(request.method)}`;
  }
  const target = METHOD_TARGETS.get(request.method);
  const field = target?.header ? target.field : undefined;
  const expected = field === undefined ? undefined : (request.params as Record<string, unknown> | undefined)?.[field];
  if (typeof expected !== "string") return undefined;
  const raw = headers.get("mcp-name");
  if (raw === null) return `Header mismatch: the Mcp-Name header is required for ${request.method} (send ${expected})`;
  const name = decodeHeaderValue(raw.trim());
  if (name === undefined) return `Header mismatch: the Mcp-Name header is not valid =?base64?…?= encoding`;
  if (name !== expected) {
    return `Header mismatch: Mcp-Name header ${JSON.stringify(name)} does not match the body's ${field} ${JSON.stringify(expected)}`;
  }
  return undefined;
}

/** 400 for an MCP-Protocol-Version header this server does not speak; no header is fine. */
export function checkProtocolVersion(headers: HeaderReader): Response | undefined {
  const version = headers.get("mcp-protocol-version");
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    return jsonRpcErrorResponse(
      400,
      HttpErrorCode.Transport,
      `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`,
    );
  }
  return undefined;
}

/** The body as text, or the 413/400 answer: Content-Length is checked first, then streamed bytes. */
export async function readBody(request: Request, maxBytes: number): Promise<{ text: string } | { response: Response }> {
  try {
    const body = await readRequestBody(request, maxBytes);
    if (body.tooLarge) {
      return { response: jsonRpcErrorResponse(413, HttpErrorCode.Transport, requestBodyTooLargeMessage(maxBytes)) };
    }
    return { text: body.text };
  } catch {
    return {
      response: jsonRpcErrorResponse(400, HttpErrorCode.Transport, "Bad Request: the request body could not be read"),
    };
  }
}

export function methodNotAllowed(allow: string): Response {
  return jsonRpcErrorResponse(405, HttpErrorCode.Transport, "Method not allowed.", { Allow: allow });
}
