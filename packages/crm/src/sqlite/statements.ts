import type { SqliteDatabase } from "@toolshed/storage";

/** The part of a better-sqlite3 statement this store uses. */
export interface Statement {
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  pluck(toggle?: boolean): Statement;
}

// Prepared once per connection and SQL text: preparing costs more than running most of these.
const cache = new WeakMap<SqliteDatabase, Map<string, Statement>>();

/** `db.prepare(sql)`, cached per connection. A statement used with `.pluck()` must always be. */
export function prepare(db: SqliteDatabase, sql: string): Statement {
  let statements = cache.get(db);
  if (statements === undefined) {
    statements = new Map();
    cache.set(db, statements);
  }
  let statement = statements.get(sql);
  if (statement === undefined) {
    statement = db.prepare<unknown[]>(sql);
    statements.set(sql, statement);
  }
  return statement;
}
