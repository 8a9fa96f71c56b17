import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isToolError } from "@toolshed/errors";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor } from "./cursor.js";
import { escapeLike, planFtsSearch, toFtsQuery } from "./fts.js";
import { fingerprint, IDEMPOTENCY_TABLE_SQL, runIdempotent } from "./idempotency.js";
import { MigrationError, runMigrations } from "./migrate.js";
import { openSqlite, type SqliteDatabase, StorageOpenError } from "./sqlite.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "toolshed-storage-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("openSqlite", () => {
  it("creates folders, uses WAL, foreign keys and a busy timeout", () => {
    const db = openSqlite(join(dir, "a/b/c.db"));
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.pragma("foreign_keys", { simple: true })).toBe(1);
    expect(db.pragma("busy_timeout", { simple: true })).toBe(5000);
    db.close();
  });

  it("opens :memory:", () => {
    const db = openSqlite(":memory:");
    expect(db.prepare("SELECT 1 AS one").get()).toEqual({ one: 1 });
    db.close();
  });

  it("says what would work when the path cannot be used", () => {
    expect(() => openSqlite("/proc/toolshed/x.db")).toThrowError(StorageOpenError);
    expect(() => openSqlite("/proc/toolshed/x.db")).toThrowError(/choose a writable path/);
  });
});

describe("runMigrations", () => {
  const migrations = [
    { version: 1, name: "items", up: "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL)" },
    { version: 2, name: "items.note", up: "ALTER TABLE items ADD COLUMN note TEXT" },
    {
      version: 3,
      name: "backfill",
      up: (db: SqliteDatabase) => db.prepare("UPDATE items SET note = 'n/a' WHERE note IS NULL").run(),
    },
  ];

  it("upgrades an older file in place and keeps its rows", () => {
    const file = join(dir, "m.db");
    const old = openSqlite(file);
    expect(runMigrations(old, "test", migrations.slice(0, 1))).toBe(1);
    old.prepare("INSERT INTO items (name) VALUES ('kept')").run();
    old.close();
    const db = openSqlite(file);
    expect(runMigrations(db, "test", migrations)).toBe(3);
    expect(db.prepare("SELECT name, note FROM items").all()).toEqual([{ name: "kept", note: "n/a" }]);
    expect(runMigrations(db, "test", migrations)).toBe(3);
    db.close();
  });

  it("keeps scopes apart and refuses a file from a newer release", () => {
    const db = openSqlite(":memory:");
    runMigrations(db, "a", migrations);
    expect(runMigrations(db, "b", [])).toBe(0);
    expect(() => runMigrations(db, "a", migrations.slice(0, 2))).toThrowError(MigrationError);
    expect(() => runMigrations(db, "a", migrations.slice(0, 2))).toThrowError(/newer than this release knows \(2\)/);
  });

  it("a failing migration leaves the last complete version", () => {
    const db = openSqlite(":memory:");
    expect(() =>
      runMigrations(db, "t", [
        migrations[0] as (typeof migrations)[0],
        { version: 2, name: "bad", up: "ALTER TABLE nope ADD x" },
      ]),
    ).toThrow();
    expect(db.prepare("SELECT MAX(version) AS v FROM toolshed_migrations WHERE scope = 't'").get()).toEqual({ v: 1 });
  });
});

describe("toFtsQuery", () => {
  it.each([
    ["milk eggs", '"milk"* "eggs"*'],
    ['"unbalanced', '"unbalanced"*'],
    ["a* -b OR (c) NEAR d", '"a"* "b"* "OR"* "c"* "NEAR"* "d"*'],
    ["title:secret", '"title"* "secret"*'],
    ["café 日本語 🎉", '"café"* "日本語"*'],
  ])("%s becomes %s", (input, expected) => {
    expect(toFtsQuery(input)).toBe(expected);
  });

  it("returns undefined when no word is left", () => {
    for (const input of ["", "   ", "***", '""', "🎉", "()"]) expect(toFtsQuery(input)).toBeUndefined();
  });

  it("every output is a valid FTS5 query that matches as text", () => {
    const db = openSqlite(":memory:");
    db.exec("CREATE VIRTUAL TABLE t USING fts5(title, body)");
    db.prepare("INSERT INTO t VALUES ('OR and NEAR', 'quotes \" and stars *')").run();
    for (const input of ['"', "*", "-x", "AND", "OR", "NEAR(a b)", "(", ")", "title:x", "^x", "a + b", "x'y"]) {
      const q = toFtsQuery(input);
      if (q === undefined) continue;
      expect(() => db.prepare("SELECT * FROM t WHERE t MATCH ?").all(q)).not.toThrow();
    }
    expect(db.prepare("SELECT title FROM t WHERE t MATCH ?").all(toFtsQuery("near OR"))).toEqual([
      { title: "OR and NEAR" },
    ]);
  });

  it("escapeLike escapes wildcards", () => {
    expect(escapeLike("50%_off\\")).toBe("50\\%\\_off\\\\");
  });
});

