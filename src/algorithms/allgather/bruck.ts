/**
 * Bruck allgather (concatenation). Rank r keeps a scratch vector whose position j
 * will hold the block of rank (r + j) mod P; it starts with its own block at 0. In
 * round k (distance d = 2^k) it sends its first min(d, P − d) blocks to (r − d) mod P
 * and appends the same number received from (r + d) mod P at position d. After
 * ⌈lg P⌉ rounds all P blocks are there, and a final rotation (two copies) puts block
 * j at OUT[(r + j) mod P]. Any P.
 * Cost (n = bytes per block): ⌈lg P⌉·α + (P−1)·nβ (+ the local rotation).
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import { ceilLog } from '../../schedule/partition.js';
import type { AlgorithmSpec } from '../types.js';

export const bruck: AlgorithmSpec = {
  name: 'bruck',
  collective: 'allgather',
  description: 'dissemination-style concatenation at distances 2^k with a final local rotation; ⌈lg P⌉ rounds, any P',
  source: 'Bruck et al. 1997; MPICH allgather_intra_brucks',
  restrictions: [],
  params: [],
  orderPreserving: true,
  cost: {
    formula: '⌈lg P⌉·α + (P−1)·nβ',
    estimate: ({ P, n, alpha, beta }) => ceilLog(P) * alpha + (P - 1) * n * beta,
  },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'bruck');
    const { rank, size: P, count: c } = ctx;
    if (c === 0) return b.build();
    if (P === 1) {
      b.copy(b.in(0, c), b.out(0, c));
      return b.build();
    }
    const L = ceilLog(P);
    const tmp = b.scratch(P * c, 'rotated');
    b.round = 0;
    const deps = [b.copy(b.in(0, c), b.region(tmp, 0, c))];
    for (let k = 0, d = 1; d < P; k++, d <<= 1) {
      b.round = k;
      const m = Math.min(d, P - d);
      b.send((rank - d + P) % P, b.region(tmp, 0, m * c), deps);
      deps.push(b.recv((rank + d) % P, b.region(tmp, d * c, m * c)));
    }
    // Final rotation: tmp[j] is the block of rank (rank + j) mod P.
    b.round = L - 1;
    b.phase = 'rotate';
    const head = P - rank;
    b.copy(b.region(tmp, 0, head * c), b.out(rank * c, head * c), deps);
    if (rank > 0) b.copy(b.region(tmp, head * c, rank * c), b.out(0, rank * c), deps);
    return b.build();
  },
};
