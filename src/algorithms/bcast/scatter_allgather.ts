/**
 * Scatter + allgather broadcast (van de Geijn; MPICH scatter_ring_allgather). The
 * vector is cut into P blocks (blockCount/blockOffset: nearly equal, count < P
 * allowed); block i belongs to virtual rank i = (rank − root) mod P.
 * 1. Binomial scatter: virtual rank v receives from v − lowbit(v) the blocks of its
 *    subtree, [v, min(v + lowbit(v), P)), then hands each child v + d (d < lowbit(v),
 *    farthest first) the blocks [v + d, min(v + 2d, P)); round ⌈lg P⌉−1−lg d.
 * 2. Ring allgather: in step j = 0..P−2 (round ⌈lg P⌉ + j), v sends block v − j to
 *    v + 1 and receives block v − j − 1 from v − 1 (mod P). As in MPICH every rank
 *    receives all P−1 foreign blocks, including ones the scatter already gave it.
 * Messages whose blocks are empty (count < P) are skipped by both sides. Successive
 * sends to v + 1 depend on each other, so they also run in program order.
 * Rounds: ⌈lg P⌉ + P − 1 (count ≥ P).
 * Cost: (⌈lg P⌉ + P − 1)·α + 2·((P−1)/P)·nβ.
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import { blockCount, blockOffset, blockRange, ceilLog } from '../../schedule/partition.js';
import type { AlgorithmSpec } from '../types.js';

export const scatterAllgather: AlgorithmSpec = {
  name: 'scatter_allgather',
  collective: 'bcast',
  description: 'van de Geijn: binomial scatter of P blocks, then ring allgather; bandwidth-optimal for long vectors',
  source: 'van de Geijn et al.; MPICH bcast scatter_ring_allgather, Open MPI bcast alg 9',
  restrictions: [],
  params: [],
  orderPreserving: true,
  cost: {
    formula: '(⌈lg P⌉ + P − 1)·α + 2·((P−1)/P)·nβ',
    estimate: ({ P, n, alpha, beta }) => (ceilLog(P) + P - 1) * alpha + (2 * (P - 1) * n * beta) / P,
  },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'scatter_allgather');
    const { rank, size: P, root, count } = ctx;
    if (P === 1 || count === 0) return b.build();
    const L = ceilLog(P);
    const v = (rank - root + P) % P;
    const real = (u: number): number => (((u % P) + P) % P + root) % P;
    /** Blocks [first, first + n) as an OUT region. */
    const blocks = (first: number, n: number) => {
      const r = blockRange(count, P, first, n);
      return b.out(r.offset, r.count);
    };

    // 1. Binomial scatter.
    b.phase = 'scatter';
    let low = 1 << L;
    let deps: number[] = [];
    if (v !== 0) {
      low = v & -v;
      const mine = blocks(v, Math.min(low, P - v));
      if (mine.count > 0) {
        b.round = L - 1 - Math.log2(low);
        deps = [b.recv(real(v - low), mine)];
      }
    }
    // Sends to v + 1 (the scatter's d = 1 and every ring step) are chained so they
    // also run in program order (the k-th send matches the k-th receive).
    let lastToNext: number[] = [];
    for (let d = low >> 1; d >= 1; d >>= 1) {
      if (v + d >= P) continue;
      const theirs = blocks(v + d, Math.min(d, P - v - d));
      if (theirs.count === 0) continue;
      b.round = L - 1 - Math.log2(d);
      const s = b.send(real(v + d), theirs, deps);
      if (d === 1) lastToNext = [s];
    }

    // 2. Ring allgather. Every ring step comes after the whole scatter: ring receives
    // rewrite blocks the scatter may still be sending on.
    b.phase = 'allgather';
    const afterScatter = b.frontier();
    const block = (i: number) => b.out(blockOffset(count, P, i), blockCount(count, P, i));
    let holding = afterScatter; // step that delivered the block sent next
    for (let j = 0; j < P - 1; j++) {
      b.round = L + j;
      const out = (((v - j) % P) + P) % P;
      const inc = (((v - j - 1) % P) + P) % P;
      if (block(out).count > 0) lastToNext = [b.send(real(v + 1), block(out), [...holding, ...lastToNext])];
      if (block(inc).count > 0) holding = [b.recv(real(v - 1), block(inc), afterScatter)];
      else holding = afterScatter;
    }
    return b.build();
  },
};
