/**
 * SMP (hierarchical) barrier, the barrier counterpart of MPICH's SMP collectives
 * (MPIR_Barrier_intra_smp): a binomial fan-in of zero-byte signals inside each node to
 * its leader (local rank 0), a dissemination barrier among the node leaders, and a
 * binomial fan-out inside each node. Only leaders send inter-node messages, ⌈lg N⌉ each
 * for N nodes, where a flat dissemination barrier sends ⌈lg P⌉ from every rank, most of
 * them across nodes. Works for any topology, nodes of any size.
 * Cost (ppn ranks per node, N nodes; intra-node α_ℓ): 2⌈lg ppn⌉·α_ℓ + ⌈lg N⌉·α.
 * The closed-form estimate has no topology and assumes one rank per node (N = P).
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import { ceilLog } from '../../schedule/partition.js';
import type { Topology } from '../../schedule/topology.js';
import type { Region } from '../../schedule/types.js';
import { leaderOrder } from '../allreduce/smp.js';
import type { AlgorithmSpec } from '../types.js';

export const smpBarrier: AlgorithmSpec = {
  name: 'smp',
  collective: 'barrier',
  description: 'binomial fan-in to each node leader, dissemination among the leaders, binomial fan-out in each node',
  source: 'MPICH SMP-aware barrier (MPIR_Barrier_intra_smp); seed 001 §3.3 (the SMP pattern)',
  restrictions: [],
  params: [],
  orderPreserving: true,
  topology: 'nodes',
  fallback: 'dissemination',
  cost: {
    formula: '2⌈lg ppn⌉·α_ℓ + ⌈lg N⌉·α  (estimate: ppn = 1)',
    estimate: ({ P, alpha }) => ceilLog(P) * alpha,
  },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'smp');
    const { rank, topology: t } = ctx;
    const signal = b.in(0, 0);
    const R1 = ceilLog(t.maxPpn);
    const N = t.nodeCount;
    const R2 = ceilLog(N);

    // 1. Fan-in: a rank signals its binomial parent once its children have signalled it.
    let done = nodeFanIn(b, signal, t, rank);

    // 2. Dissemination among the leaders (in the order of their nodes' lowest ranks).
    if (t.localRank(rank) === 0 && N > 1) {
      b.phase = 'inter';
      const { leaders, me: i } = nodeLeaders(t, rank);
      for (let k = 0, d = 1; d < N; k++, d *= 2) {
        b.round = R1 + k;
        done = [b.send(leaders[(i + d) % N], signal, done), b.recv(leaders[(i - d + N) % N], signal, done)];
      }
    }

    // 3. Fan-out: the release travels down the same binomial tree, the farthest child
    //    first (the transfer over distance 2^j in round R1 + R2 + R1 − 1 − j).
    nodeRelease(b, signal, t, rank, R1 + R2, done);
    return b.build();
  },
};

/**
 * The node leaders (each node's lowest rank) in the order of their nodes' lowest ranks
 * ({@link leaderOrder}), and `me`, the index of `rank`'s node among them. The leaders
 * of barrier/smp's dissemination and of barrier/multicast's fan-in.
 */
export function nodeLeaders(t: Topology, rank: number): { leaders: number[]; me: number } {
  const order = leaderOrder(t);
  return { leaders: order.map((n) => t.ranksOn(n)[0]), me: order.indexOf(t.nodeOf(rank)) };
}

/**
 * Binomial fan-in of zero-byte signals over ids 0..n−1 (id i's parent: i − lowbit(i)),
 * one level a round from `round0`: id `me` receives from its children, then signals its
 * parent (`rankOf` maps an id to its rank). Returns the steps that end it: the send to
 * the parent, or at id 0 `after` and its receives. {@link nodeFanIn}'s tree, and
 * barrier/multicast's fan-in among the node leaders.
 */
export function binomialFanIn(
  b: ScheduleBuilder,
  signal: Region,
  me: number,
  n: number,
  rankOf: (i: number) => number,
  round0: number,
  after: number[],
): number[] {
  let done = after;
  for (let mask = 1, k = 0; mask < n; mask <<= 1, k++) {
    b.round = round0 + k;
    if (me & mask) return [b.send(rankOf(me - mask), signal, done)];
    if (me + mask < n) done = [...done, b.recv(rankOf(me + mask), signal, [])];
  }
  return done;
}

/**
 * The fan-in inside `rank`'s node (phase 'intra'): {@link binomialFanIn} over its
 * local ranks to the node's lowest rank, from round 0. Returns its last steps.
 * Barrier/smp's and barrier/multicast's first phase.
 */
export function nodeFanIn(b: ScheduleBuilder, signal: Region, t: Topology, rank: number): number[] {
  const members = t.ranksOn(t.nodeOf(rank));
  b.phase = 'intra';
  return binomialFanIn(b, signal, t.localRank(rank), members.length, (i) => members[i], 0, []);
}

/**
 * The release inside `rank`'s node (phase 'intra'): the {@link nodeFanIn} tree
 * backwards, the farthest child first, the transfer over distance 2^j in round
 * base + R1 − 1 − j (R1 = ⌈lg maxPpn⌉); the rank's receive from its parent waits for
 * `after`. Barrier/smp's fan-out and barrier/multicast's node release.
 */
export function nodeRelease(b: ScheduleBuilder, signal: Region, t: Topology, rank: number, base: number, after: number[]): void {
  b.phase = 'intra';
  const members = t.ranksOn(t.nodeOf(rank));
  const lr = t.localRank(rank);
  const ppn = members.length;
  const R1 = ceilLog(t.maxPpn);
  const round = (m: number): number => base + R1 - 1 - Math.log2(m);
  let done = after;
  let mask = 1;
  while (mask < ppn && !(lr & mask)) mask <<= 1;
  if (lr !== 0) {
    b.round = round(mask);
    done = [b.recv(members[lr - mask], signal, done)];
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (lr + mask >= ppn) continue;
    b.round = round(mask);
    b.send(members[lr + mask], signal, done);
  }
}
