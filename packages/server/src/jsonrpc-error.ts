import { brandErrorClass } from "@toolshed/errors/internal";
/** JSON-RPC error codes the runtime answers with (C12). */
export const JsonRpcCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** Resource not found, for 2025 clients; 2026-07-28 clients get InvalidParams. */
  ResourceNotFound: -32002,
  /**
   * The caller may see what it asked for, but its token lacks a scope it needs
   * (`data: {requiredScopes, missingScopes}`); over HTTP a 403 with `insufficient_scope`.
   */
  InsufficientScope: -32003,
  /** 2026-07-28: an HTTP header contradicts the body, or a required one is missing. */
  HeaderMismatch: -32020,
  /** 2026-07-28: the request needs a client capability it did not declare. */
  MissingRequiredClientCapability: -32021,
  /** 2026-07-28: the request names a protocol version this server does not speak. */
  UnsupportedProtocolVersion: -32022,
} as const;

/**
 * A protocol error. The SDK sends `code` and `message` of a thrown error as they are, so the
 * message is exactly what the client reads (no "MCP error" prefix). The HTTP status of a 2026-07-28
 * answer follows from the error's class and code (core/http-status.ts).
 */
export class JsonRpcError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "JsonRpcError";
    this.code = code;
    this.data = data;
  }
}
// Thrown by a handler from the CommonJS copy, still a protocol error to the ESM runtime.
brandErrorClass(JsonRpcError, "JsonRpcError");
