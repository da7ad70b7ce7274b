/**
 * Statistics of individually timed samples, as the seeds report them (seed 000
 * §5.4.1, Table 5.1 and Fig. 5.5): mean and standard deviation after "pitching out
 * the highest 1% of the samples", quantiles, the share of samples that fall inside a
 * window of a given width, and histogram binning.
 *
 * Conventions (the thesis does not spell them out; these are the choices made here):
 * - standard deviation: the sample standard deviation (divisor n − 1);
 * - trimming: the floor(n · fraction) largest samples are dropped;
 * - quantiles: linear interpolation between order statistics (R type 7, numpy's default);
 * - window share: the largest share of samples inside any window [a, a + width] (the
 *   thesis' "97% fall within a spread of only 4 µs"), found by a sliding window over
 *   the sorted samples; the share in the window centred on the median is reported too.
 */
import { median } from '../core/stats.js';

/** Mean and sample standard deviation (Welford); NaN for an empty input, σ = 0 for one sample. */
export function meanSd(xs: ArrayLike<number>): { mean: number; sd: number } {
  const n = xs.length;
  if (n === 0) return { mean: NaN, sd: NaN };
  let mean = 0;
  let m2 = 0;
  for (let i = 0; i < n; i++) {
    const x = xs[i];
    const d = x - mean;
    mean += d / (i + 1);
    m2 += d * (x - mean);
  }
  return { mean, sd: n > 1 ? Math.sqrt(m2 / (n - 1)) : 0 };
}

/** An ascending copy (a Float64Array, so the sort is numeric). */
export function sorted(xs: ArrayLike<number>): Float64Array {
  return Float64Array.from(xs).sort();
}

/** Quantile q ∈ [0, 1] of ascending samples, interpolating linearly between order statistics. */
export function quantileSorted(s: ArrayLike<number>, q: number): number {
  const n = s.length;
  if (n === 0) return NaN;
  if (!(q >= 0 && q <= 1)) throw new RangeError(`quantile needs 0 <= q <= 1, got ${q}`);
  const h = (n - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(n - 1, lo + 1);
  return s[lo] + (h - lo) * (s[hi] - s[lo]);
}

export { median };

/** Ascending samples without the floor(n · fraction) largest (seed 000: fraction 0.01). */
export function trimTopSorted(s: Float64Array, fraction: number): Float64Array {
  if (!(fraction >= 0 && fraction < 1)) throw new RangeError(`trim fraction must be in [0, 1), got ${fraction}`);
  return s.subarray(0, s.length - Math.floor(s.length * fraction));
}

/** The window [lo, lo + width] holding the most samples (ascending input): its share and left edge. */
export function densestWindowSorted(s: ArrayLike<number>, width: number): { share: number; lo: number } {
  const n = s.length;
  if (n === 0) return { share: NaN, lo: NaN };
  let best = 0;
  let bestLo = s[0];
  let j = 0;
  for (let i = 0; i < n; i++) {
    if (j < i) j = i;
    while (j + 1 < n && s[j + 1] - s[i] <= width) j++;
    if (j - i + 1 > best) {
      best = j - i + 1;
      bestLo = s[i];
    }
  }
  return { share: best / n, lo: bestLo };
}

/** Share of samples inside [lo, hi] (inclusive), ascending input. */
export function shareInSorted(s: ArrayLike<number>, lo: number, hi: number): number {
  const n = s.length;
  if (n === 0) return NaN;
  return (lowerBound(s, hi, true) - lowerBound(s, lo, false)) / n;
}

/** Index of the first element >= v (or > v when `after`). */
function lowerBound(s: ArrayLike<number>, v: number, after: boolean): number {
  let a = 0;
  let b = s.length;
  while (a < b) {
    const m = (a + b) >>> 1;
    if (s[m] < v || (after && s[m] === v)) a = m + 1;
    else b = m;
  }
  return a;
}

export interface WindowShare {
  /** Window width (µs). */
  readonly widthUs: number;
  /** Largest share of samples in any window of this width (the seed's "spread"). */
  readonly densest: number;
  /** Left edge of that window. */
  readonly densestFromUs: number;
  /** Share in the window of this width centred on the median. */
  readonly aroundMedian: number;
}

export interface SampleStats {
  readonly n: number;
  readonly mean: number;
  readonly sd: number;
  /** Samples left after dropping the highest `trimFraction` of them. */
  readonly trimmedN: number;
  readonly trimmedMean: number;
  readonly trimmedSd: number;
  readonly min: number;
  readonly median: number;
  readonly p99: number;
  readonly max: number;
  /** Window shares, over all samples (not trimmed). */
  readonly windows: readonly WindowShare[];
}

/** Every statistic of a sample set (µs); windows over all samples, σ and mean also after trimming. */
export function sampleStats(xs: ArrayLike<number>, o: { trimFraction?: number; windowsUs?: readonly number[] } = {}): SampleStats {
  const s = sorted(xs);
  const all = meanSd(s);
  const trimmed = trimTopSorted(s, o.trimFraction ?? 0.01);
  const t = meanSd(trimmed);
  const med = quantileSorted(s, 0.5);
  const windows = (o.windowsUs ?? []).map((w) => {
    const d = densestWindowSorted(s, w);
    return { widthUs: w, densest: d.share, densestFromUs: d.lo, aroundMedian: shareInSorted(s, med - w / 2, med + w / 2) };
  });
  return {
    n: s.length,
    mean: all.mean,
    sd: all.sd,
    trimmedN: trimmed.length,
    trimmedMean: t.mean,
    trimmedSd: t.sd,
    min: s.length ? s[0] : NaN,
    median: med,
    p99: quantileSorted(s, 0.99),
    max: s.length ? s[s.length - 1] : NaN,
    windows,
  };
}

export interface Binned {
  /** [left edge, right edge, count] per bin; the last bin includes its right edge. */
  readonly bins: [number, number, number][];
  /** Samples below lo and above hi. */
  readonly below: number;
  readonly above: number;
}

/** Counts of samples in `bins` equal-width bins over [lo, hi]. */
export function histogram(xs: ArrayLike<number>, lo: number, hi: number, bins: number): Binned {
  if (!(hi > lo) || !Number.isInteger(bins) || bins < 1) throw new RangeError(`histogram needs lo < hi and bins >= 1, got [${lo}, ${hi}], ${bins}`);
  const width = (hi - lo) / bins;
  const counts = new Array<number>(bins).fill(0);
  let below = 0;
  let above = 0;
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i];
    if (x < lo) below++;
    else if (x > hi) above++;
    else counts[Math.min(bins - 1, Math.floor((x - lo) / width))]++;
  }
  return { bins: counts.map((c, k) => [lo + k * width, lo + (k + 1) * width, c]), below, above };
}

/** Round to `digits` decimals (for JSON output). */
export function round(v: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}
