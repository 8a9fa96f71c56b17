import { describe, expect, it } from "vitest";
import { ERROR_META_KEY, ErrorCode, ErrorKind, isErrorCode, isRetryableByDefault } from "./codes.js";
import * as api from "./index.js";
import * as internal from "./internal.js";
import {
  CancelledError,
  ConflictError,
  FailedPreconditionError,
  InvalidArgumentsError,
  isToolError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitedError,
  TimeoutError,
  ToolError,
  UnavailableError,
} from "./tool-error.js";

describe("codes", () => {
  it("C9: the shared code list holds the codes the contract names", () => {
    expect(Object.values(ErrorCode)).toStrictEqual([
      "invalid_arguments",
      "tool_error",
      "not_found",
      "conflict",
      "permission_denied",
      "unauthenticated",
      "failed_precondition",
      "too_large",
      "rate_limited",
      "timeout",
      "cancelled",
      "unavailable",
      "partial_failure",
      "internal_error",
    ]);
    for (const [key, value] of Object.entries(ErrorCode)) expect(key).toBe(value);
  });

  it("C9: kinds are validation, tool and internal", () => {
    expect(Object.values(ErrorKind)).toStrictEqual(["validation", "tool", "internal"]);
  });

  it("C9: the meta key is toolshed.dev/error", () => {
    expect(ERROR_META_KEY).toBe("toolshed.dev/error");
  });

  it("C9: only rate_limited, timeout, unavailable and cancelled are retryable by default", () => {
    const retryable = Object.values(ErrorCode).filter((code) => isRetryableByDefault(code));
    expect(retryable.sort()).toStrictEqual(["cancelled", "rate_limited", "timeout", "unavailable"]);
  });

  it("C9: isErrorCode accepts every code and rejects domain reasons and prototype keys", () => {
    for (const code of Object.values(ErrorCode)) expect(isErrorCode(code)).toBe(true);
    for (const value of ["archived", "", "NOT_FOUND", "toString", "hasOwnProperty", "__proto__", "constructor"]) {
      expect(isErrorCode(value)).toBe(false);
    }
    expect(isErrorCode(undefined)).toBe(false);
    expect(isErrorCode(1)).toBe(false);
  });
});

describe("ToolError", () => {
  it("C8: defaults to code tool_error, kind tool, not retryable", () => {
    const error = new ToolError("No note 'nope'. Known titles: groceries, todo");
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("ToolError");
    expect(error.message).toBe("No note 'nope'. Known titles: groceries, todo");
    expect(error.code).toBe("tool_error");
    expect(error.kind).toBe("tool");
    expect(error.retryable).toBe(false);
    expect(error.retryAfterMs).toBeUndefined();
    expect(error.data).toBeUndefined();
    expect("cause" in error).toBe(false);
    expect(typeof error.stack).toBe("string");
  });

  it("C9: retryable defaults from the code", () => {
    expect(new ToolError("x", { code: "rate_limited" }).retryable).toBe(true);
    expect(new ToolError("x", { code: "timeout" }).retryable).toBe(true);
    expect(new ToolError("x", { code: "unavailable" }).retryable).toBe(true);
    expect(new ToolError("x", { code: "cancelled" }).retryable).toBe(true);
    expect(new ToolError("x", { code: "conflict" }).retryable).toBe(false);
    expect(new ToolError("x", { code: "internal_error" }).retryable).toBe(false);
  });

  it("C9: an explicit retryable overrides the code's default, both ways", () => {
    expect(new ToolError("x", { code: "unavailable", retryable: false }).retryable).toBe(false);
    expect(new ToolError("x", { code: "conflict", retryable: true }).retryable).toBe(true);
  });

  it("keeps cause, retryAfterMs and data", () => {
    const cause = new Error("socket closed");
    const error = new ToolError("x", { cause, retryAfterMs: 1500, data: { noteId: 7 } });
    expect(error.cause).toBe(cause);
    expect(error.retryAfterMs).toBe(1500);
    expect(error.data).toStrictEqual({ noteId: 7 });
  });

  it("keeps a falsy, non-undefined cause", () => {
    expect(new ToolError("x", { cause: null }).cause).toBeNull();
    expect(new ToolError("x", { cause: 0 }).cause).toBe(0);
  });
});

