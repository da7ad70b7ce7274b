/**
 * Machine descriptions for the simulator: nodes and cores, the interconnect
 * (topology, links, injection limits), the cost of each message class (socket /
 * node / network), host CPU and NIC costs, hardware-collective costs, and where
 * every number comes from. All values are SI: seconds, bytes, bytes per second.
 *
 * `validateMachine` checks a description completely and throws one ArgumentError
 * that lists every missing or impossible value, before anything is simulated.
 */
import { ArgumentError } from '../core/errors.js';
import { resolveF, type FSpec } from '../model/nbl.js';

export type NetworkKind = 'crossbar' | 'fattree' | 'mesh2d' | 'torus3d';

/** Latency and per-byte time of one message class (Hockney α, β). */
export interface ClassCost {
  /** s: first byte out to last byte in, minus the transfer. */
  readonly alpha: number;
  /** s/B: 1 / bandwidth one process achieves. */
  readonly beta: number;
}

export interface NetworkSpec {
  readonly topology: NetworkKind;
  /** Fat tree: switch arity k (k down-links and k up-links per switch). */
  readonly arity?: number;
  /** Fat tree: levels n (default: smallest n with k^n ≥ nodes). */
  readonly levels?: number;
  /** Fat tree: up-links used per switch, u ≤ k; oversubscription is k:u (default k). */
  readonly upLinks?: number;
  /** 2-D mesh: width × height nodes. */
  readonly width?: number;
  readonly height?: number;
  /** 3-D torus: X × Y × Z nodes. */
  readonly dims?: readonly [number, number, number];
  /** B/s per link and direction. */
  readonly linkBandwidth: number;
  /** s per link traversed (switch flow-through + wire). */
  readonly hopLatency: number;
  /** Node injection limit R_N (B/s) of the node's network port; default linkBandwidth. */
  readonly injectionBandwidth?: number;
  /**
   * Node-bandwidth-limited node (seed 004): all data into and out of a node share
   * one channel, so L concurrent messages take about L times as long (f(L) = L).
   */
  readonly nodeChannelShared?: boolean;
  /**
   * f(L) of the shared node channel (seed 004): L messages using the channel at once
   * take f(L)·β·S together. A preset ('nominal' f = L, the default; 'standard' f = 1;
   * 'fitted' §4.2; 'testjig' Table 1, f depending on S = bytes/8) or a table.
   */
  readonly nodeChannelF?: FSpec;
  /**
   * Where a message's software overhead α = host.oSend + host.oRecv is charged:
   * - 'message-end' (default): oSend on the sender's CPU, oRecv on the receiver's,
   *   so a message costs α on its path and a node pays oSend or oRecv for each
   *   message it takes part in (α/2 per active link when split evenly);
   * - 'link-step' (seed 004's closed forms, "α per link and step at the busiest
   *   node"; needs nodeChannelShared, link contention and host mode): each end of a
   *   network message spends the whole α in its node's shared channel, serial with
   *   the channel's other messages, the receiving end's α alongside the sending
   *   end's. A lone message still costs α + S·β, while L messages through one node
   *   at once cost it L·α + f(L)·β·S, the seed's T(L). The CPUs then pay nothing to
   *   send or receive (messages within a node cost only their class α, β).
   */
  readonly alphaPer?: 'message-end' | 'link-step';
  /**
   * 'message' (default): messages reserve links for their wire time (fast).
   * 'wormhole': packet-level wormhole flow control, circuits held until the ack,
   * `wormhole.vcs` virtual channels per link (seed 002; src/sim/wormhole.ts).
   */
  readonly flowControl?: 'message' | 'wormhole';
  /** Wormhole parameters (needed by flowControl 'wormhole'). */
  readonly wormhole?: {
    readonly vcs: number;
    readonly ackTurnaround: number;
    /** s per payload byte added to the ack turnaround (the destination commits the packet before it acks; default 0). */
    readonly ackPerByte?: number;
  };
  /** Payload bytes per packet where packets are simulated (hardware multicast, background traffic). */
  readonly packetBytes?: number;
  /** Header/trailer bytes per packet on the wire. */
  readonly packetOverhead?: number;
}

export interface CpuCosts {
  /** s: CPU time to post a send (LogP o). */
  readonly oSend: number;
  /** s: CPU time to complete a receive. */
  readonly oRecv: number;
  /**
   * s per element combination, keyed 'op:dtype' (e.g. 'sum:float64'), 'op', 'dtype'
   * or 'default' (looked up in that order).
   */
  readonly gamma: Readonly<Record<string, number>>;
  /** s/B of a local copy. */
  readonly copyPerByte: number;
}

export interface HostSpec extends CpuCosts {
  /** s: fixed cost of entering a collective call on the host (seed 000's C). */
  readonly callOverhead?: number;
}

