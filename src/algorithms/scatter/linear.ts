/**
 * Linear scatter (MPICH/Open MPI basic linear): the root sends block r of its input
 * to every rank r ≠ root, in rank order, all at once, and copies its own block.
 * One round; the root's link carries all P−1 messages.
 * Cost: (P−1)·(α + nβ) at the root (n = bytes of one rank's block).
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import type { AlgorithmSpec } from '../types.js';

export const linear: AlgorithmSpec = {
  name: 'linear',
  collective: 'scatter',
  description: 'the root sends every rank its block directly; one round',
  source: 'MPICH scatter linear / Open MPI basic_linear',
  restrictions: [],
  params: [],
  orderPreserving: true,
  cost: { formula: '(P−1)·(α + nβ)', estimate: ({ P, n, alpha, beta }) => (P - 1) * (alpha + n * beta) },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'linear');
    const { rank, size: P, root, count } = ctx;
    b.round = 0;
    if (rank !== root) {
      b.recv(root, b.out(0, count));
      return b.build();
    }
    for (let r = 0; r < P; r++) {
      if (r === root) b.copy(b.in(r * count, count), b.out(0, count));
      else b.send(r, b.in(r * count, count));
    }
    return b.build();
  },
};
