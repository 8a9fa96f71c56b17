import { closeSync, existsSync, fstatSync, openSync, readSync, statSync } from "node:fs";
import { openSqlite, type SqliteDatabase } from "./sqlite.js";
import type { SqliteDriverChoice } from "./sqlite-driver.js";

/** The highest version of every scope in an open database's toolshed_migrations (none: empty map). */
export function schemaVersions(db: SqliteDatabase): Map<string, number> {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'toolshed_migrations'").get();
  if (!table) return new Map();
  const rows = db.prepare("SELECT scope, MAX(version) AS v FROM toolshed_migrations GROUP BY scope").all() as Array<{
    scope: string;
    v: number;
  }>;
  return new Map(rows.map((r) => [r.scope, Number(r.v)]));
}

/**
 * The schema versions in a database file, read without writing anything and without creating
 * files: a read-only SQLite connection to a WAL database leaves `-wal` and `-shm` files behind,
 * so a closed file is read directly (the SQLite file format: two table b-trees). A file with
 * changes still in its `-wal`, or a hot journal, is read through SQLite. Undefined when the file
 * does not exist.
 */
export function readSqliteSchemaVersions(
  file: string,
  options: { driver?: SqliteDriverChoice } = {},
): Map<string, number> | undefined {
  // Not there, or not a file (a folder): nothing to check; opening it says what is wrong.
  if (!existsSync(file) || !statSync(file).isFile()) return undefined;
  if (sizeOf(`${file}-wal`) > 0 || existsSync(`${file}-journal`)) return readWithSqlite(file, options.driver);
  try {
    return readClosedFile(file);
  } catch (error) {
    if (!(error instanceof Unreadable)) throw error;
    // Not a format this reader knows (or not a database): SQLite says what it is.
    return readWithSqlite(file, options.driver);
  }
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

function readWithSqlite(file: string, driver: SqliteDriverChoice | undefined): Map<string, number> {
  // Through openSqlite: a WAL file in a read-only folder is opened immutable, or refused saying why.
  const db = openSqlite(file, { readonly: true, driver });
  try {
    return schemaVersions(db);
  } finally {
    db.close();
  }
}

/** The file is not in a shape this reader knows; SQLite reads it instead. */
class Unreadable extends Error {}

const HEADER = "SQLite format 3\u0000";
const TABLE_INTERIOR = 0x05;
const TABLE_LEAF = 0x0d;
// toolshed_migrations as every release creates it: scope first, version second, with rowids.
const MIGRATIONS_SQL = /^CREATE TABLE\s+"?toolshed_migrations"?\s*\(\s*scope\s+TEXT\b[^,]*,\s*version\s+INTEGER\b/i;

function readClosedFile(file: string): Map<string, number> {
  const fd = openSync(file, "r");
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return new Map();
    const reader = new PageReader(fd, size);
    let root: number | undefined;
    for (const [type, name, , rootpage, sql] of reader.tableRows(1)) {
      if (type !== "table" || name !== "toolshed_migrations") continue;
      if (typeof rootpage !== "number" || typeof sql !== "string") throw new Unreadable();
      if (!MIGRATIONS_SQL.test(sql) || /WITHOUT\s+ROWID/i.test(sql)) throw new Unreadable();
      root = rootpage;
    }
    const versions = new Map<string, number>();
    if (root === undefined) return versions;
    for (const [scope, version] of reader.tableRows(root)) {
      if (typeof scope !== "string" || typeof version !== "number") throw new Unreadable();
      versions.set(scope, Math.max(version, versions.get(scope) ?? 0));
    }
    return versions;
  } finally {
    closeSync(fd);
  }
}

/** Reads table b-trees of a closed SQLite file (https://sqlite.org/fileformat2.html). */
class PageReader {
  readonly #fd: number;
  readonly #pageSize: number;
  readonly #pages: number;
  readonly #usable: number;
  readonly #encoding: number;

  constructor(fd: number, size: number) {
    this.#fd = fd;
    const header = this.#read(0, 100);
    if (header.toString("latin1", 0, 16) !== HEADER) throw new Unreadable();
    const raw = header.readUInt16BE(16);
    this.#pageSize = raw === 1 ? 65536 : raw;
    if (this.#pageSize < 512 || (this.#pageSize & (this.#pageSize - 1)) !== 0) throw new Unreadable();
    this.#usable = this.#pageSize - (header[20] ?? 0);
    this.#encoding = header.readUInt32BE(56);
    if (this.#encoding > 3 || this.#usable < 480) throw new Unreadable();
    this.#pages = Math.floor(size / this.#pageSize);
  }

  /** Every row of the table whose b-tree starts at `root`, in no particular order. */
  *tableRows(root: number): Generator<unknown[]> {
    const pending = [root];
    const seen = new Set<number>();
    while (pending.length > 0) {
      const number = pending.pop() as number;
      if (seen.has(number)) throw new Unreadable();
      seen.add(number);
      const page = this.#page(number);
      const at = number === 1 ? 100 : 0;
      const cells = page.readUInt16BE(at + 3);
      if (page[at] === TABLE_INTERIOR) {
        for (let i = 0; i < cells; i++) pending.push(page.readUInt32BE(this.#cell(page, at + 12, i)));
        pending.push(page.readUInt32BE(at + 8));
      } else if (page[at] === TABLE_LEAF) {
        for (let i = 0; i < cells; i++) yield this.#record(this.#payload(page, this.#cell(page, at + 8, i)));
      } else {
        throw new Unreadable();
      }
    }
  }

  #cell(page: Buffer, pointers: number, index: number): number {
    const offset = page.readUInt16BE(pointers + 2 * index);
    if (offset < pointers || offset >= page.length) throw new Unreadable();
    return offset;
  }

  /** A leaf cell's payload, with the part that spilled onto overflow pages. */
  #payload(page: Buffer, offset: number): Buffer {
    const [total, afterSize] = varint(page, offset);
    const [, start] = varint(page, afterSize); // the rowid
    const maxLocal = this.#usable - 35;
    let local = total;
    if (total > maxLocal) {
      const minLocal = Math.floor(((this.#usable - 12) * 32) / 255) - 23;
      const k = minLocal + ((total - minLocal) % (this.#usable - 4));
      local = k <= maxLocal ? k : minLocal;
    }
    if (start + local + (local < total ? 4 : 0) > page.length) throw new Unreadable();
    const parts = [page.subarray(start, start + local)];
    let remaining = total - local;
    let next = remaining > 0 ? page.readUInt32BE(start + local) : 0;
    for (let hops = 0; remaining > 0; hops++) {
      if (next === 0 || hops > this.#pages) throw new Unreadable();
      const overflow = this.#page(next);
      const take = Math.min(remaining, this.#usable - 4);
      parts.push(overflow.subarray(4, 4 + take));
      remaining -= take;
      next = overflow.readUInt32BE(0);
    }
    return Buffer.concat(parts);
  }

  #record(payload: Buffer): unknown[] {
    const [headerSize, first] = varint(payload, 0);
    const types: number[] = [];
    for (let at = first; at < headerSize; ) {
      const [type, next] = varint(payload, at);
      types.push(type);
      at = next;
    }
    const values: unknown[] = [];
    let at = headerSize;
    for (const type of types) {
      if (type === 0) values.push(null);
      else if (type >= 1 && type <= 6) {
        const length = [0, 1, 2, 3, 4, 6, 8][type] as number;
        if (at + length > payload.length) throw new Unreadable();
        values.push(length === 8 ? Number(payload.readBigInt64BE(at)) : payload.readIntBE(at, length));
        at += length;
      } else if (type === 7) {
        if (at + 8 > payload.length) throw new Unreadable();
        values.push(payload.readDoubleBE(at));
        at += 8;
      } else if (type === 8 || type === 9) values.push(type - 8);
      else if (type >= 12) {
        const length = Math.floor((type - 12) / 2);
        if (at + length > payload.length) throw new Unreadable();
        const bytes = payload.subarray(at, at + length);
        values.push(type % 2 === 0 ? bytes : this.#text(bytes));
        at += length;
      } else {
        throw new Unreadable();
      }
    }
    return values;
  }

  #text(bytes: Buffer): string {
    if (this.#encoding !== 1 && bytes.length % 2 !== 0) throw new Unreadable();
    if (this.#encoding === 2) return bytes.toString("utf16le");
    if (this.#encoding === 3) return Buffer.from(bytes).swap16().toString("utf16le");
    return bytes.toString("utf8");
  }

  #page(number: number): Buffer {
    if (!Number.isInteger(number) || number < 1 || number > this.#pages) throw new Unreadable();
    return this.#read((number - 1) * this.#pageSize, this.#pageSize);
  }

  #read(position: number, length: number): Buffer {
    const buffer = Buffer.alloc(length);
    if (readSync(this.#fd, buffer, 0, length, position) !== length) throw new Unreadable();
    return buffer;
  }
}

/** SQLite's variable-length integer: 1 to 9 bytes, big-endian. */
function varint(buffer: Buffer, at: number): [number, number] {
  let value = 0;
  for (let i = 0; i < 8; i++) {
    const byte = buffer[at + i];
    if (byte === undefined) throw new Unreadable();
    value = value * 128 + (byte & 0x7f);
    if (byte < 0x80) return [value, at + i + 1];
  }
  const last = buffer[at + 8];
  if (last === undefined) throw new Unreadable();
  return [value * 256 + last, at + 9];
}