export interface NicSpec extends CpuCosts {
  /** s of host CPU time to hand a collective to the NIC (descriptor, data, start signal). */
  readonly startup: number;
  /** s of host CPU time to take the result back (completion notification, copy out). */
  readonly completion: number;
  /**
   * s saved per message endpoint that is the NIC rather than host memory (one
   * host–NIC bus crossing). Seed 000: L_host − L_NIC = 0.80 µs for two endpoints.
   */
  readonly busCrossing: number;
  /**
   * s of NIC processor time per data packet a NIC-run rank receives through the
   * regular packet path (receive token, acknowledgement and send-record bookkeeping,
   * DMA descriptor to the host: seed 003 §6.4 M8/M9), on top of oRecv. Messages of
   * 0 bytes (barrier / synchronisation tokens) use the static per-peer packet with
   * receiver-driven NACKs (§6.3 M4/M5) and do not pay it. Default 0.
   */
  readonly packetRecv?: number;
  /** Payload bytes per NIC packet for packetRecv (GM: 4096, seed 003 §6.7); default: one packet per message. */
  readonly packetBytes?: number;
}

/** Costs of the seed 002 hardware collectives (Elan3 / Elite). */
export interface HardwareCollectiveSpec {
  /** s: host + NIC cost to start a hardware multicast (DMA descriptor, thread wake-up). */
  readonly multicastStartup: number;
  /** s: extra gap per multicast packet (ack combining, circuit turnaround), on top of its wire time. */
  readonly multicastPacketGap: number;
  /** s: cost at each destination to take delivery (event set, host notices). */
  readonly deliveryOverhead: number;
  /** s: host cost to enter the hardware barrier (write the sequence word). */
  readonly barrierEnter: number;
  /** s: NIC thread cost at the root per test-and-set attempt. */
  readonly barrierAttempt: number;
  /** s: first retry back-off; doubles per failed attempt. */
  readonly barrierBackoff: number;
  /** s: largest back-off. */
  readonly barrierBackoffMax: number;
}

export interface MachineSpec {
  readonly name: string;
  readonly description: string;
  readonly nodes: number;
  readonly coresPerNode: number;
  readonly socketsPerNode?: number;
  readonly network: NetworkSpec;
  readonly classes: {
    /** Both ranks on one socket (defaults to `node`). */
    readonly socket?: ClassCost;
    /** Both ranks on one node. */
    readonly node: ClassCost;
    /** Ranks on different nodes, excluding the per-hop latency of the route. */
    readonly network: ClassCost;
  };
  readonly host: HostSpec;
  readonly nic?: NicSpec;
  readonly hw?: HardwareCollectiveSpec;
  /** Default ranks per node (default 1). */
  readonly defaultPpn?: number;
  /** Where each value comes from, by path ('classes.network.alpha': 'seed 000 Table 4.2'); 'ASSUMED: …' marks assumptions. */
  readonly sources: Readonly<Record<string, string>>;
}

const UNITS: Record<string, number> = {
  s: 1,
  ms: 1e-3,
  us: 1e-6,
  'µs': 1e-6,
  ns: 1e-9,
  'b/s': 1,
  'kb/s': 1e3,
  'mb/s': 1e6,
  'gb/s': 1e9,
  'kib/s': 1024,
  'mib/s': 1024 ** 2,
  'gib/s': 1024 ** 3,
  'b': 1,
  'kb': 1e3,
  'kib': 1024,
  'mb': 1e6,
  'mib': 1024 ** 2,
  'gb': 1e9,
  'gib': 1024 ** 3,
  's/b': 1,
  'ns/b': 1e-9,
  'us/b': 1e-6,
};

/** Parse "2.9us", "400MB/s", "64KiB" or a plain number (already SI). NaN when malformed. */
export function parseQuantity(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return NaN;
  const m = /^\s*([-+]?\d*\.?\d+(?:[eE][-+]?\d+)?)\s*([a-zA-Zµ/]*)\s*$/.exec(v);
  if (!m) return NaN;
  const unit = m[2].toLowerCase();
  if (unit === '') return Number(m[1]);
  const f = UNITS[unit];
  return f === undefined ? NaN : Number(m[1]) * f;
}

/** Look up gamma for (op, dtype) in a cost table. */
export function gammaOf(c: CpuCosts, op: string, dtype: string): number {
  const g = c.gamma;
  return g[`${op}:${dtype}`] ?? g[op] ?? g[dtype] ?? g.default ?? 0;
}

