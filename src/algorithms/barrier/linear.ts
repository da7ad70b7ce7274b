/**
 * Linear (centralized) barrier: every rank signals rank 0; once rank 0 has heard
 * from all, it releases every rank. Rank 0 handles its messages one at a time
 * (one-port model): rank r signals in round r−1 and is released in round P−2+r.
 * 2(P−1) messages, 2(P−1) rounds.
 * Cost: 2(P−1)·α.
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import type { AlgorithmSpec } from '../types.js';

export const linear: AlgorithmSpec = {
  name: 'linear',
  collective: 'barrier',
  description: 'every rank signals rank 0, which then releases every rank; 2(P−1) messages',
  source: 'centralized barrier; Open MPI basic linear barrier',
  restrictions: [],
  params: [],
  orderPreserving: true,
  cost: { formula: '2(P−1)·α', estimate: ({ P, alpha }) => 2 * (P - 1) * alpha },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'linear');
    const { rank, size: P } = ctx;
    const signal = b.in(0, 0);
    if (rank === 0) {
      b.phase = 'gather';
      const ready: number[] = [];
      for (let r = 1; r < P; r++) {
        b.round = r - 1;
        ready.push(b.recv(r, signal));
      }
      b.phase = 'release';
      for (let r = 1; r < P; r++) {
        b.round = P - 2 + r;
        b.send(r, signal, ready);
      }
    } else {
      b.phase = 'gather';
      b.round = rank - 1;
      const s = b.send(0, signal);
      b.phase = 'release';
      b.round = P - 2 + rank;
      b.recv(0, signal, [s]);
    }
    return b.build();
  },
};
