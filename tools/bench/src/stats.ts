// Small statistics over measured samples. Pure: unit-tested in test/stats.test.ts.

/** The middle value (mean of the two middle values for an even count); NaN for no samples. */
export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/**
 * The p-th percentile (0–100) by linear interpolation between closest ranks, as numpy's
 * default; NaN for no samples.
 */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  if (p < 0 || p > 100) throw new RangeError(`percentile must be within 0..100, got ${p}`);
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  const lower = sorted[low]!;
  return lower + (sorted[high]! - lower) * (rank - low);
}

/** Minimum, median and maximum of a set of rounds, for reporting spread. */
export interface Spread {
  median: number;
  min: number;
  max: number;
}

export function spread(values: readonly number[]): Spread {
  if (values.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN };
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}

/** Rounds to `digits` decimals for reports (keeps JSON readable; NaN stays NaN). */
export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
