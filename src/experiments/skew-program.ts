/**
 * Rank program of the skew-tolerance experiment (seed 003 A19, Fig. 6.10), run in
 * every rank by `coll experiment skew` (skew.ts).
 *
 * Method, for each average skew A (µs) and each repetition: `iterations` times, a
 * (host) barrier; every non-root rank draws s from U(−max/2, +max/2) with max = 3A
 * (the seed: the average distance between two uniform arrival times on [0, max] is
 * max/3) and, when s > 0, busy-computes s µs; the root enters at once; then the rank
 * calls the collective (barrier or bcast of `bytes` from a comm.alloc() buffer) in the
 * variant's mode. Around the call it reads its thread's CPU clock (cpu-time.ts) and
 * the wall clock. Draws come from a PRNG seeded by (seed, rank, skew index,
 * repetition), so every run enters with the same skews.
 *
 * Each rank reports per (skew, repetition) the mean and median CPU time and wall time
 * in the call; rank 0 prints them as `EXP SKEW` records. Before measuring, each rank
 * calibrates the cost of an empty measured interval (`EXP CALIBRATION`), which the
 * driver subtracts.
 *
 * Argument: the JSON of a SkewProgramConfig.
 */
import { prng } from '../core/random.js';
import { init } from '../runtime/init.js';
import type { CollectiveOptions, Communicator } from '../runtime/communicator.js';
import { calibrateCpuOverhead, threadCpuClock } from './cpu-time.js';
import { emit, programConfig, Progress } from './program-io.js';
import { meanSd, median } from './stats.js';
import { variantMode, type Variant } from './variants.js';
import { busyFor } from './work.js';

export type SkewCollective = 'barrier' | 'bcast';

export interface SkewProgramConfig {
  readonly variant: Variant;
  readonly collectives: readonly SkewCollective[];
  /** Average skews (µs); max = 3 × average. */
  readonly skewsUs: readonly number[];
  readonly iterations: number;
  readonly warmup: number;
  readonly repetitions: number;
  /** bcast message size. */
  readonly bytes: number;
  readonly seed: number;
}

/** Per-rank statistics of one (collective, skew, repetition), in rank order. */
export interface SkewRecord {
  readonly variant: Variant;
  readonly collective: SkewCollective;
  readonly skewUs: number;
  readonly repetition: number;
  readonly cpuMeanUs: number[];
  readonly cpuMedianUs: number[];
  readonly wallMeanUs: number[];
  readonly wallMedianUs: number[];
  /** Mean positive skew actually computed per rank (µs). */
  readonly computedMeanUs: number[];
}

export interface SkewCalibrationRecord {
  readonly variant: Variant;
  /** CPU cost (µs) of an empty measured interval, per rank. */
  readonly overheadUs: number[];
  readonly ranks: number;
  readonly nodes: number;
}

const ROOT = 0;

/** The skew seed of one rank, skew point and repetition. */
export function skewSeed(seed: number, rank: number, skewIndex: number, repetition: number): number {
  return (Math.imul(seed, 0x9e3779b1) ^ Math.imul(rank + 1, 0x85ebca6b) ^ Math.imul(skewIndex + 1, 0xc2b2ae35) ^ Math.imul(repetition + 1, 0x27d4eb2f)) >>> 0;
}

export function runSkewProgram(comm: Communicator, c: SkewProgramConfig): void {
  const clock = threadCpuClock();
  if (!clock) throw new Error('this system has no per-thread CPU clock (/proc/thread-self/schedstat)');
  const mode = variantMode(c.variant);
  const o: CollectiveOptions | undefined = mode === 'host' ? undefined : { mode };
  const buf = comm.alloc('uint8', Math.max(1, c.bytes));
  const call: Record<SkewCollective, () => void> = {
    barrier: () => comm.barrier(o),
    bcast: () => comm.bcast(buf, o),
  };
  // Warm up every collective in this mode, then calibrate the clock.
  for (const k of c.collectives) {
    for (let i = 0; i < c.warmup; i++) {
      comm.barrier();
      call[k]();
    }
  }
  if (comm.rank === ROOT) buf.fill(7);
  comm.bcast(buf, o);
  if (buf[buf.length - 1] !== 7) throw new Error(`bcast (${c.variant}) did not deliver the root's data`);
  const overhead = calibrateCpuOverhead(clock, 500);
  const overheads = comm.gather(Float64Array.of(overhead), comm.rank === 0 ? new Float64Array(comm.size) : null);
  if (overheads) emit(comm, 'CALIBRATION', { variant: c.variant, overheadUs: [...overheads], ranks: comm.size, nodes: comm.nodeCount } satisfies SkewCalibrationRecord);

  const cpu = new Float64Array(c.iterations);
  const wall = new Float64Array(c.iterations);
  const progress = new Progress(comm, c.collectives.length * c.skewsUs.length * c.repetitions * c.iterations);
  for (const k of c.collectives) {
    const fn = call[k];
    c.skewsUs.forEach((avg, si) => {
      const max = 3 * avg;
      for (let rep = 0; rep < c.repetitions; rep++) {
        const rand = prng(skewSeed(c.seed, comm.rank, si, rep));
        let computed = 0;
        for (let i = 0; i < c.iterations; i++) {
          const s = (rand() - 0.5) * max;
          comm.barrier();
          if (comm.rank !== ROOT && s > 0) {
            busyFor(s);
            computed += s;
          }
          const c0 = clock.nowNs();
          const t0 = performance.now();
          fn();
          const t1 = performance.now();
          const c1 = clock.nowNs();
          cpu[i] = (c1 - c0) / 1000;
          wall[i] = (t1 - t0) * 1000;
          progress.step();
        }
        const mine = Float64Array.of(meanSd(cpu).mean, median(cpu), meanSd(wall).mean, median(wall), computed / c.iterations);
        const all = comm.gather(mine, comm.rank === 0 ? new Float64Array(5 * comm.size) : null);
        if (all) {
          const col = (j: number): number[] => Array.from({ length: comm.size }, (_, r) => all[5 * r + j]);
          const rec: SkewRecord = {
            variant: c.variant,
            collective: k,
            skewUs: avg,
            repetition: rep,
            cpuMeanUs: col(0),
            cpuMedianUs: col(1),
            wallMeanUs: col(2),
            wallMedianUs: col(3),
            computedMeanUs: col(4),
          };
          emit(comm, 'SKEW', rec);
        }
      }
    });
  }
  progress.finish();
  clock.close();
  comm.free(buf);
}

const config = programConfig<SkewProgramConfig>();
if (config) runSkewProgram(init(), config);
