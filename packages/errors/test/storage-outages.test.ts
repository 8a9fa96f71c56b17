import { describe, expect, it } from "vitest";
import { classifyError } from "../src/index.js";

/** An error shaped like the ones better-sqlite3, node:sqlite (through @toolshed/storage) and pg throw. */
function dbError(code: string, message = `driver says ${code} at /var/db/secret.sqlite`): Error {
  return Object.assign(new Error(message), { code });
}

function classified(error: unknown) {
  const found = classifyError(error);
  if (!found) throw new Error("not classified");
  return { code: found.code, kind: found.kind, retryable: found.retryable, message: found.message };
}

export const DISK_FULL =
  "the database is full: the disk holding it has no free space, or the file reached its size limit, so nothing was changed; tools that only read still work. The same call can succeed once the server's operator frees disk space or raises the limit";
export const IO_ERROR =
  "the database's storage failed to read or write (an I/O error), so the call did not complete; the same call may succeed later, and the server's operator should check the disk";
export const CANNOT_OPEN =
  "the database file could not be opened (it may have been removed, or its folder or the temporary space cannot be used), so the call did not complete; the same call may succeed once the server's operator has checked where the database lives";

describe("SQLite storage outages (issue 18 item 5)", () => {
  it.each(["SQLITE_FULL"])("%s is a retryable unavailable that names a full disk or size limit", (code) => {
    expect(classified(dbError(code))).toEqual({
      code: "unavailable",
      kind: "tool",
      retryable: true,
      message: DISK_FULL,
    });
  });

  it.each(["SQLITE_IOERR", "SQLITE_IOERR_WRITE", "SQLITE_IOERR_FSYNC", "SQLITE_IOERR_SHORT_READ"])(
    "%s (extended codes too) is a retryable unavailable",
    (code) => {
      expect(classified(dbError(code))).toEqual({
        code: "unavailable",
        kind: "tool",
        retryable: true,
        message: IO_ERROR,
      });
    },
  );

  it.each(["SQLITE_CANTOPEN", "SQLITE_CANTOPEN_ISDIR", "SQLITE_CANTOPEN_NOTEMPDIR"])(
    "%s is a retryable unavailable",
    (code) => {
      expect(classified(dbError(code))).toEqual({
        code: "unavailable",
        kind: "tool",
        retryable: true,
        message: CANNOT_OPEN,
      });
    },
  );

  it("SQLITE_READONLY (and its extended codes) says the database cannot be written; not retryable until the operator acts", () => {
    for (const code of ["SQLITE_READONLY", "SQLITE_READONLY_DIRECTORY", "SQLITE_READONLY_CANTINIT"]) {
      expect(classified(dbError(code))).toMatchObject({ code: "failed_precondition", retryable: false });
      expect(classified(dbError(code)).message).toMatch(/^the database is read-only, so nothing was changed/);
    }
  });

  it("an outage wrapped as the cause of another error is still found", () => {
    const wrapped = new Error("store failed", { cause: dbError("SQLITE_FULL") });
    expect(classified(wrapped).message).toBe(DISK_FULL);
  });
});

describe("PostgreSQL busy or unreachable (issue 18 item 8)", () => {
  it("waiting too long for a pooled connection is 'busy', not a lost connection", () => {
    expect(classified(new Error("timeout exceeded when trying to connect"))).toEqual({
      code: "unavailable",
      kind: "tool",
      retryable: true,
      message:
        "the database is busy: every connection to it was in use by other calls and none came free in time; try again shortly",
    });
  });

  it("a connection that could not be made in time is 'cannot reach the database'", () => {
    const error = new Error("Connection terminated due to connection timeout", { cause: new Error("timeout") });
    expect(classified(error)).toEqual({
      code: "unavailable",
      kind: "tool",
      retryable: true,
      message: "cannot reach the database: connecting to it timed out",
    });
  });

  it("a connection that dropped is still 'the database connection was lost'", () => {
    expect(classified(new Error("Connection terminated unexpectedly")).message).toBe(
      "the database connection was lost",
    );
  });
});
