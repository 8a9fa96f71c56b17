import { createTestSchema, pgReachable, TEST_DATABASE_URL, type TestSchema } from "@toolshed/storage/postgres";
import { DbSnapshotter } from "./db-snapshot.js";
import { tempDir } from "./temp-db.js";

export type DatabaseKind = "SQLite" | "PostgreSQL";

/** Row counts and the newest `updated_at` of every table: equal takes mean no data changed. */
export interface Snapshots {
  take(): Promise<string>;
  close(): Promise<void>;
}

/** A database of its own for one server under test. */
export interface ServerDatabase {
  kind: DatabaseKind;
  /** The server flags that open it. */
  args: readonly string[];
  /** Call once the server has created its tables. */
  snapshots(): Promise<Snapshots>;
  remove(): Promise<void>;
}

let reachable: Promise<boolean> | undefined;

/**
 * Whether PostgreSQL answers at the test URL; says once on stderr why its tests are skipped when
 * it does not. Under CI=true an unreachable database throws (pgReachable), failing the run.
 */
export function postgresReachable(): Promise<boolean> {
  reachable ??= pgReachable().then((ok) => {
    if (!ok) process.stderr.write(`PostgreSQL tests SKIPPED: ${TEST_DATABASE_URL} is not reachable\n`);
    return ok;
  });
  return reachable;
}

/** A SQLite file in a fresh folder. */
export function sqliteDatabase(prefix: string): ServerDatabase {
  const temp = tempDir(prefix);
  const file = temp.file("toolshed.db");
  return {
    kind: "SQLite",
    args: ["--db", file],
    async snapshots() {
      const snapshotter = new DbSnapshotter(file);
      return { take: async () => snapshotter.take(), close: async () => snapshotter.close() };
    },
    async remove() {
      temp.remove();
    },
  };
}

/** A fresh PostgreSQL schema, so parallel tests never see each other's rows; dropped by remove(). */
export async function postgresDatabase(): Promise<ServerDatabase> {
  const db: TestSchema = await createTestSchema();
  // The schema travels in the URL, as a user would pass it to either server.
  const url = `${db.url}?options=${encodeURIComponent(`-c search_path=${db.schema}`)}`;
  return {
    kind: "PostgreSQL",
    args: ["--database-url", url],
    async snapshots() {
      const pool = db.pool({ max: 1 });
      const tables = await pool.query<{ table_name: string; newest: boolean }>(
        `SELECT t.table_name, EXISTS (SELECT 1 FROM information_schema.columns c
            WHERE c.table_schema = t.table_schema AND c.table_name = t.table_name AND c.column_name = 'updated_at') AS newest
          FROM information_schema.tables t
          WHERE t.table_schema = $1 AND t.table_type = 'BASE TABLE' ORDER BY t.table_name`,
        [db.schema],
      );
      // One round trip per take: every table's count (and newest updated_at) in one row each.
      const sql = tables.rows
        .map(
          ({ table_name, newest }) =>
            `SELECT '${table_name}' AS t, count(*)::text${newest ? " || ' ' || coalesce(max(updated_at)::text, '')" : ""} AS v FROM "${table_name}"`,
        )
        .join(" UNION ALL ");
      return {
        async take() {
          const rows = await pool.query<{ t: string; v: string }>(sql);
          return rows.rows
            .map((r) => `${r.t}: ${r.v}`)
            .sort()
            .join("\n");
        },
        close: () => pool.end(),
      };
    },
    remove: () => db.drop(),
  };
}
