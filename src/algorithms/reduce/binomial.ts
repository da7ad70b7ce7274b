/**
 * Binomial-tree reduce, MPICH style (MPIR_Reduce_intra_binomial). With virtual rank
 * v, for mask = 1, 2, 4, …: if v has bit `mask` set it sends its partial result to
 * v − mask and stops; otherwise it receives the partial result of v + mask (when
 * v + mask < P) into a single temporary buffer and combines acc = acc ∘ tmp. The
 * child's data covers virtual ranks [v + mask, v + 2·mask), above everything v holds,
 * so combining own-first keeps rank order within the tree.
 *
 * Root: with a commutative operator the tree is rooted at the root (v = rank − root
 * mod P). With a non-commutative one that cyclic shift would break rank order, so the
 * tree is rooted at rank 0 (v = rank) and rank 0 forwards the result to the root in
 * one extra round, as MPICH does. Any P: missing children are skipped.
 *
 * Like MPICH, one receive buffer is reused, so a receive waits for the previous
 * combine (memory n per interior rank instead of one slot per child).
 * Cost: ⌈lg P⌉·(α + nβ + nγ) (+ α + nβ when the operator is non-commutative and root ≠ 0).
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import { ceilLog } from '../../schedule/partition.js';
import type { Region } from '../../schedule/types.js';
import type { AlgorithmSpec } from '../types.js';

export const binomial: AlgorithmSpec = {
  name: 'binomial',
  collective: 'reduce',
  description: 'binomial tree (MPICH); any root by cyclic shift when commutative, else tree at rank 0 plus a forward',
  source: 'MPICH reduce_intra_binomial; seed 000 §3.2.3 (f = 2)',
  restrictions: [],
  params: [],
  orderPreserving: true,
  cost: {
    formula: '⌈lg P⌉·(α + nβ + nγ) [+ α + nβ if non-commutative and root ≠ 0]',
    estimate: ({ P, n, alpha, beta, gamma }) => ceilLog(P) * (alpha + n * beta + n * gamma),
  },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'binomial');
    const { rank, size: P, root, count } = ctx;
    const shift = ctx.commutative ? root : 0;
    const v = (rank - shift + P) % P;
    const toRank = (id: number): number => (id + shift) % P;
    const L = ceilLog(P);
    const input = b.in(0, count);
    // Children (ascending mask) and the parent.
    const kids: { id: number; mask: number }[] = [];
    let parent = -1;
    let parentMask = 0;
    for (let mask = 1; mask < P; mask <<= 1) {
      if (v & mask) {
        parent = v - mask;
        parentMask = mask;
        break;
      }
      if (v + mask < P) kids.push({ id: v + mask, mask });
    }
    let acc: Region = input;
    if (v === 0) acc = rank === root ? b.out(0, count) : b.region(b.scratch(count, 'result'), 0, count);
    else if (kids.length > 0) acc = b.region(b.scratch(count, 'acc'), 0, count);
    let last: number[] = [];
    if (kids.length > 0) {
      const tmp = b.region(b.scratch(count, 'tmp'), 0, count);
      kids.forEach(({ id, mask }, i) => {
        b.round = Math.log2(mask);
        const r = b.recv(toRank(id), tmp, last);
        last = [b.reduce([i === 0 ? input : acc, tmp], acc, [...last, r])];
      });
    } else if (v === 0) {
      last = [b.copy(input, acc)]; // P = 1
    }
    if (parent >= 0) {
      b.round = Math.log2(parentMask);
      b.send(toRank(parent), acc, last);
    } else if (rank !== root) {
      // Tree root is rank 0 (non-commutative operator): forward the result.
      b.round = L;
      b.send(root, acc, last);
    }
    if (rank === root && v !== 0) {
      b.round = L;
      b.recv(shift, b.out(0, count));
    }
    return b.build();
  },
};
