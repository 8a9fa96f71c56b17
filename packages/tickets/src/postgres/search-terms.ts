import { meaningfulWords } from "../fts-terms.js";

/**
 * A `to_tsquery` expression for documents sharing at least two meaningful words with `text`
 * (one, when it has only one): the PostgreSQL twin of sharedWordsQuery. Words are letters and
 * digits only, so nothing in them is tsquery syntax. Undefined when no word is left.
 */
export function sharedWordsTsQuery(text: string, maxWords = 8): string | undefined {
  const words = meaningfulWords(text, maxWords);
  if (words.length === 0) return undefined;
  if (words.length === 1) return words[0];
  const pairs: string[] = [];
  for (let i = 0; i < words.length; i++) {
    for (let j = i + 1; j < words.length; j++) pairs.push(`(${words[i]} & ${words[j]})`);
  }
  return pairs.join(" | ");
}

/**
 * Adds "…" where ts_headline cut the body, as SQLite's snippet() does, so both stores show
 * excerpts of the same shape.
 */
export function withEllipses(headline: string, body: string): string {
  const plain = headline.replaceAll("**", "").trim();
  const text = body.replaceAll("**", "").trim();
  if (plain === "" || plain === text) return headline;
  const start = text.startsWith(plain) ? "" : "…";
  const end = text.endsWith(plain) ? "" : "…";
  return `${start}${headline}${end}`;
}
