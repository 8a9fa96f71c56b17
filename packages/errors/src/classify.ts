import {
  ConflictError,
  FailedPreconditionError,
  isToolError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitedError,
  TimeoutError,
  type ToolError,
  UnavailableError,
} from "./tool-error.js";

const UNREACHABLE_CODES = new Set([
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
]);
const TIMEOUT_CODES = new Set([
  "ETIMEDOUT",
  "ESOCKETTIMEDOUT",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "ABORT_ERR",
]);
// PostgreSQL SQLSTATEs: transaction conflicts and lock waits are worth retrying.
const PG_RETRY_CODES = new Set(["40001", "40P01", "55P03"]);
const PG_UNAVAILABLE_CODES = new Set(["53300", "57P01", "57P02", "57P03"]);

type Props = Record<string, unknown>;

function props(value: unknown): Props | undefined {
  return typeof value === "object" && value !== null ? (value as Props) : undefined;
}

/** Parses a Retry-After header value (delta seconds or an HTTP date) into milliseconds. */
export function parseRetryAfter(value: unknown, now: number = Date.now()): number | undefined {
  if (typeof value === "number" && Number.isFinite(value) && value >= 0) return Math.round(value * 1000);
  if (typeof value !== "string" || value.trim() === "") return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  // Every HTTP-date form (RFC 9110) starts with a day name; Date.parse alone accepts far more.
  if (!/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? /.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

function headerValue(headers: unknown, name: string): unknown {
  const h = props(headers);
  if (!h) return undefined;
  if (typeof h.get === "function") return (h.get as (n: string) => unknown).call(headers, name) ?? undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(h)) {
    if (key.toLowerCase() === wanted) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

function httpStatusOf(error: Props): { status: number; headers: unknown } | undefined {
  const response = props(error.response);
  const candidates: Array<[unknown, unknown]> = [
    [error.status, error.headers],
    [error.statusCode, error.headers],
    [response?.status, response?.headers],
    [response?.statusCode, response?.headers],
  ];
  for (const [status, headers] of candidates) {
    if (typeof status === "number" && Number.isInteger(status) && status >= 100 && status <= 599) {
      return { status, headers: headers ?? response?.headers };
    }
  }
  return undefined;
}

function fromHttpStatus(status: number, headers: unknown, cause: unknown): ToolError | undefined {
  const retryAfterMs = parseRetryAfter(headerValue(headers, "retry-after"));
  const after = retryAfterMs === undefined ? {} : { retryAfterMs };
  switch (status) {
    case 401:
    case 403:
      return new PermissionDeniedError(`the upstream service refused access (HTTP ${status})`, { cause });
    case 404:
      return new NotFoundError("the upstream service has no such resource (HTTP 404)", { cause });
    case 408:
    case 504:
      return new TimeoutError(`the upstream service timed out (HTTP ${status})`, { cause, ...after });
    case 409:
      return new ConflictError("the upstream service reported a conflict (HTTP 409)", { cause });
    case 429:
      return new RateLimitedError("the upstream service is rate limiting requests (HTTP 429)", { cause, ...after });
    case 502:
    case 503:
      return new UnavailableError(`the upstream service is unavailable (HTTP ${status})`, { cause, ...after });
    default:
      return undefined;
  }
}

function classifyOne(error: unknown): ToolError | undefined {
  if (isToolError(error)) return error;
  const e = props(error);
  if (!e) return undefined;
  const name = typeof e.name === "string" ? e.name : "";
  const code = typeof e.code === "string" ? e.code : typeof e.errno === "string" ? e.errno : "";

  if (name === "AbortError" || name === "TimeoutError" || TIMEOUT_CODES.has(code)) {
    return new TimeoutError("the operation timed out or was aborted", { cause: error });
  }
  if (UNREACHABLE_CODES.has(code)) {
    return new UnavailableError("a service this tool depends on could not be reached", { cause: error });
  }
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) {
    return new UnavailableError("the database is busy", { cause: error });
  }
  // Not retryable: the same write fails until someone changes the server, so say who and what.
  if (code === "SQLITE_READONLY_DBMOVED") {
    return new FailedPreconditionError(
      "the database file was moved or deleted while the server was running, so nothing was changed; tools that only read still work. The server's operator must put the file back or restart the server",
      { cause: error },
    );
  }
  if (code.startsWith("SQLITE_READONLY") || code === "25006") {
    return new FailedPreconditionError(
      "the database is read-only, so nothing was changed; tools that only read still work. To make changes, the server's operator must make the database writable and restart the server",
      { cause: error },
    );
  }
  // The server's storage, not the call, is at fault; extended codes (SQLITE_IOERR_WRITE…) share the prefix.
  if (code.startsWith("SQLITE_FULL")) {
    return new UnavailableError(
      "the database is full: the disk holding it has no free space, or the file reached its size limit, so nothing was changed; tools that only read still work. The same call can succeed once the server's operator frees disk space or raises the limit",
      { cause: error },
    );
  }
  if (code.startsWith("SQLITE_IOERR")) {
    return new UnavailableError(
      "the database's storage failed to read or write (an I/O error), so the call did not complete; the same call may succeed later, and the server's operator should check the disk",
      { cause: error },
    );
  }
  if (code.startsWith("SQLITE_CANTOPEN")) {
    return new UnavailableError(
      "the database file could not be opened (it may have been removed, or its folder or the temporary space cannot be used), so the call did not complete; the same call may succeed once the server's operator has checked where the database lives",
      { cause: error },
    );
  }
  if (PG_RETRY_CODES.has(code)) {
    return new UnavailableError("the database could not finish because of concurrent changes", { cause: error });
  }
  if (code === "57014") {
    return new TimeoutError("the database query timed out", { cause: error });
  }
  if ((code.startsWith("08") && code.length === 5) || PG_UNAVAILABLE_CODES.has(code)) {
    return new UnavailableError("the database is unavailable", { cause: error });
  }
  // node-postgres reports a dropped or unreachable connection without a code.
  const message = typeof e.message === "string" ? e.message : "";
  // pg-pool's wording for a caller that waited for a pooled connection: the database answers,
  // but every connection is in use (a long lock, a burst of calls).
  if (message.startsWith("timeout exceeded when trying to connect")) {
    return new UnavailableError(
      "the database is busy: every connection to it was in use by other calls and none came free in time; try again shortly",
      { cause: error },
    );
  }
  if (message.startsWith("Connection terminated due to connection timeout")) {
    return new UnavailableError("cannot reach the database: connecting to it timed out", { cause: error });
  }
  if (message.startsWith("Connection terminated")) {
    return new UnavailableError("the database connection was lost", { cause: error });
  }
  const http = httpStatusOf(e);
  if (http) return fromHttpStatus(http.status, http.headers, error);
  return undefined;
}

/**
 * Maps a thrown value to the ToolError it should be reported as (C10): tool errors as they are;
 * timeouts, aborts, connection failures, HTTP 401/403/404/408/409/429/502/503/504 and database
 * busy, lock and serialization failures, and SQLite storage outages (full disk, I/O errors, a file
 * that cannot be opened), to their classes. Returns undefined for anything
 * unknown, which must be masked as an internal error (C7).
 */
export function classifyError(error: unknown): ToolError | undefined {
  return classifyChain(error, 0);
}

function classifyChain(error: unknown, nesting: number): ToolError | undefined {
  const seen = new Set<unknown>();
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current !== undefined && current !== null && !seen.has(current); depth++) {
    seen.add(current);
    const found = classifyOne(current);
    if (found) return found;
    const e = props(current);
    if (!e) break;
    if (Array.isArray(e.errors) && e.errors.length > 0 && nesting < 3) {
      for (const inner of e.errors) {
        if (seen.has(inner)) continue;
        const found = classifyChain(inner, nesting + 1);
        if (found) return found;
      }
    }
    current = e.cause;
  }
  return undefined;
}
