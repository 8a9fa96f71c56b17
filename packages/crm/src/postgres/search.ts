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

// Ranking reads every match (its tsvector and its row): a word in 170,000 accounts took about a
// second. So, as the SQLite store does for common words, a query with more than a page of hits
// among the newest 4,000 accounts is answered newest first (pages continue by creation order),
// and a ranked query ranks at most RANKED_CAP matches. A table no bigger than the window is
// always ranked.
const NEWEST_WINDOW = 4000;
const RANKED_CAP = 1000;
// A ranked cursor's score is never negative; this one marks a newest-first page, whose cursor
// id is then the last account's seq.
const NEWEST_SCORE = -1;

const FILTERS = "a.arr >= $3 AND ($4::float8 IS NULL OR a.arr <= $4) AND ($5::text IS NULL OR a.tier = $5)";

// $1 every word (AND), $2 any word (OR), both already safe tsquery text. Weights come from the
// column: name A, domain B, notes C. $6/$7 are the cursor's score and id (null on page one).
const RANKED_PAGE = `
hits AS (
  SELECT m.*, ts_rank_cd(m.search, q.query)::float8 AS score
  FROM (SELECT a.* FROM crm_accounts a, q WHERE a.search @@ q.query AND ${FILTERS} LIMIT ${RANKED_CAP}) m, q
), page AS (
  SELECT * FROM hits
  WHERE $6::float8 IS NULL OR score < $6 OR (score = $6 AND id > $7::text)
  ORDER BY score DESC, id
  LIMIT $8
)`;

// Page one newest first: hits among the newest accounts only, none unless the table is bigger.
const NEWEST_FIRST_PAGE = `
page AS (
  SELECT a.*, ${NEWEST_SCORE}::float8 AS score
  FROM (SELECT * FROM crm_accounts ORDER BY seq DESC LIMIT ${NEWEST_WINDOW}) a, q
  WHERE a.search @@ q.query AND ${FILTERS}
    AND $6::float8 IS NULL AND $7::text IS NULL
    AND EXISTS (SELECT 1 FROM crm_accounts ORDER BY seq DESC OFFSET ${NEWEST_WINDOW} LIMIT 1)
  ORDER BY a.seq DESC
  LIMIT $8
)`;

// Later pages of a newest-first search: older than the cursor's seq ($7).
const NEWEST_NEXT_PAGE = `
page AS (
  SELECT a.*, ${NEWEST_SCORE}::float8 AS score
  FROM crm_accounts a, q
  WHERE a.search @@ q.query AND ${FILTERS} AND $6::float8 = ${NEWEST_SCORE} AND a.seq < $7::text::bigint
  ORDER BY a.seq DESC
  LIMIT $8
)`;

// The snippet is taken from the first column with a match (name, domain, notes), marking the
// original words whose folded form matches, so "cafe" marks "[Café]" as SQLite does.
function searchSql(page: string, order: string): string {
  return `
WITH q AS (
  SELECT to_tsquery('simple', crm_unaccent($1)) AS query, to_tsquery('simple', crm_unaccent($2)) AS anyterm
), ${page}
SELECT ${accountColumns("page")}, page.score, page.seq, doc.text AS source,
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
ORDER BY ${order}`;
}

const RANKED_SQL = searchSql(RANKED_PAGE, "page.score DESC, page.id");
const NEWEST_FIRST_SQL = searchSql(NEWEST_FIRST_PAGE, "page.seq DESC");
const NEWEST_NEXT_SQL = searchSql(NEWEST_NEXT_PAGE, "page.seq DESC");

type HitRow = AccountRow & { score: number; seq: string; source: string; headline: string | null };

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
  let after: string | null = null;
  if (search.cursor !== undefined) {
    const position = decodeCursor(search.cursor, { s: "number", i: "string", f: "string" });
    if (position.f !== filter) {
      throw new InvalidArgumentsError(
        "cursor belongs to another search; pass next_cursor only with the same query and filters, or omit it",
        [{ path: "cursor", message: "must be next_cursor from the previous page of this same search" }],
      );
    }
    afterScore = position.s as number;
    after = position.i as string;
    if (afterScore === NEWEST_SCORE && !/^[1-9][0-9]{0,17}$/.test(after)) {
      throw new InvalidArgumentsError(
        "cursor is not valid; pass next_cursor from the previous page unchanged, or omit it",
        [{ path: "cursor", message: "must be next_cursor from the previous page of this list" }],
      );
    }
  }
  const params = (score: number | null, id: string | null) => [
    match,
    match.replaceAll(" & ", " | "),
    search.minArr,
    search.maxArr ?? null,
    search.tier ?? null,
    score,
    id,
    limit + 1,
    HEADLINE_OPTIONS,
  ];
  let rows: HitRow[];
  if (afterScore === NEWEST_SCORE) {
    ({ rows } = await pool.query<HitRow>(NEWEST_NEXT_SQL, params(afterScore, after)));
  } else if (afterScore === null) {
    // More than a page among the newest accounts: the query is common, answered newest first.
    ({ rows } = await pool.query<HitRow>(NEWEST_FIRST_SQL, params(null, null)));
    if (rows.length <= limit) ({ rows } = await pool.query<HitRow>(RANKED_SQL, params(null, null)));
  } else {
    ({ rows } = await pool.query<HitRow>(RANKED_SQL, params(afterScore, after)));
  }
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const nextCursor =
    rows.length > limit && last
      ? encodeCursor({ s: last.score, i: last.score === NEWEST_SCORE ? String(last.seq) : last.id, f: filter })
      : null;
  return { hits: page.map((row) => ({ account: toAccount(row), snippet: snippetOf(row) })), nextCursor };
}
