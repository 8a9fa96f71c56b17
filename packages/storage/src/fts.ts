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
