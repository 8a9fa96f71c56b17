/**
 * Turns any user text into a safe FTS5 MATCH expression: words (letters and digits of any
 * script) become quoted prefix terms joined by AND, so quotes, `*`, `-`, `AND`/`OR`/`NEAR`,
 * parentheses and column filters are only ever text. Returns undefined when no word is left.
 */
export function toFtsQuery(text: string, options: { maxTerms?: number } = {}): string | undefined {
  const words = text.normalize("NFKC").match(/[\p{L}\p{N}]+/gu) ?? [];
  const terms = words.slice(0, options.maxTerms ?? 16).map((w) => `"${w}"*`);
  return terms.length === 0 ? undefined : terms.join(" ");
}

/** Escapes `%`, `_` and `\` for a LIKE pattern used with `ESCAPE '\'`. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** One pass of an FTS5 search. */
export interface FtsSearchPhase {
  /** MATCH expression; every word quoted, so user text is never syntax. */
  match: string;
  /** By bm25 when true; newest first when false. */
  ranked: boolean;
}

/**
 * How to answer a search with bounded work: first rows that have every word as a whole word,
 * then rows that have them only as word starts ("panc" finds "pancakes"). bm25 reads the whole
 * posting list of each term, so a phase with a common term (`isCommon`) is answered newest first,
 * and a common word is not expanded to its longer forms.
 */
export function planFtsSearch(text: string, isCommon: (term: string) => boolean): FtsSearchPhase[] {
  const words = [...new Set(text.normalize("NFKC").match(/[\p{L}\p{N}]+/gu) ?? [])].slice(0, 16);
  if (words.length === 0) return [];
  const exact = words.map((w) => `"${w}"`);
  const common = exact.map(isCommon);
  const anyCommon = common.includes(true);
  const phases = [{ match: exact.join(" "), ranked: !anyCommon }];
  if (common.includes(false)) {
    const starts = words.map((w, i) => (common[i] ? exact[i] : `"${w}"*`));
    const broadStart = words.some((w, i) => !common[i] && isCommon(`"${w}"*`));
    phases.push({ match: `(${starts.join(" ")}) NOT (${exact.join(" ")})`, ranked: !anyCommon && !broadStart });
  }
  return phases;
}
