import type { JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import { JsonRpcCode } from "@toolshed/server";
import { batchTooLarge } from "@toolshed/server/internal";
import type { Answer } from "./dispatcher.js";

/**
 * The bytes left for one batch's answers. Answers are taken in the order they are sent; one that
 * does not fit is replaced by a small error for that call (a `too_large` tool error for
 * tools/call, the JSON-RPC error -32603 otherwise), so a small request cannot build an answer of
 * any size.
 */
export class BatchBudget {
  #left: number;
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
    // The brackets of the array.
    this.#left = limit > 0 ? limit - 2 : Number.POSITIVE_INFINITY;
  }

  /** The answer's JSON, or its replacement's when it does not fit. */
  take(answer: unknown, request?: JSONRPCRequest): string {
    return this.#spend(answer, request).text;
  }

  /** The answer itself, or its replacement when it does not fit (for a transport that frames it). */
  fit<T>(answer: T, request: JSONRPCRequest): T | Answer {
    return this.#spend(answer, request).replacement ?? answer;
  }

  #spend(answer: unknown, request?: JSONRPCRequest): { text: string; replacement?: Answer } {
    const text = JSON.stringify(answer);
    // length <= bytes <= 3 * length: measure exactly only when it matters.
    const size = text.length * 3 < this.#left ? text.length : Buffer.byteLength(text);
    if (size + 1 <= this.#left || request === undefined) {
      this.#left -= size + 1;
      return { text };
    }
    const replacement = tooLargeAnswer(request, size, this.#limit);
    const replaced = JSON.stringify(replacement);
    this.#left -= replaced.length + 1;
    return { text: replaced, replacement };
  }
}

function tooLargeAnswer(request: JSONRPCRequest, size: number, limit: number): Answer {
  const name = (request.params as { name?: unknown } | undefined)?.name;
  if (request.method === "tools/call" && typeof name === "string") {
    return { jsonrpc: "2.0", id: request.id, result: batchTooLarge(name, size, limit) };
  }
  const message = `Result too large: the answer to this batch would exceed ${limit} bytes with this ${request.method} result (about ${size} bytes); send it again on its own or in a smaller batch`;
  return { jsonrpc: "2.0", id: request.id, error: { code: JsonRpcCode.InternalError, message } };
}
