import { internalErrorMessage, newErrorRef } from "@toolshed/errors/internal";
import type { Logger } from "@toolshed/schema";
import { type Era, MetaKey } from "../era.js";
import { JsonRpcCode, JsonRpcError } from "../jsonrpc-error.js";
import type { CacheFields } from "../runtime/cache-hints.js";
import type { CallScope } from "./types.js";

// The shape of an answer: a 2026-07-28 result's added fields, and errors as the client may see them.

/** A 2026-07-28 result: `resultType`, the server's info in `_meta`, and the cache hint of a complete one. */
export function modernResult(
  result: Record<string, unknown>,
  cache: CacheFields | undefined,
  scope: CallScope,
  serverInfo: { name: string; version: string; title?: string },
): Record<string, unknown> {
  // A copy key by key, then fields assigned: an object spread here cost several times the rest
  // of this function, and the JSON.stringify of its result more (bench: 2026-07-28 `add`).
  const out: Record<string, unknown> = {};
  for (const key in result) out[key] = result[key];
  if (out.resultType === undefined) out.resultType = "complete";
  const meta = result._meta as Record<string, unknown> | undefined;
  if (meta === undefined) {
    // The literal key is MetaKey.serverInfo (a computed key makes a slower object).
    out._meta = { "io.modelcontextprotocol/serverInfo": serverInfo };
  } else {
    const merged: Record<string, unknown> = {};
    for (const key in meta) merged[key] = meta[key];
    merged[MetaKey.serverInfo] = serverInfo;
    out._meta = merged;
  }
  if (cache && out.resultType === "complete") {
    out.ttlMs = cache.ttlMs;
    out.cacheScope = cache.scope ?? (scope.authInfo ? "private" : "public");
  }
  return out;
}

/**
 * A failure as a JSON-RPC error: JsonRpcErrors pass (a missing resource is -32602 with exactly
 * `{uri}` in 2026-07-28); anything else is masked behind a reference id that is also logged (C7).
 * `masked` hears the reference of each masked error (for its span).
 */
export function asProtocolError(
  error: unknown,
  era: Era,
  method: string,
  rawParams: unknown,
  logger: Logger,
  masked?: (error: JsonRpcError, ref: string) => void,
): JsonRpcError {
  if (error instanceof JsonRpcError) {
    if (era === "modern" && error.code === JsonRpcCode.ResourceNotFound) {
      // Exactly {uri}: what the revision shows, and what clients match a missing resource on.
      const uri = (rawParams as { uri?: unknown } | undefined)?.uri;
      return new JsonRpcError(JsonRpcCode.InvalidParams, error.message, { uri });
    }
    return error;
  }
  const ref = newErrorRef();
  logger.error({ ref, method, err: error }, `Internal error answering ${method}`);
  const answer = new JsonRpcError(JsonRpcCode.InternalError, internalErrorMessage(ref));
  masked?.(answer, ref);
  return answer;
}

export const methodNotFound = (): JsonRpcError => new JsonRpcError(JsonRpcCode.MethodNotFound, "Method not found");
