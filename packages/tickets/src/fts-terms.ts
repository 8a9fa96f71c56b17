// Words too common to say two tickets are alike.
const STOPWORDS = new Set(
  (
    "a an and are as at be been but by can cannot could did do does for from has have how i if in into is it its " +
    "me my no not of on or our so than that the their then there these this to too was we were what when where " +
    "which while who why will with would you your"
  ).split(" "),
);

/** Distinct lower-case words of `text` that say something, at most `max`. */
export function meaningfulWords(text: string, max: number): string[] {
  const words =
    text
      .normalize("NFKC")
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words.filter((w) => w.length > 1 && !STOPWORDS.has(w)))].slice(0, max);
}

/**
 * An FTS5 MATCH expression for documents that share at least two meaningful words with `text`
 * (one, when it has only one): one shared common word is not a duplicate. Every word is quoted,
 * so nothing in it is FTS syntax. Undefined when no word is left.
 */
export function sharedWordsQuery(text: string, maxWords = 8): string | undefined {
  const words = meaningfulWords(text, maxWords).map((w) => `"${w}"`);
  if (words.length === 0) return undefined;
  if (words.length === 1) return words[0];
  const pairs: string[] = [];
  for (let i = 0; i < words.length; i++) {
    for (let j = i + 1; j < words.length; j++) pairs.push(`(${words[i]} AND ${words[j]})`);
  }
  return pairs.join(" OR ");
}
