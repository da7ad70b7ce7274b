/** The experiments' pure helpers: aggregation, variants, sample transport, CPU clock, work. */
import { describe, expect, it } from 'vitest';
import { threadCpuClock } from '../../src/experiments/cpu-time.js';
import { decodeSamples, encodeSamples } from '../../src/experiments/job.js';
import { overlapPoint, overlapShare } from '../../src/experiments/overlap.js';
import { skewSeed, type SkewRecord } from '../../src/experiments/skew-program.js';
import { cpuRatio, skewPoints } from '../../src/experiments/skew.js';
import { checkNoise, noiseEnvValue, parseVariants, variantEnv, variantMode } from '../../src/experiments/variants.js';
import { busyFor, calibrateWork, work } from '../../src/experiments/work.js';
import { parseNoise } from '../../src/runtime/noise.js';

describe('experiment helpers', () => {
  it('variants map to modes and environments', () => {
    expect(parseVariants([], ['host', 'offload'])).toEqual(['host', 'offload']);
    expect(parseVariants(['offload', 'host', 'offload'], ['host'])).toEqual(['offload', 'host']);
    expect(() => parseVariants(['nic'], ['host'])).toThrow(/unknown --mode/);
    expect(variantMode('host-poll')).toBe('host');
    expect(variantMode('intermediate')).toBe('intermediate');
    expect(Number(variantEnv('host-poll').COLL_SPIN_US)).toBeGreaterThan(1e6);
    expect(variantEnv('offload')).toEqual({});
  });

  it('the noise configuration round-trips through COLL_NOISE', () => {
    const n = { periodUs: 1000, durationUs: 100, poisson: true, seed: 7 };
    expect(parseNoise(noiseEnvValue(n))).toEqual({ periodUs: 1000, durationUs: 100, distribution: 'poisson', seed: 7 });
    expect(parseNoise(noiseEnvValue({ ...n, poisson: false })).distribution).toBe('periodic');
    expect(() => checkNoise({ ...n, durationUs: 1000 })).toThrow(/duration < period/);
  });

  it('samples survive the base64 float32 transport', () => {
    const xs = [0.25, 1.5, 123.456, 1e5, 0];
    const back = decodeSamples(encodeSamples(xs));
    expect(back.length).toBe(xs.length);
    back.forEach((v, i) => expect(v).toBeCloseTo(xs[i], 2));
  });

  it('skew points: calibrated means, root and non-roots apart, median over repetitions', () => {
    const rec = (rep: number, cpu: number[]): SkewRecord => ({
      variant: 'host',
      collective: 'bcast',
      skewUs: 400,
      repetition: rep,
      cpuMeanUs: cpu,
      cpuMedianUs: cpu,
      wallMeanUs: cpu.map((c) => 2 * c),
      wallMedianUs: cpu,
      computedMeanUs: [0, 150, 160],
    });
    const pts = skewPoints([rec(0, [10, 20, 30]), rec(1, [100, 200, 300]), rec(2, [12, 22, 32])], [2, 2, 2]);
    expect(pts).toHaveLength(1);
    const p = pts[0];
    expect(p.repetitions).toBe(3);
    expect(p.cpuUs).toBeCloseTo(20, 12); // median of 18, 198, 20
    expect(p.cpuRawUs).toBeCloseTo(22, 12);
    expect(p.cpuRootUs).toBeCloseTo(10, 12);
    expect(p.cpuNonRootUs).toBeCloseTo(25, 12);
    expect(p.wallUs).toBeCloseTo(44, 12);
    expect(p.computedUs).toBeCloseTo(155, 12);
    const off = skewPoints([{ ...rec(0, [5, 5, 5]), variant: 'offload' }], [0, 0, 0]);
    expect(cpuRatio([...pts, ...off], 'bcast', 400, 'host', 'offload')).toBeCloseTo(4, 12);
    expect(cpuRatio(pts, 'barrier', 400, 'host', 'offload')).toBeNaN();
  });

  it('skew seeds differ by rank, point and repetition', () => {
    const seeds = new Set<number>();
    for (let r = 0; r < 4; r++) for (let s = 0; s < 6; s++) for (let k = 0; k < 3; k++) seeds.add(skewSeed(1, r, s, k));
    expect(seeds.size).toBe(72);
    expect(skewSeed(1, 2, 3, 0)).toBe(skewSeed(1, 2, 3, 0));
  });

  it('overlap share: 1 when hidden, 0 when serialised', () => {
    expect(overlapShare(100, 1000, 1000)).toBe(1);
    expect(overlapShare(100, 1000, 1100)).toBe(0);
    expect(overlapShare(100, 1000, 1050)).toBeCloseTo(0.5, 12);
    const p = overlapPoint({
      variant: 'offload',
      bytes: 8,
      computeRounds: 1,
      commUs: [100, 100],
      computeUs: [1000, 1000],
      totalUs: [1000, 1100],
      postUs: [1, 1],
      overlappedComputeUs: [1000, 1000],
      waitUs: [0, 100],
      meanCommUs: [100, 100],
      meanComputeUs: [1000, 1000],
      meanTotalUs: [1100, 1100],
    });
    expect(p.overlap).toBeCloseTo(0.5, 12);
    expect(p.overlapMin).toBeCloseTo(0, 12);
    expect(p.overlapOfMeans).toBeCloseTo(0, 12);
  });

  it('the thread CPU clock reads this thread and moves forward', () => {
    const clock = threadCpuClock();
    if (!clock) return; // not Linux
    const a = clock.nowNs();
    busyFor(20_000);
    const b = clock.nowNs();
    clock.close();
    expect(Number.isSafeInteger(a)).toBe(true);
    expect(b).toBeGreaterThan(a);
  });

  it('work() returns an integer and calibrates to a positive number of rounds', () => {
    expect(Number.isInteger(work(3))).toBe(true);
    expect(calibrateWork(0)).toBe(0);
    expect(calibrateWork(100)).toBeGreaterThanOrEqual(1);
  });
});
