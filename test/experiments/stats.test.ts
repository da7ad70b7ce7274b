/** src/experiments/stats.ts against brute-force references. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { prng } from '../../src/core/random.js';
import { densestWindowSorted, histogram, meanSd, median, quantileSorted, sampleStats, shareInSorted, sorted, trimTopSorted } from '../../src/experiments/stats.js';

/** Two-pass mean and sample standard deviation. */
function naiveMeanSd(xs: readonly number[]): { mean: number; sd: number } {
  const mean = xs.reduce((s, v) => s + v, 0) / xs.length;
  const ss = xs.reduce((s, v) => s + (v - mean) ** 2, 0);
  return { mean, sd: xs.length > 1 ? Math.sqrt(ss / (xs.length - 1)) : 0 };
}

/** Largest number of samples in any closed window of the given width, trying every sample as the left edge. */
function naiveDensest(xs: readonly number[], width: number): number {
  let best = 0;
  for (const a of xs) best = Math.max(best, xs.filter((x) => x >= a && x - a <= width).length);
  return best / xs.length;
}

const samples = fc.array(fc.double({ min: 0, max: 1000, noNaN: true }), { minLength: 1, maxLength: 300 });

describe('experiment statistics', () => {
  it('mean and σ match a two-pass computation', () => {
    fc.assert(
      fc.property(samples, (xs) => {
        const a = meanSd(xs);
        const b = naiveMeanSd(xs);
        expect(a.mean).toBeCloseTo(b.mean, 8);
        expect(a.sd).toBeCloseTo(b.sd, 6);
      }),
    );
    expect(meanSd([]).mean).toBeNaN();
    expect(meanSd([5])).toEqual({ mean: 5, sd: 0 });
    expect(meanSd([1, 2, 3, 4]).sd).toBeCloseTo(Math.sqrt(5 / 3), 12);
  });

  it('stays accurate for large offsets (µs timings around 10^5)', () => {
    const xs = Array.from({ length: 1000 }, (_, i) => 1e5 + (i % 2));
    expect(meanSd(xs).sd).toBeCloseTo(naiveMeanSd(xs).sd, 9);
  });

  it('quantiles interpolate between order statistics', () => {
    const s = sorted([10, 0, 30, 20]);
    expect(quantileSorted(s, 0)).toBe(0);
    expect(quantileSorted(s, 1)).toBe(30);
    expect(quantileSorted(s, 0.5)).toBe(15);
    expect(quantileSorted(s, 1 / 3)).toBeCloseTo(10, 12);
    expect(median([3, 1, 2])).toBe(2);
    expect(quantileSorted(new Float64Array(0), 0.5)).toBeNaN();
    expect(() => quantileSorted(s, 1.5)).toThrow(RangeError);
    fc.assert(
      fc.property(samples, fc.double({ min: 0, max: 1, noNaN: true }), (xs, q) => {
        const s2 = sorted(xs);
        const v = quantileSorted(s2, q);
        // At least q of the samples are <= v and at least 1 - q are >= v (up to one sample).
        const below = xs.filter((x) => x <= v).length;
        const above = xs.filter((x) => x >= v).length;
        expect(below).toBeGreaterThanOrEqual(Math.floor(q * (xs.length - 1)) + 1);
        expect(above).toBeGreaterThanOrEqual(xs.length - Math.ceil(q * (xs.length - 1)));
      }),
    );
  });

  it('trimming drops floor(n · fraction) of the largest samples', () => {
    const s = sorted(Array.from({ length: 250 }, (_, i) => 249 - i));
    const t = trimTopSorted(s, 0.01);
    expect(t.length).toBe(248);
    expect(Math.max(...t)).toBe(247);
    expect(trimTopSorted(s, 0).length).toBe(250);
    expect(trimTopSorted(sorted([1, 2, 3]), 0.01).length).toBe(3);
    expect(() => trimTopSorted(s, 1)).toThrow(RangeError);
  });

  it('the densest window matches brute force', () => {
    fc.assert(
      fc.property(samples, fc.double({ min: 0, max: 200, noNaN: true }), (xs, w) => {
        const s = sorted(xs);
        const d = densestWindowSorted(s, w);
        expect(d.share).toBeCloseTo(naiveDensest(xs, w), 12);
        // The reported window really holds that share.
        expect(shareInSorted(s, d.lo, d.lo + w)).toBeCloseTo(d.share, 12);
      }),
    );
  });

  it('share inside [lo, hi] counts both edges', () => {
    const s = sorted([1, 2, 2, 3, 4, 5]);
    expect(shareInSorted(s, 2, 4)).toBeCloseTo(4 / 6, 12);
    expect(shareInSorted(s, 2.5, 2.6)).toBe(0);
    expect(shareInSorted(s, -10, 10)).toBe(1);
  });

  it('histogram counts every sample once, with the ones outside the range apart', () => {
    fc.assert(
      fc.property(samples, fc.integer({ min: 1, max: 50 }), (xs, bins) => {
        const h = histogram(xs, 100, 900, bins);
        const inside = h.bins.reduce((s, b) => s + b[2], 0);
        expect(inside + h.below + h.above).toBe(xs.length);
        expect(h.below).toBe(xs.filter((x) => x < 100).length);
        expect(h.above).toBe(xs.filter((x) => x > 900).length);
        for (const [a, b, n] of h.bins) {
          const last = b === h.bins[h.bins.length - 1][1];
          expect(n).toBe(xs.filter((x) => x >= a && (x < b || (last && x <= b))).length);
        }
      }),
    );
    expect(() => histogram([1], 2, 2, 10)).toThrow(RangeError);
  });

  it('sampleStats puts it together (seed 000: the highest 1% dropped)', () => {
    const rand = prng(3);
    // 99% around 10 µs, 1% far out (the "host" shape), 1000 samples.
    const xs = Array.from({ length: 1000 }, (_, i) => (i % 100 === 0 ? 5000 : 10 + rand()));
    const st = sampleStats(xs, { windowsUs: [1, 4] });
    expect(st.n).toBe(1000);
    expect(st.trimmedN).toBe(990);
    expect(st.trimmedMean).toBeLessThan(11);
    expect(st.trimmedSd).toBeLessThan(0.5);
    expect(st.sd).toBeGreaterThan(400);
    expect(st.max).toBe(5000);
    expect(st.windows[1].densest).toBeCloseTo(0.99, 12);
    expect(st.windows[1].aroundMedian).toBeCloseTo(0.99, 12);
    expect(st.windows[0].widthUs).toBe(1);
    const ref = naiveMeanSd([...xs].sort((a, b) => a - b).slice(0, 990));
    expect(st.trimmedSd).toBeCloseTo(ref.sd, 9);
  });
});
