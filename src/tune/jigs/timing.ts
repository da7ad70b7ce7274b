/**
 * Timing helpers shared by the measurement jigs: a monotonic clock in seconds and
 * robust summaries of repeated samples (median, and the p10–p90 spread relative to
 * the median as a noise indicator).
 */

/** Monotonic seconds (performance.now, sub-microsecond resolution in Node). */
export function nowSeconds(): number {
  return performance.now() / 1e3;
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const i = (sorted.length - 1) * q;
  const lo = Math.floor(i);
  const hi = Math.ceil(i);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (i - lo);
}

export interface Summary {
  readonly median: number;
  /** (p90 − p10) / median; 0 for a single sample. */
  readonly spread: number;
  readonly reps: number;
}

export function summarize(samples: readonly number[]): Summary {
  const s = [...samples].sort((a, b) => a - b);
  const median = quantile(s, 0.5);
  return { median, spread: median > 0 ? (quantile(s, 0.9) - quantile(s, 0.1)) / median : 0, reps: s.length };
}
