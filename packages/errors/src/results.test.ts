import { afterEach, describe, expect, it, vi } from "vitest";
import type { ErrorLogger } from "./logger.js";
import {
  type ErrorToolResult,
  formatIssue,
  invalidArgumentsResult,
  maskInternalError,
  retryHint,
  toolErrorResult,
  toToolErrorResult,
} from "./results.js";
import {
  InvalidArgumentsError,
  NotFoundError,
  RateLimitedError,
  ToolError,
  TimeoutError as ToolTimeoutError,
  UnavailableError,
} from "./tool-error.js";

interface LogCall {
  level: "error" | "warn";
  obj: Record<string, unknown>;
  msg: string | undefined;
}

function fakeLogger(): { logger: ErrorLogger; calls: LogCall[] } {
  const calls: LogCall[] = [];
  const logger: ErrorLogger = {
    error: (obj, msg) => {
      calls.push({ level: "error", obj: obj as Record<string, unknown>, msg });
    },
    warn: (obj, msg) => {
      calls.push({ level: "warn", obj: obj as Record<string, unknown>, msg });
    },
  };
  return { logger, calls };
}

function textOf(result: ErrorToolResult): string {
  expect(result.content).toHaveLength(1);
  const [block] = result.content;
  expect(block?.type).toBe("text");
  return block?.text ?? "";
}

function metaOf(result: ErrorToolResult): unknown {
  return result._meta["toolshed.dev/error"];
}

const REF = /^[0-9a-f]{8}$/;
const SECRET = "password=hunter2";

/** An unexpected exception whose message, stack and properties hold things the client must never see. */
function secretError(): Error {
  const error = new Error(`connect to postgres://admin:${SECRET}@10.0.0.5/crm failed at /srv/crm/src/db.ts:42`);
  Object.assign(error, { query: "SELECT * FROM accounts WHERE api_key = 'sk-live-123'" });
  return error;
}

