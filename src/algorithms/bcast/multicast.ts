/**
 * SMP broadcast over a network multicast (seed 003 ch. 5, B11): one rank per node
 * takes part in the off-host hardware/IP multicast, and the data is then shared on
 * the host through shared memory.
 *
 * Node leaders: on the root's node the root itself, on every other node its lowest
 * rank. The root sends the whole vector to every other node's leader as ONE multicast
 * (multicast-marked sends, all in round 0 without dependencies, to the leaders in
 * ascending order: see SendStep.multicast), and at the same time broadcasts it inside
 * its own node; every other leader receives it from the root and broadcasts it inside
 * its node. The broadcast inside a node is a binomial tree over the node's ranks with
 * the leader as local root (local ids: the leader, then the node's other ranks in
 * ascending order), in rounds 1..⌈lg ppn⌉ (0..⌈lg ppn⌉−1 on a single node, which sends
 * no multicast). Works for any topology: nodes of any size, any rank placement, any
 * root.
 *
 * The multicast is real only where the runtime executor runs on a transport whose
 * endpoint has a multicast path (`Endpoint.imcast`, the node process's multicast);
 * elsewhere, and in the models and the simulator, the marked sends are ordinary
 * sends from the root: a flat tree over the node leaders.
 *
 * Cost (N nodes, ppn ranks per node; intra-node α_ℓ, β_ℓ): one α + nβ for the
 * multicast, which reaches every node at once (instead of ⌈lg N⌉ rounds of a tree),
 * plus ⌈lg ppn⌉·(α_ℓ + nβ_ℓ) inside the nodes. The closed-form estimate has no
 * topology and assumes one rank per node (N = P): α + nβ for P > 1.
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import { ceilLog } from '../../schedule/partition.js';
import type { Topology } from '../../schedule/topology.js';
import { buildKnomialBcast } from '../allreduce/common.js';
import type { AlgorithmSpec } from '../types.js';

/** The leader of `node` in a broadcast from `root`: the root on its own node, else the node's lowest rank. */
export function multicastLeader(t: Topology, root: number, node: number): number {
  return node === t.nodeOf(root) ? root : t.ranksOn(node)[0];
}

/** The ranks the root multicasts to: every other node's leader, ascending. */
export function multicastTargets(t: Topology, root: number): number[] {
  const rootNode = t.nodeOf(root);
  const out: number[] = [];
  for (let n = 0; n < t.nodeCount; n++) if (n !== rootNode) out.push(t.ranksOn(n)[0]);
  return out.sort((a, c) => a - c);
}

export const multicast: AlgorithmSpec = {
  name: 'multicast',
  collective: 'bcast',
  description:
    'SMP broadcast: the root multicasts the vector to one leader per node, then a binomial tree in each node; ' +
    "the multicast is real only through the node process's multicast path (else the marked sends go point-to-point from the root: a flat tree over the nodes); never chosen by the built-in selection rules",
  source: 'seed 003 ch. 5 (B11, SMP broadcast over hardware/IP multicast)',
  restrictions: [],
  params: [],
  orderPreserving: true,
  topology: 'nodes',
  cost: {
    formula: 'α + nβ + ⌈lg ppn⌉·(α_ℓ + nβ_ℓ)  (one multicast reaches every node; estimate: ppn = 1)',
    estimate: ({ P, n, alpha, beta }) => (P > 1 ? alpha + n * beta : 0),
  },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'multicast');
    const { rank, root, count, topology: t } = ctx;
    const node = t.nodeOf(rank);
    const leader = multicastLeader(t, root, node);
    const members = t.ranksOn(node);
    // Local ids: the leader first, then the node's other ranks in ascending order.
    const local = [leader, ...members.filter((r) => r !== leader)];
    const me = local.indexOf(rank);
    const data = b.out(0, count);
    const multi = t.nodeCount > 1;

    let after: number[] = [];
    if (multi && rank === leader) {
      b.phase = 'inter';
      b.round = 0;
      // The root's multicast does not hold back its node's broadcast (no deps between them).
      if (rank === root) b.multicast(multicastTargets(t, root), data);
      else after = [b.recv(root, data)];
    }

    b.phase = 'intra';
    buildKnomialBcast(b, { me, P: local.length, f: 2, data, rankOf: (i) => local[i], after, round0: multi ? 1 : 0 });
    return b.build();
  },
};

/** Rounds of bcast/multicast on a topology: the multicast (when there are several nodes), then ⌈lg ppn⌉. */
export function multicastRounds(t: Topology): number {
  return (t.nodeCount > 1 ? 1 : 0) + ceilLog(t.maxPpn);
}
