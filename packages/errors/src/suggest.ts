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

// Verbs a caller reaches for in place of the one a tool name uses: one class each.
const VERB_CLASSES = [
  ["create", "add", "new", "insert", "make"],
  ["delete", "remove", "del", "drop", "destroy", "erase"],
  ["update", "edit", "modify", "change", "set", "patch"],
  ["get", "fetch", "read", "show", "retrieve", "view", "load"],
  ["search", "find", "query", "lookup", "look"],
  ["list", "all", "index", "enumerate"],
];
const VERB_OF = new Map(VERB_CLASSES.flatMap((words) => words.map((w) => [w, words[0]] as const)));

/** The words of a name (snake, kebab, dot or camel case), singular, verbs by class. */
function nameWords(name: string): Set<string> {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "")
    .map((w) => (w.length > 3 && w.endsWith("s") && !w.endsWith("ss") ? w.slice(0, -1) : w))
    .map((w) => VERB_OF.get(w) ?? w);
  return new Set(words);
}

/**
 * Tool names closest to a name that matched none, best first: the names sharing the most words
 * with it (in any order, singular or plural, `add` for `create`, `remove` for `delete`, `edit` for
 * `update` and so on), then as closestMatches ranks them. So `notes_search` offers `search_notes`
 * and `add_note` offers `create_note` first.
 */
export function closestToolNames(input: string, candidates: Iterable<string>, limit = 3): string[] {
  const unique = [...new Set(candidates)];
  const ranked = closestMatches(input, unique, unique.length);
  const wanted = nameWords(input);
  const shared = (name: string) => {
    let n = 0;
    for (const w of nameWords(name)) if (wanted.has(w)) n++;
    return n;
  };
  const order = new Map(ranked.map((name, i) => [name, i]));
  return ranked
    .map((name) => ({ name, shared: shared(name) }))
    .sort((a, b) => b.shared - a.shared || (order.get(a.name) ?? 0) - (order.get(b.name) ?? 0))
    .slice(0, Math.max(0, limit))
    .map((s) => s.name);
}
