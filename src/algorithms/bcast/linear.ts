/**
 * Linear broadcast (the host-level view of NIC multisend, seed 003 ch. 6 / §3 A8):
 * the root sends the whole vector to every other rank, in the order root+1,
 * root+2, … (mod P); in the one-port model the i-th destination is served in round
 * i−1, so P−1 messages and P−1 rounds.
 * Cost: (P−1)·(α + nβ).
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import type { AlgorithmSpec } from '../types.js';

export const linear: AlgorithmSpec = {
  name: 'linear',
  collective: 'bcast',
  description: 'the root sends the whole vector to every other rank in turn (multisend); P−1 messages',
  source: 'seed 003 ch. 6 multisend (M7, §3 A8); Open MPI bcast basic linear',
  restrictions: [],
  params: [],
  orderPreserving: true,
  cost: { formula: '(P−1)·(α + nβ)', estimate: ({ P, n, alpha, beta }) => (P - 1) * (alpha + n * beta) },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'linear');
    const { rank, size: P, root, count } = ctx;
    const data = b.out(0, count);
    const v = (rank - root + P) % P;
    if (v === 0) {
      for (let i = 1; i < P; i++) {
        b.round = i - 1;
        b.send((root + i) % P, data);
      }
    } else {
      b.round = v - 1;
      b.recv(root, data);
    }
    return b.build();
  },
};
