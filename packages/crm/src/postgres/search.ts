import { InvalidArgumentsError } from "@toolshed/errors";
import { decodeCursor, encodeCursor, fingerprint } from "@toolshed/storage";
import { type PgPool, toPgTsQuery } from "@toolshed/storage/postgres";
import { clampLimit } from "../sqlite/rows.js";
import type { AccountSearch, AccountSearchPage } from "../store.js";
import { type AccountRow, accountColumns, toAccount } from "./rows.js";

// Control characters as match marks, so brackets already in the text are not mistaken for them.
const START = "\u0001";
const STOP = "\u0002";
const HEADLINE_OPTIONS = `StartSel=${START}, StopSel=${STOP}, MaxWords=12, MinWords=11, ShortWord=0`;

// $1 every word (AND), $2 any word (OR), both already safe tsquery text. Weights come from the
// column: name A, domain B, notes C. The snippet is taken from the first column with a match
// (name, domain, notes), marking the original words whose folded form matches, so "cafe" marks
// "[Café]" as SQLite does.
const SEARCH_SQL = `
WITH q AS (
  SELECT to_tsquery('simple', crm_unaccent($1)) AS query, to_tsquery('simple', crm_unaccent($2)) AS anyterm
), hits AS (
  SELECT a.*, ts_rank_cd(a.search, q.query)::float8 AS score
  FROM crm_accounts a, q
  WHERE a.search @@ q.query
    AND a.arr >= $3
    AND ($4::float8 IS NULL OR a.arr <= $4)
    AND ($5::text IS NULL OR a.tier = $5)
), page AS (
  SELECT * FROM hits
  WHERE $6::float8 IS NULL OR score < $6 OR (score = $6 AND id > $7::text)
  ORDER BY score DESC, id
  LIMIT $8
)
SELECT ${accountColumns("page")}, page.score, doc.text AS source,
  ts_headline('simple', doc.text, marks.query, $9) AS headline
FROM page
CROSS JOIN q
CROSS JOIN LATERAL (
  SELECT CASE
    WHEN to_tsvector('simple', crm_search_text(page.name)) @@ q.anyterm THEN page.name
    WHEN to_tsvector('simple', crm_search_text(page.domain)) @@ q.anyterm THEN page.domain
    ELSE coalesce(page.notes, page.name)
  END AS text
) doc
CROSS JOIN LATERAL (
  SELECT string_agg('''' || replace(replace(t.lexeme, '\\', '\\\\'), '''', '''''') || '''', ' | ')::tsquery AS query
  FROM unnest(to_tsvector('simple', doc.text)) t
  WHERE to_tsvector('simple', crm_search_text(t.lexeme)) @@ q.anyterm
) marks
ORDER BY page.score DESC, page.id`;

type HitRow = AccountRow & { score: number; source: string; headline: string | null };

/** The headline with its marks as [brackets], and "…" where the column's text was cut. */
function snippetOf(row: HitRow): string {
  const marked = row.headline ?? row.source;
  const plain = marked.replaceAll(START, "").replaceAll(STOP, "").trim();
  const source = row.source.trim();
  const head = source.startsWith(plain) ? "" : "…";
  const tail = source.endsWith(plain) ? "" : "…";
  return `${head}${marked.trim().replaceAll(START, "[").replaceAll(STOP, "]")}${tail}`;
}

/** Ranked full-text search; any text is safe because it only ever becomes quoted prefix terms. */
export async function searchAccounts(pool: PgPool, search: AccountSearch): Promise<AccountSearchPage> {
  const match = toPgTsQuery(search.text.replaceAll("\u0000", " "));
  if (match === undefined) return { hits: [], nextCursor: null };
  const limit = clampLimit(search.limit);
  // A cursor only continues the search it came from (same shape and message as the SQLite store).
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
  const { rows } = await pool.query<HitRow>(SEARCH_SQL, [
    match,
    match.replaceAll(" & ", " | "),
    search.minArr,
    search.maxArr ?? null,
    search.tier ?? null,
    afterScore,
    afterId,
    limit + 1,
    HEADLINE_OPTIONS,
  ]);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const nextCursor = rows.length > limit && last ? encodeCursor({ s: last.score, i: last.id, f: filter }) : null;
  return { hits: page.map((row) => ({ account: toAccount(row), snippet: snippetOf(row) })), nextCursor };
}