/** Asserts that nothing of `secretError()` leaks into what the client receives. */
function expectNoLeak(result: unknown): void {
  const json = JSON.stringify(result);
  expect(json).not.toContain("hunter2");
  expect(json).not.toContain("10.0.0.5");
  expect(json).not.toContain("sk-live-123");
  expect(json).not.toContain("postgres://");
  expect(json).not.toMatch(/\bat\s/);
  expect(json).not.toMatch(/\/srv|\/work|file:|node:internal|node_modules/);
  expect(json).not.toMatch(/\.(ts|js|mjs):\d+/);
  expect(json).not.toContain("Error:");
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("toolErrorResult / toToolErrorResult with tool errors", () => {
  it("C8: a ToolError becomes `Error executing tool <name>: <message>` with its class in _meta", () => {
    const { logger, calls } = fakeLogger();
    const result = toToolErrorResult(new NotFoundError("No note 'nope'"), "get_note", { logger });
    expect(result).toStrictEqual({
      content: [{ type: "text", text: "Error executing tool get_note: No note 'nope'" }],
      isError: true,
      _meta: { "toolshed.dev/error": { kind: "tool", code: "not_found", retryable: false } },
    });
    expect(calls).toStrictEqual([]);
  });

  it("C8: the message is passed through as written, hints included", () => {
    const result = toolErrorResult("get_note", new ToolError("No note 'nope'. Known titles: groceries, todo"));
    expect(textOf(result)).toBe("Error executing tool get_note: No note 'nope'. Known titles: groceries, todo");
    expect(metaOf(result)).toStrictEqual({ kind: "tool", code: "tool_error", retryable: false });
  });

  it("C9: a retryable error's text ends with the retry hint", () => {
    const result = toolErrorResult("search", new UnavailableError("the index is rebuilding"));
    expect(textOf(result)).toBe(
      "Error executing tool search: the index is rebuilding; temporary failure, safe to retry",
    );
    expect(metaOf(result)).toStrictEqual({ kind: "tool", code: "unavailable", retryable: true });
  });

  it("C9: retryAfterMs is in _meta and the hint says after how many seconds", () => {
    const result = toolErrorResult("search", new RateLimitedError("too many searches", { retryAfterMs: 2000 }));
    expect(textOf(result)).toBe(
      "Error executing tool search: too many searches; temporary failure, safe to retry after 2 s",
    );
    expect(metaOf(result)).toStrictEqual({ kind: "tool", code: "rate_limited", retryable: true, retryAfterMs: 2000 });
  });

  it("C9: the hint rounds partial seconds up", () => {
    const result = toolErrorResult("search", new ToolTimeoutError("slow", { retryAfterMs: 1500 }));
    expect(textOf(result)).toBe("Error executing tool search: slow; temporary failure, safe to retry after 2 s");
  });

  it("C9: a non-retryable error has no retry hint", () => {
    const result = toolErrorResult("search", new UnavailableError("the index is gone for good", { retryable: false }));
    expect(textOf(result)).toBe("Error executing tool search: the index is gone for good");
    expect(metaOf(result)).toStrictEqual({ kind: "tool", code: "unavailable", retryable: false });
  });

  it("C9: a reference id goes into the text (before the hint) and into _meta", () => {
    const result = toolErrorResult("search", new UnavailableError("down"), "0badc0de");
    expect(textOf(result)).toBe("Error executing tool search: down (ref 0badc0de); temporary failure, safe to retry");
    expect(metaOf(result)).toStrictEqual({ kind: "tool", code: "unavailable", retryable: true, ref: "0badc0de" });
  });

  it("C6/C9: an InvalidArgumentsError is kind validation with its issues, and C6's text", () => {
    const issues = [{ path: "due", message: "must be after start (got 2020-01-01)" }];
    const result = toolErrorResult("create_event", new InvalidArgumentsError("due is before start", issues));
    expect(result).toStrictEqual({
      content: [{ type: "text", text: "Invalid arguments for tool create_event:\ndue is before start" }],
      isError: true,
      _meta: {
        "toolshed.dev/error": { kind: "validation", code: "invalid_arguments", retryable: false, issues },
      },
    });
  });

  it("C6: every validation-class error has C6's text: a ToolError with code invalid_arguments, a foreign copy, a ref", () => {
    const coded = toolErrorResult("t", new ToolError("limit is too big", { code: "invalid_arguments" }));
    expect(textOf(coded)).toBe("Invalid arguments for tool t:\nlimit is too big");
    expect(metaOf(coded)).toStrictEqual({ kind: "validation", code: "invalid_arguments", retryable: false });
    const foreign = {
      [Symbol.for("toolshed.dev/ToolError")]: true,
      message: "cursor is not valid",
      code: "invalid_arguments",
      kind: "validation",
      retryable: false,
    };
    expect(textOf(toToolErrorResult(foreign, "list_notes"))).toBe(
      "Invalid arguments for tool list_notes:\ncursor is not valid",
    );
    expect(textOf(toolErrorResult("t", new InvalidArgumentsError("bad"), "0badc0de"))).toBe(
      "Invalid arguments for tool t:\nbad (ref 0badc0de)",
    );
  });

  it("C9: an InvalidArgumentsError without issues has no issues key", () => {
    const result = toolErrorResult("t", new InvalidArgumentsError("bad"));
    expect(metaOf(result)).toStrictEqual({ kind: "validation", code: "invalid_arguments", retryable: false });
  });

  it("C8: a ToolError from another copy of the package (branded object) is reported as a tool error", () => {
    const foreign = {
      [Symbol.for("toolshed.dev/ToolError")]: true,
      name: "ToolError",
      message: "No note 'nope'",
      code: "not_found",
      kind: "tool",
      retryable: false,
      retryAfterMs: undefined,
    };
    const result = toToolErrorResult(foreign, "get_note");
    expect(result).toStrictEqual({
      content: [{ type: "text", text: "Error executing tool get_note: No note 'nope'" }],
      isError: true,
      _meta: { "toolshed.dev/error": { kind: "tool", code: "not_found", retryable: false } },
    });
  });

  it("C9: error results carry no structuredContent", () => {
    const results = [
      toolErrorResult("t", new ToolError("x")),
      toToolErrorResult(new NotFoundError("x"), "t"),
      invalidArgumentsResult("t", [{ path: "a", message: "b" }]),
      maskInternalError(new Error("x"), "t", { logger: fakeLogger().logger }).result,
      toToolErrorResult(new Response(null, { status: 503 }), "t", { logger: fakeLogger().logger }),
    ];
    for (const result of results) {
      expect(result.isError).toBe(true);
      expect(Object.keys(result).sort()).toStrictEqual(["_meta", "content", "isError"]);
    }
  });
});

describe("toToolErrorResult with classified failures (C10)", () => {
  it("C10: a thrown Response 429 becomes rate_limited with retry delay, a ref, and a warn log line", () => {
    const { logger, calls } = fakeLogger();
    const response = new Response(null, { status: 429, headers: { "retry-after": "2" } });
    const result = toToolErrorResult(response, "fetch_page", { logger, ref: "0badc0de" });
    expect(result).toStrictEqual({
      content: [
        {
          type: "text",
          text: "Error executing tool fetch_page: the upstream service is rate limiting requests (HTTP 429) (ref 0badc0de); temporary failure, safe to retry after 2 s",
        },
      ],
      isError: true,
      _meta: {
        "toolshed.dev/error": {
          kind: "tool",
          code: "rate_limited",
          retryable: true,
          retryAfterMs: 2000,
          ref: "0badc0de",
        },
      },
    });
    expect(calls).toStrictEqual([
      {
        level: "warn",
        obj: { ref: "0badc0de", tool: "fetch_page", code: "rate_limited", err: response },
        msg: "Tool fetch_page failed: rate_limited",
      },
    ]);
  });

  it("C10: without an explicit ref, a fresh 8-hex ref ties the text, _meta and the log line", () => {
    const { logger, calls } = fakeLogger();
    const err = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
    const result = toToolErrorResult(err, "sync", { logger });
    const meta = metaOf(result) as { ref: string };
    expect(meta.ref).toMatch(REF);
    expect(textOf(result)).toBe(
      `Error executing tool sync: a service this tool depends on could not be reached (ref ${meta.ref}); temporary failure, safe to retry`,
    );
    expect(metaOf(result)).toStrictEqual({ kind: "tool", code: "unavailable", retryable: true, ref: meta.ref });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.obj.ref).toBe(meta.ref);
    expect(calls[0]?.obj.err).toBe(err);
  });

  it("C10: a 404 from upstream is not_found, not retryable, no hint", () => {
    const result = toToolErrorResult(Object.assign(new Error("Not Found"), { status: 404 }), "get_page", {
      logger: fakeLogger().logger,
      ref: "12345678",
    });
    expect(textOf(result)).toBe(
      "Error executing tool get_page: the upstream service has no such resource (HTTP 404) (ref 12345678)",
    );
    expect(metaOf(result)).toStrictEqual({ kind: "tool", code: "not_found", retryable: false, ref: "12345678" });
  });

  it("C7/C10: a classified failure never carries the original exception's message", () => {
    const err = Object.assign(secretError(), { code: "ECONNREFUSED" });
    const result = toToolErrorResult(err, "crm_get_account", { logger: fakeLogger().logger });
    expectNoLeak(result);
    expect((metaOf(result) as { code: string }).code).toBe("unavailable");
  });

  it("C7/C10: a ToolError found in the cause chain is reported, not the wrapper's secret message", () => {
    const wrapper = new Error(`handler failed: ${SECRET}`, { cause: new NotFoundError("No note 'nope'") });
    const result = toToolErrorResult(wrapper, "get_note", { logger: fakeLogger().logger, ref: "abcdef01" });
    expect(textOf(result)).toBe("Error executing tool get_note: No note 'nope' (ref abcdef01)");
    expectNoLeak(result);
  });
});

