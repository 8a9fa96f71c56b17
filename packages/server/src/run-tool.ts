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
import { isFullResult, shapeToolResult } from "@toolshed/schema/internal";

export interface RunToolOptions {
  /** Applies when the tool sets none; 0 or undefined means no limit. */
  timeoutMs?: number;
  textFormat: TextFormat;
  logger: Logger;
}

/** What a transport gives a tool's context; the runtime adds the signal and the tool's name. */
export type ToolBase = Omit<ToolContext, "signal" | "toolName" | "startTask"> & Partial<Pick<ToolContext, "startTask">>;

/** The outcome class of a call, for logs and metrics. */
export type CallOutcome = "ok" | "partial" | "validation" | "tool" | "internal" | "timeout" | "cancelled";

/**
 * What a call listens to for cancellation: an AbortSignal, or something cheaper with the same
 * shape (a transport that makes its AbortController only when a handler asks for a signal).
 */
export interface CancelSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  /**
   * After a client's cancel, how long the call waits for its handler to settle: a value it ends
   * with (a partial batch, C11: which items were applied) is answered instead of the cancellation
   * error. A task's cancel waits; 0 or absent does not.
   */
  readonly settleMs?: number;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/**
 * Runs a validated call: timeout and cancellation on the context's signal, tool errors and
 * classified failures reported (C8, C10), everything else masked (C7), output shaped and checked
 * (C1-C4, C11).
 */
export async function runTool(
  tool: AnyTool,
  args: unknown,
  base: ToolBase,
  clientSignal: CancelSignal | undefined,
  options: RunToolOptions,
): Promise<CallToolResult> {
  if (clientSignal?.aborted) return abortedResult(tool.name, clientAbortReason(clientSignal));
  const call = new Call();
  const ctx = new CallContext(base, tool.name, call) as unknown as ToolContext;
  let value: unknown;
  try {
    value = tool.handler(args, ctx);
    // A handler that answered synchronously ran to the end: nothing could have stopped it.
    if (isPromiseLike(value)) {
      const timeoutMs = tool.timeoutMs ?? options.timeoutMs;
      const pending = Promise.resolve(value);
      value = await call.race(pending, clientSignal, timeoutMs && timeoutMs > 0 ? timeoutMs : 0);
      if (value === STOPPED) value = await settled(pending, clientSignal);
      if (value === STOPPED) return abortedResult(tool.name, call.reason);
    }
  } catch (error) {
    if (call.reason !== undefined && !isToolError(error) && classifyError(error)?.code === "timeout") {
      return abortedResult(tool.name, call.reason);
    }
    return toToolErrorResult(error, tool.name, { logger: options.logger });
  }
  warnOnPlainError(tool, value, options.logger);
  const shaped = shapeToolResult(tool, value, options.textFormat);
  if (!shaped.ok) return maskInternalError(new Error(shaped.problem), tool.name, { logger: options.logger }).result;
  return shaped.result;
}

const STOPPED = Symbol("stopped");

/**
 * What a handler ends with within its signal's `settleMs` of a client's cancel; STOPPED when it
 * throws, takes longer, or the stop was not a client's (a timeout, a shutdown's tool error).
 */
async function settled(pending: Promise<unknown>, signal: CancelSignal | undefined): Promise<unknown> {
  const waitMs = signal?.settleMs ?? 0;
  if (!signal?.aborted || waitMs <= 0 || isToolError(signal.reason)) return STOPPED;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof STOPPED>((resolve) => {
    timer = setTimeout(() => resolve(STOPPED), waitMs);
  });
  try {
    return await Promise.race([pending.catch(() => STOPPED), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Tools already warned about returning an error as a plain object: one log line per tool. */
const warnedPlainError = new WeakSet<AnyTool>();

/**
 * A handler that returns `{isError: true, ...}` as its value (a plain dict, as in Python) does not
 * report an error: the client gets a success, or an output-schema failure (C3). Says so once per tool.
 */
function warnOnPlainError(tool: AnyTool, value: unknown, logger: RunToolOptions["logger"]): void {
  if (typeof value !== "object" || value === null || (value as { isError?: unknown }).isError !== true) return;
  // A full result may set isError itself (C4); an output schema may declare the field.
  if (isFullResult(value) || warnedPlainError.has(tool)) return;
  if ((tool.outputSchema?.properties as Record<string, unknown> | undefined)?.isError !== undefined) return;
  warnedPlainError.add(tool);
  logger.warn(
    { tool: tool.name },
    `Tool ${tool.name} returned a plain object with isError: true, which is not an error result; throw a ToolError (or a subclass such as UnavailableError) so the client gets isError and the retry class`,
  );
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

// A transport may abort with a tool error of its own (say, a shutdown deadline); keep it.
function clientAbortReason(signal: CancelSignal): unknown {
  return isToolError(signal.reason) ? signal.reason : new CancelledError("the call was cancelled by the client");
}

/**
 * A handler's context: the request's fields as own properties, its tool's name, and a signal
 * made only when the handler reads it (most never do, and an AbortController costs more than a
 * small call). A class, not an object literal with a spread and a getter: that literal cost
 * several microseconds a call (docs/benchmarks.md, in-process).
 */
class CallContext {
  readonly toolName: string;
  readonly #call: Call;

  constructor(base: ToolBase, toolName: string, call: Call) {
    Object.assign(this, base);
    this.toolName = toolName;
    this.#call = call;
  }

  // Not a task, or one made before the handler ran: nothing to start (a task's base brings its own).
  startTask(): Promise<void> {
    return Promise.resolve();
  }

  get signal(): AbortSignal {
    return this.#call.signal;
  }

  // A base that carries a signal of its own (attachPack passes the SDK's) does not replace the call's.
  set signal(_ignored: AbortSignal) {}
}

/** One running call: why it was stopped, if it was, and the signal its handler sees. */
class Call {
  reason: unknown;
  #controller: AbortController | undefined;
  #stop: ((value: typeof STOPPED) => void) | undefined;

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.reason !== undefined) this.#controller.abort(this.reason);
    }
    return this.#controller.signal;
  }

  abort(reason: unknown): void {
    if (this.reason !== undefined) return;
    this.reason = reason;
    // Stopped first: a handler that settles on the abort must not win the race.
    this.#stop?.(STOPPED);
    this.#controller?.abort(reason);
  }

  /** The handler's value, or STOPPED when the client aborts or the timeout passes first. */
  race(pending: Promise<unknown>, clientSignal: CancelSignal | undefined, timeoutMs: number): Promise<unknown> {
    const onClientAbort = () => this.abort(clientAbortReason(clientSignal as CancelSignal));
    // The handler may have stopped the call while it ran synchronously (a 2026-07-28 question).
    if (clientSignal?.aborted) {
      onClientAbort();
      return Promise.resolve(STOPPED);
    }
    // One promise settled by whichever comes first (not Promise.race over a second one: this is
    // on every call of an async handler, and the race cost more than the rest of this).
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        if (timer !== undefined) clearTimeout(timer);
        clientSignal?.removeEventListener("abort", onClientAbort);
      };
      this.#stop = (value) => {
        done();
        resolve(value);
      };
      clientSignal?.addEventListener("abort", onClientAbort, { once: true });
      if (timeoutMs > 0) {
        timer = setTimeout(() => this.abort(new TimeoutError(`timed out after ${timeoutMs} ms`)), timeoutMs);
      }
      pending.then(
        (value) => {
          done();
          resolve(value);
        },
        (error: unknown) => {
          done();
          reject(error);
        },
      );
    });
  }
}

function abortedResult(toolName: string, reason: unknown): CallToolResult {
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
