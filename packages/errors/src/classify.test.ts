import { createServer } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { classifyError, parseRetryAfter } from "./classify.js";
import type { ErrorCode } from "./codes.js";
import { NotFoundError, ToolError, UnavailableError } from "./tool-error.js";

/** An error shaped like the ones Node's net/dns/http modules throw. */
function nodeError(code: string, message = `connect ${code} 10.0.0.5:5432`): Error {
  return Object.assign(new Error(message), { code, errno: -111, syscall: "connect" });
}

/** An error shaped like the ones `pg` and `better-sqlite3` throw: a string `code`. */
function dbError(code: string, message = `db failure ${code}`): Error {
  return Object.assign(new Error(message), { code });
}

/** An error shaped like HTTP client errors: status on the error itself. */
function httpError(fields: Record<string, unknown>, message = "Request failed"): Error {
  return Object.assign(new Error(message), fields);
}

interface Expected {
  code: ErrorCode;
  retryable: boolean;
  message: string;
  retryAfterMs?: number;
}

function expectClass(thrown: unknown, expected: Expected): ToolError {
  const classified = classifyError(thrown);
  expect(classified).toBeInstanceOf(ToolError);
  if (!classified) throw new Error("unreachable");
  expect({
    code: classified.code,
    retryable: classified.retryable,
    message: classified.message,
    retryAfterMs: classified.retryAfterMs,
  }).toStrictEqual({ retryAfterMs: undefined, ...expected });
  expect(classified.kind).toBe("tool");
  return classified;
}

const TIMED_OUT = "the operation timed out or was aborted";
const UNREACHABLE = "a service this tool depends on could not be reached";

afterEach(() => {
  vi.useRealTimers();
});

describe("classifyError: timeouts and aborts", () => {
  it("C10: a DOMException AbortError is a retryable timeout, keeping the original as cause", () => {
    const abort = new DOMException("This operation was aborted", "AbortError");
    const classified = expectClass(abort, { code: "timeout", retryable: true, message: TIMED_OUT });
    expect(classified.cause).toBe(abort);
  });

  it("C10: the reason of AbortSignal.abort() (an AbortError) is a retryable timeout", () => {
    const signal = AbortSignal.abort();
    expectClass(signal.reason, { code: "timeout", retryable: true, message: TIMED_OUT });
  });

  it("C10: the reason of AbortSignal.timeout() (a DOMException TimeoutError) is a retryable timeout", async () => {
    const signal = AbortSignal.timeout(1);
    await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    expect(signal.reason).toBeInstanceOf(DOMException);
    expect((signal.reason as DOMException).name).toBe("TimeoutError");
    expectClass(signal.reason, { code: "timeout", retryable: true, message: TIMED_OUT });
  });

  it("C10: a DOMException TimeoutError built by hand is a retryable timeout", () => {
    expectClass(new DOMException("x", "TimeoutError"), { code: "timeout", retryable: true, message: TIMED_OUT });
  });

  it("C10: Node's AbortError (code ABORT_ERR) is a retryable timeout", () => {
    const err = Object.assign(new Error("The operation was aborted"), { code: "ABORT_ERR", name: "AbortError" });
    expectClass(err, { code: "timeout", retryable: true, message: TIMED_OUT });
  });

  it.each([
    "ETIMEDOUT",
    "ESOCKETTIMEDOUT",
    "UND_ERR_CONNECT_TIMEOUT",
    "UND_ERR_HEADERS_TIMEOUT",
    "UND_ERR_BODY_TIMEOUT",
  ])("C10: code %s is a retryable timeout", (code) => {
    expectClass(nodeError(code), { code: "timeout", retryable: true, message: TIMED_OUT });
  });

  it("C10: a DOMException with another name (e.g. SyntaxError) is not classified", () => {
    expect(classifyError(new DOMException("bad selector", "SyntaxError"))).toBeUndefined();
  });
});

