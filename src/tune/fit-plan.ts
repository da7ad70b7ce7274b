/**
 * What `coll fit` measures over the runtime and how long it may take: the ping-pong
 * size sweep, the serial-reduction testjig's process counts and series (seed 000
 * §3.2.1), and the NBL testjig's links and block sizes (seed 004 Table 1), with
 * repetition counts. `quick` keeps the whole fit under about a minute on a small
 * machine; the full plan repeats more and covers more series.
 */
import { cpus } from 'node:os';

export interface FitPlan {
  /** Ping-pong message sizes (bytes). */
  readonly pingSizes: readonly number[];
  /** Timed batches per size, and target seconds per size. */
  readonly pingBatches: number;
  readonly pingSeconds: number;
  /** Serial reduction: process counts (≥ 2) and series "op/dtype/count" (the NOP series first). */
  readonly serialProcs: readonly number[];
  readonly serialSeries: readonly string[];
  readonly serialReps: number;
  /** NBL testjig: active links and block sizes in doubles. */
  readonly nblLinks: readonly number[];
  readonly nblSizes: readonly number[];
  readonly nblReps: number;
  readonly nblBatch: number;
  /** LogGP jig: message sizes, samples per median, messages per burst (gap). */
  readonly loggpSizes: readonly number[];
  readonly loggpReps: number;
  readonly loggpBurst: number;
}

/** The NOP series of the serial-reduction testjig (c = 0). */
export const NOP_SERIES = 'noop/float64/1';

function series(ops: readonly string[], dtypes: readonly string[], counts: readonly number[]): string[] {
  const out = [NOP_SERIES];
  for (const op of ops) for (const dt of dtypes) for (const n of counts) out.push(`${op}/${dt}/${n}`);
  return out;
}

const range = (a: number, b: number): number[] => Array.from({ length: Math.max(0, b - a + 1) }, (_, i) => a + i);

export function fitPlan(quick: boolean, cores = cpus().length): FitPlan {
  const pMax = Math.min(8, Math.max(4, 4 * cores));
  return quick
    ? {
        pingSizes: [0, 64, 1024, 16384, 262144, 1 << 20, 4 << 20],
        pingBatches: 9,
        pingSeconds: 0.15,
        serialProcs: range(2, 4),
        serialSeries: series(['sum', 'max'], ['float64', 'int32'], [1, 8]),
        serialReps: 40,
        nblLinks: [1, 2, 4, 6],
        nblSizes: [60, 120, 300, 600],
        nblReps: 7,
        nblBatch: 10,
        loggpSizes: [0, 64, 1024, 16384, 262144, 1 << 20],
        loggpReps: 30,
        loggpBurst: 32,
      }
    : {
        pingSizes: [0, 8, 64, 512, 4096, 32768, 262144, 1 << 20, 4 << 20],
        pingBatches: 21,
        pingSeconds: 0.6,
        serialProcs: range(2, pMax),
        serialSeries: series(['sum', 'max'], ['float64', 'int32'], [1, 2, 4, 8]),
        serialReps: 150,
        nblLinks: [1, 2, 4, 6],
        nblSizes: [60, 120, 300, 600],
        nblReps: 21,
        nblBatch: 20,
        loggpSizes: [0, 8, 64, 1024, 16384, 262144, 1 << 20],
        loggpReps: 100,
        loggpBurst: 64,
      };
}
