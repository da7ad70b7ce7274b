/**
 * Quadrics hardware collectives (seed 002), simulated on the fat tree's links:
 *
 * - hw_multicast (bcast): the root's NIC streams packets (≤ packetBytes payload +
 *   overhead) up a predetermined path (up-port 0 at every level) to the fixed
 *   top-leftmost switch of the smallest subtree holding the group (the whole tree
 *   for more than k^(n−1) nodes), where multicasts are serialised (a second one
 *   waits until the first's EOP has passed), then replicated down every branch to
 *   all nodes. Each packet is routed when the NIC emits it, reserving links like any
 *   packet, so background traffic delays it. Acknowledgements are combined in the
 *   switches: the root learns of completion one tree depth after the last delivery.
 * - hw_barrier (elan_hgsync): every process writes its sequence word; the root NIC
 *   multicasts a test-and-set packet; each node's NIC tests the word on arrival; the
 *   combined ack ("worst wins") returns to the root; on success the EOP releases all
 *   waiters, otherwise the root backs off (doubling) and retries.
 * Acks and EOP tokens travel on the open circuit and cost latency only (under wormhole
 * flow control the destinations also take the ack turnaround before acking).
 * Assumptions (documented in docs/simulator.md): route choices, ack/EOP as pure
 * latency, one process per node handles delivery and the others copy from it.
 */
import { ArgumentError } from '../core/errors.js';
import type { CollectiveKind } from '../schedule/types.js';
import { P_ALPHA, P_BETA, P_CPU, P_NIC, P_NOISE, P_QUEUE, P_SKEW, P_SYNC, PATH } from './store.js';
import type { Engine, EnginePlugin } from './engine.js';
import type { MachineSpec } from './machine.js';
import { FatTree, type Network } from './network.js';
import type { Placement } from './placement.js';

export interface HardwareAlgorithm {
  readonly collective: CollectiveKind;
  readonly name: string;
  readonly description: string;
  readonly source: string;
}

export const HW_ALGORITHMS: readonly HardwareAlgorithm[] = Object.freeze([
  {
    collective: 'bcast',
    name: 'hw_multicast',
    description: 'Quadrics hardware multicast: up to a fixed root switch, replicated down, acks combined, serialised at the root',
    source: 'seed 002 §2.3.1, §4.2 (elan_hbcast data phase); seed 003 ch. 5',
  },
  {
    collective: 'barrier',
    name: 'hw_barrier',
    description: 'Quadrics test-and-set hardware barrier (elan_hgsync) with exponential back-off retries',
    source: 'seed 002 §3.6, §4.1',
  },
]);

/** Shared machinery: multicast packet propagation over the fat tree. */
class Multicast {
  readonly tree: FatTree;
  readonly N: number;
  /** Per node: arrival of the latest packet. */
  readonly arrival: Float64Array;
  /** When the root switch is free for the next multicast. */
  rootFree = -Infinity;
  private readonly lat: number;
  /** Level of the group's root switch (0 = leaf switch). */
  private readonly rootLevel: number;
  private readonly worm: Engine['worm'];

  constructor(
    private readonly e: Engine,
    net: Network,
    readonly placement: Placement,
  ) {
    if (!(net instanceof FatTree)) throw new ArgumentError('hardware collectives need a fat-tree network');
    this.tree = net;
    this.N = placement.nodeSpan;
    this.arrival = new Float64Array(this.N);
    this.lat = net.linkLatency[0];
    this.rootLevel = net.groupRootLevel(this.N);
    this.worm = e.worm;
  }

  /**
   * Wormhole flow control: s from the tail of a packet of `payload` bytes reaching a
   * destination NIC to its ack leaving it (then combined on the way up); 0 otherwise.
   */
  ack(payload: number): number {
    return this.worm ? this.worm.ackTurnaround(payload) : 0;
  }

  /** Links between a node and the group's root switch. */
  get depth(): number {
    return this.rootLevel + 1;
  }

  get hopLatency(): number {
    return this.lat;
  }

