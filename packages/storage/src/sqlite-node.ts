import { pathToFileURL } from "node:url";
import { sqliteCodeName } from "./sqlite-codes.js";
import type { SqliteDatabase, SqliteRunResult, SqliteStatement, SqliteTransaction } from "./sqlite-driver.js";

// The part of node:sqlite used here (@types/node for Node 20 does not describe it).
interface NodeStatement {
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  iterate(...params: unknown[]): Iterator<unknown>;
  setAllowUnknownNamedParameters?(enabled: boolean): void;
  setReturnArrays?(enabled: boolean): void;
}
interface NodeDatabase {
  prepare(sql: string): NodeStatement;
  exec(sql: string): void;
  close(): void;
  readonly isTransaction: boolean;
}
interface NodeSqliteModule {
  DatabaseSync: new (path: string, options: { readOnly: boolean }) => NodeDatabase;
}

/** node:sqlite's errors say `code: "ERR_SQLITE_ERROR"` and a numeric `errcode`; the stores read better-sqlite3's names. */
class SqliteError extends Error {
  readonly code: string;
  /** SQLite's extended result code. */
  readonly errcode: number;

  constructor(message: string, errcode: number) {
    super(message);
    this.name = "SqliteError";
    this.code = sqliteCodeName(errcode);
    this.errcode = errcode;
  }
}

function sqliteError(error: unknown): unknown {
  const e = error as { code?: unknown; errcode?: unknown; message?: unknown } | null;
  // Work on a closed connection (its statements are finalized with it): better-sqlite3's TypeError.
  if (
    e?.code === "ERR_INVALID_STATE" &&
    /^(database is not open|statement has been finalized)$/.test(String(e.message))
  ) {
    return new TypeError("The database connection is not open");
  }
  if (e?.code !== "ERR_SQLITE_ERROR" || typeof e.errcode !== "number") return error;
  return new SqliteError(String(e.message), e.errcode);
}

/**
 * Loads node:sqlite, or says why it cannot be used. It needs Node 22.16 or later (where a
 * connection reports whether it is in a transaction); Node 22.5–22.12 have it only behind a flag.
 * Its ExperimentalWarning is not printed: the driver is chosen for the user, not by them.
 */
export function openNodeSqlite(): ((file: string, readonly: boolean, immutable?: boolean) => SqliteDatabase) | string {
  const unavailable = `node:sqlite is not available in Node ${process.version} (it needs 22.16 or later)`;
  let sqlite: NodeSqliteModule | undefined;
  try {
    sqlite = withoutSqliteWarning(() => process.getBuiltinModule?.("node:sqlite") as NodeSqliteModule | undefined);
  } catch {
    return unavailable;
  }
  if (typeof sqlite?.DatabaseSync !== "function") return unavailable;
  const { DatabaseSync } = sqlite;
  try {
    const probe = new DatabaseSync(":memory:", { readOnly: false });
    const complete = typeof probe.isTransaction === "boolean";
    probe.close();
    if (!complete) return unavailable;
  } catch {
    return unavailable;
  }
  return (file, readonly, immutable = false) => {
    let db: NodeDatabase;
    try {
      // A file: URI with immutable=1: SQLite reads the file without locks and without a -shm file.
      const path = immutable ? `${pathToFileURL(file).href}?immutable=1` : file;
      db = new DatabaseSync(path, { readOnly: readonly });
    } catch (error) {
      throw sqliteError(error);
    }
    return new NodeSqliteDatabase(db, file, readonly);
  };
}

/** Runs `load` with only node:sqlite's own ExperimentalWarning held back; every other warning goes out. */
function withoutSqliteWarning<T>(load: () => T): T {
  const emit = process.emitWarning;
  process.emitWarning = function (this: unknown, warning: string | Error, ...rest: unknown[]) {
    const message = typeof warning === "string" ? warning : warning.message;
    const option = rest[0] as string | { type?: string } | undefined;
    const type = typeof option === "string" ? option : (option?.type ?? (warning as Error).name);
    if (type === "ExperimentalWarning" && message.startsWith("SQLite is an experimental feature")) return;
    return (emit as (...args: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    return load();
  } finally {
    process.emitWarning = emit;
  }
}

function isBindObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !ArrayBuffer.isView(value);
}

const UNBINDABLE = "SQLite3 can only bind numbers, strings, bigints, buffers, and null";

/**
 * better-sqlite3 binds undefined as NULL; node:sqlite refuses it. better-sqlite3 refuses booleans;
 * node:sqlite binds them as 1 and 0 from Node 24 on (a TypeError before): refused here on every Node.
 */
function bindable(params: unknown[]): unknown[] {
  let out = params;
  for (let i = 0; i < params.length; i++) {
    const value = params[i];
    if (value === undefined) {
      if (out === params) out = [...params];
      out[i] = null;
    } else if (typeof value === "boolean") {
      throw new TypeError(UNBINDABLE);
    } else if (i === 0 && isBindObject(value)) {
      const values = Object.values(value);
      if (values.some((v) => typeof v === "boolean")) throw new TypeError(UNBINDABLE);
      if (!values.includes(undefined)) continue;
      if (out === params) out = [...params];
      out[0] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, v === undefined ? null : v]));
    }
  }
  return out;
}

function value(v: unknown): unknown {
  return v instanceof Uint8Array && !Buffer.isBuffer(v) ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v;
}

/** A plain object, as better-sqlite3 returns (node:sqlite's rows have no prototype), BLOBs as Buffers. */
function plainRow(row: unknown): unknown {
  const out: Record<string, unknown> = {};
  for (const key in row as Record<string, unknown>) out[key] = value((row as Record<string, unknown>)[key]);
  return out;
}

