/** Small figures helpers shared by the benches, so every table rounds and ranks alike. */

/** One decimal: the precision the latency and load figures are reported with. */
export function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

/** Nearest-rank percentile of an ascending array; NaN when empty. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** p50 / p99 / max of raw latencies (ms), one decimal each. */
export function latencyStats(latencies: readonly number[]): {
  p50: number;
  p99: number;
  max: number;
} {
  const sorted = Float64Array.from(latencies).sort();
  return {
    p50: round1(percentile(sorted, 50)),
    p99: round1(percentile(sorted, 99)),
    max: round1(sorted[sorted.length - 1] ?? Number.NaN),
  };
}

/** The p50 / p99 / max columns of a `console.table` row. */
export function latencyColumns(latency: { p50: number; p99: number; max: number }) {
  return { 'p50 ms': latency.p50, 'p99 ms': latency.p99, 'max ms': latency.max };
}

/** The upper median of `xs` (the middle one for odd lengths); `xs` is left as it was. */
export function median(xs: readonly number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
}
