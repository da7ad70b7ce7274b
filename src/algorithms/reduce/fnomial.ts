/**
 * f-nomial (k-nomial) tree reduce, with the rank arithmetic of seed 000 Appendix A.
 * Ids are ranks shifted cyclically so the root is id 0. In phase k (stride s = f^k)
 * an id with ⌊id/s⌋ mod f = 0 receives from id + j·s (j = 1..f−1, id + j·s < P) into
 * slot (k·(f−1) + j − 1) of its receive buffer and combines them in order; any other
 * id sends its partial result to ⌊id/(s·f)⌋·(s·f) and stops. Missing children are
 * skipped, so any P works. f = 2 is the binomial tree.
 *
 * Operand order: a parent combines own ∘ child1 ∘ child2 …, children holding higher
 * ids, so the result is in id order. With a non-commutative operator and root ≠ 0
 * the cyclic shift would break rank order, so the tree is rooted at rank 0 and the
 * result forwarded to the root (as MPICH does).
 * Cost: ⌈log_f P⌉ phases of (f−1)·(α + nβ + nγ) (the refined model of seed 000 ch. 4
 * counts the receives per phase exactly).
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import type { ScheduleContext } from '../../schedule/context.js';
import { ceilLog } from '../../schedule/partition.js';
import type { RankSchedule, Region } from '../../schedule/types.js';
import type { AlgorithmSpec } from '../types.js';

/** Children per phase of id in an f-nomial tree over P ids (Appendix A's array_receives). */
export function fnomialChildren(id: number, P: number, f: number): number[][] {
  const phases: number[][] = [];
  for (let stride = 1; stride < P; stride *= f) {
    if (Math.floor(id / stride) % f !== 0) break;
    const kids: number[] = [];
    for (let j = 1; j < f; j++) if (id + j * stride < P) kids.push(id + j * stride);
    phases.push(kids);
  }
  return phases;
}

/** Parent of a non-root id in an f-nomial tree (Appendix A's id_parent); -1 for id 0. */
export function fnomialParent(id: number, f: number): number {
  if (id === 0) return -1;
  let stride = 1;
  while (Math.floor(id / stride) % f === 0) stride *= f;
  return Math.floor(id / (stride * f)) * (stride * f);
}

/**
 * Build an f-nomial reduce of `count` elements from `input` into `result` (at the
 * tree root), over ranks `rankOf(0..P-1)` with tree id `me`. Returns the step that
 * completes this rank's part. Shared by the reduce and allreduce algorithms.
 */
export function buildFnomialReduce(
  b: ScheduleBuilder,
  o: { me: number; P: number; f: number; count: number; input: Region; result: Region; rankOf: (id: number) => number; after?: readonly number[] },
): number[] {
  const { me, P, f, count, input, rankOf } = o;
  const phases = fnomialChildren(me, P, f);
  const nChildren = phases.reduce((s, p) => s + p.length, 0);
  const isRoot = me === 0;
  // Partial result: the root accumulates in `result`; interior nodes in a scratch buffer.
  const acc: Region = isRoot ? o.result : nChildren > 0 ? b.region(b.scratch(count, 'acc'), 0, count) : input;
  const slots = nChildren > 0 ? b.scratch(nChildren * count, 'remote') : -1;
  let last: number[] = [...(o.after ?? [])];
  let slot = 0;
  let first = true;
  phases.forEach((kids, phase) => {
    if (kids.length === 0) return;
    b.round = phase;
    const recvs: Region[] = [];
    const ids: number[] = [];
    for (const kid of kids) {
      const r = b.region(slots, slot++ * count, count);
      recvs.push(r);
      ids.push(b.recv(rankOf(kid), r, o.after ?? []));
    }
    const inputs = first ? [input, ...recvs] : [acc, ...recvs];
    last = [b.reduce(inputs, acc, [...last, ...ids])];
    first = false;
  });
  if (isRoot) {
    if (nChildren === 0) last = [b.copy(input, o.result, last)];
    return last;
  }
  b.round = phases.length;
  return [b.send(rankOf(fnomialParent(me, f)), acc, last)];
}

export function fnomialReduceSchedule(ctx: ScheduleContext, name: string, f: number): RankSchedule {
  const b = new ScheduleBuilder(ctx, name);
  const { rank, size: P, root, count } = ctx;
  const shift = ctx.commutative ? root : 0;
  const me = (rank - shift + P) % P;
  const treeRoot = shift; // rank at id 0
  const input = b.in(0, count);
  const result = rank === root ? b.out(0, count) : rank === treeRoot ? b.region(b.scratch(count, 'result'), 0, count) : b.in(0, 0);
  const done = buildFnomialReduce(b, { me, P, f, count, input, result, rankOf: (id) => (id + shift) % P });
  if (treeRoot !== root) {
    b.round = ceilLog(P, f) + 1;
    if (rank === treeRoot) b.send(root, result, done);
    if (rank === root) b.recv(treeRoot, b.out(0, count));
  }
  return b.build();
}

export const fnomial: AlgorithmSpec = {
  name: 'fnomial',
  collective: 'reduce',
  description: 'f-nomial (k-nomial) tree, seed 000 Appendix A rank arithmetic; any root by cyclic shift',
  source: 'seed 000 §3.2.3, Appendix A',
  restrictions: [],
  params: [{ name: 'f', description: 'tree degree (children per phase + 1); 2 = binomial', type: 'int', default: 4, min: 2, max: 1 << 20 }],
  orderPreserving: true,
  cost: {
    formula: '⌈log_f P⌉·(f−1)·(α + nβ + nγ)',
    estimate: ({ P, n, alpha, beta, gamma, params }) => {
      const f = Number(params.f ?? 4);
      return ceilLog(P, f) * (f - 1) * (alpha + n * beta + n * gamma);
    },
  },
  generate: (ctx) => fnomialReduceSchedule(ctx, 'fnomial', Number(ctx.params.f)),
};
