import { ConflictError } from "@toolshed/errors";
import { DEFAULT_IDEMPOTENCY_RETENTION_MS, fingerprint, IDEMPOTENCY_PRUNE_BATCH } from "../idempotency.js";
import type { PgClient } from "./pool.js";

export const PG_IDEMPOTENCY_TABLE_SQL = `CREATE TABLE IF NOT EXISTS toolshed_idempotency (
  scope TEXT NOT NULL,
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  result JSONB,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (scope, key)
)`;

/** Finds a scope's expired keys without reading the live ones. */
export const PG_IDEMPOTENCY_INDEX_SQL =
  "CREATE INDEX IF NOT EXISTS toolshed_idempotency_expiry ON toolshed_idempotency (scope, created_at)";

// The database's clock decides expiry, so instances with skewed clocks agree.
const EXPIRED = "created_at < now() - make_interval(secs => $2::double precision / 1000)";

/**
 * Runs a create at most once per idempotency key, inside the caller's transaction. The key row is
 * inserted first: a racing transaction on any instance waits on the primary key until the first
 * commits, then finds the row and returns the stored result (or a conflict for other arguments).
 * A key is remembered for the retention (default 24 hours; Infinity keeps it), then forgotten:
 * each write first removes up to 100 of its scope's expired keys, skipping rows another
 * transaction holds.
 */
export async function runIdempotentPg<T>(
  client: PgClient,
  request: { scope: string; key: string | undefined; args: unknown; retentionMs?: number },
  create: () => Promise<T>,
): Promise<T> {
  const retention = request.retentionMs ?? DEFAULT_IDEMPOTENCY_RETENTION_MS;
  const expires = Number.isFinite(retention);
  if (expires) {
    await client.query(
      `DELETE FROM toolshed_idempotency WHERE ctid IN (SELECT ctid FROM toolshed_idempotency
        WHERE scope = $1 AND ${EXPIRED} ORDER BY created_at LIMIT ${IDEMPOTENCY_PRUNE_BATCH} FOR UPDATE SKIP LOCKED)`,
      [request.scope, retention],
    );
  }
  if (request.key === undefined) return create();
  const print = fingerprint(request.args);
  // An expired row that pruning has not reached yet is taken over as if it were not there.
  const claimed = expires
    ? await client.query(
        `INSERT INTO toolshed_idempotency (scope, key, fingerprint) VALUES ($1, $3, $4)
          ON CONFLICT (scope, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, result = NULL, created_at = now()
          WHERE toolshed_idempotency.${EXPIRED} RETURNING key`,
        [request.scope, retention, request.key, print],
      )
    : await client.query(
        "INSERT INTO toolshed_idempotency (scope, key, fingerprint) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING key",
        [request.scope, request.key, print],
      );
  if (claimed.rowCount === 0) {
    const row = (
      await client.query("SELECT fingerprint, result FROM toolshed_idempotency WHERE scope = $1 AND key = $2", [
        request.scope,
        request.key,
      ])
    ).rows[0] as { fingerprint: string; result: T } | undefined;
    if (row && row.fingerprint !== print) {
      throw new ConflictError(
        `idempotency_key '${request.key}' was already used with different arguments; use a new key for a new request, or repeat the original arguments`,
      );
    }
    if (row) return row.result;
  }
  const result = await create();
  await client.query("UPDATE toolshed_idempotency SET result = $3 WHERE scope = $1 AND key = $2", [
    request.scope,
    request.key,
    JSON.stringify(result ?? null),
  ]);
  return result;
}