describe("classifyError: connection failures", () => {
  it.each([
    "ECONNRESET",
    "ECONNREFUSED",
    "ECONNABORTED",
    "EPIPE",
    "EHOSTUNREACH",
    "ENETUNREACH",
    "ENETDOWN",
    "EAI_AGAIN",
    "UND_ERR_SOCKET",
    "UND_ERR_CLOSED",
  ])("C10: code %s is retryable unavailable", (code) => {
    const err = nodeError(code);
    const classified = expectClass(err, { code: "unavailable", retryable: true, message: UNREACHABLE });
    expect(classified.cause).toBe(err);
  });

  it("C10: a string errno is used when there is no code", () => {
    const err = Object.assign(new Error("socket hang up"), { errno: "ECONNRESET" });
    expectClass(err, { code: "unavailable", retryable: true, message: UNREACHABLE });
  });

  it("C10: ENOENT and other local errors are not classified (internal)", () => {
    expect(classifyError(nodeError("ENOENT", "ENOENT: no such file, open '/etc/app/secret.json'"))).toBeUndefined();
    expect(classifyError(nodeError("EACCES"))).toBeUndefined();
  });

  it("C10: follows the cause chain of TypeError('fetch failed') to an ECONNREFUSED cause", () => {
    const inner = nodeError("ECONNREFUSED");
    const fetchFailed = new TypeError("fetch failed", { cause: inner });
    const classified = expectClass(fetchFailed, { code: "unavailable", retryable: true, message: UNREACHABLE });
    expect(classified.cause).toBe(inner);
  });

  it("C10: follows a cause chain several wrappers deep", () => {
    const inner = nodeError("ECONNRESET");
    const wrapped = new Error("query failed", {
      cause: new Error("pool error", { cause: new Error("io", { cause: inner }) }),
    });
    expectClass(wrapped, { code: "unavailable", retryable: true, message: UNREACHABLE });
  });

  it("C10: a real fetch to a closed port is classified as retryable unavailable", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    if (address === null || typeof address === "string") throw new Error("no port");
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const thrown = await fetch(`http://127.0.0.1:${address.port}/`).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(thrown).toBeInstanceOf(TypeError);
    expectClass(thrown, { code: "unavailable", retryable: true, message: UNREACHABLE });
  });

  it("C10: an AggregateError whose errors carry ECONNREFUSED is retryable unavailable", () => {
    const aggregate = new AggregateError(
      [nodeError("ECONNREFUSED", "connect ECONNREFUSED ::1:5432"), nodeError("ECONNREFUSED")],
      "all attempts failed",
    );
    expectClass(aggregate, { code: "unavailable", retryable: true, message: UNREACHABLE });
  });

  it("C10: an AggregateError is classified by its first classifiable error, skipping unknown ones", () => {
    const econn = nodeError("ECONNREFUSED");
    const aggregate = new AggregateError([new Error("weird"), econn], "all attempts failed");
    const classified = expectClass(aggregate, { code: "unavailable", retryable: true, message: UNREACHABLE });
    expect(classified.cause).toBe(econn);
  });

  it("C10: fetch failed caused by an AggregateError of ECONNREFUSED (happy eyeballs) is unavailable", () => {
    const aggregate = new AggregateError([nodeError("ECONNREFUSED"), nodeError("ECONNREFUSED")]);
    expectClass(new TypeError("fetch failed", { cause: aggregate }), {
      code: "unavailable",
      retryable: true,
      message: UNREACHABLE,
    });
  });

  // Promise.any([fetch(a), fetch(b)]) rejects with an AggregateError of TypeError('fetch failed'), each with
  // an ECONNREFUSED cause. KNOWN FAILING: classify.ts only looks one level into `errors` (classifyOne, not
  // the cause chain), so this connection failure is masked as an internal error.
  it("C10: an AggregateError of 'fetch failed' errors with ECONNREFUSED causes (Promise.any) is unavailable", () => {
    const attempt = () => new TypeError("fetch failed", { cause: nodeError("ECONNREFUSED") });
    const aggregate = new AggregateError([attempt(), attempt()], "All promises were rejected");
    expectClass(aggregate, { code: "unavailable", retryable: true, message: UNREACHABLE });
  });

  it("C10: an AggregateError of unknown errors is not classified", () => {
    expect(classifyError(new AggregateError([new Error("a"), "b", null], "x"))).toBeUndefined();
    expect(classifyError(new AggregateError([], "empty"))).toBeUndefined();
  });
});

