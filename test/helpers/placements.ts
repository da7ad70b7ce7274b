/**
 * Node placements for the node-aware algorithm tests.
 */
import { prng } from '../../src/core/random.js';
import { flatTopology, nodeTopology, topologyFromNodes, type Topology } from '../../src/schedule/topology.js';

/**
 * Placements of P ranks: every rank on a node of its own, one node, block and cyclic
 * placements (2, 3, 4 ranks a node, where fewer than P), and three seeded random
 * uneven, interleaved placements (seed P·977 + `salt`; none for P = 1).
 */
export function placements(P: number, salt: number): Topology[] {
  const out: Topology[] = [flatTopology(P), topologyFromNodes(new Array<number>(P).fill(0), '1 node')];
  for (const ppn of [2, 3, 4]) {
    if (ppn >= P) continue;
    out.push(nodeTopology(P, ppn, 'block'), nodeTopology(P, ppn, 'cyclic'));
  }
  const rand = prng(P * 977 + salt);
  for (let k = 0; k < 3 && P > 1; k++) {
    const N = 1 + Math.floor(rand() * Math.min(P, 5));
    // Every node gets one rank, the others land anywhere: uneven, interleaved nodes.
    const nodes = Array.from({ length: P }, (_, r) => (r < N ? r : Math.floor(rand() * N)));
    for (let i = P - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [nodes[i], nodes[j]] = [nodes[j], nodes[i]];
    }
    out.push(topologyFromNodes(nodes, `random ${nodes.join(',')}`));
  }
  return out;
}
