/**
 * Turns any user text into a safe `to_tsquery` expression: words (letters and digits of any
 * script) as prefix terms joined by `&`, so no operator or quote in the text means anything.
 * Returns undefined when no word is left.
 */
export function toPgTsQuery(text: string, options: { maxTerms?: number } = {}): string | undefined {
  const words =
    text
      .normalize("NFKC")
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [];
  const terms = words.slice(0, options.maxTerms ?? 16).map((w) => `${w}:*`);
  return terms.length === 0 ? undefined : terms.join(" & ");
}