class NodeSqliteStatement implements SqliteStatement {
  readonly #statement: NodeStatement;
  readonly #arrays: boolean;
  #pluck = false;

  constructor(statement: NodeStatement) {
    this.#statement = statement;
    // better-sqlite3 ignores object keys that name no parameter.
    statement.setAllowUnknownNamedParameters?.(true);
    this.#arrays = typeof statement.setReturnArrays === "function";
  }

  run(...params: unknown[]): SqliteRunResult {
    try {
      const { changes, lastInsertRowid } = this.#statement.run(...bindable(params));
      return { changes: Number(changes), lastInsertRowid };
    } catch (error) {
      throw sqliteError(error);
    }
  }

  get(...params: unknown[]): unknown {
    let row: unknown;
    try {
      row = this.#statement.get(...bindable(params));
    } catch (error) {
      throw sqliteError(error);
    }
    return row === undefined ? undefined : this.#row(row);
  }

  all(...params: unknown[]): unknown[] {
    let rows: unknown[];
    try {
      rows = this.#statement.all(...bindable(params));
    } catch (error) {
      throw sqliteError(error);
    }
    return rows.map((row) => this.#row(row));
  }

  *iterate(...params: unknown[]): IterableIterator<unknown> {
    let rows: Iterator<unknown>;
    try {
      rows = this.#statement.iterate(...bindable(params));
    } catch (error) {
      throw sqliteError(error);
    }
    try {
      for (;;) {
        let next: IteratorResult<unknown>;
        try {
          next = rows.next();
        } catch (error) {
          throw sqliteError(error);
        }
        if (next.done) return;
        yield this.#row(next.value);
      }
    } finally {
      rows.return?.();
    }
  }

  pluck(toggle = true): this {
    this.#pluck = toggle;
    if (this.#arrays) this.#statement.setReturnArrays?.(toggle);
    return this;
  }

  #row(row: unknown): unknown {
    if (!this.#pluck) return plainRow(row);
    if (this.#arrays) return value((row as unknown[])[0]);
    for (const key in row as Record<string, unknown>) return value((row as Record<string, unknown>)[key]);
    return undefined;
  }
}

const SAVEPOINT = "toolshed_tx";

class NodeSqliteDatabase implements SqliteDatabase {
  readonly name: string;
  readonly readonly: boolean;
  readonly #db: NodeDatabase;
  readonly #control = new Map<string, NodeStatement>();
  #open = true;

  constructor(db: NodeDatabase, name: string, readonly: boolean) {
    this.#db = db;
    this.name = name;
    this.readonly = readonly;
  }

  get open(): boolean {
    return this.#open;
  }

  get inTransaction(): boolean {
    return this.#open && this.#db.isTransaction;
  }

  prepare<Params extends unknown[] = unknown[]>(sql: string): SqliteStatement<Params> {
    try {
      return new NodeSqliteStatement(this.#db.prepare(sql)) as unknown as SqliteStatement<Params>;
    } catch (error) {
      throw sqliteError(error);
    }
  }

  exec(sql: string): this {
    try {
      this.#db.exec(sql);
    } catch (error) {
      throw sqliteError(error);
    }
    return this;
  }

  pragma(source: string, options: { simple?: boolean } = {}): unknown {
    const statement = this.prepare(`PRAGMA ${source}`);
    return options.simple ? statement.pluck().get() : statement.all();
  }

  transaction<F extends (...args: never[]) => unknown>(fn: F): SqliteTransaction<F> {
    if (typeof fn !== "function") throw new TypeError("Expected first argument to be a function");
    const db = this;
    const variant = (begin: string) =>
      function (this: unknown, ...args: Parameters<F>): ReturnType<F> {
        return db.#transact(begin, fn, this, args) as ReturnType<F>;
      };
    return Object.assign(variant("BEGIN"), {
      deferred: variant("BEGIN DEFERRED"),
      immediate: variant("BEGIN IMMEDIATE"),
      exclusive: variant("BEGIN EXCLUSIVE"),
    });
  }

  close(): this {
    if (this.#open) {
      this.#open = false;
      this.#control.clear();
      this.#db.close();
    }
    return this;
  }

  /** As better-sqlite3: a nested call is a savepoint; a throw rolls back what the call did, then rethrows. */
  #transact(begin: string, fn: (...args: never[]) => unknown, self: unknown, args: unknown[]): unknown {
    const nested = this.inTransaction;
    this.#run(nested ? `SAVEPOINT ${SAVEPOINT}` : begin);
    try {
      const result = fn.apply(self, args as never[]);
      if (typeof (result as { then?: unknown } | null)?.then === "function") {
        throw new TypeError("Transaction function cannot return a promise");
      }
      this.#run(nested ? `RELEASE ${SAVEPOINT}` : "COMMIT");
      return result;
    } catch (error) {
      // SQLite may have rolled back already (a failed COMMIT, SQLITE_FULL…).
      if (this.inTransaction) {
        if (nested) {
          this.#run(`ROLLBACK TO ${SAVEPOINT}`);
          this.#run(`RELEASE ${SAVEPOINT}`);
        } else {
          this.#run("ROLLBACK");
        }
      }
      throw error;
    }
  }

  #run(sql: string): void {
    let statement = this.#control.get(sql);
    try {
      if (statement === undefined) {
        statement = this.#db.prepare(sql);
        this.#control.set(sql, statement);
      }
      statement.run();
    } catch (error) {
      throw sqliteError(error);
    }
  }
}
