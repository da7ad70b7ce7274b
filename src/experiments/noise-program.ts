/**
 * Rank program of the noise-immunity experiment (seed 000 §5.4.1, Fig. 5.5, Table
 * 5.1), run in every rank by `coll experiment noise` (noise.ts).
 *
 * Method: `warmup` untimed calls, then `iterations` individually timed allreduce
 * calls (float64 sum of `count` elements, from and into comm.alloc() buffers, so the
 * offload engine works on them in place), with a barrier before each call, as the
 * thesis inserts a (hardware) barrier between reductions. The separating barrier
 * always runs in host mode and is not timed; only the allreduce runs in the variant's
 * mode. Each rank times its own calls with performance.now(); the samples (µs) of
 * every rank are gathered to rank 0, which prints them as `EXP SAMPLES` records (base64
 * float32). The injected OS noise, if any, comes from COLL_NOISE, set by the driver.
 * The first result is checked against the expected sum.
 *
 * Argument: the JSON of a NoiseProgramConfig.
 */
import { init } from '../runtime/init.js';
import type { Communicator, ReductionOptions } from '../runtime/communicator.js';
import { emit, programConfig, Progress } from './program-io.js';
import { encodeSamples } from './job.js';
import { variantMode, type Variant } from './variants.js';

export interface NoiseProgramConfig {
  readonly variant: Variant;
  readonly iterations: number;
  readonly warmup: number;
  /** float64 elements per rank. */
  readonly count: number;
}

export interface NoiseSamplesRecord {
  readonly variant: Variant;
  readonly rank: number;
  readonly node: number;
  /** base64 of the float32 samples (µs), in call order. */
  readonly samples: string;
}

export interface NoiseDoneRecord {
  readonly variant: Variant;
  readonly ranks: number;
  readonly nodes: number;
  /** The host algorithm that ran (host variants) or the mode. */
  readonly algorithm: string;
  readonly seconds: number;
}

export function runNoiseProgram(comm: Communicator, c: NoiseProgramConfig): void {
  const mode = variantMode(c.variant);
  // Host mode: no options, so small sums take the runtime's shared-memory fast path.
  const o: ReductionOptions | undefined = mode === 'host' ? undefined : { mode };
  const send = comm.alloc('float64', c.count);
  const recv = comm.alloc('float64', c.count);
  send.fill(comm.rank + 1);
  const expected = (comm.size * (comm.size + 1)) / 2;
  const started = performance.now();
  comm.barrier();
  comm.allreduce(send, recv, o);
  if (recv[0] !== expected || recv[c.count - 1] !== expected) throw new Error(`allreduce (${c.variant}) gave ${recv[0]}, expected ${expected}`);
  for (let i = 0; i < c.warmup; i++) {
    comm.barrier();
    comm.allreduce(send, recv, o);
  }
  const samples = new Float64Array(c.iterations);
  const progress = new Progress(comm, c.iterations);
  for (let i = 0; i < c.iterations; i++) {
    comm.barrier();
    const t0 = performance.now();
    comm.allreduce(send, recv, o);
    samples[i] = (performance.now() - t0) * 1000;
    progress.step();
  }
  progress.finish();
  const all = comm.gather(samples, comm.rank === 0 ? new Float64Array(c.iterations * comm.size) : null);
  const nodes = comm.gather(Int32Array.of(comm.nodeRank), comm.rank === 0 ? new Int32Array(comm.size) : null);
  if (all && nodes) {
    for (let r = 0; r < comm.size; r++) {
      const rec: NoiseSamplesRecord = { variant: c.variant, rank: r, node: nodes[r], samples: encodeSamples(all.subarray(r * c.iterations, (r + 1) * c.iterations)) };
      emit(comm, 'SAMPLES', rec);
    }
    const algorithm = mode === 'host' ? comm.algorithmFor('allreduce', c.count, { datatype: 'float64', op: 'sum', blocking: true }) : mode;
    const done: NoiseDoneRecord = { variant: c.variant, ranks: comm.size, nodes: comm.nodeCount, algorithm, seconds: (performance.now() - started) / 1000 };
    emit(comm, 'DONE', done);
  }
  comm.free(send);
  comm.free(recv);
}

const config = programConfig<NoiseProgramConfig>();
if (config) runNoiseProgram(init(), config);
