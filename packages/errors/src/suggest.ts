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

/**
 * The one candidate a misspelt name was most likely meant to be, for "did you mean" hints: the
 * closest within about one edit per three characters (at least one), or one the input begins
 * (from three characters on). Case-insensitive. Undefined when nothing is that close, so a
 * caller can list every candidate instead of guessing.
 */
export function didYouMean(input: string, candidates: Iterable<string>): string | undefined {
  const needle = input.toLowerCase();
  if (needle === "") return undefined;
  const maxEdits = Math.max(1, Math.ceil(needle.length / 3));
  let best: { name: string; d: number } | undefined;
  for (const name of new Set(candidates)) {
    const hay = name.toLowerCase();
    const d = distance(needle, hay);
    if (d > maxEdits && !(needle.length >= 3 && hay.startsWith(needle))) continue;
    if (!best || d < best.d || (d === best.d && name.localeCompare(best.name) < 0)) best = { name, d };
  }
  return best?.name;
}