/** Capacity in nodes of the network description. */
export function networkCapacity(n: NetworkSpec, nodes: number): number {
  switch (n.topology) {
    case 'crossbar':
      return nodes;
    case 'fattree': {
      const k = n.arity ?? 4;
      const lv = n.levels ?? fatTreeLevels(k, nodes);
      return k ** lv;
    }
    case 'mesh2d':
      return (n.width ?? 0) * (n.height ?? 0);
    case 'torus3d':
      return n.dims ? n.dims[0] * n.dims[1] * n.dims[2] : 0;
  }
}

/** Smallest n ≥ 1 with k^n ≥ nodes. */
export function fatTreeLevels(k: number, nodes: number): number {
  let n = 1;
  while (k ** n < nodes) n++;
  return n;
}

type Problems = string[];

function num(p: Problems, path: string, v: unknown, o: { min?: number; positive?: boolean; integer?: boolean; optional?: boolean } = {}): void {
  if (v === undefined) {
    if (!o.optional) p.push(`${path} is missing`);
    return;
  }
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    p.push(`${path} must be a finite number, got ${JSON.stringify(v)}`);
    return;
  }
  if (o.integer && !Number.isInteger(v)) p.push(`${path} must be an integer, got ${v}`);
  if (o.positive && !(v > 0)) p.push(`${path} must be > 0, got ${v}`);
  else if (o.min !== undefined && v < o.min) p.push(`${path} must be ≥ ${o.min}, got ${v}`);
}

function checkCpu(p: Problems, path: string, c: CpuCosts | undefined): void {
  if (c === undefined || typeof c !== 'object') {
    p.push(`${path} is missing`);
    return;
  }
  num(p, `${path}.oSend`, c.oSend, { min: 0 });
  num(p, `${path}.oRecv`, c.oRecv, { min: 0 });
  num(p, `${path}.copyPerByte`, c.copyPerByte, { min: 0 });
  if (c.gamma === undefined || typeof c.gamma !== 'object') p.push(`${path}.gamma is missing (s per element; use {"default": 0} for none)`);
  else for (const [k, v] of Object.entries(c.gamma)) num(p, `${path}.gamma.${k}`, v, { min: 0 });
}

