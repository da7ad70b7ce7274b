/**
 * Pairwise-exchange alltoall. P−1 steps; in step k (k = 1 … P−1) rank r exchanges
 * one block with one partner: r XOR k when P is a power of two (a perfect matching,
 * both directions at once), otherwise it sends to (r + k) mod P and receives from
 * (r − k) mod P. Its own block is a local copy. Each step waits for the previous
 * step's receive, so a rank has one exchange in flight at a time (MPICH's scheme for
 * long messages).
 * Cost (n = bytes per block): (P−1)·(α + nβ).
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import { isPowerOfTwo } from '../../schedule/partition.js';
import type { AlgorithmSpec } from '../types.js';

export const pairwise: AlgorithmSpec = {
  name: 'pairwise',
  collective: 'alltoall',
  description: 'P−1 steps of one exchange each: partner r XOR k for power-of-two P, else send to r+k and receive from r−k',
  source: 'MPICH alltoall_intra_pairwise; Thakur, Rabenseifner & Gropp 2005',
  restrictions: [],
  params: [],
  orderPreserving: true,
  cost: {
    formula: '(P−1)·(α + nβ)',
    estimate: ({ P, n, alpha, beta }) => (P - 1) * (alpha + n * beta),
  },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'pairwise');
    const { rank, size: P, count: c } = ctx;
    if (c === 0) return b.build();
    b.round = 0;
    b.copy(b.in(rank * c, c), b.out(rank * c, c));
    const xor = isPowerOfTwo(P);
    let last: number[] = [];
    for (let k = 1; k < P; k++) {
      b.round = k - 1;
      const to = xor ? rank ^ k : (rank + k) % P;
      const from = xor ? rank ^ k : (rank - k + P) % P;
      b.send(to, b.in(to * c, c), last);
      last = [b.recv(from, b.out(from * c, c), last)];
    }
    return b.build();
  },
};
