/**
 * Barrier with a multicast release (seed 003 ch. 5: the release phase of a barrier
 * over the hardware broadcast). Node leaders: the lowest rank of each node; the top
 * leader: rank 0 (the lowest rank of its node).
 *
 * 1. Fan-in inside each node: a binomial tree of zero-byte signals to the leader
 *    (local ids = local ranks; a rank signals its parent once its children have
 *    signalled it), rounds 0..R1−1, R1 = ⌈lg maxPpn⌉ (as barrier/smp).
 * 2. Fan-in among the leaders to rank 0: the same binomial tree over the leaders in the
 *    order of their nodes' lowest ranks, rounds R1..R1+R2−1, R2 = ⌈lg N⌉.
 * 3. Release: rank 0 sends ONE multicast-marked zero-byte group to every other leader
 *    (ascending; see SendStep.multicast) once everything has reached it, round R1+R2.
 * 4. Release inside each node: the fan-in tree backwards, the farthest child first,
 *    in the R1 rounds after the release (after the fan-in on a single node, which
 *    sends no multicast). Rank 0's node release does not wait for its multicast.
 * Works for any topology: nodes of any size, any placement.
 *
 * The multicast is real only where the runtime executor runs on a transport whose
 * endpoint has a multicast path (`Endpoint.imcast`, the node process's multicast);
 * elsewhere, and in the models and the simulator, the marked sends are ordinary sends
 * from rank 0: a flat release tree over the leaders.
 *
 * Cost (N nodes, ppn ranks per node; intra-node α_ℓ): 2⌈lg ppn⌉·α_ℓ + ⌈lg N⌉·α for
 * the fan-ins and the node releases, plus one α for the release, which reaches every
 * node at once (instead of ⌈lg N⌉ rounds of a tree). The closed-form estimate has no
 * topology and assumes one rank per node (N = P): (⌈lg P⌉ + 1)·α for P > 1.
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import { ceilLog } from '../../schedule/partition.js';
import type { Topology } from '../../schedule/topology.js';
import { multicastTargets } from '../bcast/multicast.js';
import type { AlgorithmSpec } from '../types.js';
import { binomialFanIn, nodeFanIn, nodeLeaders, nodeRelease } from './smp.js';

export const multicastBarrier: AlgorithmSpec = {
  name: 'multicast',
  collective: 'barrier',
  description:
    "binomial fan-in to each node's lowest rank, binomial fan-in of the leaders to rank 0, which releases every other leader with one multicast, binomial release in each node; " +
    "the multicast is real only through the node process's multicast path (else the marked sends go point-to-point from rank 0); never chosen by the built-in selection rules",
  source: 'seed 003 ch. 5 (barrier release over hardware/IP multicast)',
  restrictions: [],
  params: [],
  orderPreserving: true,
  topology: 'nodes',
  cost: {
    formula: '2⌈lg ppn⌉·α_ℓ + ⌈lg N⌉·α + α  (one multicast releases every node; estimate: ppn = 1)',
    estimate: ({ P, alpha }) => (P > 1 ? (ceilLog(P) + 1) * alpha : 0),
  },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'multicast');
    const { rank, topology: t } = ctx;
    const signal = b.in(0, 0);
    const N = t.nodeCount;
    const R1 = ceilLog(t.maxPpn);
    const R2 = ceilLog(N);

    // 1. Fan-in inside the node.
    let done = nodeFanIn(b, signal, t, rank);

    // 2. and 3. The leaders' fan-in to rank 0, and its multicast release.
    if (t.localRank(rank) === 0 && N > 1) {
      b.phase = 'inter';
      const { leaders, me } = nodeLeaders(t, rank);
      done = binomialFanIn(b, signal, me, N, (i) => leaders[i], R1, done);
      b.phase = 'release';
      b.round = R1 + R2;
      if (rank === 0) b.multicast(multicastTargets(t, 0), signal, done);
      else done = [b.recv(0, signal, done)];
    }

    // 4. Release inside the node: the fan-in tree backwards, the transfer over distance
    //    2^j in round base + R1 − 1 − j, base = multicastBarrierReleaseRound(t).
    nodeRelease(b, signal, t, rank, multicastBarrierReleaseRound(t), done);
    return b.build();
  },
};

/** First round of barrier/multicast's release inside the nodes: after the multicast, or after the fan-in on one node. */
export function multicastBarrierReleaseRound(t: Topology): number {
  const R1 = ceilLog(t.maxPpn);
  return t.nodeCount > 1 ? R1 + ceilLog(t.nodeCount) + 1 : R1;
}
