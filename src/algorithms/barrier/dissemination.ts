/**
 * Dissemination barrier (Hensgen, Finkel, Manber). In round k every rank signals
 * rank + 2^k and waits for rank − 2^k (mod P); after ⌈lg P⌉ rounds every rank has
 * heard, directly or indirectly, from every other. Works for any P.
 * Cost: ⌈lg P⌉·α.
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import { ceilLog } from '../../schedule/partition.js';
import type { AlgorithmSpec } from '../types.js';

export const dissemination: AlgorithmSpec = {
  name: 'dissemination',
  collective: 'barrier',
  description: 'round k: signal rank+2^k, wait for rank-2^k (mod P); ⌈lg P⌉ rounds, any P',
  source: 'Hensgen/Finkel/Manber; seed 003 ch. 6 (NIC-based barrier, DS)',
  restrictions: [],
  params: [],
  orderPreserving: true,
  cost: { formula: '⌈lg P⌉·α', estimate: ({ P, alpha }) => ceilLog(P) * alpha },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'dissemination');
    const { rank, size: P } = ctx;
    let prev: number[] = [];
    for (let k = 0, d = 1; d < P; k++, d *= 2) {
      b.round = k;
      prev = [b.send((rank + d) % P, b.in(0, 0), prev), b.recv((rank - d + P) % P, b.in(0, 0), prev)];
    }
    return b.build();
  },
};
