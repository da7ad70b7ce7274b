/**
 * MPICH's SMP (hierarchical) allreduce, seed 001 §3.3 / Fig. 4: a binomial reduce
 * inside each node to its leader (local rank 0), recursive doubling among the node
 * leaders (MPICH's fold for a non-power-of-two node count), and a binomial
 * broadcast inside each node. Only leaders send inter-node messages: ⌈lg N⌉ of them
 * for N a power of two (⌊lg N⌋ + 1 otherwise for the leaders that fold or unfold).
 * Works for any topology, including nodes of different sizes.
 *
 * Operand order: each node's binomial reduce combines its ranks in ascending order
 * and the leaders are ordered by their nodes' lowest ranks, so when every node holds
 * a contiguous range of ranks (block mapping) the result is v0 ∘ … ∘ v(P−1). With
 * any other mapping (cyclic) a node's ranks interleave with other nodes' and no
 * hierarchical order exists, so the restriction asks for a commutative operator.
 * Cost (ppn ranks per node, N nodes; intra-node α_ℓ, β_ℓ):
 *   2⌈lg ppn⌉·(α_ℓ + nβ_ℓ) + ⌈lg ppn⌉·nγ + ⌈lg N⌉·(α + nβ + nγ).
 * The closed-form estimate has no topology and assumes one rank per node (N = P).
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import type { ScheduleContext } from '../../schedule/context.js';
import { ceilLog, floorPow2, isPowerOfTwo } from '../../schedule/partition.js';
import type { Topology } from '../../schedule/topology.js';
import { subSchedule } from '../params.js';
import { buildFnomialReduce } from '../reduce/fnomial.js';
import type { AlgorithmSpec, Restriction } from '../types.js';
import { buildKnomialBcast } from './common.js';
import { recursiveDoubling } from './recursive_doubling.js';

/** Does every node hold a contiguous range of ranks? */
export function nodesContiguous(t: Topology): boolean {
  for (let node = 0; node < t.nodeCount; node++) {
    const rs = t.ranksOn(node);
    for (let i = 1; i < rs.length; i++) if (rs[i] !== rs[i - 1] + 1) return false;
  }
  return true;
}

/** Commutative operator, or nodes of contiguous ranks (then the order is kept). */
export const commutativeOrContiguousNodes: Restriction = {
  id: 'commutative-or-contiguous-nodes',
  description: 'a commutative operator, or every node holding a contiguous range of ranks (block mapping)',
  check: (ctx) =>
    ctx.commutative || nodesContiguous(ctx.topology)
      ? undefined
      : `the operator is not commutative and the ranks of a node are not contiguous (${ctx.topology.label})`,
};

/** Nodes in the order their leaders combine: by lowest rank. */
export function leaderOrder(t: Topology): number[] {
  return Array.from({ length: t.nodeCount }, (_, n) => n).sort((a, c) => t.ranksOn(a)[0] - t.ranksOn(c)[0]);
}

/** Rounds of recursive_doubling over N ranks (as its schedules number them). */
function rdRounds(N: number): number {
  if (N === 1) return 1;
  return Math.log2(floorPow2(N)) + (isPowerOfTwo(N) ? 0 : 2);
}

export const smp: AlgorithmSpec = {
  name: 'smp',
  collective: 'allreduce',
  description: 'binomial reduce to each node leader, recursive doubling among leaders, binomial broadcast in each node',
  source: 'MPICH SMP-aware allreduce (MPIR_Allreduce_intra_smp); seed 001 §3.3, Fig. 4',
  restrictions: [commutativeOrContiguousNodes],
  params: [],
  orderPreserving: true,
  topology: 'nodes',
  fallback: 'recursive_doubling',
  cost: {
    formula: '2⌈lg ppn⌉·(α_ℓ + nβ_ℓ) + ⌈lg ppn⌉·nγ + ⌈lg N⌉·(α + nβ + nγ)  (estimate: ppn = 1)',
    estimate: ({ P, n, alpha, beta, gamma }) => ceilLog(P) * (alpha + n * beta + n * gamma),
  },
  generate(ctx: ScheduleContext) {
    const b = new ScheduleBuilder(ctx, 'smp');
    const { rank, count, topology: t } = ctx;
    const node = t.nodeOf(rank);
    const members = t.ranksOn(node);
    const lr = t.localRank(rank);
    const ppn = members.length;
    const N = t.nodeCount;
    const R1 = ceilLog(t.maxPpn);
    const R2 = R1 + rdRounds(N);
    const out = b.out(0, count);

    // 1. Binomial reduce to the leader, in local-rank (= ascending rank) order.
    b.phase = 'intra';
    const nodeBuf = lr === 0 ? b.region(b.scratch(count, 'node'), 0, count) : b.in(0, 0);
    let done = buildFnomialReduce(b, { me: lr, P: ppn, f: 2, count, input: b.in(0, count), result: nodeBuf, rankOf: (i) => members[i] });

    // 2. Recursive doubling among the leaders.
    if (lr === 0) {
      const order = leaderOrder(t);
      const leaders = order.map((n) => t.ranksOn(n)[0]);
      const sub = subSchedule(recursiveDoubling, ctx, { rank: order.indexOf(node), size: N, count });
      b.round = R1;
      done = b.embed(sub, {
        peer: (i) => leaders[i],
        input: { buf: nodeBuf.buf, offset: 0 },
        output: { buf: out.buf, offset: 0 },
        after: done,
        phase: 'inter',
      });
    }

    // 3. Binomial broadcast from the leader.
    b.phase = 'intra';
    buildKnomialBcast(b, { me: lr, P: ppn, f: 2, data: out, rankOf: (i) => members[i], after: lr === 0 ? done : [], round0: R2 });
    return b.build();
  },
};
