import { afterEach, describe, expect, it, vi } from "vitest";
import { newErrorRef, serializeError, stderrErrorLogger } from "./logger.js";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("newErrorRef", () => {
  it("C7: is 8 lowercase hex characters", () => {
    for (let i = 0; i < 50; i++) expect(newErrorRef()).toMatch(/^[0-9a-f]{8}$/);
  });

  it("C7: is random (no repeats in 100 draws)", () => {
    expect(new Set(Array.from({ length: 100 }, newErrorRef)).size).toBe(100);
  });
});

describe("serializeError", () => {
  it("keeps type, message, stack, code and the cause chain for the server log", () => {
    const root = Object.assign(new Error("connect ECONNREFUSED 10.0.0.5:5432"), { code: "ECONNREFUSED" });
    const top = new TypeError("fetch failed", { cause: root });
    expect(serializeError(top)).toStrictEqual({
      type: "TypeError",
      message: "fetch failed",
      stack: top.stack,
      cause: { type: "Error", message: "connect ECONNREFUSED 10.0.0.5:5432", stack: root.stack, code: "ECONNREFUSED" },
    });
  });

  it("returns non-Error values as they are", () => {
    const value = { reason: "x" };
    expect(serializeError(value)).toBe(value);
    expect(serializeError("text")).toBe("text");
    expect(serializeError(undefined)).toBeUndefined();
  });

  it("keeps a non-Error cause as it is", () => {
    expect(serializeError(new Error("x", { cause: { status: 500 } }))).toMatchObject({ cause: { status: 500 } });
  });
});

describe("stderrErrorLogger", () => {
  it("C7: writes one JSON line per call to stderr and nothing to stdout", () => {
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const stdout = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    stderrErrorLogger.warn({ ref: "abcd0123", count: 2 }, "slow");
    stderrErrorLogger.error({ err: new RangeError("bad") });
    expect(stdout).not.toHaveBeenCalled();
    expect(stderr).toHaveBeenCalledTimes(2);
    const [warn, error] = stderr.mock.calls.map((call) => JSON.parse(String(call[0])) as Record<string, unknown>);
    expect(warn).toMatchObject({ level: "warn", msg: "slow", ref: "abcd0123", count: 2 });
    expect(error).toMatchObject({ level: "error", err: { type: "RangeError", message: "bad" } });
    expect(typeof warn?.time).toBe("number");
  });
});
