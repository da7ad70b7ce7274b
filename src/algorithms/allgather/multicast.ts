/**
 * Allgather as concurrent multicasts (seed 003 ch. 5: the other collectives use the
 * hardware broadcast where it helps, allgather as concurrent broadcasts): one rank per
 * node takes part in the off-host multicast, the rest is shared on the host.
 *
 * Node leaders: the lowest rank of each node. (a) Each node's ranks send their block
 * to the leader, straight into its place in the leader's result (a linear gather, as
 * in allgather/smp: local rank i in round i−1). (b) Each leader multicasts its node's
 * blocks to every other node's leader: ONE multicast (multicast-marked sends to the
 * leaders in ascending order, see SendStep.multicast) per block of its node, since a
 * marked group sends one region and a node's blocks are not contiguous in the result
 * under cyclic or random placements. The multicast of a node's j-th block (local rank
 * j) waits only for that block (round j, pipelined with the gather), and no leader's
 * multicasts wait for another node: all leaders multicast concurrently. A leader
 * receives the j-th block of another node as the j-th message from that node's
 * leader. (c) Each leader broadcasts the whole result inside its node (binomial tree
 * over the node's ranks in local-rank order, from round maxPpn; maxPpn − 1 on a single
 * node, which sends no multicast). Any topology: nodes of any size, any placement;
 * count 0 is the empty schedule.
 *
 * The multicast is real only where the runtime executor runs on a transport whose
 * endpoint has a multicast path (`Endpoint.imcast`, the node process's multicast);
 * elsewhere, and in the models and the simulator, the marked sends are ordinary sends
 * from each leader to every other leader (a direct exchange among the leaders).
 *
 * Cost (N nodes, ppn ranks per node, n bytes per block; intra-node α_ℓ, β_ℓ):
 * (ppn−1)·(α_ℓ + nβ_ℓ) for the gather, overlapped with ppn·α + (P − ppn)·nβ across
 * nodes (each leader's ppn multicasts reach every node at once; each leader receives
 * the other nodes' P − ppn blocks), then ⌈lg ppn⌉·(α_ℓ + P·nβ_ℓ) inside the nodes.
 * The closed-form estimate has no topology and assumes one rank per node (N = P):
 * α + (P−1)·nβ for P > 1.
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import type { Topology } from '../../schedule/topology.js';
import type { Region } from '../../schedule/types.js';
import { buildKnomialBcast } from '../allreduce/common.js';
import { multicastTargets } from '../bcast/multicast.js';
import type { AlgorithmSpec } from '../types.js';

export const multicastAllgather: AlgorithmSpec = {
  name: 'multicast',
  collective: 'allgather',
  description:
    "blocks to each node's lowest rank, each leader multicasts every block of its node to the other leaders (all leaders at once), binomial broadcast in each node; " +
    "the multicasts are real only through the node process's multicast path (else the marked sends go point-to-point: a direct exchange among the leaders); never chosen by the built-in selection rules",
  source: 'seed 003 ch. 5 (allgather as concurrent broadcasts over hardware/IP multicast)',
  restrictions: [],
  params: [],
  orderPreserving: true,
  topology: 'nodes',
  cost: {
    formula: '(ppn−1)·(α_ℓ + nβ_ℓ) ‖ ppn·α + (P−ppn)·nβ, then ⌈lg ppn⌉·(α_ℓ + P·nβ_ℓ)  (concurrent multicasts; estimate: ppn = 1)',
    estimate: ({ P, n, alpha, beta }) => (P > 1 ? alpha + (P - 1) * n * beta : 0),
  },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'multicast');
    const { rank, size: P, count, topology: t } = ctx;
    if (count === 0) return b.build();
    const node = t.nodeOf(rank);
    const members = t.ranksOn(node);
    const lr = t.localRank(rank);
    const block = (r: number): Region => b.out(r * count, count);
    const multi = t.nodeCount > 1;

    // (a) The node's blocks to its leader, each straight into its place.
    b.phase = 'intra';
    if (lr !== 0) {
      b.round = lr - 1;
      b.send(members[0], b.in(0, count));
    }
    const written: number[] = [];
    if (lr === 0) {
      b.round = 0;
      const got = [b.copy(b.in(0, count), block(rank))];
      for (let i = 1; i < members.length; i++) {
        b.round = i - 1;
        got.push(b.recv(members[i], block(members[i])));
      }
      written.push(...got);

      // (b) One multicast per block of this node to the other leaders; the other nodes' blocks from their leaders.
      if (multi) {
        b.phase = 'inter';
        const leaders = multicastTargets(t, rank);
        members.forEach((r, j) => {
          b.round = j;
          b.multicast(leaders, block(r), [got[j]]);
        });
        for (const leader of leaders) {
          t.ranksOn(t.nodeOf(leader)).forEach((r, j) => {
            b.round = j;
            written.push(b.recv(leader, block(r)));
          });
        }
      }
    }

    // (c) The whole result from the leader to its node.
    b.phase = 'intra';
    buildKnomialBcast(b, { me: lr, P: members.length, f: 2, data: b.out(0, P * count), rankOf: (i) => members[i], after: written, round0: multicastAllgatherBcastRound(t) });
    return b.build();
  },
};

/** First round of allgather/multicast's node broadcast: after the multicasts (rounds 0..maxPpn−1), or after the gather on one node. */
export function multicastAllgatherBcastRound(t: Topology): number {
  return t.nodeCount > 1 ? t.maxPpn : t.maxPpn - 1;
}
