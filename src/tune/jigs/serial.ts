/**
 * Rank program: the serial-reduction testjig of seed 000 §3.2.1. For each P in
 * `procs` (sub-communicators of the first P ranks of the job) and each series
 * op/dtype/count: after a barrier every non-root sends its vector to the root at
 * once; the root, which posted all receives, waits for them in rank order and
 * combines each into its accumulator with the core kernel (nothing for `noop`); a
 * one-byte broadcast from the root then releases everyone. The root's time from the
 * barrier to its last combine is one sample (the broadcast only signals completion
 * and is not timed). Argument: JSON { procs, series, reps }; prints one `serial`
 * record (median over reps) per (P, series).
 */
import { init, resolveKernel, type DatatypeName } from '../../index.js';
import { emitRecord } from './protocol.js';
import { nowSeconds, summarize } from './timing.js';

interface Config {
  readonly procs: readonly number[];
  /** "op/dtype/count", e.g. "noop/float64/1", "sum/int32/8". */
  readonly series: readonly string[];
  readonly reps: number;
}

const cfg = JSON.parse(process.argv[2] ?? '{}') as Config;
const world = init();
const TAG = 11;
const bytesOf = (v: ArrayBufferView): Uint8Array => new Uint8Array(v.buffer, v.byteOffset, v.byteLength);

for (const P of cfg.procs) {
  if (P > world.size) throw new Error(`serial jig: P = ${P} but the job has ${world.size} ranks`);
  const comm = world.split(world.rank < P ? 0 : null);
  if (comm) {
    const flag = new Uint8Array(1);
    for (const series of cfg.series) {
      const [op, dt, c] = series.split('/');
      const dtype = dt as DatatypeName;
      const count = Number(c);
      const kernel = resolveKernel(op, dtype);
      const mine = comm.alloc(dtype, count);
      const acc = comm.alloc(dtype, count);
      const inbox = comm.rank === 0 ? Array.from({ length: P - 1 }, () => comm.alloc(dtype, count)) : [];
      const samples: number[] = [];
      for (let rep = -3; rep < cfg.reps; rep++) {
        if (comm.rank === 0) {
          const reqs = inbox.map((b, i) => comm.irecv(b, i + 1, TAG));
          comm.barrier();
          const t0 = nowSeconds();
          bytesOf(acc).set(bytesOf(mine));
          for (let i = 0; i < reqs.length; i++) {
            reqs[i].wait();
            if (op !== 'noop') kernel(acc, acc, inbox[i], count);
          }
          const t = nowSeconds() - t0;
          if (rep >= 0) samples.push(t);
        } else {
          comm.barrier();
          comm.send(mine, 0, TAG);
        }
        comm.bcast(flag, { root: 0 });
      }
      if (comm.rank === 0) {
        const m = summarize(samples);
        emitRecord({ jig: 'serial', P, series, seconds: m.median, reps: m.reps, spread: m.spread });
      }
    }
  }
  world.barrier();
}
