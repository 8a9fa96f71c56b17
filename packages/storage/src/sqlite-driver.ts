import { createRequire } from "node:module";
import { openNodeSqlite } from "./sqlite-node.js";

/** What a statement's run() reports: rows changed, and the rowid of the last row inserted. */
export interface SqliteRunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

/**
 * A prepared statement. Parameters bind as in better-sqlite3: `?` in order, or one object for
 * `@name`/`:name`/`$name` (keys without the prefix); numbers bind as REAL, BigInt as INTEGER,
 * undefined as NULL. Rows are plain objects keyed by column name; BLOBs are Buffers.
 */
export interface SqliteStatement<Params extends unknown[] = unknown[]> {
  run(...params: Params): SqliteRunResult;
  /** The first row, or undefined when there is none. */
  get(...params: Params): unknown;
  all(...params: Params): unknown[];
  iterate(...params: Params): IterableIterator<unknown>;
  /** From now on get/all/iterate return each row's first column only (false turns that off). */
  pluck(toggle?: boolean): this;
}

/** A function run in a transaction: BEGIN…COMMIT, or a SAVEPOINT when already in one; any throw rolls back. */
export interface SqliteTransaction<F extends (...args: never[]) => unknown> {
  (...args: Parameters<F>): ReturnType<F>;
  deferred(...args: Parameters<F>): ReturnType<F>;
  /** BEGIN IMMEDIATE: takes the write lock first, so writers wait for each other (busy timeout) instead of failing. */
  immediate(...args: Parameters<F>): ReturnType<F>;
  exclusive(...args: Parameters<F>): ReturnType<F>;
}

/**
 * An SQLite connection, the same whichever driver opened it (node:sqlite or better-sqlite3): the
 * part of better-sqlite3's Database the stores use. Errors carry better-sqlite3's string `code`
 * (`SQLITE_BUSY`, `SQLITE_CONSTRAINT_UNIQUE`, `SQLITE_READONLY`…).
 */
export interface SqliteDatabase {
  /** The file as opened (absolute), or `:memory:`. */
  readonly name: string;
  readonly open: boolean;
  readonly readonly: boolean;
  readonly inTransaction: boolean;
  prepare<Params extends unknown[] = unknown[]>(sql: string): SqliteStatement<Params>;
  /** Runs one or more statements without results. */
  exec(sql: string): this;
  /** `PRAGMA source`: its rows, or with `simple` the first column of the first row. */
  pragma(source: string, options?: { simple?: boolean }): unknown;
  transaction<F extends (...args: never[]) => unknown>(fn: F): SqliteTransaction<F>;
  /** Closes the connection; closing a closed one does nothing. */
  close(): this;
}

/** The SQLite drivers: Node's built-in `node:sqlite` (Node 22.16 or later), or the better-sqlite3 addon. */
export type SqliteDriver = "node" | "better-sqlite3";
/** A driver, or `auto`: node:sqlite where Node has it, else better-sqlite3. */
export type SqliteDriverChoice = SqliteDriver | "auto";
export const SQLITE_DRIVERS: readonly SqliteDriver[] = ["node", "better-sqlite3"];

/** The pinned better-sqlite3 release, named in install hints. */
const BETTER_SQLITE3 = "better-sqlite3@12.11.1";

type Opener = (file: string, readonly: boolean, immutable?: boolean) => SqliteDatabase;
type Loaded = { open: Opener } | { problem: string };

const loaded = new Map<SqliteDriver, Loaded>();
const drivers = new WeakMap<object, SqliteDriver>();

function load(driver: SqliteDriver): Loaded {
  let found = loaded.get(driver);
  if (found === undefined) {
    found = driver === "node" ? loadNode() : loadBetterSqlite3();
    loaded.set(driver, found);
  }
  return found;
}

function loadNode(): Loaded {
  const opener = openNodeSqlite();
  if (typeof opener === "function") return { open: opener };
  return { problem: opener };
}

function loadBetterSqlite3(): Loaded {
  type Constructor = new (file: string, options: { readonly: boolean; fileMustExist: boolean }) => SqliteDatabase;
  let Database: Constructor;
  try {
    // Loaded only when chosen: it is an optional dependency, and a native addon built for one Node.
    Database = createRequire(import.meta.url)("better-sqlite3") as Constructor;
    // The addon itself loads on the first open: one in memory says whether it fits this Node.
    new Database(":memory:", { readonly: false, fileMustExist: false }).close();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const firstLine = String((error as Error).message).split("\n")[0];
    return {
      problem:
        code === "MODULE_NOT_FOUND" || code === "ERR_MODULE_NOT_FOUND"
          ? "better-sqlite3 is not installed"
          : `better-sqlite3 cannot be loaded in Node ${process.version} (${code ?? firstLine}); reinstall it for this Node`,
    };
  }
  // better-sqlite3's Database is the interface already: no wrapper, no cost.
  return { open: (file, readonly) => new Database(file, { readonly, fileMustExist: readonly }) };
}

/** The driver `auto` picks in this process (undefined when neither can be loaded). */
export function defaultSqliteDriver(): SqliteDriver | undefined {
  return SQLITE_DRIVERS.find((driver) => "open" in load(driver));
}

/** The driver a connection was opened with (undefined for a connection opened elsewhere). */
export function sqliteDriver(db: SqliteDatabase): SqliteDriver | undefined {
  return drivers.get(db);
}

/** A driver that can open databases here, or a message saying what to install or which Node to use. */
export function pickSqliteDriver(choice: SqliteDriverChoice = "auto"): { driver: SqliteDriver } | { problem: string } {
  if (choice !== "auto") {
    if (!SQLITE_DRIVERS.includes(choice)) {
      return { problem: `unknown SQLite driver '${String(choice)}'; choose one of auto, ${SQLITE_DRIVERS.join(", ")}` };
    }
    const found = load(choice);
    if ("open" in found) return { driver: choice };
    return {
      problem:
        choice === "node"
          ? `the SQLite driver node:sqlite cannot be used: ${found.problem}; run on Node 22.16 or later, or choose the better-sqlite3 driver`
          : `the SQLite driver better-sqlite3 cannot be used: ${found.problem}; install it (npm install ${BETTER_SQLITE3}), or choose the node driver on Node 22.16 or later`,
    };
  }
  const driver = defaultSqliteDriver();
  if (driver !== undefined) return { driver };
  const why = SQLITE_DRIVERS.map((d) => (load(d) as { problem: string }).problem).join("; ");
  return {
    problem: `no SQLite driver can be used (${why}); run on Node 22.16 or later, or install better-sqlite3 (npm install ${BETTER_SQLITE3})`,
  };
}

/**
 * Opens a connection with a driver pickSqliteDriver returned; no pragmas are set. `immutable`
 * (node:sqlite only, read-only) tells SQLite the file cannot change: no locks, no -shm file.
 */
export function openWithDriver(
  driver: SqliteDriver,
  file: string,
  readonly: boolean,
  immutable = false,
): SqliteDatabase {
  const found = load(driver);
  if (!("open" in found)) throw new Error(found.problem);
  if (immutable && (driver !== "node" || !readonly)) {
    throw new Error("only node:sqlite opens a database immutable, and only read-only");
  }
  const db = found.open(file, readonly, immutable);
  drivers.set(db, driver);
  return db;
}
