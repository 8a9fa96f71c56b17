import { classifyError } from "./classify.js";
import { ErrorCode as Codes, ERROR_META_KEY, type ErrorCode, type ErrorInfo, isErrorCode } from "./codes.js";
import { type ErrorLogger, newErrorRef, stderrErrorLogger } from "./logger.js";
import { retryHint, type TextContent } from "./results.js";
import { isToolError } from "./tool-error.js";

/** Why one item of a batch failed (C11). */
export type BatchFailure = {
  id: string;
  /** An error code, or a domain reason such as `archived`. */
  reason: ErrorCode | (string & {});
  message: string;
  retryable: boolean;
};

/** The structured result of a tool over many items (C11). */
export type BatchResult<T> = {
  succeeded_count: number;
  failed_count: number;
  succeeded: T[];
  failed: BatchFailure[];
};

const BATCH_BRAND = Symbol.for("toolshed.dev/BatchResult");

/** True for a value built by {@link BatchCollector.result} or {@link runBatch}. */
export function isBatchResult(value: unknown): value is BatchResult<unknown> {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[BATCH_BRAND] === true;
}

export interface BatchOptions {
  /** Tool name, for log lines of masked item failures. */
  toolName?: string;
  logger?: ErrorLogger;
}

/** Collects per-item outcomes so that no failure is silently dropped. */
export class BatchCollector<T> {
  readonly #succeeded: T[] = [];
  readonly #failed: BatchFailure[] = [];
  readonly #options: BatchOptions;

  constructor(options: BatchOptions = {}) {
    this.#options = options;
  }

  succeed(item: T): void {
    this.#succeeded.push(item);
  }

  /**
   * Records a failed item, either with an explicit reason or from what was thrown, as a single call
   * reports it: a tool error keeps its message (C8); a classified failure keeps its class and gets a
   * reference id, with the original error logged as a warning under it (C10); anything else is
   * masked with a reference id and logged as an error (C7).
   */
  fail(id: string, failure: Omit<BatchFailure, "id"> | unknown): void {
    this.#failed.push({ id, ...this.#describe(id, failure) });
  }

  #describe(id: string, failure: unknown): Omit<BatchFailure, "id"> {
    const f = failure as Partial<BatchFailure> | undefined;
    if (f && typeof f.reason === "string" && typeof f.message === "string" && !(failure instanceof Error)) {
      return { reason: f.reason, message: f.message, retryable: f.retryable ?? false };
    }
    const known = classifyError(failure);
    if (known && isToolError(failure))
      return { reason: known.code, message: known.message, retryable: known.retryable };
    const ref = newErrorRef();
    const tool = this.#options.toolName ?? "batch";
    const logger = this.#options.logger ?? stderrErrorLogger;
    if (known) {
      logger.warn({ ref, tool, item: id, code: known.code, err: failure }, `Batch item ${id} failed: ${known.code}`);
      return { reason: known.code, message: `${known.message} (ref ${ref})`, retryable: known.retryable };
    }
    logger.error({ ref, tool, item: id, err: failure }, `Batch item ${id} failed`);
    return { reason: Codes.internal_error, message: `internal error (ref ${ref})`, retryable: false };
  }

  result(): BatchResult<T> {
    const value: BatchResult<T> = {
      succeeded_count: this.#succeeded.length,
      failed_count: this.#failed.length,
      succeeded: [...this.#succeeded],
      failed: [...this.#failed],
    };
    Object.defineProperty(value, BATCH_BRAND, { value: true });
    return value;
  }
}

export interface RunBatchOptions<I> extends BatchOptions {
  /** The id reported for an item; defaults to `String(item)`. */
  id?: (item: I, index: number) => string;
  /** How many items run at once; defaults to 1 (in order). */
  concurrency?: number;
  /** Stops starting new items once aborted; those left are failed as `cancelled`. */
  signal?: AbortSignal;
  /**
   * Told after each item ends, succeeded or failed: how many have ended, of how many (a tool passes
   * its `ctx.progress`). Awaited, so reports arrive in order; a report that fails is ignored.
   */
  progress?: (done: number, total: number) => unknown;
}

/** Runs `fn` for each item on its own and collects a {@link BatchResult}. */
export async function runBatch<I, T>(
  items: readonly I[],
  fn: (item: I, index: number) => Promise<T> | T,
  options: RunBatchOptions<I> = {},
): Promise<BatchResult<T>> {
  const collector = new BatchCollector<T>(options);
  const idOf = options.id ?? ((item: I) => String(item));
  const outcomes: Array<{ ok: true; value: T } | { ok: false; error: unknown }> = new Array(items.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      const item = items[index] as I;
      if (options.signal?.aborted) {
        outcomes[index] = {
          ok: false,
          error: { reason: Codes.cancelled, message: "not attempted: the call was cancelled", retryable: true },
        };
        continue;
      }
      try {
        outcomes[index] = { ok: true, value: await fn(item, index) };
      } catch (error) {
        outcomes[index] = { ok: false, error };
      }
      done++;
      if (options.progress) {
        try {
          await options.progress(done, items.length);
        } catch {
          // A report that cannot be sent does not fail the item.
        }
      }
    }
  };
  const wanted = Math.floor(options.concurrency ?? 1);
  const workers = Number.isFinite(wanted) ? Math.max(1, Math.min(wanted, items.length)) : 1;
  await Promise.all(Array.from({ length: workers }, worker));
  outcomes.forEach((outcome, index) => {
    if (outcome.ok) collector.succeed(outcome.value);
    else collector.fail(idOf(items[index] as I, index), outcome.error);
  });
  return collector.result();
}