describe("cursors", () => {
  it("positions are whole numbers of 0 or more, and text has no NUL", () => {
    expect(decodeCursor(encodeCursor({ p: 3, t: "x" }), { p: "position", t: "string" })).toEqual({ p: 3, t: "x" });
    for (const bad of [
      encodeCursor({ p: -1, t: "x" }),
      encodeCursor({ p: 0.5, t: "x" }),
      encodeCursor({ p: 1e300, t: "x" }),
      encodeCursor({ p: 1, t: "a\u0000" }),
    ]) {
      expect(() => decodeCursor(bad, { p: "position", t: "string" })).toThrowError(/^cursor is not valid/);
    }
  });

  it("round-trips and rejects anything else with a hint", () => {
    const cursor = encodeCursor({ title: "groceries", id: 7 });
    expect(decodeCursor(cursor, { title: "string", id: "number" })).toEqual({ title: "groceries", id: 7 });
    for (const bad of ["nope", "", encodeCursor({ title: 1 }), Buffer.from("[1]").toString("base64url")]) {
      let error: unknown;
      try {
        decodeCursor(bad, { title: "string", id: "number" });
      } catch (e) {
        error = e;
      }
      expect(isToolError(error)).toBe(true);
      expect((error as Error).message).toBe(
        "cursor is not valid; pass next_cursor from the previous page unchanged, or omit it",
      );
    }
  });
});

describe("runIdempotent", () => {
  function setup(file: string) {
    const db = openSqlite(file);
    db.exec(IDEMPOTENCY_TABLE_SQL);
    db.exec("CREATE TABLE IF NOT EXISTS things (id INTEGER PRIMARY KEY, name TEXT)");
    const create = (name: string) =>
      runIdempotent(db, { scope: "things", key: "k1", args: { name } }, () => {
        const info = db.prepare("INSERT INTO things (name) VALUES (?)").run(name);
        return { id: Number(info.lastInsertRowid), name };
      });
    return { db, create };
  }

  it("the same key and arguments return the first result and write nothing new", () => {
    const { db, create } = setup(":memory:");
    const first = create("a");
    expect(create("a")).toEqual(first);
    expect(db.prepare("SELECT COUNT(*) AS n FROM things").get()).toEqual({ n: 1 });
  });

  it("the same key with other arguments is a conflict and writes nothing", () => {
    const { db, create } = setup(":memory:");
    create("a");
    expect(() => create("b")).toThrowError(/idempotency_key 'k1' was already used with different arguments/);
    expect(db.prepare("SELECT COUNT(*) AS n FROM things").get()).toEqual({ n: 1 });
  });

  it("two connections on one file create one record", () => {
    const file = join(dir, "i.db");
    const a = setup(file);
    const b = setup(file);
    const results = [a.create("x"), b.create("x"), a.create("x")];
    expect(new Set(results.map((r) => JSON.stringify(r))).size).toBe(1);
    expect(a.db.prepare("SELECT COUNT(*) AS n FROM things").get()).toEqual({ n: 1 });
  });

  it("a failing create rolls back and stores no key", () => {
    const { db } = setup(":memory:");
    expect(() =>
      runIdempotent(db, { scope: "s", key: "k", args: {} }, () => {
        db.prepare("INSERT INTO things (name) VALUES ('half')").run();
        throw new Error("boom");
      }),
    ).toThrowError("boom");
    expect(db.prepare("SELECT COUNT(*) AS n FROM things").get()).toEqual({ n: 0 });
    expect(db.prepare("SELECT COUNT(*) AS n FROM toolshed_idempotency").get()).toEqual({ n: 0 });
  });

  it("fingerprints ignore key order and undefined values", () => {
    expect(fingerprint({ a: 1, b: [1, { c: 2, d: undefined }] })).toBe(fingerprint({ b: [1, { c: 2 }], a: 1 }));
    expect(fingerprint({ a: 1 })).not.toBe(fingerprint({ a: "1" }));
  });
});

describe("planFtsSearch", () => {
  it("searches whole words first, then word starts, ranked while no term is common", () => {
    expect(planFtsSearch("panc syrup", () => false)).toEqual([
      { match: '"panc" "syrup"', ranked: true },
      { match: '("panc"* "syrup"*) NOT ("panc" "syrup")', ranked: true },
    ]);
  });

  it("answers newest first with a common word, and does not expand it", () => {
    expect(planFtsSearch("meeting notes", (term) => term === '"meeting"')).toEqual([
      { match: '"meeting" "notes"', ranked: false },
      { match: '("meeting" "notes"*) NOT ("meeting" "notes")', ranked: false },
    ]);
  });

  it("has nothing to do without a word", () => {
    expect(planFtsSearch("*** 🎉", () => false)).toEqual([]);
  });
});
