/**
 * k-nomial tree broadcast. With virtual rank v = (rank − root) mod P written in
 * base k, v receives from its parent (v with its lowest non-zero digit cleared) and
 * then, for every stride s = k^i below its lowest non-zero digit (the root: every
 * k^i < P), farthest stride first, sends to v + j·s for j = 1..k−1 (v + j·s < P).
 * The child v + j·s roots the ids [v + j·s, v + (j+1)·s). k = 2 is the binomial tree.
 *
 * Rounds (one-port): with L = ⌈log_k P⌉, stage t = L−1−i uses stride k^i, and the
 * send to the j-th child of that stage is round t·(k−1) + j−1, so there are
 * (L−1)·(k−1) + min(k−1, P−1) rounds (= L·(k−1) when P ≥ k).
 * Cost: ⌈log_k P⌉·(k−1)·(α + nβ).
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import { ceilLog } from '../../schedule/partition.js';
import type { AlgorithmSpec } from '../types.js';

/** Parent of virtual rank v ≥ 1 in the k-nomial tree: v with its lowest non-zero base-k digit cleared. */
export function knomialParent(v: number, k: number): number {
  let s = 1;
  while (Math.floor(v / s) % k === 0) s *= k;
  return v - (Math.floor(v / s) % k) * s;
}

export const knomial: AlgorithmSpec = {
  name: 'knomial',
  collective: 'bcast',
  description: 'k-nomial tree rooted at root; ⌈log_k P⌉ stages of up to k−1 sends, whole vector per message',
  source: 'MPICH treealgo knomial, Open MPI bcast alg 7 (knomial), UCC knomial; seed 000 Appendix A tree arithmetic',
  restrictions: [],
  params: [
    { name: 'k', description: 'tree radix: children per stage + 1 (2 = binomial)', type: 'int', default: 4, min: 2, max: 1 << 20 },
  ],
  orderPreserving: true,
  cost: {
    formula: '⌈log_k P⌉·(k−1)·(α + nβ)',
    estimate: ({ P, n, alpha, beta, params }) => {
      const k = Number(params.k ?? 4);
      return ceilLog(P, k) * (k - 1) * (alpha + n * beta);
    },
  },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'knomial');
    const { rank, size: P, root, count } = ctx;
    const k = Number(ctx.params.k);
    const L = ceilLog(P, k);
    const v = (rank - root + P) % P;
    const real = (u: number): number => (u + root) % P;
    const data = b.out(0, count);
    let deps: number[] = [];
    // Stride of v's lowest non-zero digit (for the root: k^L, above every child stride).
    let low = 1;
    for (let i = 0; i < L; i++) low *= k;
    if (v !== 0) {
      low = 1;
      while (Math.floor(v / low) % k === 0) low *= k;
      const j = Math.floor(v / low) % k;
      const stage = L - 1 - ceilLog(low, k);
      b.round = stage * (k - 1) + j - 1;
      deps = [b.recv(real(v - j * low), data)];
    }
    for (let s = low / k, i = ceilLog(low, k) - 1; s >= 1; s /= k, i--) {
      const stage = L - 1 - i;
      for (let j = 1; j < k && v + j * s < P; j++) {
        b.round = stage * (k - 1) + j - 1;
        b.send(real(v + j * s), data, deps);
      }
    }
    return b.build();
  },
};
