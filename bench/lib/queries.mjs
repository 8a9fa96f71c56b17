// The queries a model would send: one or two common words, words taken from an existing row,
// rare names, word starts ("gro" for groceries), a word nothing contains, and text with operators.

import { tokens } from "./packs.mjs";
import { createRng } from "./rng.mjs";
import { FUNCTION_WORDS, missingWord } from "./words.mjs";

const FUNCTION = new Set(FUNCTION_WORDS);

/**
 * Query kinds and what a correct answer must look like:
 * full: as many hits as the limit (the word is in thousands of rows); some: at least one hit;
 * none: no hit; any: whatever the index holds.
 */
export const QUERY_KINDS = [
  { kind: "common word", share: 0.2, expect: "full" },
  { kind: "two common words", share: 0.15, expect: "any" },
  { kind: "words of a row", share: 0.25, expect: "some" },
  { kind: "rare word", share: 0.2, expect: "some" },
  { kind: "word start", share: 0.1, expect: "some" },
  { kind: "operators", share: 0.05, expect: "any" },
  { kind: "no such word", share: 0.05, expect: "none" },
];

/** `total` distinct-as-possible queries for a pack seeded with `rows` rows, the same on every run. */
export function buildQueries(pack, rows, total, seed = 7) {
  const rng = createRng(seed);
  const { words, headSize } = pack.vocabulary;
  const common = (top) => words[rng.int(0, top - 1)];
  const rank = new Map(words.map((w, i) => [w, i]));
  const rowWords = () =>
    [...new Set(tokens(pack.searchableText(pack.row(rng.int(0, rows - 1)))))].filter(
      (w) => w.length >= 3 && !FUNCTION.has(w),
    );
  const make = {
    "common word": () => common(25),
    "two common words": () => `${common(200)} ${common(200)}`,
    "words of a row": () => {
      const candidates = rowWords();
      const n = Math.min(candidates.length, rng.int(1, 3));
      const picked = [];
      while (picked.length < n) {
        const w = rng.pick(candidates);
        if (!picked.includes(w)) picked.push(w);
      }
      return picked.join(" ");
    },
    // The least common word of a row (a name, a code): in a handful of rows at most.
    "rare word": () => {
      let best = "";
      while (best === "") {
        for (const w of rowWords()) if ((rank.get(w) ?? -1) > (rank.get(best) ?? headSize - 1)) best = w;
      }
      return best;
    },
    "word start": () => {
      let w;
      do w = common(100);
      while (w.length < 6);
      return w.slice(0, rng.int(3, 4));
    },
    operators: () => rng.pick([`"${common(50)}" OR -${common(50)}*`, `${common(50)}: (${common(50)})!`]),
    "no such word": () => missingWord(rng),
  };
  const out = [];
  for (const { kind, share, expect } of QUERY_KINDS) {
    const n = Math.max(1, Math.round(total * share));
    for (let i = 0; i < n; i++) out.push({ text: make[kind](), kind, expect });
  }
  // Interleave kinds so a short run still sees every kind.
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
