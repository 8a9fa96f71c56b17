import { InvalidArgumentsError } from "@toolshed/errors";
import { decodeCursor, encodeCursor, fingerprint, type SqliteDatabase, toFtsQuery } from "@toolshed/storage";
import type { AccountSearch, AccountSearchPage } from "../backend.js";
import { type AccountRow, accountColumns, clampLimit, toAccount } from "./rows.js";

// MATERIALIZED keeps bm25() and snippet() in the query over the FTS table, where they are allowed.
// Weights: a word in the name counts most, then the domain, then the notes.
const SEARCH_SQL = `
WITH hits AS MATERIALIZED (
  SELECT rowid AS seq,
    bm25(crm_accounts_fts, 10.0, 4.0, 1.0) AS score,
    snippet(crm_accounts_fts, -1, '[', ']', '…', 12) AS snippet
  FROM crm_accounts_fts WHERE crm_accounts_fts MATCH @match
)
SELECT ${accountColumns("a")}, hits.score AS score, hits.snippet AS snippet
FROM hits JOIN crm_accounts a ON a.seq = hits.seq
WHERE a.arr >= @minArr
  AND (@maxArr IS NULL OR a.arr <= @maxArr)
  AND (@tier IS NULL OR a.tier = @tier)
  AND (@afterScore IS NULL OR hits.score > @afterScore OR (hits.score = @afterScore AND a.id > @afterId))
ORDER BY hits.score, a.id
LIMIT @limit`;

type HitRow = AccountRow & { score: number; snippet: string };

/** Ranked full-text search; any text is safe because it only ever becomes quoted FTS terms. */
export function searchAccounts(db: SqliteDatabase, search: AccountSearch): AccountSearchPage {
  const match = toFtsQuery(search.text);
  if (match === undefined) return { hits: [], nextCursor: null };
  const limit = clampLimit(search.limit);
  // A cursor only continues the search it came from.
  const filter = fingerprint({
    match,
    tier: search.tier ?? null,
    minArr: search.minArr,
    maxArr: search.maxArr ?? null,
  }).slice(0, 16);
  let afterScore: number | null = null;
  let afterId: string | null = null;
  if (search.cursor !== undefined) {
    const position = decodeCursor(search.cursor, { s: "number", i: "string", f: "string" });
    if (position.f !== filter) {
      throw new InvalidArgumentsError(
        "cursor belongs to another search; pass next_cursor only with the same query and filters, or omit it",
        [{ path: "cursor", message: "must be next_cursor from the previous page of this same search" }],
      );
    }
    afterScore = position.s as number;
    afterId = position.i as string;
  }
  const rows = db.prepare(SEARCH_SQL).all({
    match,
    minArr: search.minArr,
    maxArr: search.maxArr ?? null,
    tier: search.tier ?? null,
    afterScore,
    afterId,
    limit: limit + 1,
  }) as HitRow[];
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const nextCursor = rows.length > limit && last ? encodeCursor({ s: last.score, i: last.id, f: filter }) : null;
  return { hits: page.map((row) => ({ account: toAccount(row), snippet: row.snippet })), nextCursor };
}
