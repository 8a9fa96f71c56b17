/**
 * SQLite's result code names (https://sqlite.org/rescode.html). node:sqlite reports an error's
 * extended result code as a number; better-sqlite3 reports the name, which is what the packs and
 * @toolshed/errors classify by, so node:sqlite errors are given the name too.
 */
const PRIMARY: Record<number, string> = {
  1: "ERROR",
  2: "INTERNAL",
  3: "PERM",
  4: "ABORT",
  5: "BUSY",
  6: "LOCKED",
  7: "NOMEM",
  8: "READONLY",
  9: "INTERRUPT",
  10: "IOERR",
  11: "CORRUPT",
  12: "NOTFOUND",
  13: "FULL",
  14: "CANTOPEN",
  15: "PROTOCOL",
  16: "EMPTY",
  17: "SCHEMA",
  18: "TOOBIG",
  19: "CONSTRAINT",
  20: "MISMATCH",
  21: "MISUSE",
  22: "NOLFS",
  23: "AUTH",
  24: "FORMAT",
  25: "RANGE",
  26: "NOTADB",
  27: "NOTICE",
  28: "WARNING",
};

// Extended codes are the primary code plus n << 8; each list is n = 1, 2, 3… (empty: unused n).
const EXTENDED: Record<number, readonly string[]> = {
  1: ["MISSING_COLLSEQ", "RETRY", "SNAPSHOT"],
  4: ["", "ROLLBACK"],
  5: ["RECOVERY", "SNAPSHOT", "TIMEOUT"],
  6: ["SHAREDCACHE", "VTAB"],
  8: ["RECOVERY", "CANTLOCK", "ROLLBACK", "DBMOVED", "CANTINIT", "DIRECTORY"],
  10: [
    "READ",
    "SHORT_READ",
    "WRITE",
    "FSYNC",
    "DIR_FSYNC",
    "TRUNCATE",
    "FSTAT",
    "UNLOCK",
    "RDLOCK",
    "DELETE",
    "BLOCKED",
    "NOMEM",
    "ACCESS",
    "CHECKRESERVEDLOCK",
    "LOCK",
    "CLOSE",
    "DIR_CLOSE",
    "SHMOPEN",
    "SHMSIZE",
    "SHMLOCK",
    "SHMMAP",
    "SEEK",
    "DELETE_NOENT",
    "MMAP",
    "GETTEMPPATH",
    "CONVPATH",
    "VNODE",
    "AUTH",
    "BEGIN_ATOMIC",
    "COMMIT_ATOMIC",
    "ROLLBACK_ATOMIC",
    "DATA",
    "CORRUPTFS",
    "IN_PAGE",
  ],
  11: ["VTAB", "SEQUENCE", "INDEX"],
  14: ["NOTEMPDIR", "ISDIR", "FULLPATH", "CONVPATH", "DIRTYWAL", "SYMLINK"],
  19: [
    "CHECK",
    "COMMITHOOK",
    "FOREIGNKEY",
    "FUNCTION",
    "NOTNULL",
    "PRIMARYKEY",
    "TRIGGER",
    "UNIQUE",
    "VTAB",
    "ROWID",
    "PINNED",
    "DATATYPE",
  ],
  23: ["USER"],
  27: ["RECOVER_WAL", "RECOVER_ROLLBACK", "RBU"],
  28: ["AUTOINDEX"],
};

/**
 * The name of an SQLite result code, as better-sqlite3 spells it: 2067 → "SQLITE_CONSTRAINT_UNIQUE".
 * An extended code this table does not know gets its primary code's name.
 */
export function sqliteCodeName(code: number): string {
  const primary = code & 0xff;
  const base = PRIMARY[primary];
  if (base === undefined) return `SQLITE_UNKNOWN_${code}`;
  const extended = EXTENDED[primary]?.[(code >> 8) - 1];
  return extended ? `SQLITE_${base}_${extended}` : `SQLITE_${base}`;
}
