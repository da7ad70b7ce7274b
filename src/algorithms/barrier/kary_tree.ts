/**
 * k-ary tree barrier in the style of Quadrics `elan_gsync` (seed 002 §3.7): a
 * balanced k-ary tree rooted at rank 0 in heap layout (children of i are
 * k·i+1 .. k·i+k). Phase 1 gathers 'ready' signals up the tree (a rank signals its
 * parent once all its children have signalled); phase 2 sends the release down the
 * same tree with point-to-point messages.
 *
 * Rounds follow the one-port model: a parent talks to its children one after the
 * other, so the j-th child (j = 1..k) of a rank at depth d signals it in gather round
 * (D−1−d)·k + j−1 and is released in round D·k + d·k + j−1, with D the depth of the
 * tree (the depth of rank P−1). 2(P−1) messages.
 * Cost: 2·D·k·α with D = ⌈log_k((k−1)·P + 1)⌉ − 1 (a full last level; fewer if not).
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import type { AlgorithmSpec } from '../types.js';

/** Depth of heap index i in a k-ary heap (root 0 at depth 0). */
export function heapDepth(i: number, k: number): number {
  let d = 0;
  while (i > 0) {
    i = Math.floor((i - 1) / k);
    d++;
  }
  return d;
}

export const karyTree: AlgorithmSpec = {
  name: 'kary_tree',
  collective: 'barrier',
  description: 'k-ary heap tree rooted at rank 0: gather ready signals up, then release down (elan_gsync style)',
  source: 'Quadrics elan_gsync, seed 002 §3.7 (software tree gather + point-to-point release)',
  restrictions: [],
  params: [
    {
      name: 'k',
      description: 'tree arity (children per rank); the ×4-per-level scaling of elan_gsync suggests 4',
      type: 'int',
      default: 4,
      min: 2,
      max: 1 << 20,
    },
  ],
  orderPreserving: true,
  cost: {
    formula: '2·D·k·α, D = ⌈log_k((k−1)P + 1)⌉ − 1 (tree depth)',
    estimate: ({ P, alpha, params }) => {
      const k = Number(params.k ?? 4);
      return 2 * heapDepth(P - 1, k) * k * alpha;
    },
  },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'kary_tree');
    const { rank, size: P } = ctx;
    const k = Number(ctx.params.k);
    const D = heapDepth(P - 1, k);
    const d = heapDepth(rank, k);
    const signal = b.in(0, 0);
    const parent = rank === 0 ? -1 : Math.floor((rank - 1) / k);
    const j = rank === 0 ? 0 : rank - parent * k; // 1..k: which child of its parent
    const children: number[] = [];
    for (let c = k * rank + 1; c <= k * rank + k && c < P; c++) children.push(c);

    b.phase = 'gather';
    const ready: number[] = [];
    children.forEach((c, i) => {
      b.round = (D - 1 - d) * k + i;
      ready.push(b.recv(c, signal));
    });
    let released: number[] = ready;
    if (parent >= 0) {
      b.round = (D - d) * k + j - 1;
      const s = b.send(parent, signal, ready);
      b.phase = 'release';
      b.round = D * k + (d - 1) * k + j - 1;
      released = [b.recv(parent, signal, [s])];
    }
    b.phase = 'release';
    children.forEach((c, i) => {
      b.round = D * k + d * k + i;
      b.send(c, signal, released);
    });
    return b.build();
  },
};
