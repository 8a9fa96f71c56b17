import { type SqliteDatabase, toFtsQuery } from "@toolshed/storage";
import { accountNameKey } from "../names.js";
import type { AccountRef } from "../store.js";
import { prefixEnd } from "./rows.js";
import { prepare } from "./statements.js";

const SIDE = 25;
const SAME_PREFIX = 50;

type KeyedRef = AccountRef & { k: string };

function sharedPrefixLength(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

/**
 * Rows near `value` in the index of `column`: a few on each side, and the first of those that
 * share the longest prefix any row shares with it (where "acc_1O05" finds "acc_1005").
 */
function neighbours(db: SqliteDatabase, column: "id" | "name_key", value: string): AccountRef[] {
  const select = `SELECT id, name, ${column} AS k FROM crm_accounts`;
  const below = prepare(db, `${select} WHERE ${column} < ? ORDER BY ${column} DESC LIMIT ${SIDE}`).all(
    value,
  ) as KeyedRef[];
  const above = prepare(db, `${select} WHERE ${column} >= ? ORDER BY ${column} LIMIT ${SIDE}`).all(value) as KeyedRef[];
  const shared = Math.max(
    below[0] ? sharedPrefixLength(value, below[0].k) : 0,
    above[0] ? sharedPrefixLength(value, above[0].k) : 0,
  );
  const prefix = value.slice(0, shared);
  const samePrefix =
    prefix === ""
      ? []
      : (prepare(db, `${select} WHERE ${column} >= ? AND ${column} < ? ORDER BY ${column} LIMIT ${SAME_PREFIX}`).all(
          prefix,
          prefixEnd(prefix),
        ) as KeyedRef[]);
  return [...below, ...above, ...samePrefix];
}

/** A bounded candidate set for "closest match" hints: index neighbours by id and name, and word matches. */
export function findCandidates(db: SqliteDatabase, text: string, limit: number): AccountRef[] {
  const found = new Map<string, AccountRef>();
  const add = (rows: readonly AccountRef[]) => {
    for (const { id, name } of rows) if (found.size < limit && !found.has(id)) found.set(id, { id, name });
  };
  add(neighbours(db, "id", text));
  add(neighbours(db, "name_key", accountNameKey(text)));
  const match = toFtsQuery(text);
  if (match !== undefined) {
    add(
      prepare(
        db,
        `SELECT a.id, a.name FROM crm_accounts_fts f JOIN crm_accounts a ON a.seq = f.rowid
           WHERE crm_accounts_fts MATCH ? ORDER BY f.rank LIMIT ${SIDE}`,
      ).all(match) as AccountRef[],
    );
  }
  return [...found.values()];
}

/** Ids starting with `prefix`, then ids of accounts whose name starts with it. */
export function completeAccountIds(db: SqliteDatabase, prefix: string, limit: number): string[] {
  const ids = prepare(db, "SELECT id FROM crm_accounts WHERE id >= ? AND id < ? ORDER BY id LIMIT ?")
    .pluck()
    .all(prefix, prefixEnd(prefix), limit) as string[];
  if (ids.length >= limit) return ids;
  const key = accountNameKey(prefix);
  const byName = prepare(
    db,
    "SELECT id FROM crm_accounts WHERE name_key >= ? AND name_key < ? ORDER BY name_key LIMIT ?",
  )
    .pluck()
    .all(key, prefixEnd(key), limit) as string[];
  return [...new Set([...ids, ...byName])].slice(0, limit);
}
