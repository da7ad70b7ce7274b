/**
 * Linear gather (MPICH/Open MPI basic linear): every non-root sends its block to the
 * root at once; the root receives block r straight into out[r·count …) and copies
 * its own. One round; the root's link carries all P−1 messages.
 * Cost: (P−1)·(α + nβ) at the root (n = bytes of one rank's block).
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import type { AlgorithmSpec } from '../types.js';

export const linear: AlgorithmSpec = {
  name: 'linear',
  collective: 'gather',
  description: 'every rank sends its block straight to the root; one round',
  source: 'MPICH gather linear / Open MPI basic_linear',
  restrictions: [],
  params: [],
  orderPreserving: true,
  cost: { formula: '(P−1)·(α + nβ)', estimate: ({ P, n, alpha, beta }) => (P - 1) * (alpha + n * beta) },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'linear');
    const { rank, size: P, root, count } = ctx;
    b.round = 0;
    if (rank !== root) {
      b.send(root, b.in(0, count));
      return b.build();
    }
    for (let r = 0; r < P; r++) {
      if (r === root) b.copy(b.in(0, count), b.out(r * count, count));
      else b.recv(r, b.out(r * count, count));
    }
    return b.build();
  },
};
