/**
 * Packet-level wormhole flow control with circuits held until the acknowledgement
 * (Quadrics Elite, seed 002 §2.2.1 S9 and §3.3), virtual channels, and background
 * traffic at full load. Optional (machine `network.flowControl: 'wormhole'` or
 * `SimOptions.flowControl`); the message-level link model stays the default.
 *
 * Every message is cut into packets of ≤ packetBytes. A packet is a worm: its header
 * acquires one virtual channel (VC) on each link of its route, hop by hop (one hop
 * latency per link; adaptive up-links choose the link with the most free VCs and the
 * shortest queue). A header that finds no free VC waits in the link's FIFO queue while
 * holding the VCs behind it (wormhole blocking: tree saturation). Once the header
 * holds the ejection link (circuit complete at tc), the data crosses the path,
 * pipelined, each link's bandwidth shared with the other circuits on it (per-link
 * reservations: the VCs multiplex one physical link). The destination acknowledges
 * `ackTurnaround` + payload · `ackPerByte` after the tail arrives (it commits the
 * CRC-checked transactions first); the ack returns on the open circuit and the
 * source's EOP token closes it: every VC of the path is released one path latency
 * after the ack reaches the source. With two VCs a stream thus keeps two packets in
 * flight per circuit round trip, which bounds its rate when the ack is slow.
 *
 * Collective messages: a packet's data takes max(payload·β_class, (payload +
 * overhead)·β_link) on every link (β_link the slowest on the route): the sender's own
 * rate (PCI for main memory) or the raw link with the packet's header and CRC, and
 * packets enter the injection queue at that rate. So a single message on an idle
 * network arrives exactly as in the message-level model (α + hops·λ + bytes·β_eff)
 * whenever the sender's rate is the bottleneck (main memory on the Elan3, β_class ≥
 * 1.18 β_link), and at the packet-format rate otherwise (320 B per 378 B on the
 * wire: 338.6 MB/s from Elan memory, seed 002 R1/R2). Background packets and
 * hardware multicasts carry payload + overhead at the raw link rate.
 *
 * Background traffic (seed 002 §3.10): every node keeps `window` packets outstanding
 * (default 2, one per VC of its injection link: a single DMA stream reaches 99% of the
 * link (R1, R2) only with a second packet in flight while the first awaits its ack),
 * each to a uniform random other node or to its complement, issuing the next as soon
 * as one is acknowledged (and the previous one's data has left the node). Senders start
 * at random points of their first packet's wire time, so deterministic patterns do
 * not start in lockstep; they run on every node of the network, which may span more
 * nodes than the collective (seed 002 ran the background job on all 64).
 *
 * Hardware multicast: a tree worm (fixed up path to the top-leftmost switch of the
 * group's subtree, then every down link towards the group) acquires one VC on every link of its tree; it
 * is granted when the last branch holds its ejection link; the caller computes the
 * data phase and releases the tree after the combined ack and EOP.
 */
import type { EventQueue } from '../core/event-queue.js';
import { FatTree, type Network } from './network.js';
import { mixSeed, nextUniform } from '../core/random.js';

/** Wormhole parameters of a network. */
export interface WormholeSpec {
  /** Virtual channels per link direction (seed 002 S1: 2). */
  readonly vcs: number;
  /** s from the tail reaching the destination NIC to the ack leaving it. */
  readonly ackTurnaround: number;
  /**
   * s per payload byte added to the ack turnaround: the destination commits a
   * packet's transactions (CRC-checked) to memory before it acknowledges (default 0).
   */
  readonly ackPerByte?: number;
}

/** What the wormhole network needs from the engine. */
export interface WormholeHost {
  readonly q: EventQueue;
  /**
   * A collective message's last packet reaches its destination NIC at `tail` (called
   * before `tail`); `latency` and `transfer` are the uncontended hop-latency and
   * bytes·β_eff parts (the rest since it entered the network is queueing).
   */
  wormMessageArrived(m: number, tail: number, latency: number, transfer: number): void;
  /** A background packet's tail reaches node `node` at t (NIC-side costs, if any). */
  wormBackgroundArrived(node: number, t: number): void;
  /** Collective work that is waiting in the network (keeps the run from ending / detects no deadlock). */
  holdPending(delta: number): void;
}

