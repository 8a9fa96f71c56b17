import { ConflictError } from "@toolshed/errors";
import { fingerprint } from "../idempotency.js";
import type { PgClient } from "./pool.js";

export const PG_IDEMPOTENCY_TABLE_SQL = `CREATE TABLE IF NOT EXISTS toolshed_idempotency (
  scope TEXT NOT NULL,
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  result JSONB,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (scope, key)
)`;

/**
 * Runs a create at most once per idempotency key, inside the caller's transaction. The key row is
 * inserted first: a racing transaction on any instance waits on the primary key until the first
 * commits, then finds the row and returns the stored result (or a conflict for other arguments).
 */
export async function runIdempotentPg<T>(
  client: PgClient,
  request: { scope: string; key: string | undefined; args: unknown },
  create: () => Promise<T>,
): Promise<T> {
  if (request.key === undefined) return create();
  const print = fingerprint(request.args);
  const claimed = await client.query(
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
