import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readSqliteSchemaVersions } from "./schema-versions.js";
import { defaultSqliteDriver, openWithDriver, type SqliteDatabase } from "./sqlite-driver.js";

/** A plain connection (no pragmas set), with the driver this Node uses by default, as another tool would leave a file. */
const rawSqlite = (file: string) => openWithDriver(defaultSqliteDriver() ?? "node", file, false);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "toolshed-versions-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const sha256 = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

const MIGRATIONS_TABLE = `CREATE TABLE toolshed_migrations (
    scope TEXT NOT NULL,
    version INTEGER NOT NULL,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL,
    PRIMARY KEY (scope, version)
  )`;

/** A database as a Toolshed release leaves it, in WAL mode and closed (no -wal or -shm). */
function makeDatabase(file: string, rows: Array<[string, number]>, setup?: (db: SqliteDatabase) => void) {
  const db = rawSqlite(file);
  setup?.(db);
  db.pragma("journal_mode = WAL");
  db.exec(MIGRATIONS_TABLE);
  const insert = db.prepare("INSERT INTO toolshed_migrations VALUES (?, ?, ?, ?)");
  db.transaction(() => {
    for (const [scope, version] of rows) insert.run(scope, version, `migration ${version}`, "2026-01-01T00:00:00Z");
  })();
  db.close();
}

/** What SQLite itself says, for comparison. */
function sqliteAnswer(file: string): Map<string, number> {
  const db = rawSqlite(file);
  const rows = db.prepare("SELECT scope, MAX(version) AS v FROM toolshed_migrations GROUP BY scope").all() as Array<{
    scope: string;
    v: number;
  }>;
  db.close();
  return new Map(rows.map((r) => [r.scope, r.v]));
}

describe("readSqliteSchemaVersions", () => {
  it("reads every scope's version from a closed WAL file without writing or creating anything", () => {
    const file = join(dir, "t.db");
    makeDatabase(file, [
      ["notes", 1],
      ["notes", 2],
      ["tickets", 99],
    ]);
    const before = { sha: sha256(file), files: readdirSync(dir) };
    expect(before.files).toEqual(["t.db"]);
    expect(readSqliteSchemaVersions(file)).toEqual(
      new Map([
        ["notes", 2],
        ["tickets", 99],
      ]),
    );
    expect({ sha: sha256(file), files: readdirSync(dir) }).toEqual(before);
  });

  it("reads large files: a schema and a version table over many pages, long rows on overflow pages", () => {
    const file = join(dir, "big.db");
    const rows: Array<[string, number]> = [];
    for (let scope = 0; scope < 40; scope++) {
      for (let version = 1; version <= 60; version++) rows.push([`scope-${scope}-${"x".repeat(scope * 7)}`, version]);
    }
    // A scope longer than a page sits partly on overflow pages.
    rows.push([`long-${"é".repeat(5000)}`, 7]);
    makeDatabase(file, rows, (db) => {
      db.pragma("page_size = 1024");
      for (let i = 0; i < 120; i++) {
        db.exec(
          `CREATE TABLE t${i} (id INTEGER PRIMARY KEY, ${Array.from({ length: 40 }, (_, c) => `column_${c}_${"y".repeat(i % 30)} TEXT`).join(", ")})`,
        );
      }
    });
    const before = sha256(file);
    const found = readSqliteSchemaVersions(file);
    expect(found).toEqual(sqliteAnswer(file));
    expect(found?.get(`long-${"é".repeat(5000)}`)).toBe(7);
    expect(found?.size).toBe(41);
    expect(sha256(file)).toBe(before);
    expect(readdirSync(dir)).toEqual(["big.db"]);
  });

  it("reads UTF-16 files", () => {
    for (const encoding of ["UTF-16le", "UTF-16be"]) {
      const file = join(dir, `${encoding}.db`);
      makeDatabase(file, [["crm", 3]], (db) => db.pragma(`encoding = '${encoding}'`));
      expect(readSqliteSchemaVersions(file)).toEqual(new Map([["crm", 3]]));
    }
  });

  it("sees versions still in the -wal of a running process", () => {
    const file = join(dir, "live.db");
    makeDatabase(file, [["notes", 1]]);
    const writer = rawSqlite(file);
    writer.pragma("wal_autocheckpoint = 0");
    writer.prepare("INSERT INTO toolshed_migrations VALUES ('notes', 5, 'n', 'x')").run();
    try {
      expect(readSqliteSchemaVersions(file)).toEqual(new Map([["notes", 5]]));
    } finally {
      writer.close();
    }
  });

  it("no file: undefined; an empty file or one without the table: no versions", () => {
    expect(readSqliteSchemaVersions(join(dir, "none.db"))).toBeUndefined();
    writeFileSync(join(dir, "empty.db"), "");
    expect(readSqliteSchemaVersions(join(dir, "empty.db"))).toEqual(new Map());
    const other = rawSqlite(join(dir, "other.db"));
    other.exec("CREATE TABLE things (x)");
    other.close();
    expect(readSqliteSchemaVersions(join(dir, "other.db"))).toEqual(new Map());
  });

  it("a file that is not a database fails as SQLite does (SQLITE_NOTADB)", () => {
    const file = join(dir, "notes.txt");
    writeFileSync(file, "just some text, not SQLite at all\n".repeat(200));
    expect(() => readSqliteSchemaVersions(file)).toThrowError(expect.objectContaining({ code: "SQLITE_NOTADB" }));
    expect(readdirSync(dir)).toEqual(["notes.txt"]);
  });
});