/** Event kinds of the wormhole network (≥ WORM_EVENT_BASE; the engine forwards them). */
export const WORM_EVENT_BASE = 16;
const EV_HEAD = 16;
const EV_RELEASE = 17;
const EV_BG = 18;
const EV_ISSUE = 19;

const W_BG = 0;
const W_COLL = 1;

/** Multicast worms live in their own id space. */
const MC_FLAG = 1 << 29;

interface McTree {
  /** Links in acquisition order; parent index of each (−1: first). */
  readonly links: Int32Array;
  readonly children: readonly (readonly number[])[];
  readonly leaves: number;
}

interface McWorm {
  readonly tree: McTree;
  pending: number;
  granted: number;
  readonly onGranted: (t: number) => void;
}

export class Wormhole {
  readonly vcs: number;
  private readonly ackT: number;
  private readonly ackB: number;
  private readonly lat: number;
  private readonly maxHops: number;
  private readonly packetBytes: number;
  private readonly overhead: number;
  /** Per link: free VCs, FIFO of waiting headers, adaptive score (waiting − free). */
  private readonly vcFree: Int32Array;
  private readonly qHead: Int32Array;
  private readonly qTail: Int32Array;
  private readonly qLen: Int32Array;
  private readonly score: Float64Array;
  // Requests (a waiting header: worm w at path index j).
  private rqW: Int32Array = new Int32Array(256);
  private rqJ: Int32Array = new Int32Array(256);
  private rqNext: Int32Array = new Int32Array(256);
  private rqFree: number[] = [];
  private rqTop = 0;
  // Unicast worms (packets).
  private wCap = 0;
  private wTop = 0;
  private wFreeList: number[] = [];
  private wKind: Uint8Array = new Uint8Array(0);
  private wSrc: Int32Array = new Int32Array(0);
  private wDst: Int32Array = new Int32Array(0);
  private wNh: Int32Array = new Int32Array(0);
  private wMsg: Int32Array = new Int32Array(0);
  /** Data time per link (s) and the time the header entered the injection queue. */
  private wD: Float64Array = new Float64Array(0);
  private wT0: Float64Array = new Float64Array(0);
  /** Payload-dependent part of the ack turnaround (s). */
  private wAck: Float64Array = new Float64Array(0);
  private wRoute: Int32Array = new Int32Array(0);
  // Collective messages by engine message id.
  private mLeft: Int32Array = new Int32Array(0);
  private mNext: Int32Array = new Int32Array(0);
  private mCount: Int32Array = new Int32Array(0);
  private mSrc: Int32Array = new Int32Array(0);
  private mDst: Int32Array = new Int32Array(0);
  private mBytes: Float64Array = new Float64Array(0);
  private mBeta: Float64Array = new Float64Array(0);
  private mTail: Float64Array = new Float64Array(0);
  private mHops: Int32Array = new Int32Array(0);
  // Multicasts.
  private readonly mc = new Map<number, McWorm>();
  private mcNext = 0;
  private readonly trees = new Map<string, McTree>();
  // Background traffic.
  private bgPattern: 'uniform' | 'complement' = 'uniform';
  private bgBytes = 0;
  private bgWindow = 1;
  private bgOut: Int32Array = new Int32Array(0);
  private bgNextFree: Float64Array = new Float64Array(0);
  private bgBlocked: Uint8Array = new Uint8Array(0);
  private bgRng: Uint32Array = new Uint32Array(0);
  /** Background packets issued. */
  packets = 0;
  /** Headers that had to wait for a VC, and their total wait (s). */
  blocked = 0;
  blockedTime = 0;

