/**
 * Binomial-tree scatter (MPICH scatter_intra_binomial), the gather tree run
 * backwards. With virtual rank v = rank − root mod P, v receives its subtree
 * [v, min(v + lowbit(v), P)) of blocks (in virtual-rank order) from v − lowbit(v),
 * then for mask = lowbit(v)/2, …, 2, 1 (largest subtree first) sends the blocks of
 * [v + mask, min(v + 2·mask, P)) to v + mask, and keeps block v. Leaves receive
 * straight into their output.
 *
 * At the root virtual order is real order shifted by `root`: a child subtree whose
 * real ranks do not wrap past P − 1 is sent straight from the input; the one
 * subtree that wraps (if any) is rotated into a scratch buffer with two copies
 * first (MPICH rotates the whole buffer). ⌈lg P⌉ rounds, any P and root.
 * Cost: ⌈lg P⌉·α + (P−1)·nβ (n = bytes of one block; the root sends P−1 blocks).
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import { ceilLog } from '../../schedule/partition.js';
import type { AlgorithmSpec } from '../types.js';

export const binomial: AlgorithmSpec = {
  name: 'binomial',
  collective: 'scatter',
  description: 'binomial tree in virtual-rank order, largest subtree first; only a wrapping subtree is staged at the root',
  source: 'MPICH scatter_intra_binomial; Open MPI scatter binomial',
  restrictions: [],
  params: [],
  orderPreserving: true,
  cost: { formula: '⌈lg P⌉·α + (P−1)·nβ', estimate: ({ P, n, alpha, beta }) => ceilLog(P) * alpha + (P - 1) * n * beta },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'binomial');
    const { rank, size: P, root, count } = ctx;
    const L = ceilLog(P);
    const v = (rank - root + P) % P;
    const toRank = (vv: number): number => (vv + root) % P;
    const low = v === 0 ? 1 << L : v & -v;
    const subtree = (vv: number, mask: number): number => Math.min(mask, P - vv);
    const roundOf = (mask: number): number => L - 1 - Math.log2(mask);
    const kids: number[] = [];
    for (let mask = low >> 1; mask >= 1; mask >>= 1) if (v + mask < P) kids.push(mask);

    if (v === 0) {
      for (const mask of kids) {
        b.round = roundOf(mask);
        const n = subtree(mask, mask);
        const first = toRank(mask);
        if (first + n <= P) {
          b.send(first, b.in(first * count, n * count));
        } else {
          const tmp = b.scratch(n * count, 'wrap');
          const head = P - first;
          const c1 = b.copy(b.in(first * count, head * count), b.region(tmp, 0, head * count));
          const c2 = b.copy(b.in(0, (n - head) * count), b.region(tmp, head * count, (n - head) * count));
          b.send(first, b.region(tmp, 0, n * count), [c1, c2]);
        }
      }
      b.copy(b.in(rank * count, count), b.out(0, count));
      return b.build();
    }

    const parent = toRank(v - low);
    b.round = roundOf(low);
    if (kids.length === 0) {
      b.recv(parent, b.out(0, count));
      return b.build();
    }
    const buf = b.scratch(subtree(v, low) * count, 'subtree');
    const r = b.recv(parent, b.region(buf, 0, subtree(v, low) * count));
    for (const mask of kids) {
      b.round = roundOf(mask);
      b.send(toRank(v + mask), b.region(buf, mask * count, subtree(v + mask, mask) * count), [r]);
    }
    b.copy(b.region(buf, 0, count), b.out(0, count), [r]);
    return b.build();
  },
};
