/**
 * Ring allreduce (reduce-scatter + allgather around a ring, the "pipelined"
 * algorithm of seed 001 §3.7 / Patarasuk & Yuan). The vector is cut into P nearly
 * equal blocks (partition.ts). Reduce-scatter: in step s = 0..P−2 rank r sends block
 * (r − s) mod P to r + 1 and receives block (r − s − 1) mod P from r − 1, combining
 * it with its own contribution; afterwards rank r holds block (r + 1) mod P fully
 * reduced. Allgather: in step s rank r forwards block (r + 1 − s) mod P and receives
 * block (r − s) mod P. No initial copy: blocks are combined from the input straight
 * into the output. Each block is reduced once (at its owner) and then copied, so all
 * ranks hold identical bits. The chain of block b runs b, b+1, …, b−1 (cyclically),
 * so the operator must be commutative. count < P gives empty blocks (empty messages).
 * Cost: 2(P−1)·α + 2·(P−1)/P·nβ + (P−1)/P·nγ.
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import { blockCount, blockOffset } from '../../schedule/partition.js';
import { commutative } from '../restrictions.js';
import type { AlgorithmSpec } from '../types.js';

export const ring: AlgorithmSpec = {
  name: 'ring',
  collective: 'allreduce',
  description: 'ring reduce-scatter then ring allgather over P blocks; 2(P−1) messages of n/P, bandwidth-optimal',
  source: 'Patarasuk & Yuan 2009; seed 001 §3.7 (pipelined); MPICH/Open MPI ring',
  restrictions: [commutative],
  params: [],
  orderPreserving: false,
  cost: {
    formula: '2(P−1)·α + 2(P−1)/P·nβ + (P−1)/P·nγ',
    estimate: ({ P, n, alpha, beta, gamma }) => 2 * (P - 1) * alpha + ((P - 1) / P) * n * (2 * beta + gamma),
  },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'ring');
    const { rank, size: P, count } = ctx;
    if (P === 1) {
      b.copy(b.in(0, count), b.out(0, count));
      return b.build();
    }
    const right = (rank + 1) % P;
    const left = (rank - 1 + P) % P;
    const blk = (i: number): { offset: number; count: number } => {
      const j = ((i % P) + P) % P;
      return { offset: blockOffset(count, P, j), count: blockCount(count, P, j) };
    };
    const tmpBuf = b.scratch(blockCount(count, P, 0), 'tmp');
    let last: number[] = [];
    b.phase = 'reduce-scatter';
    for (let s = 0; s < P - 1; s++) {
      b.round = s;
      const sb = blk(rank - s);
      const rb = blk(rank - s - 1);
      // Block r is sent from the input at step 0; later blocks were combined into the output.
      const src = s === 0 ? b.in(sb.offset, sb.count) : b.out(sb.offset, sb.count);
      const tmp = b.region(tmpBuf, 0, rb.count);
      const snd = b.send(right, src, last);
      const rcv = b.recv(left, tmp, last);
      last = [b.reduce([tmp, b.in(rb.offset, rb.count)], b.out(rb.offset, rb.count), [...last, snd, rcv])];
    }
    b.phase = 'allgather';
    for (let s = 0; s < P - 1; s++) {
      b.round = P - 1 + s;
      const sb = blk(rank + 1 - s);
      const rb = blk(rank - s);
      const snd = b.send(right, b.out(sb.offset, sb.count), last);
      const rcv = b.recv(left, b.out(rb.offset, rb.count), last);
      last = [snd, rcv];
    }
    return b.build();
  },
};
