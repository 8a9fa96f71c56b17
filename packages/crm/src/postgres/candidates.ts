import { type PgPool, toPgTsQuery } from "@toolshed/storage/postgres";
import { accountNameKey } from "../names.js";
import { prefixEnd } from "../sqlite/rows.js";
import type { AccountRef } from "../store.js";
import { withoutNul } from "./rows.js";

const SIDE = 25;
const SAME_PREFIX = 50;

type KeyedRef = AccountRef & { k: string };

function sharedPrefixLength(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

/**
 * Rows near `value` in the index of `column` ("C" collation, so bytewise as in SQLite): a few on
 * each side, and the first of those that share the longest prefix any row shares with it.
 */
async function neighbours(pool: PgPool, column: "id" | "name_key", value: string): Promise<AccountRef[]> {
  const select = `SELECT id, name, ${column} AS k FROM crm_accounts`;
  const [below, above] = await Promise.all([
    pool.query<KeyedRef>(`${select} WHERE ${column} < $1 ORDER BY ${column} DESC LIMIT ${SIDE}`, [value]),
    pool.query<KeyedRef>(`${select} WHERE ${column} >= $1 ORDER BY ${column} LIMIT ${SIDE}`, [value]),
  ]);
  const first = [below.rows[0], above.rows[0]];
  const shared = Math.max(...first.map((row) => (row ? sharedPrefixLength(value, row.k) : 0)));
  const prefix = value.slice(0, shared);
  const samePrefix =
    prefix === ""
      ? []
      : (
          await pool.query<KeyedRef>(
            `${select} WHERE ${column} >= $1 AND ${column} < $2 ORDER BY ${column} LIMIT ${SAME_PREFIX}`,
            [prefix, prefixEnd(prefix)],
          )
        ).rows;
  return [...below.rows, ...above.rows, ...samePrefix];
}

/** A bounded candidate set for "closest match" hints: index neighbours by id and name, and word matches. */
export async function findCandidates(pool: PgPool, raw: string, limit: number): Promise<AccountRef[]> {
  const text = withoutNul(raw);
  const found = new Map<string, AccountRef>();
  const add = (rows: readonly AccountRef[]) => {
    for (const { id, name } of rows) if (found.size < limit && !found.has(id)) found.set(id, { id, name });
  };
  add(await neighbours(pool, "id", text));
  add(await neighbours(pool, "name_key", accountNameKey(text)));
  const match = toPgTsQuery(text);
  if (match !== undefined) {
    const { rows } = await pool.query<AccountRef>(
      `SELECT id, name FROM crm_accounts, to_tsquery('simple', crm_unaccent($1)) AS q
       WHERE search @@ q ORDER BY ts_rank_cd(search, q) DESC, id LIMIT ${SIDE}`,
      [match],
    );
    add(rows);
  }
  return [...found.values()];
}

/** Ids starting with `prefix`, then ids of accounts whose name starts with it. */
export async function completeAccountIds(pool: PgPool, raw: string, limit: number): Promise<string[]> {
  const prefix = withoutNul(raw);
  const ids = (
    await pool.query<{ id: string }>("SELECT id FROM crm_accounts WHERE id >= $1 AND id < $2 ORDER BY id LIMIT $3", [
      prefix,
      prefixEnd(prefix),
      limit,
    ])
  ).rows.map((r) => r.id);
  if (ids.length >= limit) return ids;
  const key = accountNameKey(prefix);
  const byName = (
    await pool.query<{ id: string }>(
      "SELECT id FROM crm_accounts WHERE name_key >= $1 AND name_key < $2 ORDER BY name_key LIMIT $3",
      [key, prefixEnd(key), limit],
    )
  ).rows.map((r) => r.id);
  return [...new Set([...ids, ...byName])].slice(0, limit);
}
