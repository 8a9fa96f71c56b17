import { distance } from "fastest-levenshtein";

/**
 * The candidates closest to `input`, best first, at most `limit` of them: names that contain the
 * input (or are contained in it) come first, then by edit distance, case-insensitively.
 * Names farther than `maxDistance` edits (and not containing each other) are left out.
 * Used for hints such as "No note 'grocries'. Closest titles: groceries".
 */
export function closestMatches(
  input: string,
  candidates: Iterable<string>,
  limit = 5,
  maxDistance = Number.POSITIVE_INFINITY,
): string[] {
  const needle = input.toLowerCase();
  const scored: Array<{ name: string; score: number }> = [];
  for (const name of new Set(candidates)) {
    const hay = name.toLowerCase();
    const contained = needle.length > 0 && hay.length > 0 && (hay.includes(needle) || needle.includes(hay));
    const d = distance(needle, hay);
    if (!contained && d > maxDistance) continue;
    scored.push({ name, score: d - (contained ? 1000 : 0) });
  }
  scored.sort((a, b) => a.score - b.score || a.name.localeCompare(b.name));
  return scored.slice(0, Math.max(0, limit)).map((s) => s.name);
}