describe("maskInternalError / toToolErrorResult with unexpected exceptions (C7)", () => {
  it("C7: masks the exception to `Error executing tool <name> (ref <8 hex>)` and nothing else", () => {
    const { logger } = fakeLogger();
    const error = secretError();
    const { ref, result } = maskInternalError(error, "crm_get_account", { logger });
    expect(ref).toMatch(REF);
    expect(result).toStrictEqual({
      content: [{ type: "text", text: `Error executing tool crm_get_account (ref ${ref})` }],
      isError: true,
      _meta: { "toolshed.dev/error": { kind: "internal", code: "internal_error", retryable: false, ref } },
    });
    expectNoLeak(result);
  });

  it("C7: the full error is logged with the same ref", () => {
    const { logger, calls } = fakeLogger();
    const error = secretError();
    const { ref } = maskInternalError(error, "crm_get_account", { logger });
    expect(calls).toStrictEqual([
      {
        level: "error",
        obj: { ref, tool: "crm_get_account", err: error },
        msg: "Error executing tool crm_get_account",
      },
    ]);
    expect(calls[0]?.obj.err).toBe(error);
  });

  it("C7: uses a given ref", () => {
    const { logger, calls } = fakeLogger();
    const { ref, result } = maskInternalError(new Error("x"), "t", { logger, ref: "deadbeef" });
    expect(ref).toBe("deadbeef");
    expect(textOf(result)).toBe("Error executing tool t (ref deadbeef)");
    expect(calls[0]?.obj.ref).toBe("deadbeef");
  });

  it("C7: each masked error gets its own ref", () => {
    const { logger } = fakeLogger();
    const refs = new Set(Array.from({ length: 20 }, () => maskInternalError(new Error("x"), "t", { logger }).ref));
    expect(refs.size).toBe(20);
  });

  it("C7: toToolErrorResult masks an unknown Error, with the ref of the log line", () => {
    const { logger, calls } = fakeLogger();
    const error = secretError();
    const result = toToolErrorResult(error, "crm_get_account", { logger });
    const meta = metaOf(result) as { ref: string };
    expect(meta.ref).toMatch(REF);
    expect(textOf(result)).toBe(`Error executing tool crm_get_account (ref ${meta.ref})`);
    expect(metaOf(result)).toStrictEqual({ kind: "internal", code: "internal_error", retryable: false, ref: meta.ref });
    expectNoLeak(result);
    expect(calls).toStrictEqual([
      {
        level: "error",
        obj: { ref: meta.ref, tool: "crm_get_account", err: error },
        msg: "Error executing tool crm_get_account",
      },
    ]);
  });

  it.each([
    ["a thrown string", `db password is ${SECRET}`],
    ["a thrown object", { password: SECRET, at: "/srv/crm/src/db.ts:42" }],
    ["null", null],
    ["undefined", undefined],
    ["a number", 10_000_005],
    ["an HTTP 500", Object.assign(new Error(SECRET), { status: 500 })],
  ])("C7: toToolErrorResult masks %s", (_label, thrown) => {
    const { logger, calls } = fakeLogger();
    const result = toToolErrorResult(thrown, "crm_get_account", { logger, ref: "0000abcd" });
    expect(result).toStrictEqual({
      content: [{ type: "text", text: "Error executing tool crm_get_account (ref 0000abcd)" }],
      isError: true,
      _meta: { "toolshed.dev/error": { kind: "internal", code: "internal_error", retryable: false, ref: "0000abcd" } },
    });
    expectNoLeak(result);
    expect(JSON.stringify(result)).not.toContain("10000005");
    expect(calls).toHaveLength(1);
    expect(calls[0]?.obj.err).toBe(thrown);
  });

  it("C7: an error with a cyclic cause chain is masked (with a collecting logger)", () => {
    const { logger, calls } = fakeLogger();
    const a = new Error(SECRET);
    const b = new Error("b", { cause: a });
    a.cause = b;
    const result = toToolErrorResult(a, "t", { logger, ref: "cafe0001" });
    expect(textOf(result)).toBe("Error executing tool t (ref cafe0001)");
    expect(calls).toHaveLength(1);
  });
});

