import { CancelledError, TimeoutError } from "@toolshed/errors";
import { describe, expect, it } from "vitest";
import { callWithTimeout } from "./call-store.js";

const never = (signal: AbortSignal) =>
  new Promise<never>((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason)));

describe("callWithTimeout", () => {
  it("passes the store's answer through", async () => {
    expect(await callWithTimeout(async () => 42, 100)).toBe(42);
  });

  it("passes other failures through unchanged, for the runtime to classify", async () => {
    const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
    await expect(
      callWithTimeout(async () => {
        throw reset;
      }, 100),
    ).rejects.toBe(reset);
  });

  it("a store that does not answer in time is a retryable TimeoutError, and its signal is aborted", async () => {
    let seen: AbortSignal | undefined;
    const started = performance.now();
    const error = await callWithTimeout((signal) => {
      seen = signal;
      return never(signal);
    }, 40).catch((e: unknown) => e);
    expect(performance.now() - started).toBeGreaterThanOrEqual(35);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).message).toBe("the CRM store did not answer within 40 ms");
    expect((error as TimeoutError).retryable).toBe(true);
    expect(seen?.aborted).toBe(true);
    expect(seen?.reason).toBe(error);
  });

  it("a store that ignores its signal and fails late does not cause an unhandled rejection", async () => {
    const late = callWithTimeout(
      () => new Promise((_resolve, reject) => setTimeout(() => reject(new Error("late")), 30)),
      10,
    );
    await expect(late).rejects.toBeInstanceOf(TimeoutError);
    await new Promise((r) => setTimeout(r, 40));
  });

  it("the caller's abort ends the wait with the caller's reason and aborts the store", async () => {
    const caller = new AbortController();
    let seen: AbortSignal | undefined;
    const pending = callWithTimeout(
      (signal) => {
        seen = signal;
        return never(signal);
      },
      10_000,
      caller.signal,
    );
    const reason = new CancelledError("the call was cancelled by the client");
    caller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(seen?.reason).toBe(reason);
  });

  it("an already aborted caller does not reach the store", async () => {
    const caller = new AbortController();
    caller.abort(new CancelledError("gone"));
    let called = false;
    await expect(
      callWithTimeout(
        async () => {
          called = true;
        },
        100,
        caller.signal,
      ),
    ).rejects.toThrow("gone");
    expect(called).toBe(false);
  });

  it("a synchronous throw is a rejection, not an exception escaping the caller", async () => {
    const boom = new Error("boom");
    const run = (() => {
      throw boom;
    }) as unknown as (signal: AbortSignal) => Promise<never>;
    await expect(callWithTimeout(run, 100)).rejects.toBe(boom);
  });
});
