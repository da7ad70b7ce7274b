/**
 * Rank program of the overlap experiment, run in every rank by
 * `coll experiment overlap` (overlap.ts).
 *
 * Method (the usual overlap benchmark, e.g. OSU's nonblocking collectives): a fixed
 * amount of computation (work.ts, calibrated once on rank 0 to take `computeUs` alone
 * and broadcast, so every rank does the same work) and a nonblocking allreduce
 * (float64 sum of `bytes` per rank, from and into comm.alloc() buffers) in the
 * variant's mode. Each iteration takes three barrier-separated measurements:
 *
 *   t_comm    = iallreduce(); wait()                      (communication alone)
 *   t_compute = work()                                    (computation alone)
 *   t_total   = iallreduce(); work(); wait()              (posted before the computation)
 *
 * and the parts of t_total: the post (iallreduce() returning), the computation while
 * the collective is in flight, and the final wait. The computation makes no library
 * call, so a host-mode collective can only progress in the post and the wait, while
 * an offloaded one is run by the engine meanwhile. The result is checked every
 * iteration. Each rank reports the medians of these times over the iterations; rank 0
 * prints them as one `EXP OVERLAP` record per message size.
 *
 * Argument: the JSON of an OverlapProgramConfig.
 */
import { init } from '../runtime/init.js';
import type { Communicator, ReductionOptions } from '../runtime/communicator.js';
import { emit, programConfig, Progress } from './program-io.js';
import { median } from './stats.js';
import { variantMode, type Variant } from './variants.js';
import { calibrateWork, work } from './work.js';

export interface OverlapProgramConfig {
  readonly variant: Variant;
  /** Message sizes (bytes per rank). */
  readonly bytes: readonly number[];
  readonly computeUs: number;
  readonly iterations: number;
  readonly warmup: number;
}

/** Medians over the iterations (µs), one entry per rank. */
export interface OverlapRecord {
  readonly variant: Variant;
  readonly bytes: number;
  readonly computeRounds: number;
  readonly commUs: number[];
  readonly computeUs: number[];
  readonly totalUs: number[];
  readonly postUs: number[];
  readonly overlappedComputeUs: number[];
  readonly waitUs: number[];
  /** Means over the iterations of t_comm, t_compute and t_total (µs), per rank. */
  readonly meanCommUs: number[];
  readonly meanComputeUs: number[];
  readonly meanTotalUs: number[];
}

const FIELDS = 9;

export function runOverlapProgram(comm: Communicator, c: OverlapProgramConfig): void {
  const mode = variantMode(c.variant);
  const o: ReductionOptions | undefined = mode === 'host' ? undefined : { mode };
  const rounds = comm.bcast(Float64Array.of(comm.rank === 0 ? calibrateWork(c.computeUs) : 0))[0];
  const progress = new Progress(comm, c.bytes.length * c.iterations);
  for (const bytes of c.bytes) {
    const count = Math.max(1, Math.floor(bytes / 8));
    const send = comm.alloc('float64', count);
    const recv = comm.alloc('float64', count);
    send.fill(comm.rank + 1);
    const expected = (comm.size * (comm.size + 1)) / 2;
    const check = (): void => {
      if (recv[0] !== expected || recv[count - 1] !== expected) throw new Error(`iallreduce (${c.variant}, ${bytes} B) gave ${recv[0]}, expected ${expected}`);
      recv[0] = recv[count - 1] = 0;
    };
    for (let i = 0; i < c.warmup; i++) {
      comm.barrier();
      comm.iallreduce(send, recv, o).wait();
      work(rounds >> 4);
    }
    const t = Array.from({ length: 6 }, () => new Float64Array(c.iterations));
    const [tComm, tCompute, tTotal, tPost, tOver, tWait] = t;
    for (let i = 0; i < c.iterations; i++) {
      comm.barrier();
      let t0 = performance.now();
      comm.iallreduce(send, recv, o).wait();
      tComm[i] = (performance.now() - t0) * 1000;
      check();

      comm.barrier();
      t0 = performance.now();
      work(rounds);
      tCompute[i] = (performance.now() - t0) * 1000;

      comm.barrier();
      t0 = performance.now();
      const req = comm.iallreduce(send, recv, o);
      const t1 = performance.now();
      work(rounds);
      const t2 = performance.now();
      req.wait();
      const t3 = performance.now();
      tTotal[i] = (t3 - t0) * 1000;
      tPost[i] = (t1 - t0) * 1000;
      tOver[i] = (t2 - t1) * 1000;
      tWait[i] = (t3 - t2) * 1000;
      check();
      progress.step();
    }
    const mean = (x: Float64Array): number => x.reduce((a, b) => a + b, 0) / x.length;
    const mine = Float64Array.of(...t.map((x) => median(x)), mean(tComm), mean(tCompute), mean(tTotal));
    const all = comm.gather(mine, comm.rank === 0 ? new Float64Array(FIELDS * comm.size) : null);
    if (all) {
      const col = (j: number): number[] => Array.from({ length: comm.size }, (_, r) => all[FIELDS * r + j]);
      const rec: OverlapRecord = {
        variant: c.variant,
        bytes: count * 8,
        computeRounds: rounds,
        commUs: col(0),
        computeUs: col(1),
        totalUs: col(2),
        postUs: col(3),
        overlappedComputeUs: col(4),
        waitUs: col(5),
        meanCommUs: col(6),
        meanComputeUs: col(7),
        meanTotalUs: col(8),
      };
      emit(comm, 'OVERLAP', rec);
    }
    comm.free(send);
    comm.free(recv);
  }
  progress.finish();
}

const config = programConfig<OverlapProgramConfig>();
if (config) runOverlapProgram(init(), config);
