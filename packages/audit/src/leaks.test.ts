import { describe, expect, it } from "vitest";
import { findLeak } from "./leaks.js";

describe("findLeak", () => {
  it("finds stack frames, paths, SQL and exception names", () => {
    expect(findLeak("Error: boom\n    at run (/srv/app/dist/x.js:3:9)", [])?.kind).toBe("a stack trace");
    expect(findLeak("ENOENT: no such file, open '/home/app/db.sqlite'", [])?.kind).toBe("an absolute file path");
    expect(findLeak("failed: SELECT id, title FROM notes WHERE x", [])?.kind).toBe("SQL text");
    expect(findLeak("SqliteError: SQLITE_BUSY", [])?.kind).toBe("a database error");
    expect(findLeak("TypeError: cannot read properties of undefined", [])?.kind).toBe("an exception class or errno");
  });

  it("does not count what the client sent, echoed whole or cut short", () => {
    expect(
      findLeak('title: must be at most 10 characters (got "/etc/passwd/../home/x")', ["/etc/passwd/../home/x"]),
    ).toBe(undefined);
    expect(findLeak('query: got "/home/aaaa…"', ["/home/aaaaaaaaaaaaaaaaaa"])).toBe(undefined);
    expect(findLeak("Error executing tool get_note (ref 7f3a9c21)", [])).toBe(undefined);
    expect(findLeak("No note 'x'. Known titles: groceries, todo", [])).toBe(undefined);
  });
});
