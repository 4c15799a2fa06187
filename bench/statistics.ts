/** Nearest-rank percentile of unsorted values (p in 0..100). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

export interface Spread {
  count: number;
  p50: number;
  p99: number;
}

export function spread(values: readonly number[]): Spread {
  return { count: values.length, p50: percentile(values, 50), p99: percentile(values, 99) };
}

/** What a hop adds: its percentiles minus the same percentiles of the direct path. */
export function added(through: Spread, direct: Spread): { p50: number; p99: number } {
  return { p50: through.p50 - direct.p50, p99: through.p99 - direct.p99 };
}

export function round(value: number, digits = 2): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
