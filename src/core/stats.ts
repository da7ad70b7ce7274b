/** Small statistics shared by the runtime's reports, the benchmarks and the experiments. */

/** The median of the samples (NaN for none). */
export function median(xs: ArrayLike<number>): number {
  const n = xs.length;
  if (n === 0) return Number.NaN;
  const s = Float64Array.from(xs).sort();
  const m = n >> 1;
  return n % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
