import { existsSync, mkdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import Database from "better-sqlite3";

export type SqliteDatabase = Database.Database;

export interface OpenSqliteOptions {
  /** How long a write waits for another connection's lock before SQLITE_BUSY (default 5000 ms). */
  busyTimeoutMs?: number;
  readonly?: boolean;
}

// Node 20's recursive mkdirSync never returns for some unwritable parents (such as under
// /proc), so folders are made one level at a time.
function makeFolders(folder: string): void {
  const missing: string[] = [];
  let at = folder;
  for (; !existsSync(at); at = dirname(at)) {
    missing.unshift(at);
    if (dirname(at) === at) break;
  }
  if (existsSync(at) && !statSync(at).isDirectory()) {
    throw Object.assign(new Error(`${at} is not a folder`), { code: "ENOTDIR" });
  }
  for (const dir of missing) mkdirSync(dir);
}

/** Thrown when a database file cannot be opened; the message says what would work. */
export class StorageOpenError extends Error {}

/**
 * Opens (creating folders and file) an SQLite database for a store: WAL, foreign keys, a busy
 * timeout and synchronous=NORMAL, which WAL keeps durable across process crashes.
 * `:memory:` gives a private in-memory database.
 */
export function openSqlite(path: string, options: OpenSqliteOptions = {}): SqliteDatabase {
  const memory = path === ":memory:";
  const file = memory ? path : resolve(path);
  if (!memory && !options.readonly) {
    try {
      makeFolders(dirname(file));
    } catch (error) {
      throw new StorageOpenError(
        `cannot create the folder for database ${file} (${(error as NodeJS.ErrnoException).code ?? "error"}); choose a writable path`,
      );
    }
  }
  let db: SqliteDatabase;
  try {
    db = new Database(file, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false });
  } catch (error) {
    throw new StorageOpenError(
      `cannot open database ${file} (${(error as { code?: string }).code ?? (error as Error).message}); choose a writable file path or :memory:`,
    );
  }
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
  if (!memory && !options.readonly) db.pragma("journal_mode = WAL");
  db.pragma("foreign_keys = ON");
  db.pragma("synchronous = NORMAL");
  return db;
}