describe("ToolError subclasses", () => {
  it.each([
    ["NotFoundError", "not_found", false, NotFoundError],
    ["ConflictError", "conflict", false, ConflictError],
    ["PermissionDeniedError", "permission_denied", false, PermissionDeniedError],
    ["FailedPreconditionError", "failed_precondition", false, FailedPreconditionError],
    ["RateLimitedError", "rate_limited", true, RateLimitedError],
    ["TimeoutError", "timeout", true, TimeoutError],
    ["CancelledError", "cancelled", true, CancelledError],
    ["UnavailableError", "unavailable", true, UnavailableError],
  ] as const)("C9: %s has code %s and retryable %s by default", (name, code, retryable, Ctor) => {
    const cause = new Error("root");
    const error = new Ctor("message for the model", { cause });
    expect(error).toBeInstanceOf(ToolError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe(name);
    expect(error.code).toBe(code);
    expect(error.kind).toBe("tool");
    expect(error.retryable).toBe(retryable);
    expect(error.message).toBe("message for the model");
    expect(error.cause).toBe(cause);
    expect(isToolError(error)).toBe(true);
    expect(new Ctor("x", { retryable: !retryable }).retryable).toBe(!retryable);
  });

  it("C9: RateLimitedError keeps retryAfterMs", () => {
    expect(new RateLimitedError("slow down", { retryAfterMs: 2000 }).retryAfterMs).toBe(2000);
  });

  it("C6: InvalidArgumentsError is kind validation, code invalid_arguments, never retryable, with issues", () => {
    const issues = [{ path: "limit", message: "must be at most 50 (got 999)" }];
    const error = new InvalidArgumentsError("limit is too large", issues);
    expect(error).toBeInstanceOf(ToolError);
    expect(error.name).toBe("InvalidArgumentsError");
    expect(error.kind).toBe("validation");
    expect(error.code).toBe("invalid_arguments");
    expect(error.retryable).toBe(false);
    expect(error.issues).toStrictEqual(issues);
    expect(isToolError(error)).toBe(true);
  });

  it("C6: InvalidArgumentsError defaults to no issues and ignores retryable: true", () => {
    const error = new InvalidArgumentsError("bad", undefined, { retryable: true, cause: "why" });
    expect(error.issues).toStrictEqual([]);
    expect(error.retryable).toBe(false);
    expect(error.cause).toBe("why");
  });
});

describe("isToolError", () => {
  it("is true for ToolError instances", () => {
    expect(isToolError(new ToolError("x"))).toBe(true);
    expect(isToolError(new NotFoundError("x"))).toBe(true);
  });

  it("is true for an object from another copy of the package, recognised by the registry-wide brand", () => {
    const foreign = Object.assign(new Error("from another realm"), { code: "not_found", retryable: false });
    Object.defineProperty(foreign, Symbol.for("toolshed.dev/ToolError"), { value: true });
    // instanceof reads the same brand (issue 58.8): another copy's ToolError is one here too.
    expect(foreign).toBeInstanceOf(ToolError);
    expect(isToolError(foreign)).toBe(true);
    expect(isToolError({ [Symbol.for("toolshed.dev/ToolError")]: true })).toBe(true);
  });

  it("is false for lookalikes without the brand, or with a brand that is not exactly true", () => {
    expect(isToolError(Object.assign(new Error("x"), { name: "ToolError", code: "not_found", kind: "tool" }))).toBe(
      false,
    );
    expect(isToolError({ [Symbol.for("toolshed.dev/ToolError")]: "true" })).toBe(false);
    expect(isToolError({ [Symbol.for("toolshed.dev/ToolError")]: 1 })).toBe(false);
    expect(isToolError({ [Symbol("toolshed.dev/ToolError")]: true })).toBe(false);
    expect(isToolError({ "toolshed.dev/ToolError": true })).toBe(false);
  });

  it("is false for non-objects", () => {
    for (const value of [null, undefined, "ToolError", 0, true, Symbol.for("toolshed.dev/ToolError")]) {
      expect(isToolError(value)).toBe(false);
    }
  });

  it("the brand is not enumerable, so it never shows up in JSON or spreads", () => {
    const error = new ToolError("x");
    expect(Object.getOwnPropertySymbols(error)).toContain(Symbol.for("toolshed.dev/ToolError"));
    expect(Object.getOwnPropertyDescriptor(error, Symbol.for("toolshed.dev/ToolError"))?.enumerable).toBe(false);
    expect(JSON.stringify(error)).not.toContain("toolshed.dev");
    expect(isToolError({ ...error })).toBe(false);
  });
});

describe("entry points", () => {
  it("index exports the public API", () => {
    expect(Object.keys(api).sort()).toStrictEqual(
      [
        "BatchCollector",
        "CancelledError",
        "ConflictError",
        "ERROR_META_KEY",
        "ErrorCode",
        "ErrorKind",
        "FailedPreconditionError",
        "InvalidArgumentsError",
        "NotFoundError",
        "PermissionDeniedError",
        "RateLimitedError",
        "TimeoutError",
        "ToolError",
        "UnavailableError",
        "batchToolResult",
        "classifyError",
        "closestMatches",
        "closestToolNames",
        "didYouMean",
        "invalidArgumentsResult",
        "isErrorCode",
        "isToolError",
        "maskInternalError",
        "retryHint",
        "runBatch",
        "toToolErrorResult",
        "toolErrorResult",
      ].sort(),
    );
  });

  it("internal exports what the runtime needs beyond it, and nothing public twice", () => {
    expect(Object.keys(internal).sort()).toStrictEqual(
      [
        "batchErrorInfo",
        "brandErrorClass",
        "formatIssue",
        "internalErrorMessage",
        "isBatchResult",
        "isRetryableByDefault",
        "newErrorRef",
        "parseRetryAfter",
        "serializeError",
        "stderrErrorLogger",
        "summarizeBatch",
      ].sort(),
    );
  });
});
