/**
 * SMP (hierarchical) allgather, in the style of MPICH's SMP collectives: each node's
 * ranks send their block to the node leader (local rank 0), the leaders allgather the
 * nodes' blocks among themselves (recursive doubling for a power-of-two node count,
 * Bruck otherwise), and each leader broadcasts the whole result inside its node
 * (binomial). Only leaders send inter-node messages, ⌈lg N⌉ each for N nodes, where a
 * flat allgather sends ⌈lg P⌉ from every rank, most across nodes. Needs the same number
 * of ranks on every node; with block mapping the leaders' allgather places the node
 * blocks straight into the result, otherwise (cyclic) into a buffer from which each
 * leader copies every block to its rank's place.
 * Cost (ppn ranks per node, N nodes, n bytes per block; intra α_ℓ, β_ℓ):
 *   (ppn−1)·(α_ℓ + nβ_ℓ) + ⌈lg N⌉·α + (N−1)·ppn·nβ + ⌈lg ppn⌉·(α_ℓ + P·nβ_ℓ).
 * The closed-form estimate has no topology and assumes one rank per node (N = P).
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import { ceilLog, isPowerOfTwo } from '../../schedule/partition.js';
import { nodesContiguous, leaderOrder } from '../allreduce/smp.js';
import { buildKnomialBcast } from '../allreduce/common.js';
import { subSchedule } from '../params.js';
import type { AlgorithmSpec, Restriction } from '../types.js';
import { bruck } from './bruck.js';
import { recursiveDoubling } from './recursive_doubling.js';

/** The same number of ranks on every node (the leaders then exchange equal blocks). */
const equalNodes: Restriction = {
  id: 'equal-nodes',
  description: 'every node holding the same number of ranks',
  check: (ctx) => {
    const t = ctx.topology;
    const equal = Array.from({ length: t.nodeCount }, (_, n) => t.ranksOn(n).length).every((k) => k === t.maxPpn);
    return equal ? undefined : `the nodes hold different numbers of ranks (${t.label})`;
  },
};

export const smpAllgather: AlgorithmSpec = {
  name: 'smp',
  collective: 'allgather',
  description: 'blocks to each node leader, allgather among the leaders, binomial broadcast in each node',
  source: 'MPICH SMP-aware collectives (MPIR_*_intra_smp pattern); seed 001 §3.3',
  restrictions: [equalNodes],
  params: [],
  orderPreserving: true,
  topology: 'nodes',
  fallback: 'bruck',
  cost: {
    formula: '(ppn−1)·(α_ℓ + nβ_ℓ) + ⌈lg N⌉·α + (N−1)·ppn·nβ + ⌈lg ppn⌉·(α_ℓ + P·nβ_ℓ)  (estimate: ppn = 1)',
    estimate: ({ P, n, alpha, beta }) => ceilLog(P) * alpha + (P - 1) * n * beta,
  },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'smp');
    const { rank, size: P, count, topology: t } = ctx;
    if (count === 0) return b.build();
    const node = t.nodeOf(rank);
    const members = t.ranksOn(node);
    const lr = t.localRank(rank);
    const ppn = members.length;
    const N = t.nodeCount;
    const out = b.out(0, P * count);

    // 1. The node's blocks to its leader (into a node buffer, in local-rank order).
    b.phase = 'intra';
    b.round = 0;
    let done: number[];
    let nodeBuf = 0;
    if (lr === 0) {
      nodeBuf = b.scratch(ppn * count, 'node');
      done = [b.copy(b.in(0, count), b.region(nodeBuf, 0, count))];
      for (let i = 1; i < ppn; i++) {
        b.round = i - 1;
        done.push(b.recv(members[i], b.region(nodeBuf, i * count, count), []));
      }
    } else {
      b.round = lr - 1;
      done = [b.send(members[0], b.in(0, count), [])];
    }
    const R1 = Math.max(1, t.maxPpn - 1);

    // 2. Allgather of the node blocks among the leaders, straight into the result.
    const algo = isPowerOfTwo(N) ? recursiveDoubling : bruck;
    const rounds = (sub: { steps: readonly { round: number }[] }): number => sub.steps.reduce((m, s) => Math.max(m, s.round + 1), 0);
    // Every rank numbers the broadcast's rounds after the leaders' allgather (as leader 0 runs it).
    const R2 = rounds(subSchedule(algo, ctx, { rank: 0, size: N, count: ppn * count }));
    if (lr === 0) {
      const order = leaderOrder(t);
      const leaders = order.map((n) => t.ranksOn(n)[0]);
      const sub = subSchedule(algo, ctx, { rank: order.indexOf(node), size: N, count: ppn * count });
      const direct = nodesContiguous(t);
      const all = direct ? out.buf : b.scratch(P * count, 'nodes');
      b.round = R1;
      done = b.embed(sub, { peer: (i) => leaders[i], input: { buf: nodeBuf, offset: 0 }, output: { buf: all, offset: 0 }, after: done, phase: 'inter' });
      if (!direct) {
        // Node blocks in leader order → each rank's block to its place.
        b.round = R1 + R2 - 1;
        const placed: number[] = [];
        order.forEach((n, j) => t.ranksOn(n).forEach((r, i) => placed.push(b.copy(b.region(all, (j * ppn + i) * count, count), b.out(r * count, count), done))));
        done = placed;
      }
    }

    // 3. The whole result from the leader to its node.
    b.phase = 'intra';
    buildKnomialBcast(b, { me: lr, P: ppn, f: 2, data: out, rankOf: (i) => members[i], after: lr === 0 ? done : [], round0: R1 + R2 });
    return b.build();
  },
};