describe("default logger (C7: server log on stderr, never stdout)", () => {
  function spyStreams() {
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const stdout = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    return { stderr, stdout };
  }

  it("C7: maskInternalError without a logger writes one JSON line with the ref and the full error to stderr", () => {
    const { stderr, stdout } = spyStreams();
    const error = secretError();
    const { ref } = maskInternalError(error, "crm_get_account");
    expect(stdout).not.toHaveBeenCalled();
    expect(stderr).toHaveBeenCalledTimes(1);
    const line = String(stderr.mock.calls[0]?.[0]);
    expect(line.endsWith("\n")).toBe(true);
    expect(line.indexOf("\n")).toBe(line.length - 1);
    const record = JSON.parse(line) as Record<string, unknown>;
    expect(record).toMatchObject({
      level: "error",
      msg: "Error executing tool crm_get_account",
      ref,
      tool: "crm_get_account",
      err: { type: "Error", message: error.message, stack: error.stack },
    });
    expect(typeof record.time).toBe("number");
  });

  it("C10: toToolErrorResult logs a classified failure as a warn line on stderr, not stdout", () => {
    const { stderr, stdout } = spyStreams();
    const err = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    const result = toToolErrorResult(err, "sync");
    const ref = (metaOf(result) as { ref: string }).ref;
    expect(stdout).not.toHaveBeenCalled();
    expect(stderr).toHaveBeenCalledTimes(1);
    const record = JSON.parse(String(stderr.mock.calls[0]?.[0])) as Record<string, unknown>;
    expect(record).toMatchObject({
      level: "warn",
      msg: "Tool sync failed: unavailable",
      ref,
      tool: "sync",
      code: "unavailable",
      err: { type: "Error", message: "connect ECONNREFUSED", code: "ECONNREFUSED" },
    });
  });

  it("C8: a ToolError is not logged at all", () => {
    const { stderr, stdout } = spyStreams();
    toToolErrorResult(new NotFoundError("No note 'nope'"), "get_note");
    expect(stderr).not.toHaveBeenCalled();
    expect(stdout).not.toHaveBeenCalled();
  });

  // KNOWN FAILING: logger.ts:32 serializeError recurses into `cause` without remembering what it has
  // seen, so a cyclic cause chain overflows the stack ("Maximum call stack size exceeded") and
  // toToolErrorResult throws instead of returning the masked result.
  it("C7: an error with a cyclic cause chain is masked and logged with the default logger (no crash)", () => {
    const { stderr } = spyStreams();
    const a = new Error(SECRET);
    const b = new Error("b", { cause: a });
    a.cause = b;
    const result = toToolErrorResult(a, "t", { ref: "cafe0002" });
    expect(textOf(result)).toBe("Error executing tool t (ref cafe0002)");
    expect(stderr).toHaveBeenCalledTimes(1);
    expect(String(stderr.mock.calls[0]?.[0])).toContain("cafe0002");
  });

  // KNOWN FAILING: logger.ts:23 JSON.stringify throws on values it cannot encode (BigInt, circular
  // plain objects), so maskInternalError throws instead of returning the masked result.
  it.each([
    ["a BigInt field", { accountId: 12345678901234567890n }],
    [
      "a circular plain object",
      (() => {
        const o: Record<string, unknown> = { name: "node" };
        o.self = o;
        return o;
      })(),
    ],
  ])("C7: a thrown value with %s is masked and logged with the default logger (no crash)", (_label, thrown) => {
    const { stderr } = spyStreams();
    const result = toToolErrorResult(thrown, "t", { ref: "cafe0003" });
    expect(textOf(result)).toBe("Error executing tool t (ref cafe0003)");
    expect(stderr).toHaveBeenCalledTimes(1);
    expect(String(stderr.mock.calls[0]?.[0])).toContain("cafe0003");
  });
});

