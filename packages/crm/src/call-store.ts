import { TimeoutError } from "@toolshed/errors";

/**
 * How tools, resources and prompts reach the store: one call with a deadline. The store gets
 * a signal that is aborted when the deadline passes or the request ends; a missed deadline is a
 * retryable TimeoutError. Other failures pass through unchanged, for the runtime to classify or mask.
 */
export type StoreCaller = <T>(signal: AbortSignal | undefined, run: (signal: AbortSignal) => Promise<T>) => Promise<T>;

export function storeCaller(timeoutMs: number): StoreCaller {
  return (signal, run) => callWithTimeout(run, timeoutMs, signal);
}

export async function callWithTimeout<T>(
  run: (signal: AbortSignal) => Promise<T>,
  timeoutMs: number,
  parent?: AbortSignal,
): Promise<T> {
  parent?.throwIfAborted();
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let onParentAbort: (() => void) | undefined;
  const stopped = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const error = new TimeoutError(`the CRM store did not answer within ${timeoutMs} ms`);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
    onParentAbort = () => {
      controller.abort(parent?.reason);
      reject(parent?.reason);
    };
    parent?.addEventListener("abort", onParentAbort, { once: true });
  });
  // race() subscribes to both, so a store that fails after the deadline is not an unhandled rejection.
  const work = Promise.resolve().then(() => run(controller.signal));
  try {
    return await Promise.race([work, stopped]);
  } finally {
    clearTimeout(timer);
    if (onParentAbort) parent?.removeEventListener("abort", onParentAbort);
  }
}
