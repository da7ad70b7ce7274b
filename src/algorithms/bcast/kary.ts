/**
 * k-ary tree broadcast in heap numbering on virtual ranks v = (rank − root) mod P:
 * v receives from ⌊(v−1)/k⌋ and sends to k·v+1 .. k·v+k (those < P), one after the
 * other. k = 1 is a (non-pipelined) chain, k = 2 the binary tree.
 *
 * Rounds (one-port, level by level): a rank at depth d sends to its j-th child
 * (j = 1..k) in round d·k + j−1; with D the depth of virtual rank P−1 there are
 * (D−1)·k + c rounds, c being the children of the first rank at depth D−1.
 * Cost: D·k·(α + nβ) with D = ⌈log_k((k−1)P + 1)⌉ − 1 (k ≥ 2), (P−1)(α + nβ) for k = 1.
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import type { AlgorithmSpec } from '../types.js';

/** Depth of virtual rank v in the k-ary heap (root 0 at depth 0). */
export function karyDepth(v: number, k: number): number {
  let d = 0;
  while (v > 0) {
    v = Math.floor((v - 1) / k);
    d++;
  }
  return d;
}

export const kary: AlgorithmSpec = {
  name: 'kary',
  collective: 'bcast',
  description: 'k-ary tree (heap numbering on ranks relative to root); k = 1 is a chain, k = 2 a binary tree',
  source: 'Open MPI bcast alg 5 (binary) / coll_base_topo build_tree; MPICH treealgo kary',
  restrictions: [],
  params: [
    { name: 'k', description: 'tree arity (children per rank); 1 = chain, 2 = binary tree', type: 'int', default: 2, min: 1, max: 1 << 20 },
  ],
  orderPreserving: true,
  cost: {
    formula: 'D·k·(α + nβ), D = depth of the k-ary heap over P ranks (⌈log_k((k−1)P + 1)⌉ − 1; P − 1 for k = 1)',
    estimate: ({ P, n, alpha, beta, params }) => {
      const k = Number(params.k ?? 2);
      return karyDepth(P - 1, k) * k * (alpha + n * beta);
    },
  },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'kary');
    const { rank, size: P, root, count } = ctx;
    const k = Number(ctx.params.k);
    const v = (rank - root + P) % P;
    const real = (u: number): number => (u + root) % P;
    const data = b.out(0, count);
    const d = karyDepth(v, k);
    let deps: number[] = [];
    if (v !== 0) {
      const parent = Math.floor((v - 1) / k);
      b.round = (d - 1) * k + (v - parent * k) - 1;
      deps = [b.recv(real(parent), data)];
    }
    for (let j = 1; j <= k && k * v + j < P; j++) {
      b.round = d * k + j - 1;
      b.send(real(k * v + j), data, deps);
    }
    return b.build();
  },
};