describe("classifyError: HTTP statuses", () => {
  it("C10: a thrown Response with 429 and Retry-After: 2 is rate_limited, retryable, retryAfterMs 2000", () => {
    const response = new Response(null, { status: 429, headers: { "retry-after": "2" } });
    const classified = expectClass(response, {
      code: "rate_limited",
      retryable: true,
      message: "the upstream service is rate limiting requests (HTTP 429)",
      retryAfterMs: 2000,
    });
    expect(classified.cause).toBe(response);
  });

  it("C10: a thrown Response with 429 and no Retry-After has no retryAfterMs", () => {
    expectClass(new Response(null, { status: 429 }), {
      code: "rate_limited",
      retryable: true,
      message: "the upstream service is rate limiting requests (HTTP 429)",
    });
  });

  it("C10: status 503 with a Retry-After HTTP date gives the delay until that date", () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const now = new Date("2025-06-01T12:00:00Z");
    vi.setSystemTime(now);
    const retryAt = new Date(now.getTime() + 120_000).toUTCString();
    expect(retryAt).toBe("Sun, 01 Jun 2025 12:02:00 GMT");
    expectClass(httpError({ status: 503, headers: { "Retry-After": retryAt } }), {
      code: "unavailable",
      retryable: true,
      message: "the upstream service is unavailable (HTTP 503)",
      retryAfterMs: 120_000,
    });
  });

  it("C10: status 503 with a Retry-After date in the past means retry now (0 ms)", () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2025-06-01T12:00:00Z"));
    expectClass(httpError({ status: 503, headers: { "retry-after": "Sun, 01 Jun 2025 11:00:00 GMT" } }), {
      code: "unavailable",
      retryable: true,
      message: "the upstream service is unavailable (HTTP 503)",
      retryAfterMs: 0,
    });
  });

  it("C10: a header given as an array (Node raw headers style) uses its first value", () => {
    expectClass(httpError({ status: 429, headers: { "retry-after": ["3", "9"] } }), {
      code: "rate_limited",
      retryable: true,
      message: "the upstream service is rate limiting requests (HTTP 429)",
      retryAfterMs: 3000,
    });
  });

  it("C10: statusCode 502 is retryable unavailable", () => {
    expectClass(httpError({ statusCode: 502 }), {
      code: "unavailable",
      retryable: true,
      message: "the upstream service is unavailable (HTTP 502)",
    });
  });

  it("C10: response.status 504 (axios style) is a retryable timeout", () => {
    expectClass(httpError({ response: { status: 504 } }), {
      code: "timeout",
      retryable: true,
      message: "the upstream service timed out (HTTP 504)",
    });
  });

  it("C10: response.statusCode 503 with response.headers Retry-After (got style) is unavailable with delay", () => {
    expectClass(httpError({ response: { statusCode: 503, headers: { "retry-after": "7" } } }), {
      code: "unavailable",
      retryable: true,
      message: "the upstream service is unavailable (HTTP 503)",
      retryAfterMs: 7000,
    });
  });

  it("C10: response.headers as a fetch Headers object is read case-insensitively", () => {
    expectClass(httpError({ response: { status: 429, headers: new Headers({ "Retry-After": "5" }) } }), {
      code: "rate_limited",
      retryable: true,
      message: "the upstream service is rate limiting requests (HTTP 429)",
      retryAfterMs: 5000,
    });
  });

  it("C10: 408 is a retryable timeout", () => {
    expectClass(httpError({ status: 408 }), {
      code: "timeout",
      retryable: true,
      message: "the upstream service timed out (HTTP 408)",
    });
  });

  it("C10: 404 is not_found and not retryable", () => {
    expectClass(httpError({ status: 404 }), {
      code: "not_found",
      retryable: false,
      message: "the upstream service has no such resource (HTTP 404)",
    });
  });

  it("C10: 404 ignores Retry-After (not retryable, no delay)", () => {
    expectClass(new Response(null, { status: 404, headers: { "retry-after": "30" } }), {
      code: "not_found",
      retryable: false,
      message: "the upstream service has no such resource (HTTP 404)",
    });
  });

  it.each([401, 403])("C10: %i is permission_denied and not retryable", (status) => {
    expectClass(httpError({ status }), {
      code: "permission_denied",
      retryable: false,
      message: `the upstream service refused access (HTTP ${status})`,
    });
  });

  it("C10: 409 is a conflict and not retryable", () => {
    expectClass(httpError({ status: 409 }), {
      code: "conflict",
      retryable: false,
      message: "the upstream service reported a conflict (HTTP 409)",
    });
  });

  it.each([400, 418, 500, 501])("C10: HTTP %i is unknown (internal)", (status) => {
    expect(classifyError(httpError({ status }))).toBeUndefined();
    expect(classifyError(new Response(null, { status }))).toBeUndefined();
  });

  it("C10: status values that are not integer HTTP statuses are ignored", () => {
    expect(classifyError(httpError({ status: "503" }))).toBeUndefined();
    expect(classifyError(httpError({ status: 503.5 }))).toBeUndefined();
    expect(classifyError(httpError({ status: 42 }))).toBeUndefined();
    expect(classifyError(httpError({ status: 700 }))).toBeUndefined();
  });
});