describe("invalidArgumentsResult (C6)", () => {
  it("C6: one issue gives the exact text and validation class with issues", () => {
    const issues = [{ path: "limit", message: "must be at most 50 (got 999)" }];
    expect(invalidArgumentsResult("t", issues)).toStrictEqual({
      content: [{ type: "text", text: "Invalid arguments for tool t:\nlimit: must be at most 50 (got 999)" }],
      isError: true,
      _meta: {
        "toolshed.dev/error": { kind: "validation", code: "invalid_arguments", retryable: false, issues },
      },
    });
  });

  it("C6: one line per problem, in order; an issue on the arguments object has no path prefix", () => {
    const issues = [
      { path: "limit", message: "must be at most 50 (got 999)" },
      { path: "status", message: 'must be one of "open", "closed", "any" (got "pending")' },
      { path: "max_arr", message: "must be greater than or equal to min_arr" },
      { path: "filter.tags.0", message: "must be a string (got 3)" },
      { path: "", message: "must not have both `id` and `title`" },
    ];
    const result = invalidArgumentsResult("search_flights", issues);
    expect(textOf(result)).toBe(
      [
        "Invalid arguments for tool search_flights:",
        "limit: must be at most 50 (got 999)",
        'status: must be one of "open", "closed", "any" (got "pending")',
        "max_arr: must be greater than or equal to min_arr",
        "filter.tags.0: must be a string (got 3)",
        "must not have both `id` and `title`",
      ].join("\n"),
    );
    expect(textOf(result)).not.toContain("retry");
    expect(metaOf(result)).toStrictEqual({ kind: "validation", code: "invalid_arguments", retryable: false, issues });
  });

  it("C6: formatIssue writes `path: message`, or the message alone for the root", () => {
    expect(formatIssue({ path: "limit", message: "must be at most 50 (got 999)" })).toBe(
      "limit: must be at most 50 (got 999)",
    );
    expect(formatIssue({ path: "", message: "expected an object" })).toBe("expected an object");
  });
});

describe("retryHint (C9)", () => {
  it.each([
    [undefined, "temporary failure, safe to retry"],
    [2000, "temporary failure, safe to retry after 2 s"],
    [1500, "temporary failure, safe to retry after 2 s"],
    [1, "temporary failure, safe to retry after 1 s"],
    [0, "temporary failure, safe to retry"],
    [60_000, "temporary failure, safe to retry after 60 s"],
  ])("retryHint(%s) is %j", (ms, text) => {
    expect(retryHint(ms)).toBe(text);
  });
});