  constructor(
    private readonly net: Network,
    private readonly host: WormholeHost,
    spec: WormholeSpec,
    o: { packetBytes: number; packetOverhead: number; linkFree: Float64Array },
  ) {
    this.vcs = spec.vcs;
    this.ackT = spec.ackTurnaround;
    this.ackB = spec.ackPerByte ?? 0;
    this.lat = net.linkLatency.length > 0 ? net.linkLatency[0] : 0;
    this.maxHops = net.maxHops;
    this.packetBytes = o.packetBytes;
    this.overhead = o.packetOverhead;
    this.linkFree = o.linkFree;
    const n = net.linkCount;
    this.vcFree = new Int32Array(n).fill(spec.vcs);
    this.qHead = new Int32Array(n).fill(-1);
    this.qTail = new Int32Array(n).fill(-1);
    this.qLen = new Int32Array(n);
    this.score = new Float64Array(n).fill(-spec.vcs);
    this.growWorms(256);
  }

  /** Per-link bandwidth reservations, shared with the engine (hardware multicast data). */
  private readonly linkFree: Float64Array;

  // ------------------------------------------------------------------ pools

  private growWorms(cap: number): void {
    const g32 = (a: Int32Array, w = 1): Int32Array => {
      const b = new Int32Array(cap * w);
      b.set(a);
      return b;
    };
    const g64 = (a: Float64Array): Float64Array => {
      const b = new Float64Array(cap);
      b.set(a);
      return b;
    };
    const k = new Uint8Array(cap);
    k.set(this.wKind);
    this.wKind = k;
    this.wSrc = g32(this.wSrc);
    this.wDst = g32(this.wDst);
    this.wNh = g32(this.wNh);
    this.wMsg = g32(this.wMsg);
    this.wD = g64(this.wD);
    this.wT0 = g64(this.wT0);
    this.wAck = g64(this.wAck);
    this.wRoute = g32(this.wRoute, this.maxHops);
    this.wCap = cap;
  }

  private allocWorm(): number {
    const f = this.wFreeList.pop();
    if (f !== undefined) return f;
    if (this.wTop === this.wCap) this.growWorms(this.wCap * 2);
    return this.wTop++;
  }

  private ensureMessage(m: number): void {
    if (m < this.mLeft.length) return;
    const cap = Math.max(64, 2 * (m + 1));
    const g32 = (a: Int32Array): Int32Array => {
      const b = new Int32Array(cap);
      b.set(a);
      return b;
    };
    const g64 = (a: Float64Array): Float64Array => {
      const b = new Float64Array(cap);
      b.set(a);
      return b;
    };
    this.mLeft = g32(this.mLeft);
    this.mNext = g32(this.mNext);
    this.mCount = g32(this.mCount);
    this.mSrc = g32(this.mSrc);
    this.mDst = g32(this.mDst);
    this.mBytes = g64(this.mBytes);
    this.mBeta = g64(this.mBeta);
    this.mTail = g64(this.mTail);
    this.mHops = g32(this.mHops);
  }

  private enqueue(link: number, w: number, j: number): void {
    let r = this.rqFree.pop();
    if (r === undefined) {
      r = this.rqTop++;
      if (r >= this.rqW.length) {
        const grow = (a: Int32Array): Int32Array => {
          const b = new Int32Array(a.length * 2);
          b.set(a);
          return b;
        };
        this.rqW = grow(this.rqW);
        this.rqJ = grow(this.rqJ);
        this.rqNext = grow(this.rqNext);
      }
    }
    this.rqW[r] = w;
    this.rqJ[r] = j;
    this.rqNext[r] = -1;
    if (this.qTail[link] >= 0) this.rqNext[this.qTail[link]] = r;
    else this.qHead[link] = r;
    this.qTail[link] = r;
    this.qLen[link]++;
    this.score[link] = this.qLen[link] - this.vcFree[link];
  }

  // ------------------------------------------------------------------ events

  onEvent(kind: number, a: number, b: number, t: number): void {
    switch (kind) {
      case EV_HEAD:
        this.head(a, b, t);
        break;
      case EV_RELEASE:
        this.release(a, t);
        break;
      case EV_BG:
        this.bgIssue(a, t);
        break;
      case EV_ISSUE:
        this.issue(a, b, t);
        break;
    }
  }

