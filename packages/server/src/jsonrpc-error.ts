/** JSON-RPC error codes the runtime answers with (C12). */
export const JsonRpcCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  ResourceNotFound: -32002,
} as const;

/**
 * A protocol error. The SDK sends `code` and `message` of a thrown error as they are, so the
 * message is exactly what the client reads (no "MCP error" prefix).
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
