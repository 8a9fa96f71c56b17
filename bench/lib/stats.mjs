/** Nearest-rank percentile of sorted values: the smallest value with at least `p` of them at or below it. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.max(1, Math.ceil(p * sorted.length));
  return sorted[rank - 1];
}

/** p50, p99, mean and max of latencies in ms, and the rate one caller got doing them in a row. */
export function summarize(latencies) {
  const sorted = [...latencies].sort((a, b) => a - b);
  const total = sorted.reduce((a, b) => a + b, 0);
  return {
    count: sorted.length,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    mean: total / sorted.length,
    max: sorted.at(-1) ?? Number.NaN,
    perSecond: sorted.length / (total / 1000),
  };
}

export function ms(value) {
  if (!Number.isFinite(value)) return "–";
  if (value >= 100) return value.toFixed(0);
  if (value >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

export function count(value) {
  return Math.round(value).toLocaleString("en-US");
}
