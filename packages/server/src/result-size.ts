import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ToolError, toolErrorResult } from "@toolshed/errors";
import { JsonRpcCode, JsonRpcError } from "./jsonrpc-error.js";

/** Largest JSON of one tool result, in bytes (4 MiB); a larger one becomes a `too_large` tool error. */
export const DEFAULT_MAX_RESULT_BYTES = 4 * 1024 * 1024;
/** Largest JSON answer to one HTTP batch, in bytes (16 MiB); calls past it get a `too_large` error. */
export const DEFAULT_MAX_BATCH_BYTES = 16 * 1024 * 1024;

/**
 * An upper bound on the UTF-8 size of `value`'s JSON, or Infinity as soon as it passes `limit`.
 * A string counts 6 bytes per UTF-16 unit, the most one can take (`\u0001`), so a result under the
 * limit by this count is never serialized just to be measured.
 */
function bound(value: unknown, limit: number): number {
  switch (typeof value) {
    case "string":
      return value.length * 6 + 2;
    case "number":
    case "bigint":
      return 24;
    case "boolean":
      return 5;
    case "object": {
      if (value === null) return 4;
      let size = 2;
      if (Array.isArray(value)) {
        for (const item of value) {
          size += bound(item, limit - size) + 1;
          if (size > limit) return Number.POSITIVE_INFINITY;
        }
        return size;
      }
      for (const key in value) {
        size += key.length * 6 + 4 + bound((value as Record<string, unknown>)[key], limit - size);
        if (size > limit) return Number.POSITIVE_INFINITY;
      }
      return size;
    }
    default:
      return 0;
  }
}

/** The UTF-8 size of `value`'s JSON when it is over `limit` bytes; undefined when it is not. */
export function jsonSizeOver(value: unknown, limit: number): number | undefined {
  if (bound(value, limit) <= limit) return undefined;
  const size = Buffer.byteLength(JSON.stringify(value) ?? "");
  return size > limit ? size : undefined;
}

const ASK_FOR_LESS = "ask for fewer items or a shorter range (a smaller page or limit, a narrower query)";

/** The tool error a call gets instead of a result larger than the per-result limit. */
export function resultTooLarge(toolName: string, size: number, limit: number): CallToolResult {
  const message = `the result is too large: about ${size} bytes, more than the limit of ${limit} bytes for one result. Call ${toolName} again and ${ASK_FOR_LESS}`;
  return toolErrorResult(toolName, new ToolError(message, { code: "too_large" }));
}

/** The tool error a call in a batch gets when its result would take the batch's answer past its limit. */
export function batchTooLarge(toolName: string, size: number, limit: number): CallToolResult {
  const message = `the answer to this batch would exceed ${limit} bytes with this call's result (about ${size} bytes); the calls before it were answered. Send ${toolName} again on its own or in a smaller batch, or ${ASK_FOR_LESS}`;
  return toolErrorResult(toolName, new ToolError(message, { code: "too_large" }));
}

/**
 * The error a resources/read or prompts/get answer larger than the per-result limit becomes:
 * JSON-RPC -32603 with `data.code` "too_large", saying what to ask for instead.
 */
export function answerTooLarge(what: string, size: number, limit: number, instead: string): JsonRpcError {
  return new JsonRpcError(
    JsonRpcCode.InternalError,
    `Result too large: the answer to ${what} is about ${size} bytes, more than the limit of ${limit} bytes for one result; ${instead}`,
    { code: "too_large", size, limit },
  );
}
