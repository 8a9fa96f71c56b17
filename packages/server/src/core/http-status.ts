import { EnvelopeError } from "../envelope.js";
import type { Era } from "../era.js";
import { JsonRpcCode, type JsonRpcError } from "../jsonrpc-error.js";

// The 2026-07-28 errors that are not HTTP 200, by JSON-RPC code; 2025 answers are always 200.
const MODERN_STATUS: ReadonlyMap<number, number> = new Map([
  [JsonRpcCode.MethodNotFound, 404],
  [JsonRpcCode.HeaderMismatch, 400],
  [JsonRpcCode.MissingRequiredClientCapability, 400],
  [JsonRpcCode.UnsupportedProtocolVersion, 400],
]);

/** The HTTP status a protocol error goes out with in the request's era (the error's class, then its code). */
export function httpStatusOf(error: JsonRpcError, era: Era): number {
  if (era === "legacy") return 200;
  if (error instanceof EnvelopeError) return 400;
  return MODERN_STATUS.get(error.code) ?? 200;
}