  /** Pure latency from the root switch down to a node, or up from a node to it. */
  get treeLatency(): number {
    return this.depth * this.lat;
  }

  /**
   * Send one packet of `wire` bytes from `src` at t (head at the injection link).
   * Fills `arrival` (tail arrival per node); returns when it left the injection link.
   */
  packet(src: number, t: number, wire: number): number {
    const tree = this.tree;
    const beta = tree.linkBeta;
    const up = tree.pathToRoot(src, this.rootLevel);
    let head = t;
    let tail = -Infinity;
    let injEnd = t;
    for (let i = 0; i < up.length; i++) {
      const link = up[i];
      const start = this.e.reserveLink(link, head, wire);
      const end = start + wire * beta[link];
      if (i === 0) injEnd = end;
      tail = Math.max(end, tail + this.lat);
      head = start + this.lat;
    }
    // Serialised at the root switch.
    if (head < this.rootFree) {
      tail += this.rootFree - head;
      head = this.rootFree;
    }
    this.down(this.rootLevel, 0, head, tail, wire);
    return injEnd;
  }

  private down(l: number, w: number, head: number, tail: number, wire: number): void {
    const tree = this.tree;
    const k = tree.k;
    const beta = tree.linkBeta;
    if (l === 0) {
      for (let j = 0; j < k; j++) {
        const node = w * k + j;
        if (node >= this.N) break;
        const link = tree.ejectLink(node);
        const start = this.e.reserveLink(link, head, wire);
        const end = Math.max(start + wire * beta[link], tail + this.lat);
        this.arrival[node] = end + this.lat;
      }
      return;
    }
    const pw = k ** (l - 1);
    const digit = Math.floor(w / pw) % k;
    for (let j = 0; j < k; j++) {
      const lower = w + (j - digit) * pw;
      // Subtree of (l−1, lower) covers nodes [prefix·k^l, (prefix+1)·k^l).
      const first = Math.floor(lower / pw) * pw * k;
      if (first >= this.N) break;
      const link = tree.downLink(l - 1, lower, digit);
      const start = this.e.reserveLink(link, head, wire);
      const end = Math.max(start + wire * beta[link], tail + this.lat);
      this.down(l - 1, lower, start + this.lat, end, wire);
    }
  }
}

const A_PACKET = 0;
const A_ATTEMPT = 1;
/** Wormhole flow control: the multicast of packet / attempt b holds all its VCs. */
const A_GRANTED = 2;

/**
 * Wormhole flow control: the issue time that makes the (uncontended, reservation-
 * based) multicast timing start after the tree's VCs were acquired at tc. Uncontended,
 * the last of the 2n links of a branch is acquired (2n − 1) hop latencies after issue.
 */
function grantedIssue(mc: Multicast, tc: number): number {
  return tc - (2 * mc.depth - 1) * mc.hopLatency;
}

class HwMulticastBcast implements EnginePlugin {
  private mc!: Multicast;
  private readonly arrived: Float64Array;
  private readonly packets: number;
  private rootReady = 0;
  private readonly rootPath = new Float64Array(PATH);

  constructor(
    private readonly m: MachineSpec,
    private readonly placement: Placement,
    private readonly bytes: number,
    private readonly root: number,
    private readonly net: Network,
  ) {
    this.arrived = new Float64Array(placement.P);
    const pb = m.network.packetBytes ?? 320;
    this.packets = Math.max(1, Math.ceil(bytes / pb));
    this.mcIds = new Int32Array(this.packets);
  }

  start(e: Engine): void {
    this.mc = new Multicast(e, this.net, this.placement);
    const call = this.m.host.callOverhead ?? 0;
    for (let r = 0; r < this.placement.P; r++) this.arrived[r] = e.hostWork(r, e.startOf(r), call);
    const hw = this.m.hw!;
    const s = e.startOf(this.root);
    this.rootReady = e.hostWork(this.root, this.arrived[this.root], hw.multicastStartup);
    const rp = this.rootPath;
    rp[P_SKEW] = s;
    rp[P_CPU] = call;
    rp[P_SYNC] = hw.multicastStartup;
    rp[P_NOISE] = this.rootReady - s - call - hw.multicastStartup;
    e.pushHw(this.rootReady, A_PACKET, 0);
  }