/** One line that says how a batch went. */
export function summarizeBatch(batch: BatchResult<unknown>): string {
  const total = batch.succeeded_count + batch.failed_count;
  if (batch.failed_count === 0) return `All ${total} items succeeded.`;
  const allRetryable = batch.failed.every((f) => f.retryable);
  const head =
    batch.succeeded_count === 0
      ? `All ${total} items failed${allRetryable ? `; ${retryHint()}` : ""}.`
      : `${batch.succeeded_count} of ${total} items succeeded, ${batch.failed_count} failed.`;
  const lines = batch.failed.map((f) => `- ${f.id}: ${f.reason}: ${f.message}${f.retryable ? " (safe to retry)" : ""}`);
  return [head, ...lines].join("\n");
}

/** Error class of a batch in which every item failed. */
export function batchErrorInfo(batch: BatchResult<unknown>): ErrorInfo {
  const reasons = new Set(batch.failed.map((f) => f.reason));
  const [only] = reasons;
  const code = reasons.size === 1 && isErrorCode(only) ? only : Codes.partial_failure;
  return {
    kind: code === Codes.internal_error ? "internal" : "tool",
    code,
    retryable: batch.failed.length > 0 && batch.failed.every((f) => f.retryable),
  };
}

export interface BatchToolResult<T> {
  [key: string]: unknown;
  content: TextContent[];
  structuredContent: BatchResult<T>;
  isError: boolean;
  _meta?: { [ERROR_META_KEY]: ErrorInfo };
}

/**
 * C11: a batch as a tool result. Some failed: not an error. All failed: `isError: true`, with the
 * same structured content and an error class.
 */
export function batchToolResult<T>(batch: BatchResult<T>, options: { pretty?: boolean } = {}): BatchToolResult<T> {
  const value: BatchResult<T> = {
    succeeded_count: batch.succeeded_count,
    failed_count: batch.failed_count,
    succeeded: batch.succeeded,
    failed: batch.failed,
  };
  const json = options.pretty === false ? JSON.stringify(value) : JSON.stringify(value, null, 2);
  const allFailed = batch.failed_count > 0 && batch.succeeded_count === 0;
  const result: BatchToolResult<T> = {
    content: [{ type: "text", text: `${summarizeBatch(batch)}\n\n${json}` }],
    structuredContent: value,
    isError: allFailed,
  };
  if (allFailed) result._meta = { [ERROR_META_KEY]: batchErrorInfo(batch) };
  return result;
}
