/**
 * Where ranks live: the rank → node map (ranks of one node share memory; nodes talk
 * over the network) and, optionally, the placement of nodes on a W×H 2-D mesh
 * (seed 004). Node-aware algorithms and the schedule statistics read it.
 */
import { ArgumentError, checkIntRange } from '../core/errors.js';

export interface MeshCoord {
  readonly x: number;
  readonly y: number;
}

/** One rank per mesh node; (0,0) is the lower-left corner, y grows upward. */
export interface MeshPlacement {
  readonly width: number;
  readonly height: number;
  coordOf(rank: number): MeshCoord;
  rankAt(x: number, y: number): number;
}

export interface Topology {
  readonly size: number;
  readonly nodeCount: number;
  nodeOf(rank: number): number;
  /** Index of the rank among the ranks of its node (0 = lowest rank there). */
  localRank(rank: number): number;
  /** Ranks on a node, ascending. */
  ranksOn(node: number): readonly number[];
  /** Largest number of ranks on one node. */
  readonly maxPpn: number;
  /** True when every node holds the same number of ranks. */
  readonly uniform: boolean;
  readonly mesh?: MeshPlacement;
  /** Short description, e.g. "4 nodes x 2 (block)". */
  readonly label: string;
}

/** Build a topology from an explicit rank → node array (nodes numbered 0..k-1, each non-empty). */
export function topologyFromNodes(nodeOfRank: readonly number[], label?: string, mesh?: MeshPlacement): Topology {
  const size = nodeOfRank.length;
  if (size < 1) throw new ArgumentError('a topology needs at least one rank');
  const nodeCount = Math.max(...nodeOfRank) + 1;
  const members: number[][] = Array.from({ length: nodeCount }, () => []);
  nodeOfRank.forEach((n, r) => {
    if (!Number.isInteger(n) || n < 0) throw new ArgumentError(`rank ${r} has invalid node ${n}`);
    members[n].push(r);
  });
  members.forEach((m, n) => {
    if (m.length === 0) throw new ArgumentError(`node ${n} has no ranks; number nodes 0..${nodeCount - 1} without gaps`);
  });
  const local = new Array<number>(size);
  for (const m of members) m.forEach((r, i) => (local[r] = i));
  const maxPpn = Math.max(...members.map((m) => m.length));
  const uniform = members.every((m) => m.length === maxPpn);
  const nodes = Int32Array.from(nodeOfRank);
  return Object.freeze({
    size,
    nodeCount,
    nodeOf: (r: number) => nodes[r],
    localRank: (r: number) => local[r],
    ranksOn: (n: number) => members[n],
    maxPpn,
    uniform,
    mesh,
    label: label ?? `${nodeCount} nodes`,
  });
}

/** Every rank on its own node (the default for algorithms that ignore nodes). */
export function flatTopology(size: number): Topology {
  checkIntRange('size', size, 1, 1 << 30);
  return topologyFromNodes(Array.from({ length: size }, (_, r) => r), `${size} nodes x 1`);
}

/**
 * `size` ranks, `ppn` per node. 'block' puts ranks 0..ppn-1 on node 0 (SMP-style
 * ordering, seed 001); 'cyclic' deals ranks round-robin over the nodes. When ppn
 * does not divide size the last node (block) or the last nodes (cyclic) hold fewer.
 */
export function nodeTopology(size: number, ppn: number, mapping: 'block' | 'cyclic' = 'block'): Topology {
  checkIntRange('size', size, 1, 1 << 30);
  checkIntRange('ppn', ppn, 1, size);
  const nodes = Math.ceil(size / ppn);
  const map = Array.from({ length: size }, (_, r) => (mapping === 'block' ? Math.floor(r / ppn) : r % nodes));
  return topologyFromNodes(map, `${nodes} nodes x ${ppn} (${mapping})`);
}

/** A W×H mesh with one rank per node, ranks in row-major order from the lower-left corner. */
export function meshTopology(width: number, height: number): Topology {
  checkIntRange('mesh width', width, 1, 1 << 15);
  checkIntRange('mesh height', height, 1, 1 << 15);
  const size = width * height;
  const mesh: MeshPlacement = Object.freeze({
    width,
    height,
    coordOf(rank: number): MeshCoord {
      return { x: rank % width, y: Math.floor(rank / width) };
    },
    rankAt(x: number, y: number): number {
      return y * width + x;
    },
  });
  return topologyFromNodes(
    Array.from({ length: size }, (_, r) => r),
    `${width}x${height} mesh`,
    mesh,
  );
}