  private readonly mcIds: Int32Array;

  onEvent(e: Engine, t0: number, action: number, i: number): void {
    const hw = this.m.hw!;
    const pb = this.m.network.packetBytes ?? 320;
    const payload = this.packets === 1 ? this.bytes : i < this.packets - 1 ? pb : this.bytes - pb * (this.packets - 1);
    const wire = payload + (this.m.network.packetOverhead ?? 0);
    const srcNode = this.placement.rankNode[this.root];
    const worm = e.worm;
    let t = t0;
    if (worm) {
      // Wormhole: first hold a VC on every link of the tree.
      if (action === A_PACKET) {
        this.mcIds[i] = worm.multicast(srcNode, this.mc.N, t0, (tc) => e.pushHw(tc, A_GRANTED, i));
        return;
      }
      t = grantedIssue(this.mc, t0);
    }
    const injEnd = this.mc.packet(srcNode, t, wire);
    if (worm) {
      let last = -Infinity;
      for (let d = 0; d < this.mc.N; d++) last = Math.max(last, this.mc.arrival[d]);
      // Combined ack back to the source, then the EOP closes the circuit.
      worm.releaseMulticast(this.mcIds[i], last + this.mc.ack(payload) + 2 * this.mc.treeLatency + this.mc.hopLatency);
    }
    if (i + 1 < this.packets) {
      e.pushHw(injEnd + hw.multicastPacketGap, A_PACKET, i + 1);
      return;
    }
    // Last packet: deliveries, combined ack, root lock release.
    const { rankNode, P, ppn } = this.placement;
    const lat = this.mc.treeLatency;
    const m = this.m;
    const copy = ppn > 1 ? this.bytes * m.host.copyPerByte : 0;
    let ackAtRoot = -Infinity;
    const ack = this.mc.ack(payload);
    for (let d = 0; d < this.mc.N; d++) ackAtRoot = Math.max(ackAtRoot, this.mc.arrival[d] + ack + lat);
    this.mc.rootFree = ackAtRoot;
    const linkBeta = this.mc.tree.linkBeta[this.mc.tree.linkCount - 1];
    const betaPart = this.packets * (wire * linkBeta) + (this.packets - 1) * hw.multicastPacketGap;
    const path = new Float64Array(PATH);
    for (let r = 0; r < P; r++) {
      const node = rankNode[r];
      let ready: number;
      if (r === this.root) ready = ackAtRoot + lat;
      else ready = this.mc.arrival[node];
      const own = this.arrived[r];
      const work = hw.deliveryOverhead + (r === this.root ? 0 : copy);
      path.fill(0);
      if (own >= ready) {
        path[P_SKEW] = e.startOf(r);
        path[P_CPU] = m.host.callOverhead ?? 0;
        path[P_NOISE] = own - e.startOf(r) - path[P_CPU];
        ready = own;
      } else {
        path.set(this.rootPath);
        const net = ready - this.rootReady;
        const alpha = (r === this.root ? 2 : 2) * lat;
        path[P_ALPHA] += alpha;
        path[P_BETA] += Math.min(betaPart, Math.max(0, net - alpha));
        path[P_QUEUE] += net - alpha - Math.min(betaPart, Math.max(0, net - alpha));
      }
      const end = e.hostWork(r, ready, work);
      path[P_CPU] += work;
      path[P_NOISE] += end - ready - work;
      e.finishRankAt(r, end, path);
    }
  }
}

class HwBarrier implements EnginePlugin {
  private mc!: Multicast;
  private readonly arrived: Float64Array;
  private nodeReady!: Float64Array;
  private backoff = 0;
  private readonly rootNode: number;

  constructor(
    private readonly m: MachineSpec,
    private readonly placement: Placement,
    private readonly net: Network,
  ) {
    this.arrived = new Float64Array(placement.P);
    this.rootNode = placement.rankNode[0];
  }