describe("classifyError: databases", () => {
  it.each([
    "SQLITE_BUSY",
    "SQLITE_BUSY_SNAPSHOT",
    "SQLITE_BUSY_RECOVERY",
    "SQLITE_LOCKED",
    "SQLITE_LOCKED_SHAREDCACHE",
  ])("C10: SQLite %s is retryable unavailable (database busy)", (code) => {
    expectClass(dbError(code, "database is locked"), {
      code: "unavailable",
      retryable: true,
      message: "the database is busy",
    });
  });

  it.each(["SQLITE_CONSTRAINT_UNIQUE", "SQLITE_ERROR", "SQLITE_CORRUPT"])(
    "C10: SQLite %s is not classified",
    (code) => {
      expect(classifyError(dbError(code))).toBeUndefined();
    },
  );

  it.each(["40001", "40P01", "55P03"])("C10: PostgreSQL %s (serialization/deadlock/lock) is retryable", (code) => {
    expectClass(dbError(code), {
      code: "unavailable",
      retryable: true,
      message: "the database could not finish because of concurrent changes",
    });
  });

  it("C10: PostgreSQL 57014 (query_canceled, statement timeout) is a retryable timeout", () => {
    expectClass(dbError("57014", "canceling statement due to statement timeout"), {
      code: "timeout",
      retryable: true,
      message: "the database query timed out",
    });
  });

  it.each(["08006", "08001", "08003", "57P01", "57P02", "57P03", "53300"])(
    "C10: PostgreSQL %s is retryable unavailable",
    (code) => {
      expectClass(dbError(code), { code: "unavailable", retryable: true, message: "the database is unavailable" });
    },
  );

  it.each(["23505", "42P01", "22P02", "080", "080000"])("C10: PostgreSQL %s is not classified", (code) => {
    expect(classifyError(dbError(code))).toBeUndefined();
  });
});

describe("classifyError: unknown values and tool errors", () => {
  it.each([
    ["a plain Error", new Error("boom")],
    ["a TypeError", new TypeError("x is not a function")],
    ["a thrown string", "something broke"],
    ["null", null],
    ["undefined", undefined],
    ["a number", 42],
    ["a plain object", { message: "nope" }],
    ["an array", [1, 2]],
  ])("C10/C7: %s is unknown (undefined)", (_label, thrown) => {
    expect(classifyError(thrown)).toBeUndefined();
  });

  it("C8: a ToolError passes through as the same instance", () => {
    const error = new ToolError("No note 'nope'");
    expect(classifyError(error)).toBe(error);
    const notFound = new NotFoundError("No note 'nope'");
    expect(classifyError(notFound)).toBe(notFound);
  });

  it("C8: a ToolError from another copy of the package (brand only) passes through as the same instance", () => {
    const foreign = {
      [Symbol.for("toolshed.dev/ToolError")]: true,
      name: "ToolError",
      message: "from elsewhere",
      code: "conflict",
    };
    expect(classifyError(foreign)).toBe(foreign);
  });

  it("C8: a ToolError found in the cause chain is returned as is", () => {
    const inner = new UnavailableError("the index is rebuilding");
    expect(classifyError(new Error("wrapper", { cause: inner }))).toBe(inner);
  });

  it("C10: a cyclic cause chain terminates (undefined when nothing is classifiable)", () => {
    const a = new Error("a");
    const b = new Error("b", { cause: a });
    a.cause = b;
    expect(classifyError(a)).toBeUndefined();
    const self = new Error("self");
    self.cause = self;
    expect(classifyError(self)).toBeUndefined();
  });

  it("C10: a cyclic cause chain still yields a classifiable link", () => {
    const econn = nodeError("ECONNRESET");
    const a = new Error("a", { cause: econn });
    const b = new Error("b", { cause: a });
    (econn as Error & { cause?: unknown }).cause = b;
    expectClass(b, { code: "unavailable", retryable: true, message: UNREACHABLE });
  });

  it("C10: a cause that is a primitive ends the walk", () => {
    expect(classifyError(new Error("x", { cause: "ECONNRESET" }))).toBeUndefined();
  });
});

