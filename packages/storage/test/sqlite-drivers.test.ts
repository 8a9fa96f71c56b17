/**
 * The behaviour both SQLite drivers must share. Each driver runs where this Node can load it:
 * better-sqlite3 on Node 20 (`vitest run`), node:sqlite on Node 22.16+ (run this file with that
 * Node: `<node22> ../../node_modules/vitest/vitest.mjs run test/sqlite-drivers.test.ts`).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { classifyError } from "@toolshed/errors";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { IDEMPOTENCY_TABLE_SQL, runIdempotent } from "../src/idempotency.js";
import { openSqliteStore } from "../src/open-store.js";
import { openSqlite, type SqliteDatabase, StorageOpenError } from "../src/sqlite.js";
import { defaultSqliteDriver, SQLITE_DRIVERS, type SqliteDriver, sqliteDriver } from "../src/sqlite-driver.js";

const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
const hasNodeSqlite = major > 22 || (major === 22 && minor >= 16);
const loadable = (driver: SqliteDriver) => (driver === "node" ? hasNodeSqlite : major < 22);

let dir: string;
const opened: SqliteDatabase[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "toolshed-drivers-"));
});
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The error `run` throws (fails the test when it does not throw). */
function thrown(run: () => unknown): Error & { code?: string } {
  try {
    run();
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error("expected an error");
}

describe("driver choice", () => {
  it("auto picks node:sqlite where Node has it, else better-sqlite3", () => {
    expect(defaultSqliteDriver()).toBe(hasNodeSqlite ? "node" : "better-sqlite3");
    const db = openSqlite(":memory:");
    expect(sqliteDriver(db)).toBe(defaultSqliteDriver());
    db.close();
  });

  it.runIf(!hasNodeSqlite)("asking for node:sqlite on an older Node says which Node to use", () => {
    const error = thrown(() => openSqlite(join(dir, "x.db"), { driver: "node" }));
    expect(error).toBeInstanceOf(StorageOpenError);
    expect(error).toMatchObject({ reason: "driver_unavailable" });
    expect(error.message).toBe(
      `cannot open database ${join(dir, "x.db")}: the SQLite driver node:sqlite cannot be used: node:sqlite is not available in Node ${process.version} (it needs 22.16 or later); run on Node 22.16 or later, or choose the better-sqlite3 driver`,
    );
  });

  it.runIf(major >= 22)("asking for better-sqlite3 where its addon does not load says what to do", () => {
    const error = thrown(() => openSqlite(":memory:", { driver: "better-sqlite3" }));
    expect(error).toMatchObject({ reason: "driver_unavailable" });
    expect(error.message).toMatch(
      /^cannot open database :memory:: the SQLite driver better-sqlite3 cannot be used: better-sqlite3 cannot be loaded in Node v\d+\.\d+\.\d+ \(ERR_DLOPEN_FAILED\); reinstall it for this Node; install it \(npm install better-sqlite3@12\.11\.1\), or choose the node driver on Node 22\.16 or later$/,
    );
  });

  it("an unknown driver name is refused with the choices", () => {
    const error = thrown(() => openSqlite(":memory:", { driver: "sqlite3" as never }));
    expect(error.message).toBe(
      "cannot open database :memory:: unknown SQLite driver 'sqlite3'; choose one of auto, node, better-sqlite3",
    );
  });
});

describe.each(SQLITE_DRIVERS)("driver %s", (driver) => {
  if (!loadable(driver)) {
    it.skip(`needs ${driver === "node" ? "Node 22.16 or later" : "Node 20 (the installed addon's build)"}`, () => {});
    return;
  }
  const open = (name = "t.db", options: { readonly?: boolean; busyTimeoutMs?: number } = {}) => {
    const db = openSqlite(name === ":memory:" ? name : join(dir, name), { ...options, driver });
    opened.push(db);
    return db;
  };

  it("opens with WAL, foreign keys, the busy timeout and synchronous=NORMAL", () => {
    const db = open();
    expect(sqliteDriver(db)).toBe(driver);
    expect(db.name).toBe(join(dir, "t.db"));
    expect([db.open, db.readonly, db.inTransaction]).toEqual([true, false, false]);
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.pragma("foreign_keys", { simple: true })).toBe(1);
    expect(db.pragma("busy_timeout", { simple: true })).toBe(5000);
    expect(db.pragma("synchronous", { simple: true })).toBe(1);
    expect(open("u.db", { busyTimeoutMs: 250 }).pragma("busy_timeout", { simple: true })).toBe(250);
    const reader = open("t.db", { readonly: true });
    expect(reader.readonly).toBe(true);
  });

  it("pragma returns rows, or the first value with simple", () => {
    const db = open();
    expect(db.pragma("journal_mode")).toEqual([{ journal_mode: "wal" }]);
    expect(db.pragma("busy_timeout = 100")).toEqual([{ timeout: 100 }]);
    expect(db.pragma("foreign_keys = ON")).toEqual([]);
    expect(db.pragma("foreign_keys = ON", { simple: true })).toBeUndefined();
  });

  it("binds positional and named parameters as better-sqlite3 does", () => {
    const db = open(":memory:");
    const row = db.prepare("SELECT ? AS a, ? AS b").get(1, "x");
    expect(row).toEqual({ a: 1, b: "x" });
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    const named = db.prepare("SELECT @a AS a, :b AS b, $c AS c");
    // Keys without the prefix; keys naming no parameter are ignored; undefined is NULL.
    expect(named.get({ a: 1, b: "two", c: null, extra: 4 })).toEqual({ a: 1, b: "two", c: null });
    expect(named.get({ a: undefined, b: 2, c: 3 })).toEqual({ a: null, b: 2, c: 3 });
    expect(db.prepare("SELECT ? AS a").get(undefined)).toEqual({ a: null });
    // Numbers bind as REAL, BigInt as INTEGER (the stores pass FTS rowids as BigInt).
    expect(db.prepare("SELECT typeof(?) AS n, typeof(?) AS b").get(3, 3n)).toEqual({ n: "real", b: "integer" });
    expect(db.prepare("SELECT ? AS big").get(2n ** 40n)).toEqual({ big: 2 ** 40 });
    const blob = db.prepare("SELECT x'0102ff' AS b").get() as { b: Buffer };
    expect(Buffer.isBuffer(blob.b)).toBe(true);
    expect([...blob.b]).toEqual([1, 2, 255]);
    // Booleans are refused (node:sqlite binds them as integers from Node 24 on).
    expect(() => db.prepare("SELECT ? AS a").get(true)).toThrowError(TypeError);
    expect(() => named.get({ a: false, b: 2, c: 3 })).toThrowError(TypeError);
  });

  it("run reports changes and the last rowid; get is undefined without a row; all and iterate return rows", () => {
    const db = open(":memory:");
    db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, x TEXT); CREATE TABLE u (y)");
    const insert = db.prepare("INSERT INTO t (x) VALUES (?)");
    expect(insert.run("a")).toEqual({ changes: 1, lastInsertRowid: 1 });
    expect(insert.run("b")).toEqual({ changes: 1, lastInsertRowid: 2 });
    expect(db.prepare("UPDATE t SET x = x || '!'").run()).toEqual({ changes: 2, lastInsertRowid: 2 });
    expect(db.prepare("SELECT * FROM t WHERE id = ?").get(9)).toBeUndefined();
    expect(db.prepare("SELECT id, x FROM t ORDER BY id").all()).toEqual([
      { id: 1, x: "a!" },
      { id: 2, x: "b!" },
    ]);
    expect([...db.prepare("SELECT x FROM t ORDER BY id DESC").iterate()]).toEqual([{ x: "b!" }, { x: "a!" }]);
    // Leaving an iteration early ends the statement: the connection can write at once.
    for (const row of db.prepare("SELECT id FROM t").iterate()) {
      expect(row).toEqual({ id: 1 });
      break;
    }
    expect(db.prepare("INSERT INTO u VALUES (1)").run().changes).toBe(1);
  });

  it("a closed connection refuses work with better-sqlite3's TypeError", () => {
    const db = open(":memory:");
    const statement = db.prepare("SELECT 1");
    db.close();
    for (const work of [() => statement.get(), () => db.prepare("SELECT 1"), () => db.exec("SELECT 1")]) {
      const error = thrown(work);
      expect([error.name, error.message]).toEqual(["TypeError", "The database connection is not open"]);
    }
  });

  it("pluck returns first columns until turned off", () => {
    const db = open(":memory:");
    db.exec("CREATE TABLE t (a, b); INSERT INTO t VALUES (1, 'one'), (2, 'two')");
    const statement = db.prepare("SELECT b, a FROM t ORDER BY a").pluck();
    expect(statement.all()).toEqual(["one", "two"]);
    expect(statement.get()).toBe("one");
    expect([...statement.iterate()]).toEqual(["one", "two"]);
    expect(db.prepare("SELECT a FROM t WHERE a > 5").pluck().get()).toBeUndefined();
    expect(statement.pluck(false).get()).toEqual({ b: "one", a: 1 });
  });

  it("transactions commit, roll back on a throw, nest as savepoints, and refuse promises", () => {
    const db = open();
    db.exec("CREATE TABLE t (x TEXT)");
    const count = () => db.prepare("SELECT COUNT(*) FROM t").pluck().get();
    const add = db.prepare("INSERT INTO t VALUES (?)");
    const addTwo = db.transaction((a: string, b: string) => {
      expect(db.inTransaction).toBe(true);
      add.run(a);
      add.run(b);
      return `${a}+${b}`;
    });
    expect(addTwo("a", "b")).toBe("a+b");
    expect([db.inTransaction, count()]).toEqual([false, 2]);

    const failure = new Error("stop");
    const failing = db.transaction(() => {
      add.run("c");
      throw failure;
    });
    expect(thrown(() => failing.immediate())).toBe(failure);
    expect([db.inTransaction, count()]).toEqual([false, 2]);

    // The inner call fails and is caught: only its rows are undone.
    db.transaction(() => {
      add.run("outer");
      expect(thrown(() => failing())).toBe(failure);
      expect(db.inTransaction).toBe(true);
      addTwo("d", "e");
    })();
    expect(db.prepare("SELECT x FROM t ORDER BY rowid").pluck().all()).toEqual(["a", "b", "outer", "d", "e"]);

    const promised = db.transaction(() => {
      add.run("p");
      return Promise.resolve(1);
    });
    expect(thrown(() => promised())).toBeInstanceOf(TypeError);
    expect([db.inTransaction, count()]).toEqual([false, 5]);
    expect(typeof addTwo.deferred).toBe("function");
    expect(typeof addTwo.exclusive).toBe("function");
  });

  it("an immediate transaction holds the write lock: another writer gets SQLITE_BUSY (busy, retryable)", () => {
    const db = open();
    db.exec("CREATE TABLE t (x)");
    const other = open("t.db", { busyTimeoutMs: 0 });
    let busy: Error & { code?: string } = new Error("none");
    db.transaction(() => {
      busy = thrown(() => other.prepare("INSERT INTO t VALUES (2)").run());
    }).immediate();
    expect(busy.code).toBe("SQLITE_BUSY");
    expect(busy.message).toBe("database is locked");
    expect(classifyError(busy)?.code).toBe("unavailable");
    // A deferred read transaction does not block writers.
    db.transaction(() => {
      db.prepare("SELECT * FROM t").all();
      other.prepare("INSERT INTO t VALUES (3)").run();
    })();
    expect(db.prepare("SELECT x FROM t").pluck().all()).toEqual([3]);
  });

  it("SQLite errors carry better-sqlite3's codes and messages", () => {
    const db = open();
    db.exec(`CREATE TABLE p (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE CHECK (name <> ''));
      CREATE TABLE c (p INTEGER REFERENCES p (id))`);
    db.prepare("INSERT INTO p (name) VALUES (?)").run("a");
    const cases = [
      ["INSERT INTO p (name) VALUES ('a')", "SQLITE_CONSTRAINT_UNIQUE", "UNIQUE constraint failed: p.name"],
      ["INSERT INTO p (name) VALUES (NULL)", "SQLITE_CONSTRAINT_NOTNULL", "NOT NULL constraint failed: p.name"],
      ["INSERT INTO p (name) VALUES ('')", "SQLITE_CONSTRAINT_CHECK", "CHECK constraint failed: name <> ''"],
      ["INSERT INTO p (id, name) VALUES (1, 'b')", "SQLITE_CONSTRAINT_PRIMARYKEY", "UNIQUE constraint failed: p.id"],
      ["INSERT INTO c VALUES (42)", "SQLITE_CONSTRAINT_FOREIGNKEY", "FOREIGN KEY constraint failed"],
    ] as const;
    for (const [sql, code, message] of cases) {
      const error = thrown(() => db.prepare(sql).run());
      expect([error.name, error.code, error.message]).toEqual(["SqliteError", code, message]);
    }
    const syntax = thrown(() => db.exec("SELEC 1"));
    expect([syntax.code, syntax.message]).toEqual(["SQLITE_ERROR", 'near "SELEC": syntax error']);
    expect(thrown(() => db.prepare("SELECT * FROM nope")).code).toBe("SQLITE_ERROR");

    const reader = open("t.db", { readonly: true });
    const readonly = thrown(() => reader.prepare("INSERT INTO p (name) VALUES ('z')").run());
    expect([readonly.code, readonly.message]).toEqual(["SQLITE_READONLY", "attempt to write a readonly database"]);
    expect(classifyError(readonly)?.code).toBe("failed_precondition");

    writeFileSync(join(dir, "junk.db"), "this is not a database, just some text that is long enough".repeat(20));
    const junk = thrown(() => open("junk.db", { readonly: true }).prepare("SELECT * FROM sqlite_master").all());
    expect([junk.code, junk.message]).toEqual(["SQLITE_NOTADB", "file is not a database"]);
  });

  it("FTS5 ranks with bm25 and cuts snippets", () => {
    const db = open(":memory:");
    db.exec("CREATE VIRTUAL TABLE f USING fts5(title, body)");
    const add = db.prepare("INSERT INTO f (rowid, title, body) VALUES (?, ?, ?)");
    add.run(1, "Pancakes", "flour, milk and eggs whisked into a batter, then fried");
    add.run(2, "Omelette", "eggs beaten with salt and butter");
    add.run(3, "Shopping", "milk, eggs, pancakes mix");
    const hits = db
      .prepare(
        `SELECT rowid AS id, snippet(f, 1, '[', ']', '…', 4) AS snippet FROM f
          WHERE f MATCH ? ORDER BY bm25(f, 10.0, 1.0), rowid`,
      )
      .all('"pancakes"*');
    expect(hits).toEqual([
      { id: 1, snippet: "flour, milk and eggs…" },
      { id: 3, snippet: "milk, eggs, [pancakes] mix" },
    ]);
    const ranked = db.prepare("SELECT rowid FROM f WHERE f MATCH ? AND rowid = ?").pluck().get('"eggs"', 2n);
    expect(ranked).toBe(2);
  });

  it("opens a store: migrations, idempotent writes in one transaction, read-only reopening", () => {
    const file = join(dir, "store.db");
    const schema = {
      scope: "items",
      migrations: [
        {
          version: 1,
          name: "items",
          up: `CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL); ${IDEMPOTENCY_TABLE_SQL}`,
        },
        {
          version: 2,
          name: "upper",
          up: (db: SqliteDatabase) => db.prepare("INSERT INTO items (name) VALUES ('seed')").run(),
        },
      ],
    };
    const db = openSqliteStore(file, { schema, driver });
    opened.push(db);
    expect(sqliteDriver(db)).toBe(driver);
    const create = (name: string) =>
      runIdempotent(db, { scope: "items.create", key: "k1", args: { name } }, () =>
        Number(db.prepare("INSERT INTO items (name) VALUES (?)").run(name).lastInsertRowid),
      );
    expect(create("a")).toBe(2);
    expect(create("a")).toBe(2);
    expect(thrown(() => create("b")).message).toBe(
      "idempotency_key 'k1' was already used with different arguments; use a new key for a new request, or repeat the original arguments",
    );
    expect(db.prepare("SELECT name FROM items ORDER BY id").pluck().all()).toEqual(["seed", "a"]);
    db.close();
    expect(db.open).toBe(false);
    db.close();
    const reader = openSqliteStore(file, { schema, driver, readonly: true });
    opened.push(reader);
    expect(reader.prepare("SELECT COUNT(*) FROM items").pluck().get()).toBe(2);
  });
});
