import type { PgClient } from "./pool.js";

/**
 * The words of any user text as the stores search them: runs of letters and digits of any script,
 * NFKC-normalised and lower-cased, at most `maxTerms`. Nothing in them is tsquery syntax.
 */
export function pgSearchWords(text: string, options: { maxTerms?: number } = {}): string[] {
  const words =
    text
      .normalize("NFKC")
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.slice(0, options.maxTerms ?? 16);
}

/**
 * Turns any user text into a safe `to_tsquery` expression: words (letters and digits of any
 * script) as prefix terms joined by `&`, so no operator or quote in the text means anything.
 * Returns undefined when no word is left.
 */
export function toPgTsQuery(text: string, options: { maxTerms?: number } = {}): string | undefined {
  const terms = pgSearchWords(text, options).map((w) => `${w}:*`);
  return terms.length === 0 ? undefined : terms.join(" & ");
}

/** Where a store keeps its search vector, for {@link pgCommonWords}. */
export interface PgSearchColumn {
  /** The table, as the store's search_path finds it. */
  table: string;
  /** Its tsvector column. */
  column: string;
  /** SQL that turns `w.word` into a tsvector the way the store's queries normalise words. */
  vector: string;
}

/**
 * Which words start lexemes found in more than `minRows` rows, by PostgreSQL's own statistics of
 * the column (its most common elements, gathered by ANALYZE). Expanding such a word to every
 * longer one makes GIN collect every row id of each, about 100 ms for a word in 300,000 rows; the
 * stores keep them whole. Words the statistics do not list are not common; without statistics
 * (never analysed) none is. Answers are kept `ttlMs` (default 5 minutes) per word.
 */
export class PgCommonWords {
  readonly #where: PgSearchColumn;
  readonly #minRows: number;
  readonly #ttlMs: number;
  readonly #known = new Map<string, { common: boolean; until: number }>();

  constructor(where: PgSearchColumn, options: { minRows?: number; ttlMs?: number } = {}) {
    this.#where = where;
    this.#minRows = options.minRows ?? 2000;
    this.#ttlMs = options.ttlMs ?? 300_000;
  }

  async among(db: Pick<PgClient, "query">, words: readonly string[]): Promise<Set<string>> {
    const now = Date.now();
    const asked = words.filter((w) => (this.#known.get(w)?.until ?? 0) <= now);
    if (asked.length > 0) {
      const { rows } = await db.query<{ word: string }>(
        `WITH mce AS MATERIALIZED (
           SELECT e.lexeme, e.f * greatest(c.reltuples, 0) AS rows
             FROM pg_class AS c
             JOIN pg_namespace AS ns ON ns.oid = c.relnamespace
             JOIN pg_stats AS s ON s.schemaname = ns.nspname AND s.tablename = c.relname AND s.attname = $3
             CROSS JOIN LATERAL unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS e(lexeme, f)
            WHERE c.oid = to_regclass($2) AND e.lexeme IS NOT NULL
         )
         SELECT w.word
           FROM unnest($1::text[]) AS w(word)
           CROSS JOIN LATERAL (SELECT min(t.lexeme) AS lexeme FROM unnest(${this.#where.vector}) AS t) AS n
          WHERE (SELECT coalesce(sum(m.rows), 0) FROM mce AS m WHERE starts_with(m.lexeme, n.lexeme)) > $4`,
        [asked, this.#where.table, this.#where.column, this.#minRows],
      );
      const common = new Set(rows.map((r) => r.word));
      // Bounded: a flood of distinct words cannot grow it past this.
      if (this.#known.size > 10_000) this.#known.clear();
      for (const w of asked) this.#known.set(w, { common: common.has(w), until: now + this.#ttlMs });
    }
    return new Set(words.filter((w) => this.#known.get(w)?.common === true));
  }
}
