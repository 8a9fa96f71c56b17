// Seeded randomness, so every run generates the same rows and queries.

/** mulberry32: a small, fast 32-bit PRNG; returns floats in [0, 1). */
export function createRng(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    /** Integer in [min, max]. */
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (list) => list[Math.floor(next() * list.length)],
    chance: (p) => next() < p,
  };
}

/** murmur3's finalizer: a bijection on 32-bit integers that scatters neighbouring inputs. */
export function mix32(value) {
  let h = value >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * The seed of row `index` (below 2^28) of stream `stream` (below 16): rows do not depend on how
 * many came before, and no two rows share a seed.
 */
export function rowSeed(stream, index) {
  return mix32(stream * 2 ** 28 + index);
}

/**
 * Samples ranks 0..size-1 with probability proportional to 1/(rank+1+offset)^exponent
 * (Zipf–Mandelbrot), the shape of word frequencies in real text: a few common words and a long
 * tail of rare ones. The offset flattens the top, as for content words once "the" and "and" are set apart.
 */
export function createZipf(size, exponent = 1, offset = 0) {
  const cumulative = new Float64Array(size);
  let total = 0;
  for (let r = 0; r < size; r++) {
    total += 1 / (r + 1 + offset) ** exponent;
    cumulative[r] = total;
  }
  return (rng) => {
    const target = rng.next() * total;
    let lo = 0;
    let hi = size - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cumulative[mid] < target) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}
