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

/** How long an idempotency key is remembered: 24 hours, then a retry with it is a new request. */
export const DEFAULT_IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

/** Expired keys removed per write at most, so pruning a backlog never makes one write slow. */
export const IDEMPOTENCY_PRUNE_BATCH = 100;

/** The retention a store was given, checked (undefined: the default). */
export function checkIdempotencyRetention(value: number | undefined): number {
  if (value === undefined) return DEFAULT_IDEMPOTENCY_RETENTION_MS;
  if (value === Number.POSITIVE_INFINITY || (Number.isInteger(value) && value >= 1)) return value;
  throw new RangeError(
    `idempotencyRetentionMs must be a whole number of milliseconds of 1 or more, or Infinity to keep keys forever (got ${value})`,
  );
}

export const IDEMPOTENCY_TABLE_SQL = `CREATE TABLE IF NOT EXISTS toolshed_idempotency (
  scope TEXT NOT NULL,
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  result TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (scope, key)
)`;

/** Finds a scope's expired keys without reading the live ones. */
export const IDEMPOTENCY_INDEX_SQL =
  "CREATE INDEX IF NOT EXISTS toolshed_idempotency_expiry ON toolshed_idempotency (scope, created_at)";

export interface IdempotentRequest {
  scope: string;
  key: string | undefined;
  args: unknown;
  /** How long keys of this scope are remembered (default 24 hours; Infinity keeps them). */
  retentionMs?: number;
  /** The time of this write (default: now); stores pass their clock. */
  now?: Date;
}

/**
 * Runs a create at most once per idempotency key, in one IMMEDIATE transaction with the write
 * itself: the same key and arguments return the first result and write nothing; the same key
 * with other arguments is a conflict. Racing calls, in one process or several, serialize on the
 * database's write lock. A key is remembered for the retention, then forgotten: each write first
 * removes up to 100 of its scope's expired keys.
 */
export function runIdempotent<T>(db: SqliteDatabase, request: IdempotentRequest, create: () => T): T {
  const now = request.now ?? new Date();
  const retention = request.retentionMs ?? DEFAULT_IDEMPOTENCY_RETENTION_MS;
  // ISO 8601 strings in UTC sort as the times they name.
  const cutoff = Number.isFinite(retention) ? new Date(now.getTime() - retention).toISOString() : undefined;
  const prune = () => {
    if (cutoff === undefined) return;
    db.prepare(
      `DELETE FROM toolshed_idempotency WHERE rowid IN (SELECT rowid FROM toolshed_idempotency
        WHERE scope = ? AND created_at < ? ORDER BY created_at LIMIT ${IDEMPOTENCY_PRUNE_BATCH})`,
    ).run(request.scope, cutoff);
  };
  if (request.key === undefined) {
    return db
      .transaction(() => {
        prune();
        return create();
      })
      .immediate();
  }
  const key = request.key;
  const print = fingerprint(request.args);
  return db
    .transaction(() => {
      prune();
      const row = db
        .prepare("SELECT fingerprint, result, created_at FROM toolshed_idempotency WHERE scope = ? AND key = ?")
        .get(request.scope, key) as { fingerprint: string; result: string; created_at: string } | undefined;
      // A row past the retention that pruning has not reached yet is forgotten all the same.
      if (row && (cutoff === undefined || row.created_at >= cutoff)) {
        if (row.fingerprint !== print) {
          throw new ConflictError(
            `idempotency_key '${key}' was already used with different arguments; use a new key for a new request, or repeat the original arguments`,
          );
        }
        return JSON.parse(row.result) as T;
      }
      const result = create();
      db.prepare(
        "INSERT OR REPLACE INTO toolshed_idempotency (scope, key, fingerprint, result, created_at) VALUES (?, ?, ?, ?, ?)",
      ).run(request.scope, key, print, JSON.stringify(result ?? null), now.toISOString());
      return result;
    })
    .immediate();
}