/** Throw an ArgumentError naming every problem of the description. */
export function validateMachine(m: MachineSpec, origin = 'machine'): void {
  const p: Problems = [];
  if (typeof m !== 'object' || m === null) throw new ArgumentError(`${origin}: a machine description must be an object`);
  if (typeof m.name !== 'string' || m.name.length === 0) p.push('name is missing');
  num(p, 'nodes', m.nodes, { positive: true, integer: true });
  num(p, 'coresPerNode', m.coresPerNode, { positive: true, integer: true });
  num(p, 'socketsPerNode', m.socketsPerNode, { positive: true, integer: true, optional: true });
  if (m.socketsPerNode !== undefined && m.coresPerNode % m.socketsPerNode !== 0) {
    p.push(`socketsPerNode (${m.socketsPerNode}) must divide coresPerNode (${m.coresPerNode})`);
  }
  num(p, 'defaultPpn', m.defaultPpn, { positive: true, integer: true, optional: true });
  const n = m.network;
  if (n === undefined || typeof n !== 'object') p.push('network is missing');
  else {
    if (!['crossbar', 'fattree', 'mesh2d', 'torus3d'].includes(n.topology)) {
      p.push(`network.topology must be crossbar, fattree, mesh2d or torus3d, got ${JSON.stringify(n.topology)}`);
    }
    num(p, 'network.linkBandwidth', n.linkBandwidth, { positive: true });
    num(p, 'network.hopLatency', n.hopLatency, { min: 0 });
    num(p, 'network.injectionBandwidth', n.injectionBandwidth, { positive: true, optional: true });
    num(p, 'network.packetBytes', n.packetBytes, { positive: true, integer: true, optional: true });
    num(p, 'network.packetOverhead', n.packetOverhead, { min: 0, integer: true, optional: true });
    if (n.flowControl !== undefined && n.flowControl !== 'message' && n.flowControl !== 'wormhole') {
      p.push(`network.flowControl must be 'message' or 'wormhole', got ${JSON.stringify(n.flowControl)}`);
    }
    if (n.wormhole !== undefined) {
      num(p, 'network.wormhole.vcs', n.wormhole.vcs, { positive: true, integer: true });
      num(p, 'network.wormhole.ackTurnaround', n.wormhole.ackTurnaround, { min: 0 });
      num(p, 'network.wormhole.ackPerByte', n.wormhole.ackPerByte, { min: 0, optional: true });
    } else if (n.flowControl === 'wormhole') p.push('network.flowControl wormhole needs network.wormhole { vcs, ackTurnaround }');
    if (n.alphaPer !== undefined && n.alphaPer !== 'message-end' && n.alphaPer !== 'link-step') {
      p.push(`network.alphaPer must be 'message-end' or 'link-step', got ${JSON.stringify(n.alphaPer)}`);
    }
    if (n.alphaPer === 'link-step' && !n.nodeChannelShared) p.push("network.alphaPer 'link-step' charges α in the shared node channels: it needs network.nodeChannelShared = true");
    if (n.nodeChannelF !== undefined) {
      if (!n.nodeChannelShared) p.push('network.nodeChannelF needs network.nodeChannelShared = true');
      try {
        resolveF(n.nodeChannelF);
      } catch (e) {
        p.push(`network.nodeChannelF: ${(e as Error).message}`);
      }
    }
    if (n.topology === 'fattree') {
      num(p, 'network.arity', n.arity, { min: 2, integer: true });
      num(p, 'network.levels', n.levels, { min: 1, integer: true, optional: true });
      num(p, 'network.upLinks', n.upLinks, { min: 1, integer: true, optional: true });
      if (n.upLinks !== undefined && n.arity !== undefined && n.upLinks > n.arity) {
        p.push(`network.upLinks (${n.upLinks}) cannot exceed network.arity (${n.arity})`);
      }
      if (n.arity !== undefined && n.levels !== undefined && Number.isInteger(m.nodes) && n.arity ** n.levels < m.nodes) {
        p.push(`a ${n.arity}-ary ${n.levels}-tree has ${n.arity ** n.levels} node ports, fewer than nodes = ${m.nodes}`);
      }
    }
    if (n.topology === 'mesh2d') {
      num(p, 'network.width', n.width, { positive: true, integer: true });
      num(p, 'network.height', n.height, { positive: true, integer: true });
      if (n.width !== undefined && n.height !== undefined && n.width * n.height < m.nodes) {
        p.push(`a ${n.width}x${n.height} mesh has ${n.width * n.height} positions, fewer than nodes = ${m.nodes}`);
      }
    }
    if (n.topology === 'torus3d') {
      if (!Array.isArray(n.dims) || n.dims.length !== 3) p.push('network.dims must be [X, Y, Z]');
      else {
        n.dims.forEach((d, i) => num(p, `network.dims[${i}]`, d, { positive: true, integer: true }));
        if (n.dims[0] * n.dims[1] * n.dims[2] < m.nodes) p.push(`a ${n.dims.join('x')} torus has fewer positions than nodes = ${m.nodes}`);
      }
    }
  }
  const c = m.classes;
  if (c === undefined || typeof c !== 'object') p.push('classes is missing (node and network α/β)');
  else {
    for (const k of ['socket', 'node', 'network'] as const) {
      const cc = c[k];
      if (cc === undefined) {
        if (k !== 'socket') p.push(`classes.${k} is missing`);
        continue;
      }
      num(p, `classes.${k}.alpha`, cc.alpha, { min: 0 });
      num(p, `classes.${k}.beta`, cc.beta, { min: 0 });
    }
  }
  checkCpu(p, 'host', m.host);
  if (m.host) num(p, 'host.callOverhead', m.host.callOverhead, { min: 0, optional: true });
  if (m.nic !== undefined) {
    checkCpu(p, 'nic', m.nic);
    num(p, 'nic.startup', m.nic.startup, { min: 0 });
    num(p, 'nic.completion', m.nic.completion, { min: 0 });
    num(p, 'nic.busCrossing', m.nic.busCrossing, { min: 0 });
    num(p, 'nic.packetRecv', m.nic.packetRecv, { min: 0, optional: true });
    num(p, 'nic.packetBytes', m.nic.packetBytes, { positive: true, integer: true, optional: true });
    if (c?.network && typeof m.nic.busCrossing === 'number' && 2 * m.nic.busCrossing > c.network.alpha) {
      p.push(`nic.busCrossing (${m.nic.busCrossing}) × 2 exceeds classes.network.alpha (${c.network.alpha}): NIC-to-NIC latency would be negative`);
    }
  }
  if (m.hw !== undefined) {
    for (const k of ['multicastStartup', 'multicastPacketGap', 'deliveryOverhead', 'barrierEnter', 'barrierAttempt', 'barrierBackoff', 'barrierBackoffMax'] as const) {
      num(p, `hw.${k}`, m.hw[k], { min: 0 });
    }
  }
  if (m.sources !== undefined && typeof m.sources !== 'object') p.push('sources must be an object of path → source');
  if (p.length > 0) {
    throw new ArgumentError(
      `${origin}: invalid machine description${typeof m.name === 'string' ? ` '${m.name}'` : ''}:\n    - ${p.join('\n    - ')}`,
      'units are SI (seconds, bytes, bytes/s) or strings such as "2.9us", "400MB/s"; see docs/simulator.md',
    );
  }
}