describe("classifyError: nothing of the original exception reaches the message", () => {
  const secret = "password=hunter2";
  it.each([
    ["ECONNREFUSED", nodeError("ECONNREFUSED", `connect ECONNREFUSED postgres://admin:${secret}@10.0.0.5:5432`)],
    ["ETIMEDOUT", nodeError("ETIMEDOUT", `connect ETIMEDOUT ${secret}`)],
    ["AbortError", new DOMException(`aborted ${secret}`, "AbortError")],
    ["SQLITE_BUSY", dbError("SQLITE_BUSY", `database /var/db/${secret}.sqlite is locked`)],
    ["40001", dbError("40001", `could not serialize access ${secret}`)],
    ["57014", dbError("57014", `canceling statement ${secret}`)],
    ["08006", dbError("08006", `connection failure ${secret}`)],
    ["HTTP 503", httpError({ status: 503, body: secret }, `Request to https://api.internal/?${secret} failed`)],
    ["HTTP 404", httpError({ status: 404 }, `GET /users/${secret} 404`)],
    ["fetch failed", new TypeError(`fetch failed ${secret}`, { cause: nodeError("ECONNRESET", secret) })],
  ])("C7/C10: %s classified message contains no part of the original message", (_label, thrown) => {
    const classified = classifyError(thrown);
    expect(classified).toBeDefined();
    expect(classified?.message).not.toContain("hunter2");
    expect(classified?.message).not.toContain("10.0.0.5");
    expect(classified?.message).not.toContain("/var/db");
    expect(classified?.message).not.toContain("api.internal");
  });
});

describe("parseRetryAfter", () => {
  const now = Date.parse("Wed, 21 Oct 2015 07:28:00 GMT");

  it.each([
    ["120", 120_000],
    ["0", 0],
    ["2", 2000],
    [" 3 ", 3000],
    ["1.5", 1500],
    ["0.25", 250],
    ["0.0004", 0],
  ])("parses delta seconds %j as %i ms", (value, ms) => {
    expect(parseRetryAfter(value, now)).toBe(ms);
  });

  it("accepts non-negative finite numbers as seconds", () => {
    expect(parseRetryAfter(2)).toBe(2000);
    expect(parseRetryAfter(1.5)).toBe(1500);
    expect(parseRetryAfter(0)).toBe(0);
  });

  it("parses an HTTP date relative to `now`", () => {
    expect(parseRetryAfter("Wed, 21 Oct 2015 07:28:30 GMT", now)).toBe(30_000);
    expect(parseRetryAfter("Wed, 21 Oct 2015 08:28:00 GMT", now)).toBe(3_600_000);
  });

  it("an HTTP date in the past is 0, never negative", () => {
    expect(parseRetryAfter("Wed, 21 Oct 2015 07:27:00 GMT", now)).toBe(0);
  });

  it("uses the current time when `now` is not given", () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(now);
    expect(parseRetryAfter("Wed, 21 Oct 2015 07:28:10 GMT")).toBe(10_000);
  });

  it.each([
    ["empty", ""],
    ["blank", "   "],
    ["a word", "soon"],
    ["letters", "abc"],
    ["exponent", "1e3"],
    ["Infinity text", "Infinity"],
    ["hex", "0x10"],
    ["with unit", "5s"],
    ["phrase", "in 5 minutes"],
  ])("garbage (%s) is undefined", (_label, value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined();
  });

  it.each([
    ["undefined", undefined],
    ["null", null],
    ["an object", { seconds: 2 }],
    ["a negative number", -1],
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
  ])("non-string garbage (%s) is undefined", (_label, value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined();
  });

  // KNOWN FAILING: classify.ts:48 falls back to V8's lenient Date.parse, which accepts strings that are
  // neither delay-seconds nor an HTTP date (RFC 9110 §10.2.3): "-1" and "2." parse as 2001 dates (-> 0 ms,
  // "retry now"), and "later 2099" parses as 2099-01-01 (-> a delay of decades).
  it.each([
    ["a negative delay", "-1"],
    ["a trailing dot", "2."],
    ["a decimal comma", "1,5"],
    ["a word and a number", "soon 2"],
    ["a word and a year", "later 2099"],
  ])("garbage that V8's Date.parse accepts (%s) is undefined", (_label, value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined();
  });
});

describe("node-postgres connection failures without a code", () => {
  it.each(["Connection terminated unexpectedly", "timeout exceeded when trying to connect"])(
    "C10: %s is a retryable unavailable",
    (message) => {
      const classified = classifyError(new Error(message));
      expect(classified?.code).toBe("unavailable");
      expect(classified?.retryable).toBe(true);
    },
  );
});
