/**
 * Binomial-tree gather (MPICH gather_intra_binomial). With virtual rank
 * v = rank − root mod P, v receives for mask = 1, 2, 4, … below its lowest set bit
 * (the root: every mask < P) the subtree of v + mask, which covers virtual ranks
 * [v + mask, min(v + 2·mask, P)), then sends its whole subtree [v, v + lowbit(v)) to
 * v − lowbit(v). Interior ranks assemble their subtree in a scratch buffer in
 * virtual-rank order (own block first); leaves send their input directly.
 *
 * At the root virtual order is real order shifted by `root`: a child subtree whose
 * real ranks do not wrap past P − 1 is received straight into its place in the
 * output; the one subtree that wraps (if any) is received into scratch and rotated
 * into place with two copies. ⌈lg P⌉ rounds (the message from v + mask in round
 * lg mask), any P and root.
 * Cost: ⌈lg P⌉·α + (P−1)·nβ (n = bytes of one block; the root receives P−1 blocks).
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import { ceilLog } from '../../schedule/partition.js';
import type { AlgorithmSpec } from '../types.js';

export const binomial: AlgorithmSpec = {
  name: 'binomial',
  collective: 'gather',
  description: 'binomial tree in virtual-rank order; subtrees assembled in scratch, rotated into place at the root',
  source: 'MPICH gather_intra_binomial; Open MPI gather binomial',
  restrictions: [],
  params: [],
  orderPreserving: true,
  cost: { formula: '⌈lg P⌉·α + (P−1)·nβ', estimate: ({ P, n, alpha, beta }) => ceilLog(P) * alpha + (P - 1) * n * beta },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'binomial');
    const { rank, size: P, root, count } = ctx;
    const v = (rank - root + P) % P;
    const toRank = (vv: number): number => (vv + root) % P;
    const input = b.in(0, count);
    // Lowest set bit of v; the root is above every child distance.
    const low = v === 0 ? 1 << ceilLog(P) : v & -v;
    const kids: number[] = [];
    for (let mask = 1; mask < low && v + mask < P; mask <<= 1) kids.push(mask);
    const subtree = (vv: number, mask: number): number => Math.min(mask, P - vv);

    if (v === 0) {
      b.copy(input, b.out(rank * count, count));
      for (const mask of kids) {
        b.round = Math.log2(mask);
        const n = subtree(mask, mask);
        const first = toRank(mask);
        if (first + n <= P) {
          b.recv(first, b.out(first * count, n * count));
        } else {
          // Wraps past rank P−1: receive in virtual order, rotate into place.
          const tmp = b.scratch(n * count, 'wrap');
          const r = b.recv(first, b.region(tmp, 0, n * count));
          const head = P - first;
          b.copy(b.region(tmp, 0, head * count), b.out(first * count, head * count), [r]);
          b.copy(b.region(tmp, head * count, (n - head) * count), b.out(0, (n - head) * count), [r]);
        }
      }
      return b.build();
    }

    const parent = toRank(v - low);
    b.round = Math.log2(low);
    if (kids.length === 0) {
      b.send(parent, input);
      return b.build();
    }
    const size = subtree(v, low);
    const buf = b.scratch(size * count, 'subtree');
    const deps: number[] = [b.copy(input, b.region(buf, 0, count))];
    for (const mask of kids) {
      b.round = Math.log2(mask);
      deps.push(b.recv(toRank(v + mask), b.region(buf, mask * count, subtree(v + mask, mask) * count)));
    }
    b.round = Math.log2(low);
    b.send(parent, b.region(buf, 0, size * count), deps);
    return b.build();
  },
};
