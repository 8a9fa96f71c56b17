import { isToolError, maskInternalError, type ValidationIssue } from "@toolshed/errors";
import { formatIssue, internalErrorMessage } from "@toolshed/errors/internal";
import type { AnyPrompt, AnyResourceTemplate, Logger, ResourceDefinition } from "@toolshed/schema";
import { JsonRpcCode, JsonRpcError } from "../jsonrpc-error.js";
import {
  callContext,
  checkResultObject,
  type MiddlewareFrame,
  type MiddlewareStack,
  runChain,
  toolErrorAsProtocolError,
} from "../middleware.js";
import { answerTooLarge, DEFAULT_MAX_RESULT_BYTES, jsonSizeOver } from "../result-size.js";
import type { RuntimeParts } from "./parts.js";

// How resource, prompt and completion handlers fail, and how big their answers may be.

/** Runs a resource, prompt or completion handler; failures become JSON-RPC errors, masked unless tool errors. */
export async function guard<T>(logger: Logger, what: string, fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof JsonRpcError) throw error;
    if (isToolError(error)) throw toolErrorAsProtocolError(what, error);
    const { ref } = maskInternalError(error, what, { logger });
    throw new JsonRpcError(JsonRpcCode.InternalError, internalErrorMessage(ref));
  }
}

/** A read or prompt answer within the per-result limit; else the error saying what to ask instead. */
export function capped<T>(parts: RuntimeParts, what: string, answer: T, instead: string): T {
  const maxBytes = parts.options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
  if (maxBytes > 0) {
    const size = jsonSizeOver(answer, maxBytes);
    if (size !== undefined) throw answerTooLarge(what, size, maxBytes, instead);
  }
  return answer;
}

/**
 * Runs a resource or prompt `body` through the call-level middleware of the definition's pack;
 * throws go through guard like a handler's.
 */
export function through<T>(
  parts: RuntimeParts,
  frame: MiddlewareFrame,
  kind: "resource" | "prompt",
  definition: ResourceDefinition | AnyResourceTemplate | AnyPrompt,
  uri: string | undefined,
  args: unknown,
  what: string,
  body: () => Promise<T>,
): Promise<T> {
  const pack = parts.registry.packOf(definition);
  const chain = (parts.middleware as MiddlewareStack).chainFor(kind, pack);
  if (chain.length === 0) return body();
  const ctx = callContext(frame, kind, pack, definition, definition.name, uri, args);
  return guard(parts.logger, what, async () => checkResultObject<T>(await runChain(chain, ctx, body), what));
}

export function issuesText(issues: ValidationIssue[]): string {
  return issues.map(formatIssue).join("\n");
}
