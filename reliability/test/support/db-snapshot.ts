import { openSqlite, type SqliteDatabase } from "@toolshed/storage";

/**
 * Reads a database file the servers write, through a read-only connection of its own: the row
 * count of every table and the newest `updated_at` where a table has one. A call that changes
 * no data leaves the snapshot as it was.
 */
export class DbSnapshotter {
  readonly #db: SqliteDatabase;
  readonly #queries: Array<{ table: string; sql: string }>;

  constructor(file: string) {
    this.#db = openSqlite(file, { readonly: true });
    const tables = this.#db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .all() as Array<{ name: string }>;
    this.#queries = tables.map(({ name }) => {
      const columns = this.#db.prepare(`PRAGMA table_info("${name}")`).all() as Array<{ name: string }>;
      const newest = columns.some((c) => c.name === "updated_at") ? ", max(updated_at)" : "";
      return { table: name, sql: `SELECT count(*)${newest} FROM "${name}"` };
    });
  }

  /** `table: count [newest]` for every table, one string that compares with ===. */
  take(): string {
    return this.#queries
      .map(({ table, sql }) => `${table}: ${Object.values(this.#db.prepare(sql).get() as object).join(" ")}`)
      .join("\n");
  }

  close(): void {
    this.#db.close();
  }
}
