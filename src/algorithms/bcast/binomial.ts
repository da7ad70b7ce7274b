/**
 * Binomial-tree broadcast. With virtual rank v = (rank − root) mod P, rank v
 * receives from v − lowbit(v) and then sends to v + 2^k for every 2^k < lowbit(v)
 * (the root: every 2^k < P), farthest child first. ⌈lg P⌉ rounds, any P and root.
 * Cost: ⌈lg P⌉·(α + nβ).
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import { ceilLog } from '../../schedule/partition.js';
import type { AlgorithmSpec } from '../types.js';

export const binomial: AlgorithmSpec = {
  name: 'binomial',
  collective: 'bcast',
  description: 'binomial tree rooted at root; ⌈lg P⌉ rounds, whole vector per message',
  source: 'MPICH/Open MPI binomial; seed 001 Fig. 2',
  restrictions: [],
  params: [],
  orderPreserving: true,
  cost: { formula: '⌈lg P⌉·(α + nβ)', estimate: ({ P, n, alpha, beta }) => ceilLog(P) * (alpha + n * beta) },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'binomial');
    const { rank, size: P, root, count } = ctx;
    const L = ceilLog(P);
    const v = (rank - root + P) % P;
    const data = b.out(0, count);
    let deps: number[] = [];
    // Lowest set bit of v (for the root: 2^L, i.e. above every child distance).
    let low = 1 << L;
    if (v !== 0) {
      low = v & -v;
      b.round = L - 1 - Math.log2(low);
      deps = [b.recv((v - low + root) % P, data)];
    }
    for (let d = low >> 1; d >= 1; d >>= 1) {
      if (v + d < P) {
        b.round = L - 1 - Math.log2(d);
        b.send((v + d + root) % P, data, deps);
      }
    }
    return b.build();
  },
};
