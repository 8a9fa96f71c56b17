import { InvalidArgumentsError } from "@toolshed/errors";
import { decodeCursor, encodeCursor, fingerprint } from "@toolshed/storage";
import { type PgCommonWords, type PgPool, pgSearchWords } from "@toolshed/storage/postgres";
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
// and a ranked query ranks at most RANKED_CAP matches per phase: accounts with every word whole,
// then (to fill the page) with them as word starts, common words kept whole (see PgCommonWords);
// a cursor says which phase it goes on in. A table no bigger than the window is always ranked.
const NEWEST_WINDOW = 4000;
const RANKED_CAP = 1000;
// A ranked cursor's score is never negative; this one marks a newest-first page, whose cursor
// id is then the last account's seq. A ranked cursor in phase 2 has p: 2.
const NEWEST_SCORE = -1;

const FILTERS = "a.arr >= $3 AND ($4::float8 IS NULL OR a.arr <= $4) AND ($5::text IS NULL OR a.tier = $5)";

// $1 every word (AND), $2 any word as a prefix (OR, for the marks), both already safe tsquery text.
// Weights come from the column: name A, domain B, notes C. $6/$7 are the cursor's score and id
// (null on page one); a ranked page leaves out accounts matching $10 (phase 1's query), or none.
const RANKED_PAGE = `
hits AS (
  SELECT m.*, ts_rank_cd(m.search, q.query)::float8 AS score
  FROM (
    SELECT a.* FROM crm_accounts a, q
    WHERE a.search @@ q.query AND ${FILTERS}
      AND ($10::text IS NULL OR NOT a.search @@ to_tsquery('simple', crm_unaccent($10)))
    LIMIT ${RANKED_CAP}
  ) m, q
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
type Phase = 1 | 2;
/** A row and the phase that found it (its cursor says which phase to go on in). */
interface Hit {
  row: HitRow;
  phase: Phase;
}

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
export async function searchAccounts(
  pool: PgPool,
  search: AccountSearch,
  commonWords?: PgCommonWords,
): Promise<AccountSearchPage> {
  const words = pgSearchWords(search.text.replaceAll("\u0000", " "));
  if (words.length === 0) return { hits: [], nextCursor: null };
  const match = words.map((w) => `${w}:*`).join(" & ");
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
  let afterPhase: Phase = 1;
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
    const phase = (JSON.parse(Buffer.from(search.cursor, "base64url").toString("utf8")) as { p?: unknown }).p;
    if (
      (afterScore === NEWEST_SCORE && !/^[1-9][0-9]{0,17}$/.test(after)) ||
      ![undefined, 1, 2].includes(phase as never)
    ) {
      throw new InvalidArgumentsError(
        "cursor is not valid; pass next_cursor from the previous page unchanged, or omit it",
        [{ path: "cursor", message: "must be next_cursor from the previous page of this list" }],
      );
    }
    afterPhase = phase === 2 ? 2 : 1;
  }
  const marks = words.map((w) => `${w}:*`).join(" | ");
  const params = (query: string, score: number | null, id: string | null, count: number) => [
    query,
    marks,
    search.minArr,
    search.maxArr ?? null,
    search.tier ?? null,
    score,
    id,
    count,
    HEADLINE_OPTIONS,
  ];
  const whole = words.join(" & ");
  // Ranked: accounts with every word whole first, then (phase 2) with them as word starts, common
  // words kept whole, leaving out phase 1's accounts.
  const ranked = async (phase: Phase, score: number | null, id: string | null, count: number): Promise<Hit[]> => {
    if (phase === 1) {
      const { rows } = await pool.query<HitRow>(RANKED_SQL, [...params(whole, score, id, count), null]);
      return rows.map((row) => ({ row, phase }));
    }
    const common = commonWords ? await commonWords.among(pool, words) : new Set<string>();
    const starts = words.map((w) => (common.has(w) ? w : `${w}:*`)).join(" & ");
    if (starts === whole) return [];
    const { rows } = await pool.query<HitRow>(RANKED_SQL, [...params(starts, score, id, count), whole]);
    return rows.map((row) => ({ row, phase }));
  };
  let hits: Hit[];
  if (afterScore === NEWEST_SCORE) {
    const { rows } = await pool.query<HitRow>(NEWEST_NEXT_SQL, params(match, afterScore, after, limit + 1));
    hits = rows.map((row) => ({ row, phase: 1 }));
  } else {
    hits = [];
    if (afterScore === null) {
      // More than a page among the newest accounts: the query is common, answered newest first.
      const { rows } = await pool.query<HitRow>(NEWEST_FIRST_SQL, params(match, null, null, limit + 1));
      if (rows.length > limit) hits = rows.map((row) => ({ row, phase: 1 }));
    }
    if (hits.length === 0) {
      if (afterPhase === 1) hits = await ranked(1, afterScore, after, limit + 1);
      if (hits.length <= limit) {
        const from = afterPhase === 2 ? { score: afterScore, id: after } : { score: null, id: null };
        hits.push(...(await ranked(2, from.score, from.id, limit + 1 - hits.length)));
      }
    }
  }
  const page = hits.slice(0, limit);
  const last = page.at(-1);
  let nextCursor: string | null = null;
  if (hits.length > limit && last) {
    const { row } = last;
    nextCursor =
      row.score === NEWEST_SCORE
        ? encodeCursor({ s: row.score, i: String(row.seq), f: filter })
        : encodeCursor({ s: row.score, i: row.id, f: filter, ...(last.phase === 2 ? { p: 2 } : {}) });
  }
  return { hits: page.map(({ row }) => ({ account: toAccount(row), snippet: snippetOf(row) })), nextCursor };
}