  start(e: Engine): void {
    this.mc = new Multicast(e, this.net, this.placement);
    const hw = this.m.hw!;
    this.backoff = hw.barrierBackoff;
    const work = (this.m.host.callOverhead ?? 0) + hw.barrierEnter;
    this.nodeReady = new Float64Array(this.mc.N).fill(-Infinity);
    for (let r = 0; r < this.placement.P; r++) {
      const a = e.hostWork(r, e.startOf(r), work);
      this.arrived[r] = a;
      const n = this.placement.rankNode[r];
      if (a > this.nodeReady[n]) this.nodeReady[n] = a;
    }
    e.pushHw(this.arrived[0] + hw.barrierAttempt, A_ATTEMPT, 0);
  }

  private mcId = 0;

  onEvent(e: Engine, t0: number, action: number, attempt: number): void {
    const hw = this.m.hw!;
    const wire = 8 + (this.m.network.packetOverhead ?? 0);
    const worm = e.worm;
    let t = t0;
    if (worm) {
      // Wormhole: the test-and-set multicast first holds a VC on every link of the tree.
      if (action === A_ATTEMPT) {
        this.mcId = worm.multicast(this.rootNode, this.mc.N, t0, (tc) => e.pushHw(tc, A_GRANTED, attempt));
        return;
      }
      t = grantedIssue(this.mc, t0);
    }
    this.mc.packet(this.rootNode, t, wire);
    const lat = this.mc.treeLatency;
    let ok = true;
    let ackAtRoot = -Infinity;
    const ack = this.mc.ack(8);
    for (let d = 0; d < this.mc.N; d++) {
      const at = this.mc.arrival[d];
      if (this.nodeReady[d] > at && this.nodeReady[d] > -Infinity) ok = false;
      ackAtRoot = Math.max(ackAtRoot, at + ack + lat);
    }
    const ackAtSrc = ackAtRoot + lat;
    // The EOP frees the circuit (and, on success, releases the waiters).
    this.mc.rootFree = ackAtSrc + lat;
    if (worm) worm.releaseMulticast(this.mcId, ackAtSrc + this.mc.hopLatency);
    if (!ok) {
      const next = ackAtSrc + this.backoff;
      this.backoff = Math.min(2 * this.backoff, hw.barrierBackoffMax);
      e.pushHw(next + hw.barrierAttempt, A_ATTEMPT, attempt + 1);
      return;
    }
    const release = ackAtSrc + 2 * lat;
    const { P } = this.placement;
    const path = new Float64Array(PATH);
    // The critical path: the last arriving process, then the successful attempt.
    let last = 0;
    for (let r = 1; r < P; r++) if (this.arrived[r] > this.arrived[last]) last = r;
    const enter = (this.m.host.callOverhead ?? 0) + hw.barrierEnter;
    for (let r = 0; r < P; r++) {
      const end = e.hostWork(r, release, hw.deliveryOverhead);
      path.fill(0);
      path[P_SKEW] = e.startOf(last);
      path[P_CPU] = enter + hw.deliveryOverhead;
      path[P_NOISE] = this.arrived[last] - e.startOf(last) - enter + (end - release - hw.deliveryOverhead);
      path[P_NIC] = hw.barrierAttempt;
      path[P_ALPHA] = 4 * lat + ack;
      path[P_QUEUE] = end - path.reduce((s, x) => s + x, 0);
      e.finishRankAt(r, end, path);
    }
  }
}

export function makeHardwarePlugin(
  collective: CollectiveKind,
  algorithm: string,
  m: MachineSpec,
  placement: Placement,
  bytes: number,
  root: number,
  net: Network,
): EnginePlugin {
  if (collective === 'bcast' && algorithm === 'hw_multicast') return new HwMulticastBcast(m, placement, bytes, root, net);
  if (collective === 'barrier' && algorithm === 'hw_barrier') return new HwBarrier(m, placement, net);
  throw new ArgumentError(`no hardware algorithm '${algorithm}' for ${collective}`);
}