  /** The header of worm w reaches path index j at t: take a VC or queue for one. */
  private head(w: number, j: number, t: number): void {
    let link: number;
    if (w & MC_FLAG) link = this.mc.get(w)!.tree.links[j];
    else {
      const off = w * this.maxHops;
      if (this.net.adaptive) this.net.adapt(this.wRoute, off, j, this.wNh[w], this.wDst[w], this.score, -Infinity);
      link = this.wRoute[off + j];
    }
    if (this.vcFree[link] > 0 && this.qHead[link] < 0) this.grant(w, j, link, t);
    else {
      this.blocked++;
      this.blockedTime -= t;
      this.enqueue(link, w, j);
    }
  }

  private grant(w: number, j: number, link: number, t: number): void {
    this.vcFree[link]--;
    this.score[link] = this.qLen[link] - this.vcFree[link];
    if (w & MC_FLAG) {
      const mw = this.mc.get(w)!;
      const ch = mw.tree.children[j];
      if (ch.length === 0) {
        if (--mw.pending === 0) mw.onGranted(t);
      } else for (const c of ch) this.host.q.push(t + this.lat, EV_HEAD, w, c);
      return;
    }
    if (j + 1 < this.wNh[w]) this.host.q.push(t + this.lat, EV_HEAD, w, j + 1);
    else this.complete(w, t);
  }

  /** Release one VC of `link` at t and hand it to the first waiting header. */
  private freeVc(link: number, t: number): void {
    this.vcFree[link]++;
    const r = this.qHead[link];
    if (r >= 0) {
      this.qHead[link] = this.rqNext[r];
      if (this.qHead[link] < 0) this.qTail[link] = -1;
      this.qLen[link]--;
      const w = this.rqW[r];
      const j = this.rqJ[r];
      this.rqFree.push(r);
      this.blockedTime += t;
      this.grant(w, j, link, t);
    } else this.score[link] = this.qLen[link] - this.vcFree[link];
  }

  /** Circuit of unicast worm w complete at tc: data, ack, release. */
  private complete(w: number, tc: number): void {
    const nh = this.wNh[w];
    const off = w * this.maxHops;
    const D = this.wD[w];
    const lat = this.lat;
    const lf = this.linkFree;
    let x = tc - (nh - 1) * lat;
    for (let i = 0; i < nh; i++) {
      const l = this.wRoute[off + i];
      if (i > 0) x += lat;
      if (lf[l] > x) x = lf[l];
      lf[l] = x + D;
    }
    const tail = x + D + lat;
    const release = tail + this.ackT + this.wAck[w] + (nh + 1) * lat;
    this.host.q.push(release, EV_RELEASE, w, 0);
    if (this.wKind[w] === W_BG) this.host.wormBackgroundArrived(this.wDst[w], tail);
    else {
      const m = this.wMsg[w];
      if (tail > this.mTail[m]) this.mTail[m] = tail;
      if (--this.mLeft[m] === 0) {
        this.host.holdPending(-1);
        this.host.wormMessageArrived(m, this.mTail[m], this.mHops[m] * this.lat, this.mBytes[m] * this.mBeta[m]);
      }
    }
  }

  private release(w: number, t: number): void {
    if (w & MC_FLAG) {
      const mw = this.mc.get(w)!;
      this.mc.delete(w);
      for (let j = 0; j < mw.tree.links.length; j++) this.freeVc(mw.tree.links[j], t);
      return;
    }
    const off = w * this.maxHops;
    for (let i = 0; i < this.wNh[w]; i++) this.freeVc(this.wRoute[off + i], t);
    this.wFreeList.push(w);
    if (this.wKind[w] === W_BG) {
      const s = this.wSrc[w];
      this.bgOut[s]--;
      if (this.bgBlocked[s]) {
        this.bgBlocked[s] = 0;
        this.bgIssue(s, t > this.bgNextFree[s] ? t : this.bgNextFree[s]);
      }
    }
  }

