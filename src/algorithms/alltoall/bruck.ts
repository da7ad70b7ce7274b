/**
 * Bruck alltoall (index algorithm). Phase 1 rotates locally: position j of a scratch
 * vector gets the block for rank (r + j) mod P. Phase 2, for k = 0 … ⌈lg P⌉−1: pack
 * every position j whose bit k is set (runs of 2^k consecutive positions) into one
 * message, send it to (r + 2^k) mod P, receive the same positions from (r − 2^k) mod P
 * and unpack them in place. A block at position j has then travelled j ranks, so
 * position j holds the block from rank (r − j) mod P. Phase 3 copies it to
 * OUT[(r − j) mod P] (the inverse rotation). Any P; ⌈lg P⌉ messages per rank, each of
 * about P/2 blocks.
 * Cost (n = bytes per block): Σ_k (α + m_k·nβ) with m_k = #{j < P : bit k of j set}
 * ≈ ⌈lg P⌉·(α + (P/2)·nβ), plus the local copies.
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import { ceilLog } from '../../schedule/partition.js';
import type { AlgorithmSpec } from '../types.js';

/** Runs [start, end) of positions j < P with bit k set. */
function runs(P: number, k: number): [number, number][] {
  const d = 1 << k;
  const out: [number, number][] = [];
  for (let s = d; s < P; s += 2 * d) out.push([s, Math.min(s + d, P)]);
  return out;
}

/** Number of positions j < P with bit k set. */
export function bruckBlocks(P: number, k: number): number {
  return runs(P, k).reduce((n, [s, e]) => n + e - s, 0);
}

export const bruck: AlgorithmSpec = {
  name: 'bruck',
  collective: 'alltoall',
  description: 'local rotation, ⌈lg P⌉ rounds sending the blocks whose index has bit k set to r + 2^k, inverse rotation; any P',
  source: 'Bruck et al. 1997; MPICH alltoall_intra_brucks',
  restrictions: [],
  params: [],
  orderPreserving: true,
  cost: {
    formula: 'Σ_k (α + m_k·nβ), m_k = #{j < P : bit k of j set} ≈ ⌈lg P⌉·(α + (P/2)·nβ)',
    estimate: ({ P, n, alpha, beta }) => {
      let t = 0;
      for (let k = 0; k < ceilLog(P); k++) t += alpha + bruckBlocks(P, k) * n * beta;
      return t;
    },
  },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'bruck');
    const { rank: r, size: P, count: c } = ctx;
    if (c === 0) return b.build();
    if (P === 1) {
      b.copy(b.in(0, c), b.out(0, c));
      return b.build();
    }
    const L = ceilLog(P);
    const tmp = b.scratch(P * c, 'rotated');
    const maxBlocks = Math.max(...Array.from({ length: L }, (_, k) => bruckBlocks(P, k)));
    const pack = b.scratch(maxBlocks * c, 'pack');
    const unpack = b.scratch(maxBlocks * c, 'unpack');
    // Phase 1: tmp[j] = IN[(r + j) mod P].
    b.round = 0;
    b.phase = 'rotate';
    const head = P - r;
    let last = [b.copy(b.in(r * c, head * c), b.region(tmp, 0, head * c))];
    if (r > 0) last.push(b.copy(b.in(0, r * c), b.region(tmp, head * c, r * c)));
    // Phase 2.
    b.phase = 'exchange';
    for (let k = 0; k < L; k++) {
      b.round = k;
      const d = 1 << k;
      const rs = runs(P, k);
      const m = bruckBlocks(P, k);
      const packs: number[] = [];
      let off = 0;
      for (const [s, e] of rs) {
        packs.push(b.copy(b.region(tmp, s * c, (e - s) * c), b.region(pack, off * c, (e - s) * c), last));
        off += e - s;
      }
      const snd = b.send((r + d) % P, b.region(pack, 0, m * c), packs);
      const rcv = b.recv((r - d + P) % P, b.region(unpack, 0, m * c), last);
      last = [snd];
      off = 0;
      for (const [s, e] of rs) {
        last.push(b.copy(b.region(unpack, off * c, (e - s) * c), b.region(tmp, s * c, (e - s) * c), [rcv, ...packs]));
        off += e - s;
      }
    }
    // Phase 3: OUT[(r − j) mod P] = tmp[j].
    b.round = L - 1;
    b.phase = 'unrotate';
    for (let j = 0; j < P; j++) b.copy(b.region(tmp, j * c, c), b.out(((r - j + P) % P) * c, c), last);
    return b.build();
  },
};
