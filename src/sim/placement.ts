/**
 * Where the simulated ranks live: rank → node (block mapping of `ppn` ranks per
 * node, or a W×H sub-mesh of a mesh machine with one rank per node), rank → socket,
 * and the `Topology` the schedule generators see. Built without per-rank objects so
 * that a million ranks cost a few typed arrays.
 */
import { ArgumentError } from '../core/errors.js';
import type { MeshCoord, MeshPlacement, Topology } from '../schedule/topology.js';
import { networkCapacity, type MachineSpec } from './machine.js';

export interface Placement {
  readonly P: number;
  readonly ppn: number;
  /** Nodes in use (node ids 0..nodes−1 are positions in the machine's network). */
  readonly nodes: number;
  /** Highest node id used + 1 (≥ nodes for a sub-mesh). */
  readonly nodeSpan: number;
  readonly rankNode: Int32Array;
  readonly rankSocket: Int32Array;
  readonly topology: Topology;
}

export interface PlacementOptions {
  readonly ppn?: number;
  /** Place ranks on a W×H sub-mesh of a mesh machine (one rank per node). */
  readonly mesh?: { readonly width: number; readonly height: number };
}

export function place(machine: MachineSpec, P: number, o: PlacementOptions = {}): Placement {
  if (!Number.isSafeInteger(P) || P < 1) throw new ArgumentError(`--procs must be a positive integer, got ${P}`);
  const ppn = o.ppn ?? machine.defaultPpn ?? 1;
  if (!Number.isSafeInteger(ppn) || ppn < 1) throw new ArgumentError(`--ppn must be a positive integer, got ${ppn}`);
  if (ppn > machine.coresPerNode) {
    throw new ArgumentError(
      `--ppn ${ppn} exceeds the ${machine.coresPerNode} cores per node of machine '${machine.name}'`,
      `use --ppn ≤ ${machine.coresPerNode}`,
    );
  }
  const rankNode = new Int32Array(P);
  const rankSocket = new Int32Array(P);
  const perSocket = machine.coresPerNode / (machine.socketsPerNode ?? 1);
  let mesh: MeshPlacement | undefined;
  let nodes: number;
  let nodeSpan: number;
  const net = machine.network;
  if (o.mesh) {
    if (net.topology !== 'mesh2d') throw new ArgumentError(`--mesh needs a mesh machine; '${machine.name}' is a ${net.topology}`);
    const { width: w, height: h } = o.mesh;
    const W = net.width ?? 0;
    const H = net.height ?? 0;
    if (w * h !== P) throw new ArgumentError(`a ${w}x${h} mesh holds ${w * h} ranks, but --procs is ${P}`, `use --procs ${w * h}`);
    if (w > W || h > H) throw new ArgumentError(`a ${w}x${h} sub-mesh does not fit the ${W}x${H} mesh of '${machine.name}'`);
    if (ppn !== 1) throw new ArgumentError('--mesh places one rank per node; drop --ppn');
    for (let r = 0; r < P; r++) rankNode[r] = Math.floor(r / w) * W + (r % w);
    nodes = P;
    nodeSpan = (h - 1) * W + w;
    mesh = Object.freeze({
      width: w,
      height: h,
      coordOf: (rank: number): MeshCoord => ({ x: rank % w, y: Math.floor(rank / w) }),
      rankAt: (x: number, y: number): number => y * w + x,
    });
  } else {
    nodes = Math.ceil(P / ppn);
    nodeSpan = nodes;
    for (let r = 0; r < P; r++) {
      rankNode[r] = Math.floor(r / ppn);
      rankSocket[r] = Math.floor((r % ppn) / perSocket);
    }
    if (net.topology === 'mesh2d' && ppn === 1 && net.width !== undefined && P === net.width * (net.height ?? 0)) {
      const W = net.width;
      mesh = Object.freeze({
        width: W,
        height: net.height ?? 1,
        coordOf: (rank: number): MeshCoord => ({ x: rank % W, y: Math.floor(rank / W) }),
        rankAt: (x: number, y: number): number => y * W + x,
      });
    }
  }
  const capacity = Math.min(machine.nodes, networkCapacity(net, machine.nodes));
  if (nodeSpan > capacity) {
    throw new ArgumentError(
      `machine '${machine.name}' cannot host ${P} processes at ${ppn} per node: that needs ${nodes} nodes, it has ${capacity}`,
      `at most ${capacity * Math.min(ppn, machine.coresPerNode)} processes at --ppn ${ppn}; raise --ppn (≤ ${machine.coresPerNode}) or choose a larger machine`,
    );
  }
  const members = new Map<number, readonly number[]>();
  const topology: Topology = Object.freeze({
    size: P,
    nodeCount: nodes,
    nodeOf: (r: number) => (mesh && o.mesh ? r : rankNode[r]),
    localRank: (r: number) => (mesh && o.mesh ? 0 : r % ppn),
    ranksOn: (n: number): readonly number[] => {
      let m = members.get(n);
      if (!m) {
        const lo = mesh && o.mesh ? n : n * ppn;
        const hi = mesh && o.mesh ? n + 1 : Math.min(P, lo + ppn);
        m = Object.freeze(Array.from({ length: hi - lo }, (_, i) => lo + i));
        members.set(n, m);
      }
      return m;
    },
    maxPpn: Math.min(ppn, P),
    uniform: P % ppn === 0,
    mesh,
    label: mesh ? `${mesh.width}x${mesh.height} mesh on ${machine.name}` : `${nodes} nodes x ${ppn} (block) on ${machine.name}`,
  });
  return { P, ppn, nodes, nodeSpan, rankNode, rankSocket, topology };
}