  // ------------------------------------------------------------------ collective messages

  /**
   * Collective message m (engine id) of `bytes` from node a to node b enters the
   * network at t0 (its α paid), at β_class per byte from the sender.
   */
  sendMessage(m: number, a: number, b: number, bytes: number, t0: number, betaClass: number): void {
    this.ensureMessage(m);
    const pb = this.packetBytes;
    const K = bytes > 0 ? Math.ceil(bytes / pb) : 1;
    const scratch = this.scratchRoute;
    const nh = this.net.route(a, b, scratch, 0, this.linkFree);
    let link = 0;
    for (let i = 0; i < nh; i++) if (this.net.linkBeta[scratch[i]] > link) link = this.net.linkBeta[scratch[i]];
    // Per payload byte: the sender's rate or the raw link with a full packet's overhead
    // (a latency-bound short message keeps its measured α: the overhead is a rate).
    const beta = Math.max(betaClass, ((pb + this.overhead) * link) / pb);
    this.mLeft[m] = K;
    this.mCount[m] = K;
    this.mNext[m] = 0;
    this.mSrc[m] = a;
    this.mDst[m] = b;
    this.mBytes[m] = bytes;
    this.mBeta[m] = beta;
    this.mTail[m] = -Infinity;
    this.mHops[m] = nh;
    this.host.holdPending(1);
    this.issue(m, 0, t0);
  }

  private readonly scratchRoute = new Int32Array(64);

  /** Packet k of collective message m enters the injection queue at t. */
  private issue(m: number, k: number, t: number): void {
    const pb = this.packetBytes;
    const K = this.mCount[m];
    const payload = K === 1 ? this.mBytes[m] : k < K - 1 ? pb : this.mBytes[m] - pb * (K - 1);
    const w = this.allocWorm();
    this.wKind[w] = W_COLL;
    this.wSrc[w] = this.mSrc[m];
    this.wDst[w] = this.mDst[m];
    this.wMsg[w] = m;
    this.wD[w] = payload * this.mBeta[m];
    this.wAck[w] = payload * this.ackB;
    this.wT0[w] = t;
    this.wNh[w] = this.net.route(this.mSrc[m], this.mDst[m], this.wRoute, w * this.maxHops, this.linkFree);
    if (k + 1 < K) this.host.q.push(t + payload * this.mBeta[m], EV_ISSUE, m, k + 1);
    this.head(w, 0, t);
  }

  // ------------------------------------------------------------------ background traffic

  /** Every node injects `bytes`-byte packets at full load from t on (window outstanding each). */
  startTraffic(pattern: 'uniform' | 'complement', bytes: number, window: number, t: number, seed: number): void {
    const N = this.net.nodes;
    this.bgPattern = pattern;
    this.bgBytes = bytes;
    this.bgWindow = Math.max(1, window);
    this.bgOut = new Int32Array(N);
    this.bgNextFree = new Float64Array(N).fill(-Infinity);
    this.bgBlocked = new Uint8Array(N);
    this.bgRng = new Uint32Array(N);
    for (let n = 0; n < N; n++) this.bgRng[n] = mixSeed(seed ^ 0x3c6ef372, n);
    if (N < 2) return;
    // Unsynchronised senders: each starts at a random point of its first packet's wire
    // time (in lockstep, deterministic patterns such as complement phase-lock).
    for (let n = 0; n < N; n++) this.host.q.push(t + nextUniform(this.bgRng, n) * (bytes + this.overhead) * this.net.linkBeta[n], EV_BG, n, 0);
  }

