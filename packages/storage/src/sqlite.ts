import { accessSync, closeSync, constants, existsSync, mkdirSync, openSync, readSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { brandErrorClass } from "@toolshed/errors/internal";
import {
  openWithDriver,
  pickSqliteDriver,
  type SqliteDatabase,
  type SqliteDriver,
  type SqliteDriverChoice,
} from "./sqlite-driver.js";

export type { SqliteDatabase } from "./sqlite-driver.js";

export interface OpenSqliteOptions {
  /** How long a write waits for another connection's lock before SQLITE_BUSY (default 5000 ms). */
  busyTimeoutMs?: number;
  /**
   * Open an existing file without writing to it: no folders or file created, no switch to WAL.
   * Writes through the connection fail with SQLITE_READONLY. A WAL file in a folder this process
   * cannot write is opened immutable on node:sqlite (refused on better-sqlite3, saying what works).
   */
  readonly?: boolean;
  /** Which SQLite driver opens the file (default `auto`: node:sqlite where Node has it, else better-sqlite3). */
  driver?: SqliteDriverChoice;
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

/** Why a database cannot be used; lets a caller add its own hint (a server names its flags). */
export type StorageOpenReason =
  | "cannot_create"
  | "cannot_open"
  /** The file cannot be written by this process. */
  | "read_only"
  /** The folder cannot be written, and SQLite needs to create files there. */
  | "read_only_folder"
  | "missing"
  | "newer_schema"
  | "older_schema"
  /** The SQLite driver asked for (or any, with `auto`) cannot be loaded in this Node. */
  | "driver_unavailable";

/** Thrown when a database cannot be opened or used; the message says what would work. */
export class StorageOpenError extends Error {
  readonly reason: StorageOpenReason;
  /** The file (absolute) or a label for the database, as the message names it. */
  readonly database: string;
  /** What the operating system said, such as `the file cannot be written (EACCES)`. */
  readonly detail: string | undefined;

  constructor(
    message: string,
    options: { reason: StorageOpenReason; database: string; detail?: string; cause?: unknown },
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "StorageOpenError";
    this.reason = options.reason;
    this.database = options.database;
    this.detail = options.detail;
  }
}
brandErrorClass(StorageOpenError, "StorageOpenError");

const DENIED = new Set(["EACCES", "EPERM", "EROFS"]);

/**
 * Why this process cannot write the database (undefined when it can). SQLite would open such a
 * file read-only without a word and fail every write later; the folder must be writable too,
 * since SQLite creates its -wal, -shm and journal files next to the database.
 */
function writeProblem(file: string): { folder: boolean; detail: string } | undefined {
  if (existsSync(file)) {
    try {
      closeSync(openSync(file, "r+"));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "";
      if (DENIED.has(code)) return { folder: false, detail: `the file cannot be written (${code})` };
    }
  }
  try {
    accessSync(dirname(file), constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    const detail = `its folder ${dirname(file)} cannot be written (${code}), and SQLite creates its -wal and -shm files there`;
    return { folder: true, detail };
  }
  return undefined;
}

/**
 * Opens (creating folders and file) an SQLite database for a store: WAL, foreign keys, a busy
 * timeout and synchronous=NORMAL, which WAL keeps durable across process crashes.
 * `:memory:` gives a private in-memory database. A file this process cannot write is refused
 * (`reason: "read_only"`) unless `readonly` is set.
 */
export function openSqlite(path: string, options: OpenSqliteOptions = {}): SqliteDatabase {
  const memory = path === ":memory:";
  const file = memory ? path : resolve(path);
  const readonly = options.readonly ?? false;
  const driver = chooseDriver(options.driver, file);
  if (memory && readonly) {
    throw new StorageOpenError(
      ":memory: cannot be opened read-only (it would be empty); open a database file read-only, or :memory: writable",
      { reason: "cannot_open", database: file },
    );
  }
  if (!memory && readonly && !existsSync(file)) {
    throw new StorageOpenError(`database ${file} does not exist; a read-only open needs an existing database file`, {
      reason: "missing",
      database: file,
    });
  }
  if (!memory && !readonly) {
    try {
      makeFolders(dirname(file));
    } catch (error) {
      throw new StorageOpenError(
        `cannot create the folder for database ${file} (${(error as NodeJS.ErrnoException).code ?? "error"}); choose a writable path`,
        { reason: "cannot_create", database: file },
      );
    }
    const problem = writeProblem(file);
    if (problem !== undefined) {
      const { folder, detail } = problem;
      throw new StorageOpenError(
        !existsSync(file)
          ? `cannot create database ${file}: ${detail}; choose a writable path`
          : folder
            ? `database ${file} cannot be written: ${detail}; make the folder writable`
            : `database ${file} is read-only for this process: ${detail}; make it writable, or open it read-only`,
        {
          reason: !existsSync(file) ? "cannot_create" : folder ? "read_only_folder" : "read_only",
          database: file,
          detail,
        },
      );
    }
  }
  const immutable = !memory && readonly && readsWalWithoutShm(file, driver);
  let db: SqliteDatabase;
  try {
    db = openWithDriver(driver, file, readonly, immutable);
  } catch (error) {
    throw new StorageOpenError(
      `cannot open database ${file} (${(error as { code?: string }).code ?? (error as Error).message}); choose a writable file path or :memory:`,
      { reason: "cannot_open", database: file, cause: error },
    );
  }
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
    if (!memory && !readonly) db.pragma("journal_mode = WAL");
    db.pragma("foreign_keys = ON");
    db.pragma("synchronous = NORMAL");
  } catch (error) {
    db.close();
    throw explainUnreadable(error, file);
  }
  return db;
}

/** Whether the file's header says WAL mode (bytes 18 and 19 are 2). */
function inWalMode(file: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    const header = Buffer.alloc(20);
    return readSync(fd, header, 0, 20, 0) === 20 && header[18] === 2 && header[19] === 2;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const sizeOf = (file: string) => (existsSync(file) ? statSync(file).size : undefined);

/**
 * Whether a read-only open must read a WAL database without its -shm file: the folder cannot be
 * written, so SQLite cannot create one. node:sqlite then opens it immutable (nothing can write
 * there; SQLite reads the file alone). Refused with what would work when the -wal file holds
 * changes the database file does not (immutable would not see them), or when the driver
 * (better-sqlite3, which takes no URI) cannot open it immutable.
 */
function readsWalWithoutShm(file: string, driver: SqliteDriver): boolean {
  if (!inWalMode(file)) return false;
  try {
    accessSync(dirname(file), constants.W_OK);
    return false;
  } catch {
    // The folder cannot be written: no -shm can be created.
  }
  const wal = sizeOf(`${file}-wal`);
  // Left by a writer that did not close: SQLite reads the two as they are.
  if (wal !== undefined && sizeOf(`${file}-shm`) !== undefined) return false;
  if (wal !== undefined && wal > 0) {
    throw new StorageOpenError(
      `database ${file} cannot be read here: its folder is not writable and it has a -wal file, which may hold changes the database file does not, and which SQLite cannot read without a -shm file there; open it once where the folder is writable (closing folds the -wal file in), then make the folder read-only`,
      { reason: "cannot_open", database: file },
    );
  }
  if (driver === "node") return true;
  throw new StorageOpenError(
    `database ${file} cannot be read here: it is in WAL mode and its folder is not writable, so SQLite cannot create its -shm file, and better-sqlite3 cannot open a file immutable; use the node:sqlite driver (Node 22.16 or later), make the folder writable, or switch the file to rollback journal mode before making it read-only (sqlite3 FILE "PRAGMA journal_mode=DELETE")`,
    { reason: "cannot_open", database: file },
  );
}

/** The driver to open `database` with; a StorageOpenError says what to install or which Node to use. */
export function chooseDriver(choice: SqliteDriverChoice | undefined, database: string): SqliteDriver {
  const picked = pickSqliteDriver(choice);
  if ("driver" in picked) return picked.driver;
  throw new StorageOpenError(`cannot open database ${database}: ${picked.problem}`, {
    reason: "driver_unavailable",
    database,
  });
}

/**
 * A read-only connection to a WAL database needs its -shm file, which SQLite cannot create in a
 * folder it cannot write (SQLITE_READONLY_DIRECTORY): says so, and what would work. Other errors
 * are returned as they are.
 */
export function explainUnreadable(error: unknown, file: string): unknown {
  if ((error as { code?: unknown } | null)?.code !== "SQLITE_READONLY_DIRECTORY") return error;
  return new StorageOpenError(
    `database ${file} cannot be read here: it is in WAL mode and its folder is not writable, so SQLite cannot create its -shm file; make the folder writable, or switch the file to rollback journal mode before making it read-only (sqlite3 FILE "PRAGMA journal_mode=DELETE")`,
    { reason: "cannot_open", database: file, cause: error },
  );
}
