/**
 * Segmented (pipelined) chain broadcast. Virtual ranks v = (rank − root) mod P form
 * the chain root → root+1 → … → root+P−1. The vector is cut into S = ⌈count/segment⌉
 * segments; virtual rank v receives segment s from v−1 in round v−1+s and forwards
 * it to v+1 in round v+s, so segment s moves one hop per round and the pipeline
 * drains after P−2+S rounds (P ≥ 2). Each rank sends (and receives) its segments in
 * order. count = 0 sends nothing.
 * Cost: (P−2+S)·(α + (n/S)β) for P ≥ 2, S = ⌈count/segment⌉.
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import type { AlgorithmSpec } from '../types.js';

export const chain: AlgorithmSpec = {
  name: 'chain',
  collective: 'bcast',
  description: 'pipelined chain root → root+1 → …: segments move one hop per round; P−2+S rounds for S segments',
  source: 'Open MPI bcast alg 2 (chain) / 3 (pipeline); MPICH pipelined tree with k = 1',
  restrictions: [],
  params: [
    {
      name: 'segment',
      description: 'elements per segment (the last segment may be shorter)',
      type: 'int',
      default: 1024,
      min: 1,
      max: 2 ** 40,
    },
  ],
  orderPreserving: true,
  cost: {
    formula: '(P−2+S)·(α + (n/S)β), S = ⌈count/segment⌉',
    estimate: ({ P, n, alpha, beta, params, elementSize }) => {
      if (P < 2 || n === 0) return 0;
      const segBytes = Number(params.segment ?? 1024) * (elementSize ?? 8);
      const S = Math.max(1, Math.ceil(n / segBytes));
      return (P - 2 + S) * (alpha + (n / S) * beta);
    },
  },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'chain');
    const { rank, size: P, root, count } = ctx;
    const seg = Number(ctx.params.segment);
    const S = Math.ceil(count / seg);
    const v = (rank - root + P) % P;
    const prev = (rank - 1 + P) % P;
    const next = (rank + 1) % P;
    let lastRecv: number[] = [];
    let lastSend: number[] = [];
    for (let s = 0; s < S; s++) {
      const region = b.out(s * seg, Math.min(seg, count - s * seg));
      let have: number[] = [];
      if (v > 0) {
        b.round = v - 1 + s;
        have = [b.recv(prev, region, lastRecv)];
        lastRecv = have;
      }
      if (v < P - 1) {
        b.round = v + s;
        lastSend = [b.send(next, region, [...have, ...lastSend])];
      }
    }
    return b.build();
  },
};
