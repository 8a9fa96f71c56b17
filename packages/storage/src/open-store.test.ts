import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { classifyError } from "@toolshed/errors";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Migration, MigrationError } from "./migrate.js";
import { checkSqliteSchemas, openSqliteStore } from "./open-store.js";
import { StorageOpenError } from "./sqlite.js";
import { defaultSqliteDriver, openWithDriver } from "./sqlite-driver.js";

/** A plain connection (no pragmas set), with the driver this Node uses by default, as another tool would leave a file. */
const rawSqlite = (file: string) => openWithDriver(defaultSqliteDriver() ?? "node", file, false);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "toolshed-open-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const sha256 = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");
const snapshot = (file: string) => ({ sha: sha256(file), files: readdirSync(dir) });

const ITEMS: readonly Migration[] = [
  { version: 1, name: "items", up: "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL)" },
  { version: 2, name: "items.note", up: "ALTER TABLE items ADD COLUMN note TEXT" },
];
const items = { scope: "items", migrations: ITEMS };
const others = { scope: "others", migrations: [{ version: 1, name: "others", up: "CREATE TABLE others (x)" }] };

/** A file in rollback-journal mode (as another tool leaves it) with these versions recorded. */
function fileWithVersions(name: string, rows: Array<[string, number]>): string {
  const file = join(dir, name);
  const db = rawSqlite(file);
  db.exec(
    "CREATE TABLE toolshed_migrations (scope TEXT NOT NULL, version INTEGER NOT NULL, name TEXT NOT NULL, applied_at TEXT NOT NULL, PRIMARY KEY (scope, version))",
  );
  for (const [scope, version] of rows) {
    db.prepare("INSERT INTO toolshed_migrations VALUES (?, ?, 'm', 'x')").run(scope, version);
  }
  db.close();
  return file;
}

describe("openSqliteStore", () => {
  it("refuses a file from a newer release before writing anything: same bytes, no WAL switch, no -wal or -shm", () => {
    const file = fileWithVersions("newer.db", [["items", 99]]);
    const before = snapshot(file);
    const error = (() => {
      try {
        openSqliteStore(file, { schema: items });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(MigrationError);
    expect(error).toBeInstanceOf(StorageOpenError);
    expect((error as Error).message).toBe(
      `database ${file} has items schema version 99, newer than this release knows (2); upgrade Toolshed to a release that knows it, or use another database`,
    );
    expect(error).toMatchObject({ reason: "newer_schema", database: file, scope: "items", found: 99, latest: 2 });
    expect(snapshot(file)).toEqual(before);
  });

  it("checkSqliteSchemas checks every store's scope before any is opened", () => {
    const file = fileWithVersions("mixed.db", [["others", 7]]);
    const before = snapshot(file);
    expect(() => checkSqliteSchemas(file, [items, others])).toThrowError(
      /has others schema version 7, newer than this release knows \(1\)/,
    );
    expect(snapshot(file)).toEqual(before);
    expect(() => checkSqliteSchemas(join(dir, "missing.db"), [items, others])).not.toThrow();
    expect(readdirSync(dir)).toEqual(["mixed.db"]);
  });

  it("opens writable in WAL mode and migrates, as before", () => {
    const file = join(dir, "new/items.db");
    const db = openSqliteStore(file, { schema: items });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    db.prepare("INSERT INTO items (name, note) VALUES ('a', 'b')").run();
    db.close();
  });

  describe("read-only", () => {
    function currentFile(): string {
      const file = join(dir, "current.db");
      const db = rawSqlite(file);
      db.exec(
        "CREATE TABLE toolshed_migrations (scope TEXT NOT NULL, version INTEGER NOT NULL, name TEXT NOT NULL, applied_at TEXT NOT NULL, PRIMARY KEY (scope, version))",
      );
      db.exec("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, note TEXT)");
      db.exec("INSERT INTO toolshed_migrations VALUES ('items', 1, 'm', 'x'), ('items', 2, 'm', 'x')");
      db.exec("INSERT INTO items (name) VALUES ('kept')");
      db.close();
      return file;
    }

    it("reads a current file without writing to it: no WAL switch, no migration", () => {
      const file = currentFile();
      const before = snapshot(file);
      const db = openSqliteStore(file, { schema: items, readonly: true });
      expect(db.prepare("SELECT name FROM items").all()).toEqual([{ name: "kept" }]);
      expect(db.pragma("journal_mode", { simple: true })).toBe("delete");
      db.close();
      expect(snapshot(file)).toEqual(before);
    });

    it("a write through a read-only store is a clear, not retryable tool error", () => {
      const db = openSqliteStore(currentFile(), { schema: items, readonly: true });
      let thrown: unknown;
      try {
        db.prepare("INSERT INTO items (name) VALUES ('x')").run();
      } catch (error) {
        thrown = error;
      }
      db.close();
      const classified = classifyError(thrown);
      expect(classified).toMatchObject({ code: "failed_precondition", retryable: false });
      expect(classified?.message).toMatch(/^the database is read-only, so nothing was changed; /);
    });

    it("refuses a file whose schema needs upgrading, and a file that does not exist", () => {
      const old = fileWithVersions("old.db", [["items", 1]]);
      const before = snapshot(old);
      expect(() => openSqliteStore(old, { schema: items, readonly: true })).toThrowError(
        `database ${old} has items schema version 1, older than this release needs (2), and a read-only open does not upgrade it; open it once writable to upgrade it`,
      );
      expect(() => openSqliteStore(old, { schema: others, readonly: true })).toThrowError(
        `database ${old} has no others tables yet, and a read-only open does not create them; open it once writable to create them`,
      );
      expect(snapshot(old)).toEqual(before);
      const missing = join(dir, "missing.db");
      expect(() => openSqliteStore(missing, { schema: items, readonly: true })).toThrowError(
        expect.objectContaining({
          reason: "missing",
          message: `database ${missing} does not exist; a read-only open needs an existing database file`,
        }),
      );
      expect(readdirSync(dir)).toEqual(["old.db"]);
    });
  });
});
