import { NOTES_TS_CONFIG } from "./migrations.js";

// Private-use characters mark matches inside PostgreSQL, so "**" already in a body is not taken
// for a marker when deciding whether the snippet was cut; they become "**" on the way out.
const OPEN = "\uE000";
const CLOSE = "\uE001";
const MARKS = `StartSel=${OPEN}, StopSel=${CLOSE}`;
// About as many words as SQLite's snippet(…, 16) shows; a body this short is shown whole, as there.
const SNIPPET_WORDS = 16;
// ts_headline starts and ends a snippet at a word; punctuation up to this long around it is kept.
const EDGE_CHARS = 16;

/** A tsquery that matches any of the words of `text` in titles only (weight A), or undefined. */
export function titleWordsTsQuery(text: string): string | undefined {
  const words =
    text
      .normalize("NFKC")
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [];
  if (words.length === 0) return undefined;
  return words
    .slice(0, 8)
    .map((w) => `${w}:*A`)
    .join(" | ");
}

/** Ranked by cover density; a title hit (A) weighs ten times a body hit (B), as bm25(10, 1) does on SQLite. */
export const RANK = `ts_rank_cd('{0, 0, 0.1, 1.0}', n.search, q, 1)`;

// Ranking reads every match (its tsvector and its row), about 3 µs each at 1M rows: a word in
// 400,000 notes took over a second. So, as the SQLite store does for common words, a query that
// finds a full page among the newest notes is answered newest first from them, and a ranked
// query ranks at most RANKED_CAP matches: first notes with every word whole, then (to fill the
// page) notes with them as word starts, common words kept whole (see PgCommonWords).
/** The newest notes a query is first tried on; a table this small is always ranked. */
export const NEWEST_WINDOW = 4_000;
/** The most matches a ranked query ranks (any of them when there are more). */
export const RANKED_CAP = 1_000;

const RANKED_PAGE = `
      SELECT m.title, m.body, m.updated_at, m.q, ${RANK.replace("n.search", "m.search")} AS rank, 0::bigint AS id
      FROM (
        SELECT n.title, n.body, n.updated_at, n.search, q
        FROM notes n, to_tsquery('${NOTES_TS_CONFIG}', $1) q
        WHERE n.search @@ q AND ($4::text IS NULL OR NOT n.search @@ to_tsquery('${NOTES_TS_CONFIG}', $4))
        LIMIT ${RANKED_CAP}
      ) m
      ORDER BY rank DESC, m.title
      LIMIT $2`;

// No rows unless the table holds more than the window, so small tables are always ranked.
const NEWEST_PAGE = `
      SELECT n.title, n.body, n.updated_at, q, 0::real AS rank, n.id
      FROM (SELECT id, title, body, updated_at, search FROM notes ORDER BY id DESC LIMIT ${NEWEST_WINDOW}) n,
           to_tsquery('${NOTES_TS_CONFIG}', $1) q
      WHERE n.search @@ q
        AND EXISTS (SELECT 1 FROM notes ORDER BY id DESC OFFSET ${NEWEST_WINDOW} LIMIT 1)
      ORDER BY n.id DESC
      LIMIT $2`;

/**
 * A page of search hits: the snippet (about 16 words of the body around the matches, like
 * SQLite's snippet()) is made only for the rows on the page, since ts_headline re-parses each
 * body. $1 is the query, $2 the limit, $3 the words as prefixes joined by OR: like FTS5's snippet(),
 * a word found in the body is marked even when another matched only the title. The ranked page
 * leaves out notes that match $4 (the whole words, when filling a page after them), or none.
 */
function searchSql(page: string, order: string): string {
  return `
  SELECT hit.title, hit.updated_at, hit.snippet,
         CASE WHEN at.pos > 0 THEN left(hit.body, at.pos - 1) END AS lead,
         CASE WHEN at.pos > 0 THEN left(substr(hit.body, at.pos + length(cut.plain)), ${EDGE_CHARS + 1}) END AS trail
  FROM (
    SELECT page.*, ts_headline('${NOTES_TS_CONFIG}', page.body, to_tsquery('${NOTES_TS_CONFIG}', $3),
             CASE WHEN length(page.body) <= ${SNIPPET_WORDS * 12}
                   AND cardinality(regexp_split_to_array(btrim(page.body), '\\s+')) <= ${SNIPPET_WORDS}
               THEN '${MARKS}, HighlightAll=true'
               ELSE '${MARKS}, MaxWords=${SNIPPET_WORDS}, MinWords=${SNIPPET_WORDS - 1}, ShortWord=0, MaxFragments=1'
             END) AS snippet
    FROM (${page}
    ) page
  ) hit,
  LATERAL (SELECT translate(hit.snippet, '${OPEN}${CLOSE}', '') AS plain) cut,
  LATERAL (SELECT strpos(hit.body, cut.plain) AS pos) at
  ORDER BY ${order}`;
}

/** Hits best first, ties by title, from at most RANKED_CAP matches; $4 is matches to leave out, or null. */
export const RANKED_SEARCH_SQL = searchSql(RANKED_PAGE, "hit.rank DESC, hit.title");
/** Hits newest first from the newest NEWEST_WINDOW notes; none when the table is not bigger than that. */
export const NEWEST_SEARCH_SQL = searchSql(NEWEST_PAGE, "hit.id DESC");

export interface SearchRow {
  title: string;
  updated_at: Date;
  snippet: string;
  /** The body before the snippet (null when the snippet is not found verbatim in the body). */
  lead: string | null;
  /** The start of the body after the snippet, at most EDGE_CHARS + 1 characters. */
  trail: string | null;
}

const WORD = /[\p{L}\p{N}]/u;

/** Text the snippet left out at one end: kept when it is short and has no word (punctuation such as "**"). */
function edge(text: string | null): string | undefined {
  return text !== null && text.length <= EDGE_CHARS && !WORD.test(text) ? text : undefined;
}

/** The snippet as SQLite shapes it: matches marked `**`, `…` where words of the body were cut. */
export function shapeSnippet(row: SearchRow): string {
  const marked = row.snippet.replaceAll(OPEN, "**").replaceAll(CLOSE, "**");
  return `${edge(row.lead) ?? "…"}${marked}${edge(row.trail) ?? "…"}`;
}
