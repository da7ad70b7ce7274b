/**
 * Rank program: the NBL testjig of seed 004 Table 1. Rank 0 is the central node and
 * ranks 1..3 its neighbours. With L = 1 the centre only receives a block from
 * neighbour 1; with L = 2, 4, 6 it exchanges blocks (sends and receives at once)
 * with 1, 2, 3 neighbours, so L links are active. Blocks are S doubles. One sample
 * is a batch of `batch` back-to-back steps divided by `batch` (steady state, no
 * barrier inside the batch); the median over `reps` batches is reported. Run it on
 * 4 nodes for links between processes (TCP) and on 1 node for links inside a node.
 * Argument: JSON { links, sizes, reps, batch }; prints one `nbl` record per (L, S).
 */
import { init, waitAll } from '../../index.js';
import { emitRecord } from './protocol.js';
import { nowSeconds, summarize } from './timing.js';

interface Config {
  /** Active links: 1 (receive only), 2, 4, 6. */
  readonly links: readonly number[];
  /** Block sizes in doubles. */
  readonly sizes: readonly number[];
  readonly reps: number;
  readonly batch: number;
}

const cfg = JSON.parse(process.argv[2] ?? '{}') as Config;
const comm = init();
if (comm.size < 4) throw new Error(`the NBL jig needs 4 ranks (a centre and 3 neighbours), got ${comm.size}`);
const TAG = 13;

/** One step for this rank: which peers it sends to and receives from. */
function roles(L: number): { sendTo: number[]; recvFrom: number[] } {
  const k = L === 1 ? 1 : L / 2;
  if (comm.rank === 0) return { sendTo: L === 1 ? [] : Array.from({ length: k }, (_, i) => i + 1), recvFrom: Array.from({ length: k }, (_, i) => i + 1) };
  if (comm.rank > k) return { sendTo: [], recvFrom: [] };
  return { sendTo: [0], recvFrom: L === 1 ? [] : [0] };
}

for (const L of cfg.links) {
  if (L !== 1 && L !== 2 && L !== 4 && L !== 6) throw new Error(`NBL jig: L must be 1, 2, 4 or 6, got ${L}`);
  const { sendTo, recvFrom } = roles(L);
  for (const S of cfg.sizes) {
    const out = sendTo.map(() => comm.alloc('float64', S).fill(1));
    const inb = recvFrom.map(() => comm.alloc('float64', S));
    const step = (): void => {
      const recvs = recvFrom.map((p, i) => comm.irecv(inb[i], p, TAG));
      const sends = sendTo.map((p, i) => comm.isend(out[i], p, TAG));
      waitAll(recvs);
      waitAll(sends);
    };
    const samples: number[] = [];
    for (let rep = -2; rep < cfg.reps; rep++) {
      comm.barrier();
      const t0 = nowSeconds();
      for (let i = 0; i < cfg.batch; i++) step();
      if (rep >= 0) samples.push((nowSeconds() - t0) / cfg.batch);
    }
    if (comm.rank === 0) {
      const m = summarize(samples);
      emitRecord({ jig: 'nbl', L, S, seconds: m.median, reps: m.reps * cfg.batch, spread: m.spread });
    }
    for (const b of [...out, ...inb]) comm.free(b);
  }
}
comm.barrier();
