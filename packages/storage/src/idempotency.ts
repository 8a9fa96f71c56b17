import { createHash } from "node:crypto";
import { ConflictError } from "@toolshed/errors";
import type { SqliteDatabase } from "./sqlite.js";

/** Stable fingerprint of a request's arguments (key order does not matter). */
export function fingerprint(value: unknown): string {
  return createHash("sha256").update(stableJson(value)).digest("hex");
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export const IDEMPOTENCY_TABLE_SQL = `CREATE TABLE IF NOT EXISTS toolshed_idempotency (
  scope TEXT NOT NULL,
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  result TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (scope, key)
)`;

/**
 * Runs a create at most once per idempotency key, in one IMMEDIATE transaction with the write
 * itself: the same key and arguments return the first result and write nothing; the same key
 * with other arguments is a conflict. Racing calls, in one process or several, serialize on the
 * database's write lock.
 */
export function runIdempotent<T>(
  db: SqliteDatabase,
  request: { scope: string; key: string | undefined; args: unknown },
  create: () => T,
): T {
  if (request.key === undefined) return db.transaction(create).immediate();
  const key = request.key;
  const print = fingerprint(request.args);
  return db
    .transaction(() => {
      const row = db
        .prepare("SELECT fingerprint, result FROM toolshed_idempotency WHERE scope = ? AND key = ?")
        .get(request.scope, key) as { fingerprint: string; result: string } | undefined;
      if (row) {
        if (row.fingerprint !== print) {
          throw new ConflictError(
            `idempotency_key '${key}' was already used with different arguments; use a new key for a new request, or repeat the original arguments`,
          );
        }
        return JSON.parse(row.result) as T;
      }
      const result = create();
      db.prepare(
        "INSERT INTO toolshed_idempotency (scope, key, fingerprint, result, created_at) VALUES (?, ?, ?, ?, ?)",
      ).run(request.scope, key, print, JSON.stringify(result ?? null), new Date().toISOString());
      return result;
    })
    .immediate();
}