  private bgIssue(node: number, t: number): void {
    if (this.bgOut[node] >= this.bgWindow) {
      this.bgBlocked[node] = 1;
      return;
    }
    const N = this.net.nodes;
    let dst: number;
    if (this.bgPattern === 'complement') dst = N - 1 - node;
    else {
      dst = Math.floor(nextUniform(this.bgRng, node) * (N - 1));
      if (dst >= node) dst++;
    }
    if (dst === node) return;
    const w = this.allocWorm();
    this.wKind[w] = W_BG;
    this.wSrc[w] = node;
    this.wDst[w] = dst;
    this.wMsg[w] = -1;
    const off = w * this.maxHops;
    const nh = this.net.route(node, dst, this.wRoute, off, this.linkFree);
    this.wNh[w] = nh;
    const wire = this.bgBytes + this.overhead;
    let beta = 0;
    for (let i = 0; i < nh; i++) if (this.net.linkBeta[this.wRoute[off + i]] > beta) beta = this.net.linkBeta[this.wRoute[off + i]];
    this.wD[w] = wire * beta;
    this.wAck[w] = this.bgBytes * this.ackB;
    this.wT0[w] = t;
    this.bgOut[node]++;
    this.packets++;
    // The next packet can follow once this one's data has left the node.
    this.bgNextFree[node] = t + this.wD[w];
    if (this.bgOut[node] < this.bgWindow) this.host.q.push(this.bgNextFree[node], EV_BG, node, 0);
    else this.bgBlocked[node] = 1;
    this.head(w, 0, t);
  }

  // ------------------------------------------------------------------ hardware multicast

  /** The multicast tree from node `src` to nodes [0, N): up path to the group's root switch, then all down links. */
  private treeOf(src: number, N: number): McTree {
    const key = `${src}:${N}`;
    const cached = this.trees.get(key);
    if (cached) return cached;
    const tree = this.net;
    if (!(tree instanceof FatTree)) throw new Error('hardware multicast needs a fat tree');
    const links: number[] = [];
    const children: number[][] = [];
    const add = (link: number, parent: number): number => {
      links.push(link);
      children.push([]);
      if (parent >= 0) children[parent].push(links.length - 1);
      return links.length - 1;
    };
    const rootLevel = tree.groupRootLevel(N);
    let prev = -1;
    for (const l of tree.pathToRoot(src, rootLevel)) prev = add(l, prev);
    let leaves = 0;
    const down = (l: number, w: number, parent: number): void => {
      const k = tree.k;
      if (l === 0) {
        for (let j = 0; j < k; j++) {
          const node = w * k + j;
          if (node >= N) break;
          add(tree.ejectLink(node), parent);
          leaves++;
        }
        return;
      }
      const pw = k ** (l - 1);
      const digit = Math.floor(w / pw) % k;
      for (let j = 0; j < k; j++) {
        const lower = w + (j - digit) * pw;
        const first = Math.floor(lower / pw) * pw * k;
        if (first >= N) break;
        down(l - 1, lower, add(tree.downLink(l - 1, lower, digit), parent));
      }
    };
    down(rootLevel, 0, prev);
    const t: McTree = { links: Int32Array.from(links), children, leaves };
    this.trees.set(key, t);
    return t;
  }

  /**
   * Acquire one VC on every link of the multicast tree from node `src` to nodes
   * [0, N), starting at t; `onGranted(tc)` is called when the last branch holds its
   * ejection link. Returns the multicast's id for `releaseMulticast`.
   */
  multicast(src: number, N: number, t: number, onGranted: (tc: number) => void): number {
    const id = MC_FLAG | this.mcNext++ % MC_FLAG;
    const tree = this.treeOf(src, N);
    this.host.holdPending(1);
    this.mc.set(id, {
      tree,
      pending: tree.leaves,
      granted: 0,
      onGranted: (tc) => {
        this.host.holdPending(-1);
        onGranted(tc);
      },
    });
    this.head(id, 0, t);
    return id;
  }

  /** s from the tail of a packet of `payload` bytes reaching a destination NIC to its ack leaving it. */
  ackTurnaround(payload: number): number {
    return this.ackT + payload * this.ackB;
  }

  /** Close the multicast's circuit at t (EOP): its VCs are freed. */
  releaseMulticast(id: number, t: number): void {
    this.host.q.push(t, EV_RELEASE, id, 0);
  }
}
