/**
 * Recursive-doubling allgather. In round k rank r exchanges with r XOR 2^k the 2^k
 * blocks its group of 2^k ranks already holds (contiguous: ranks ⌊r/2^k⌋·2^k …) and
 * receives the partner group's 2^k blocks, so the data doubles every round; after
 * lg P rounds every rank holds all P blocks in place. P must be a power of two
 * (fallback: Bruck, which works for any P).
 * Cost (n = bytes per block): lg P·α + (P−1)·nβ.
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import { ceilLog } from '../../schedule/partition.js';
import { powerOfTwo } from '../restrictions.js';
import type { AlgorithmSpec } from '../types.js';

export const recursiveDoubling: AlgorithmSpec = {
  name: 'recursive_doubling',
  collective: 'allgather',
  description: 'butterfly exchange, data doubling each round; lg P rounds, power-of-two P',
  source: 'MPICH allgather_intra_recursive_doubling; Thakur, Rabenseifner & Gropp 2005; seed 003 M14 (NIC-RD)',
  restrictions: [powerOfTwo],
  params: [],
  orderPreserving: true,
  fallback: 'bruck',
  cost: {
    formula: 'lg P·α + (P−1)·nβ',
    estimate: ({ P, n, alpha, beta }) => ceilLog(P) * alpha + (P - 1) * n * beta,
  },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'recursive_doubling');
    const { rank, size: P, count } = ctx;
    if (count === 0) return b.build();
    b.round = 0;
    let last = [b.copy(b.in(0, count), b.out(rank * count, count))];
    for (let d = 1, k = 0; d < P; d <<= 1, k++) {
      b.round = k;
      const partner = rank ^ d;
      const mine = Math.floor(rank / d) * d;
      const theirs = Math.floor(partner / d) * d;
      const [, r] = b.exchange(partner, b.out(mine * count, d * count), b.out(theirs * count, d * count), last);
      last = [...last, r];
    }
    return b.build();
  },
};
