import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
  CancelledError,
  classifyError,
  isToolError,
  maskInternalError,
  TimeoutError,
  toolErrorResult,
  toToolErrorResult,
} from "@toolshed/errors";
import type { AnyTool, Logger, TextFormat, ToolContext } from "@toolshed/schema";
import { shapeToolResult } from "@toolshed/schema";

export interface RunToolOptions {
  /** Applies when the tool sets none; 0 or undefined means no limit. */
  timeoutMs?: number;
  textFormat: TextFormat;
  logger: Logger;
}

/** The outcome class of a call, for logs and metrics. */
export type CallOutcome = "ok" | "partial" | "validation" | "tool" | "internal" | "timeout" | "cancelled";

const TIMED_OUT = Symbol("timed out");

/**
 * Runs a validated call: timeout and cancellation on the context's signal, tool errors and
 * classified failures reported (C8, C10), everything else masked (C7), output shaped and checked
 * (C1-C4, C11).
 */
export async function runTool(
  tool: AnyTool,
  args: unknown,
  base: Omit<ToolContext, "signal" | "toolName">,
  clientSignal: AbortSignal | undefined,
  options: RunToolOptions,
): Promise<CallToolResult> {
  const timeoutMs = tool.timeoutMs ?? options.timeoutMs;
  const controller = new AbortController();
  // A transport may abort with a tool error of its own (say, a shutdown deadline); keep it.
  const onClientAbort = () =>
    controller.abort(
      isToolError(clientSignal?.reason)
        ? clientSignal.reason
        : new CancelledError("the call was cancelled by the client"),
    );
  if (clientSignal?.aborted) onClientAbort();
  else clientSignal?.addEventListener("abort", onClientAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const stopped = new Promise<typeof TIMED_OUT>((resolve) => {
    if (timeoutMs && timeoutMs > 0) {
      timer = setTimeout(() => {
        controller.abort(new TimeoutError(`timed out after ${timeoutMs} ms`));
        resolve(TIMED_OUT);
      }, timeoutMs);
    }
    controller.signal.addEventListener("abort", () => resolve(TIMED_OUT), { once: true });
  });
  const ctx: ToolContext = { ...base, toolName: tool.name, signal: controller.signal };
  try {
    const value = await Promise.race([Promise.resolve().then(() => tool.handler(args, ctx)), stopped]);
    if (value === TIMED_OUT) return abortedResult(tool.name, controller.signal);
    const shaped = shapeToolResult(tool, value, options.textFormat);
    if (!shaped.ok) return maskInternalError(new Error(shaped.problem), tool.name, { logger: options.logger }).result;
    return shaped.result;
  } catch (error) {
    if (controller.signal.aborted && !isToolError(error) && classifyError(error)?.code === "timeout") {
      return abortedResult(tool.name, controller.signal);
    }
    return toToolErrorResult(error, tool.name, { logger: options.logger });
  } finally {
    if (timer) clearTimeout(timer);
    clientSignal?.removeEventListener("abort", onClientAbort);
  }
}

function abortedResult(toolName: string, signal: AbortSignal): CallToolResult {
  const reason = signal.reason;
  if (isToolError(reason)) return toolErrorResult(toolName, reason);
  return toolErrorResult(toolName, new CancelledError("the call was aborted"));
}

/** Classifies a finished call for logs. */
export function outcomeOf(result: CallToolResult): CallOutcome {
  const meta = result._meta?.["toolshed.dev/error"] as { kind?: string; code?: string } | undefined;
  if (!result.isError) {
    const sc = result.structuredContent as { failed_count?: unknown } | undefined;
    return typeof sc?.failed_count === "number" && sc.failed_count > 0 ? "partial" : "ok";
  }
  if (meta?.code === "timeout") return "timeout";
  if (meta?.code === "cancelled") return "cancelled";
  if (meta?.kind === "validation") return "validation";
  if (meta?.kind === "internal") return "internal";
  return "tool";
}
