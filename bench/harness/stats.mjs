// Small statistics over repeated runs: medians and min-max spread, as the report shows them.

export function median(values) {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Nearest-rank percentile (0-100) of unsorted values. */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Median with the smallest and largest run, and the spread as a share of the median. */
export function summary(values) {
  const finite = values.filter((v) => Number.isFinite(v));
  const med = median(finite);
  const min = Math.min(...finite);
  const max = Math.max(...finite);
  return { median: med, min, max, spread: med ? (max - min) / med : 0, runs: finite.length };
}
