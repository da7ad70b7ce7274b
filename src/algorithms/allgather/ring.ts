/**
 * Ring allgather. In round k (k = 0 … P−2) rank r sends block (r − k) mod P to
 * r + 1 and receives block (r − k − 1) mod P from r − 1, forwarding next round what
 * it has just received. Any P; P−1 rounds, each with one message in and one out.
 * Cost (n = bytes per block): (P−1)·(α + nβ).
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import type { AlgorithmSpec } from '../types.js';

export const ring: AlgorithmSpec = {
  name: 'ring',
  collective: 'allgather',
  description: 'each rank forwards blocks to its right neighbour; P−1 rounds, any P',
  source: 'MPICH allgather_intra_ring; Thakur, Rabenseifner & Gropp 2005',
  restrictions: [],
  params: [],
  orderPreserving: true,
  cost: {
    formula: '(P−1)·(α + nβ)',
    estimate: ({ P, n, alpha, beta }) => (P - 1) * (alpha + n * beta),
  },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'ring');
    const { rank, size: P, count } = ctx;
    if (count === 0) return b.build();
    b.round = 0;
    b.copy(b.in(0, count), b.out(rank * count, count));
    const right = (rank + 1) % P;
    const left = (rank - 1 + P) % P;
    let prevRecv = -1;
    let prevSend = -1;
    for (let k = 0; k < P - 1; k++) {
      b.round = k;
      const sendBlock = (rank - k + P) % P;
      const recvBlock = (rank - k - 1 + 2 * P) % P;
      // Round 0 sends the input itself; later rounds forward what arrived last round.
      // Sends to one peer are chained: message order is program order.
      if (k === 0) prevSend = b.send(right, b.in(0, count));
      else prevSend = b.send(right, b.out(sendBlock * count, count), [prevRecv, prevSend]);
      prevRecv = b.recv(left, b.out(recvBlock * count, count));
    }
    return b.build();
  },
};
