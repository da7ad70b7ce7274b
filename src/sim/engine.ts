/**
 * The discrete-event core: replays per-rank schedules on modelled resources.
 *
 * Resources: per rank a host CPU, an out-port and an in-port (docs/cost-semantics.md);
 * per node a NIC processor (offload / intermediate modes, seed 000) and, with
 * contention on, the network's links (FIFO by head arrival, each reserved for the
 * message's wire time; cut-through pipelining across hops). With contention and
 * noise off, a run is exactly the DAG evaluation of docs/cost-semantics.md:
 * - the CPU runs the lowest-index startable step first; simultaneous events are
 *   resolved completions first, then arrivals (by sender rank, then sender step),
 *   then CPU decisions (by rank) — the event keys encode this order;
 * - send: CPU oSend; transmission at s = max(end, out-port free); out-port busy
 *   b·β; arrival s + α + b·β; the in-port absorbs messages in arrival order;
 * - recv: CPU oRecv once its message is absorbed; reduce (k−1)·count·γ; copy b·c.
 * Every step carries the breakdown of the critical path that ends with it (skew,
 * CPU, NIC, γ, host–NIC sync, noise, α, β, queueing), so the collective's critical
 * path is known without storing the DAG. Schedules are generated when a rank starts
 * and released when it finishes (ScheduleStore). Rank starts are merged from a
 * sorted list instead of the heap, so the heap holds only events in flight.
 */
import { DeadlockError, ScheduleError } from '../core/errors.js';
import type { RankSchedule } from '../schedule/types.js';
import { EventQueue, KEY_CLASS } from '../core/event-queue.js';
import type { Network } from './network.js';
import type { NoiseModel } from './noise.js';
import { mixSeed, nextUniform } from '../core/random.js';
import * as S from './store.js';
import { Wormhole, WORM_EVENT_BASE, type WormholeHost, type WormholeSpec } from './wormhole.js';
import { PhaseGate } from './phases.js';

// Local copies of hot constants (module-local consts are cheaper than imported bindings under some loaders).
const PATH = S.PATH;
const K_SEND = S.K_SEND;
const K_RECV = S.K_RECV;
const K_REDUCE = S.K_REDUCE;
const P_SKEW = S.P_SKEW;
const P_CPU = S.P_CPU;
const P_NIC = S.P_NIC;
const P_GAMMA = S.P_GAMMA;
const P_SYNC = S.P_SYNC;
const P_NOISE = S.P_NOISE;
const P_ALPHA = S.P_ALPHA;
const P_BETA = S.P_BETA;
const P_QUEUE = S.P_QUEUE;
const RI = S.RI;
const R_STATE = S.R_STATE;
const R_RUN = S.R_RUN;
const R_LAST = S.R_LAST;
const R_OFFI = S.R_OFFI;
const R_OFFF = S.R_OFFF;
const R_N = S.R_N;
const R_HEAP = S.R_HEAP;
const R_DONE = S.R_DONE;
const R_INTERIOR = S.R_INTERIOR;
const R_ARRCNT = S.R_ARRCNT;
const R_NIC = S.R_NIC;
const R_PEND = S.R_PEND;
const R_NODE = S.R_NODE;
const R_SOCKET = S.R_SOCKET;
const RD = S.RD;
const D_CPU = S.D_CPU;
const D_OUT = S.D_OUT;
const D_IN = S.D_IN;
const D_START = S.D_START;
const D_END = S.D_END;
const D_ARRMIN = S.D_ARRMIN;

const EV_ENABLE = 1;
const EV_DONE = 2;
const EV_ARRIVE = 3;
const EV_MSGDONE = 4;
const EV_HOP = 5;
const EV_DISPATCH = 7;
const EV_TRAFFIC = 8;
const EV_HW = 9;
const EV_PHASE = 10;

const ST_IDLE = 0;
const ST_STARTING = 1;
const ST_RUNNING = 2;
const ST_FINISHING = 3;
const ST_DONE = 4;

/** Message classes. */
export const C_SOCKET = 0;
export const C_NODE = 1;
export const C_NETWORK = 2;

/**
 * Event key classes at equal times (docs/cost-semantics.md rule 7): completions and
 * rank events (class 0, by insertion), network hops (1, by insertion), arrivals
 * (2, by sender rank · 2^21 + sender step), CPU decisions (3, by rank).
 */
const K_NET = KEY_CLASS;
const K_ARRIVE = 2 * KEY_CLASS;
const K_DECIDE = 3 * KEY_CLASS;
const RANK_STRIDE = 2 ** 21;
const arrivalKey = (src: number, step: number): number => K_ARRIVE + src * RANK_STRIDE + (step < RANK_STRIDE ? step : RANK_STRIDE - 1);

const MK_COLL = 0;
const MK_TRAFFIC = 1;

/** Costs of one executor (host CPU or NIC processor), resolved for the run's op and datatype. */
export interface ExecutorCosts {
  readonly oSend: number;
  readonly oRecv: number;
  /** s per element combination. */
  readonly gamma: number;
  readonly copyPerByte: number;
}

export interface TrafficConfig {
  readonly pattern: 'uniform' | 'complement';
  /** Payload bytes per background packet. */
  readonly bytes: number;
  /** Extra wire bytes per packet (headers). */
  readonly overhead: number;
  /** Packets a node keeps in flight. */
  readonly window: number;
  /** s: traffic starts this long before the collective. */
  readonly warmup: number;
  /** Wormhole only: NIC thread time per background packet received (s). */
  readonly nicPerPacket?: number;
}

export interface EngineConfig {
  readonly P: number;
  /** Node of each rank. */
  readonly rankNode: Int32Array;
  /** Socket of each rank (within its node). */
  readonly rankSocket: Int32Array;
  readonly nodes: number;
  /** Per class (socket, node, network): α, β and per-message port gap. */
  readonly alpha: Float64Array;
  readonly beta: Float64Array;
  readonly gap: Float64Array;
  readonly host: ExecutorCosts;
  readonly nic: ExecutorCosts;
  /** Host CPU time to enter the collective. */
  readonly callOverhead: number;
  /** Host CPU time to start / finish an offloaded rank. */
  readonly nicStartup: number;
  readonly nicCompletion: number;
  /** Latency saved per NIC endpoint of a network message. */
  readonly busCrossing: number;
  /** NIC time per data packet a NIC-run rank receives (regular packet path; 0-byte messages exempt); default 0. */
  readonly nicPacketRecv?: number;
  /** Payload bytes per NIC packet (for nicPacketRecv); default: one packet per message. */
  readonly nicPacketBytes?: number;
  readonly mode: 'host' | 'offload' | 'intermediate';
  readonly elementSize: number;
  /** Schedule of a rank (called once, when the rank starts). */
  readonly source: (rank: number) => RankSchedule;
  /** Links with contention (undefined: contention-free). */
  readonly network?: Network;
  /** Contention-free mode: network used only to add hops × hop latency to α. */
  readonly routeNetwork?: Network;
  /**
   * Shared node channels (seed 004 NBL, links 0..nodes−1 of `network`): f(L, S) with
   * L the messages using the channel at once and S = bytes/8. Undefined: the
   * channels are ordinary FIFO links.
   */
  readonly nodeChannelF?: (L: number, S: number) => number;
  /**
   * s of per-message overhead charged in the shared node channels (seed 004's α per
   * link and step, machine `network.alphaPer: 'link-step'`): each end of a network
   * message spends it in its node's channel, serial with the channel's other
   * messages, the receiving end's alongside the sending end's. Default 0.
   */
  readonly nodeChannelAlpha?: number;
  /**
   * Packet-level wormhole flow control on `network` (seed 002): circuits held until
   * the ack, VCs, background traffic per packet. Undefined: the message-level links.
   */
  readonly wormhole?: WormholeSpec & { readonly packetBytes: number; readonly packetOverhead: number };
  readonly noise?: NoiseModel;
  /** With noise: 'all' ranks, or only where cores are all busy ('full-nodes', seed 000's idle-core absorption). */
  readonly noiseScope?: 'all' | 'full-nodes';
  /** With 'full-nodes': NIC-mode processes keep their noise during start-up and completion. */
  readonly nicWindowExposed?: boolean;
  /** Cores per node (for noiseScope 'full-nodes'). */
  readonly coresPerNode?: number;
  /** Start time of each rank (arrival skew); default 0. */
  readonly skew?: Float64Array;
  readonly traffic?: TrafficConfig;
  readonly seed: number;
  readonly timeline?: boolean;
  readonly timelineLimit?: number;
  readonly maxEvents?: number;
  readonly onProgress?: (events: number, time: number) => void;
  /** A simulator-level algorithm replacing the schedules (hardware collectives). */
  readonly plugin?: EnginePlugin;
  /** Expected number of steps over all ranks (sizes the schedule arenas). */
  readonly stepsHint?: number;
  /** Rounds are global phases (src/sim/phases.ts, seed 000's f-nomial); default false: the DAG. */
  readonly phased?: boolean;
}

/** Hooks for simulator-level algorithms (hardware collectives). */
export interface EnginePlugin {
  /** Called once before the run; schedule events with engine.pushHw. */
  start(e: Engine): void;
  onEvent(e: Engine, t: number, a: number, b: number): void;
}

export interface TimelineRecord {
  readonly rank: number;
  /** Step index in the rank's schedule (−1: start, finish, noise). */
  readonly step: number;
  /** What the interval is: a step, the call's start or finish overhead, or an OS-noise detour charged to the rank's CPU. */
  readonly kind: 'send' | 'recv' | 'reduce' | 'copy' | 'start' | 'finish' | 'noise';
  readonly on: 'host' | 'nic';
  readonly start: number;
  readonly end: number;
  readonly peer?: number;
  readonly bytes?: number;
  /**
   * Send and recv: the message's index between the two ranks (the k-th message from
   * the sender to the receiver); a send and the recv it delivered have the same
   * (sender, receiver, index), which names the message (timeline.ts: args.msg).
   */
  readonly index?: number;
}

export interface EngineResult {
  /** Completion time of each rank. */
  readonly end: Float64Array;
  readonly start: Float64Array;
  /** Latest completion. */
  readonly time: number;
  /** Rank whose completion is the latest. */
  readonly lastRank: number;
  /** Critical-path breakdown (PATH_PARTS order), summing to `time`. */
  readonly path: Float64Array;
  readonly events: number;
  readonly messages: number;
  readonly steps: number;
  /** Largest number of rank schedules alive at once. */
  readonly peakLiveRanks: number;
  /** Resource busy times summed over all ranks / nodes / links (s). */
  readonly busy: { readonly host: number; readonly nic: number; readonly links: number; readonly noise: number; readonly trafficPackets: number };
  readonly timeline?: readonly TimelineRecord[];
  /** Records not kept because the timeline reached its limit. */
  readonly timelineDropped?: number;
}

const KIND_NAMES = ['send', 'recv', 'reduce', 'copy'] as const;

export class Engine implements WormholeHost {
  readonly cfg: EngineConfig;
  /** The wormhole network (wormhole flow control only). */
  readonly worm: Wormhole | undefined;
  readonly q = new EventQueue(4096);
  readonly P: number;
  private readonly st: S.ScheduleStore;
  /** Per-rank records (ScheduleStore.R / .D): state, running step, last step, queued arrivals, CPU/port free times, start/end, … */
  private readonly R: Int32Array;
  private readonly D: Float64Array;
  private readonly pending = new Map<number, number[]>();
  /** Per rank: 1 when its host CPU work is exposed to noise. */
  private readonly noisy: Uint8Array;
  // Per node.
  private readonly nicFree: Float64Array;
  // Links.
  readonly linkFree: Float64Array;
  private readonly maxLinkBeta: number;
  /** Largest per-byte time of node links (the only links of a two-hop route). */
  private readonly nodeLinkBeta: number;
  private readonly hopLatency: number;
  // Message pool.
  private mCap = 0;
  private mTop = 0;
  private mFreeList: Int32Array = new Int32Array(0);
  private mFreeN = 0;
  private mSrc: Int32Array = new Int32Array(0);
  private mDst: Int32Array = new Int32Array(0);
  private mDstNode: Int32Array = new Int32Array(0);
  private mK: Int32Array = new Int32Array(0);
  private mStep: Int32Array = new Int32Array(0);
  private mCls: Int32Array = new Int32Array(0);
  private mHop: Int32Array = new Int32Array(0);
  private mNHops: Int32Array = new Int32Array(0);
  private mKind: Uint8Array = new Uint8Array(0);
  private mBytes: Float64Array = new Float64Array(0);
  private mWire: Float64Array = new Float64Array(0);
  private mTail: Float64Array = new Float64Array(0);
  private mBeff: Float64Array = new Float64Array(0);
  private mPath: Float64Array = new Float64Array(0);
  private mRoute: Int32Array = new Int32Array(0);
  private readonly maxHops: number;
  // NBL node channels: tail ends of the messages using each channel (a min-heap per node).
  private readonly nblF: ((L: number, S: number) => number) | undefined;
  private readonly nblHeaps: (Float64Array | undefined)[];
  private readonly nblCount: Int32Array;
  /** α per message end in the NBL channels (0 unless alphaPer 'link-step'). */
  private readonly nblAlpha: number;
  // Traffic.
  private readonly tOut: Int32Array;
  private readonly tBlocked: Uint8Array;
  private readonly tRng: Uint32Array;
  trafficPackets = 0;
  // Results.
  private finished = 0;
  private collPending = 0;
  private bestTime = -Infinity;
  private bestRank = -1;
  private readonly bestPath = new Float64Array(PATH);
  private peakLive = 0;
  private messages = 0;
  private stepsRun = 0;
  private hostBusy = 0;
  private nicBusy = 0;
  private linkBusy = 0;
  private readonly timeline: TimelineRecord[] | undefined;
  private timelineDropped = 0;
  private readonly tmpPath = new Float64Array(PATH);
  /** NIC time per received data packet and the packet payload (EngineConfig.nicPacketRecv / nicPacketBytes). */
  private readonly pktRecv: number;
  private readonly pktBytes: number;
  /** Phased execution (undefined: the DAG). */
  private readonly gate: PhaseGate | undefined;

  constructor(cfg: EngineConfig) {
    this.cfg = cfg;
    const P = cfg.P;
    this.P = P;
    this.pktRecv = cfg.nicPacketRecv ?? 0;
    this.pktBytes = cfg.nicPacketBytes ?? Number.MAX_VALUE; // B / MAX_VALUE > 0: one packet
    this.st = new S.ScheduleStore(P, cfg.stepsHint ?? 0, cfg.stepsHint ?? 0);
    const R = this.st.R;
    const D = this.st.D;
    this.R = R;
    this.D = D;
    for (let r = 0; r < P; r++) {
      const b = r * RI;
      R[b + R_RUN] = -1;
      R[b + R_LAST] = -1;
      R[b + R_NODE] = cfg.rankNode[r];
      R[b + R_SOCKET] = cfg.rankSocket[r];
      const d = r * RD;
      D[d + D_CPU] = -Infinity;
      D[d + D_OUT] = -Infinity;
      D[d + D_IN] = -Infinity;
      D[d + D_END] = NaN;
      D[d + D_ARRMIN] = Infinity;
    }
    this.nicFree = new Float64Array(cfg.nodes).fill(-Infinity);
    this.noisy = new Uint8Array(cfg.noise ? P : 0);
    if (cfg.noise) {
      if ((cfg.noiseScope ?? 'all') === 'all') this.noisy.fill(1);
      else {
        const perNode = new Int32Array(cfg.nodes);
        for (let r = 0; r < P; r++) perNode[cfg.rankNode[r]]++;
        const cores = cfg.coresPerNode ?? 1;
        for (let r = 0; r < P; r++) this.noisy[r] = perNode[cfg.rankNode[r]] >= cores ? 1 : 0;
      }
    }
    const net = cfg.network;
    this.linkFree = new Float64Array(net ? net.linkCount : 0).fill(-Infinity);
    const rn = net ?? cfg.routeNetwork;
    let mb = 0;
    let nb = 0;
    if (rn) {
      for (let i = 0; i < rn.linkBeta.length; i++) mb = Math.max(mb, rn.linkBeta[i]);
      for (let i = 0; i < Math.min(2 * cfg.nodes, rn.linkBeta.length); i++) nb = Math.max(nb, rn.linkBeta[i]);
    }
    this.maxLinkBeta = mb;
    this.nodeLinkBeta = nb;
    this.hopLatency = rn && rn.linkLatency.length > 0 ? rn.linkLatency[0] : 0;
    this.maxHops = net ? net.maxHops : 0;
    this.nblF = net ? cfg.nodeChannelF : undefined;
    this.nblHeaps = new Array<Float64Array | undefined>(this.nblF ? cfg.nodes : 0);
    this.nblCount = new Int32Array(this.nblF ? cfg.nodes : 0);
    this.nblAlpha = this.nblF ? (cfg.nodeChannelAlpha ?? 0) : 0;
    this.growMessages(1024);
    this.worm = net && cfg.wormhole
      ? new Wormhole(net, this, cfg.wormhole, { packetBytes: cfg.wormhole.packetBytes, packetOverhead: cfg.wormhole.packetOverhead, linkFree: this.linkFree })
      : undefined;
    const N = cfg.nodes;
    this.tOut = new Int32Array(cfg.traffic ? N : 0);
    this.tBlocked = new Uint8Array(cfg.traffic ? N : 0);
    this.tRng = new Uint32Array(cfg.traffic ? N : 0);
    if (cfg.traffic) for (let n = 0; n < N; n++) this.tRng[n] = mixSeed(cfg.seed ^ 0x7aff1c, n);
    this.timeline = cfg.timeline ? [] : undefined;
    // The timeline shows the noise model's detours, as charged to each rank's CPU work.
    if (cfg.timeline && cfg.noise) cfg.noise.onDetour = (r, start, end) => this.record(r, -1, 'noise', false, start, end, -1, 0);
    this.gate = cfg.phased ? new PhaseGate(P) : undefined;
  }

  // ---------------------------------------------------------------- messages

  private growMessages(cap: number): void {
    const g32 = (a: Int32Array, w = 1): Int32Array => {
      const b = new Int32Array(cap * w);
      b.set(a);
      return b;
    };
    const g64 = (a: Float64Array, w = 1): Float64Array => {
      const b = new Float64Array(cap * w);
      b.set(a);
      return b;
    };
    this.mSrc = g32(this.mSrc);
    this.mDst = g32(this.mDst);
    this.mDstNode = g32(this.mDstNode);
    this.mK = g32(this.mK);
    this.mStep = g32(this.mStep);
    this.mCls = g32(this.mCls);
    this.mHop = g32(this.mHop);
    this.mNHops = g32(this.mNHops);
    const k = new Uint8Array(cap);
    k.set(this.mKind);
    this.mKind = k;
    this.mBytes = g64(this.mBytes);
    this.mWire = g64(this.mWire);
    this.mTail = g64(this.mTail);
    this.mBeff = g64(this.mBeff);
    this.mPath = g64(this.mPath, PATH);
    this.mRoute = g32(this.mRoute, Math.max(1, this.maxHops));
    const fl = new Int32Array(cap);
    fl.set(this.mFreeList.subarray(0, this.mFreeN));
    this.mFreeList = fl;
    this.mCap = cap;
  }

  private allocMsg(): number {
    if (this.mFreeN > 0) return this.mFreeList[--this.mFreeN];
    if (this.mTop === this.mCap) this.growMessages(this.mCap * 2);
    return this.mTop++;
  }

  private freeMsg(m: number): void {
    this.mFreeList[this.mFreeN++] = m;
  }

  // ---------------------------------------------------------------- helpers for plugins

  /** Schedule a plugin event. */
  pushHw(t: number, a: number, b: number): void {
    this.collPending++;
    this.q.push(t, EV_HW, a, b);
  }

  /** A background packet's tail reaches `node` at t: its NIC thread spends the configured time on it. */
  wormBackgroundArrived(node: number, t: number): void {
    const c = this.cfg.traffic?.nicPerPacket ?? 0;
    if (c <= 0) return;
    const f = this.nicFree[node];
    this.nicFree[node] = (f > t ? f : t) + c;
  }

  /** Collective work held in the wormhole network (see WormholeHost). */
  holdPending(delta: number): void {
    this.collPending += delta;
  }

  /** A collective message leaves the wormhole network: its tail reaches the receiver at `tail`. */
  wormMessageArrived(m: number, tail: number, latency: number, transfer: number): void {
    const mp = m * PATH;
    const MP = this.mPath;
    MP[mp + P_ALPHA] += latency;
    MP[mp + P_BETA] += transfer;
    MP[mp + P_QUEUE] += tail - this.mTail[m] - latency - transfer;
    this.collPending++;
    this.arrivalQueued(this.mDst[m], tail);
    this.q.pushKeyed(tail, EV_ARRIVE, m, 0, arrivalKey(this.mSrc[m], this.mStep[m]));
  }

  /** Host CPU work of rank r from t (with noise); returns the end. */
  hostWork(r: number, t: number, work: number): number {
    const d = r * RD + D_CPU;
    const start = Math.max(t, this.D[d]);
    const end = work > 0 && this.cfg.noise && this.noisy[r] ? this.cfg.noise.stretch(r, start, work) : start + work;
    this.D[d] = end;
    this.hostBusy += end - start;
    return end;
  }

  /** Reserve a link for `wire` bytes with the head arriving at t; returns the start of transmission. */
  reserveLink(link: number, t: number, wire: number): number {
    const start = Math.max(t, this.linkFree[link]);
    const occ = wire * this.cfg.network!.linkBeta[link];
    this.linkFree[link] = start + occ;
    this.linkBusy += occ;
    return start;
  }

  /** Mark rank r finished at t with the given critical-path breakdown. */
  /** Start time of rank r (its arrival). */
  startOf(r: number): number {
    return this.D[r * RD + D_START];
  }

  finishRankAt(r: number, t: number, path: Float64Array): void {
    this.R[r * RI + R_STATE] = ST_DONE;
    this.D[r * RD + D_END] = t;
    this.finished++;
    if (t > this.bestTime) {
      this.bestTime = t;
      this.bestRank = r;
      this.bestPath.set(path);
    }
  }

  // ---------------------------------------------------------------- run

  run(): EngineResult {
    const cfg = this.cfg;
    const P = this.P;
    const q = this.q;
    const skew = cfg.skew;
    // Ranks start in order of start time (then rank): a sorted cursor, not heap events.
    let order: Int32Array | undefined;
    const D = this.D;
    if (skew) {
      for (let r = 0; r < P; r++) D[r * RD + D_START] = skew[r];
      const idx = Array.from({ length: P }, (_, i) => i).sort((a, b) => skew[a] - skew[b] || a - b);
      order = Int32Array.from(idx);
    }
    let cursor = cfg.plugin ? P : 0;
    if (cfg.plugin) cfg.plugin.start(this);
    if (cfg.traffic && this.worm) {
      this.worm.startTraffic(cfg.traffic.pattern, cfg.traffic.bytes, cfg.traffic.window, -cfg.traffic.warmup, cfg.seed);
    } else if (cfg.traffic && cfg.network) {
      for (let n = 0; n < cfg.nodes; n++) q.pushKeyed(-cfg.traffic.warmup, EV_TRAFFIC, n, 0, K_NET + n);
    }
    const maxEvents = cfg.maxEvents ?? Number.MAX_SAFE_INTEGER;
    let events = 0;
    let nextProgress = 1 << 20;
    const R = this.R; // never reallocated (the message pool is: read this.m* fresh)
    // Run until every rank is done and no message of the collective is in flight (a
    // message still travelling to a finished rank is an error, found when delivered).
    while (this.finished < P || this.collPending > 0) {
      if (cursor < P) {
        const r = order ? order[cursor] : cursor;
        const ts = D[r * RD + D_START];
        if (ts <= q.peekTime()) {
          cursor++;
          events++;
          this.onStart(r, ts);
          continue;
        }
      }
      if (this.collPending === 0 && cursor >= P) break; // nothing but background traffic left: deadlock
      if (!q.pop()) break;
      const t = q.popTime;
      const kind = q.popKind;
      const a = q.popA;
      const b = q.popB;
      if (kind >= WORM_EVENT_BASE) {
        // Wormhole events are not counted: the network holds its collective work itself.
        events++;
        this.worm!.onEvent(kind, a, b, t);
        continue;
      }
      if (kind !== EV_TRAFFIC && !((kind === EV_HOP || kind === EV_ARRIVE) && this.mKind[a] === MK_TRAFFIC)) this.collPending--;
      events++;
      switch (kind) {
        case EV_DISPATCH:
          R[a * RI + R_PEND] = 0;
          this.dispatch(a, t, true);
          break;
        case EV_DONE:
          R[a * RI + R_RUN] = -1;
          if (!this.settle(a, b, t)) this.dispatch(a, t, false);
          break;
        case EV_ARRIVE:
          if (this.mKind[a] === MK_TRAFFIC) this.trafficArrived(a, t);
          else {
            this.arrivalPopped(this.mDst[a], t);
            this.onArrive(a, t);
          }
          break;
        case EV_MSGDONE:
          this.arrivalPopped(this.mDst[a], t);
          this.deliver(a, t);
          break;
        case EV_HOP:
          this.onHop(a, t);
          break;
        case EV_ENABLE:
          this.onEnable(a, t);
          break;
        case EV_TRAFFIC:
          this.onTraffic(a, t);
          break;
        case EV_HW:
          cfg.plugin!.onEvent(this, t, a, b);
          break;
        case EV_PHASE:
          this.openPhases(t);
          break;
      }
      if (events >= nextProgress) {
        nextProgress += 1 << 20;
        cfg.onProgress?.(events, t);
        if (events >= maxEvents) throw new ScheduleError(`simulation stopped after ${events} events (limit ${maxEvents})`);
      }
    }
    if (this.finished < P) this.reportDeadlock();
    if (this.pending.size > 0) {
      const [dst, l] = this.pending.entries().next().value as [number, number[]];
      throw new ScheduleError(`rank ${l[0]} sent message #${l[1]} (${l[2]} B) to rank ${dst}, which never received it`);
    }
    const start = new Float64Array(P);
    const end = new Float64Array(P);
    for (let r = 0; r < P; r++) {
      start[r] = D[r * RD + D_START];
      end[r] = D[r * RD + D_END];
    }
    return {
      end,
      start,
      time: this.bestTime,
      lastRank: this.bestRank,
      path: this.bestPath,
      events,
      messages: this.messages,
      steps: this.stepsRun,
      peakLiveRanks: this.peakLive,
      busy: {
        host: this.hostBusy,
        nic: this.nicBusy,
        links: this.linkBusy,
        noise: cfg.noise?.charged ?? 0,
        trafficPackets: this.trafficPackets + (this.worm?.packets ?? 0),
      },
      timeline: this.timeline,
      ...(this.timeline ? { timelineDropped: this.timelineDropped } : {}),
    };
  }

  private reportDeadlock(): never {
    const st = this.st;
    const R = this.R;
    const stuck: { rank: number; step: number; description: string }[] = [];
    for (let r = 0; r < this.P && stuck.length < 64; r++) {
      const state = R[r * RI + R_STATE];
      if (state === ST_DONE) continue;
      if (state === ST_IDLE) {
        stuck.push({ rank: r, step: -1, description: 'never started' });
        continue;
      }
      const I = st.I;
      const o = R[r * RI + R_OFFI];
      const n = R[r * RI + R_N];
      const before = stuck.length;
      let firstBlocked = -1;
      for (let i = 0; i < n && stuck.length < 64; i++) {
        const rem = I[o + 3 * n + i];
        if (rem <= 0) continue;
        if (firstBlocked < 0) firstBlocked = i;
        // A receive whose only unmet condition is its message.
        if (I[o + i] === K_RECV && rem === 1 && I[o + 2 * n + i] === 0) {
          stuck.push({ rank: r, step: i, description: `recv ${st.F[R[r * RI + R_OFFF] + i]} B <- ${I[o + n + i]}: the message is never sent` });
        }
      }
      if (stuck.length === before && firstBlocked >= 0) {
        const i = firstBlocked;
        stuck.push({
          rank: r,
          step: i,
          description: `${KIND_NAMES[I[o + i]]} waits for ${I[o + 3 * n + i]} unmet dependencies (${R[r * RI + R_DONE]}/${n} steps done)`,
        });
      }
    }
    throw new DeadlockError(stuck);
  }

  // ---------------------------------------------------------------- rank lifecycle

  private onStart(r: number, t: number): void {
    const cfg = this.cfg;
    const st = this.st;
    const sched = cfg.source(r);
    st.load(r, sched, cfg.elementSize);
    if (this.gate && this.gate.load(r, sched, st.I, this.R[r * RI + R_OFFI] + 3 * this.R[r * RI + R_N])) this.phaseEvent(t);
    if (st.live > this.peakLive) this.peakLive = st.live;
    const R = this.R;
    const b = r * RI;
    R[b + R_STATE] = ST_STARTING;
    const nic = cfg.mode === 'offload' || (cfg.mode === 'intermediate' && R[b + R_INTERIOR] === 1);
    R[b + R_NIC] = nic ? 1 : 0;
    // A process that hands its work to the NIC sleeps on the completion event: with
    // idle-core absorption its core takes the daemons (its short initiation neglected).
    if (nic && cfg.noise && cfg.noiseScope === 'full-nodes' && !cfg.nicWindowExposed) this.noisy[r] = 0;
    const F = st.F;
    const sp = R[b + R_OFFF] + R[b + R_N] * (2 + PATH);
    F[sp + P_SKEW] = t;
    this.D[r * RD + D_CPU] = t;
    const work = cfg.callOverhead + (nic ? cfg.nicStartup : 0);
    let e = t;
    if (work > 0) {
      e = this.hostWork(r, t, work);
      F[sp + P_CPU] = cfg.callOverhead;
      F[sp + P_SYNC] = nic ? cfg.nicStartup : 0;
      F[sp + P_NOISE] = e - t - work;
      this.record(r, -1, 'start', false, t, e, -1, 0);
    }
    if (e > t) {
      this.collPending++;
      this.q.push(e, EV_ENABLE, r, 0);
    } else this.onEnable(r, t);
  }

  private onEnable(r: number, t: number): void {
    const st = this.st;
    const R = this.R;
    const b = r * RI;
    R[b + R_STATE] = ST_RUNNING;
    const I = st.I;
    const F = st.F;
    const o = R[b + R_OFFI];
    const of = R[b + R_OFFF];
    const n = R[b + R_N];
    for (let i = 0; i < n; i++) {
      if (I[o + 3 * n + i] === 0) {
        F[of + n + i] = t;
        I[o + 4 * n + i] = -1;
        st.pushReady(r, i);
      }
    }
    const pend = this.pending.get(r);
    if (pend) {
      this.pending.delete(r);
      for (let j = 0; j < pend.length; j += 4 + PATH) {
        for (let i = 0; i < PATH; i++) this.tmpPath[i] = pend[j + 4 + i];
        this.matchMessage(r, pend[j], pend[j + 1], pend[j + 2], pend[j + 3], this.tmpPath, 0);
      }
    }
    if (n === 0) {
      this.beginFinish(r, t, of + n * (2 + PATH));
      return;
    }
    this.dispatch(r, t, false);
  }

  /** All steps done at t: finish now (host rank) or after the host takes the result back (NIC rank). */
  private beginFinish(r: number, t: number, pathOff: number): void {
    const cfg = this.cfg;
    this.R[r * RI + R_STATE] = ST_FINISHING;
    const tp = this.tmpPath;
    const F = this.st.F;
    for (let i = 0; i < PATH; i++) tp[i] = F[pathOff + i];
    let e = t;
    if (this.R[r * RI + R_NIC] && cfg.nicCompletion > 0) {
      const start = Math.max(t, this.D[r * RD + D_CPU]);
      e = this.hostWork(r, t, cfg.nicCompletion);
      tp[P_QUEUE] += start - t;
      tp[P_SYNC] += cfg.nicCompletion;
      tp[P_NOISE] += e - start - cfg.nicCompletion;
      this.record(r, -1, 'finish', false, start, e, -1, 0);
    }
    this.st.release(r);
    this.finishRankAt(r, e, tp);
  }

  // ---------------------------------------------------------------- steps

  private arrivalQueued(r: number, t: number): void {
    this.R[r * RI + R_ARRCNT]++;
    const d = r * RD + D_ARRMIN;
    if (t < this.D[d]) this.D[d] = t;
  }

  private arrivalPopped(r: number, t: number): void {
    // Events leave in time order, so t stays a lower bound of the rank's queued arrivals.
    this.D[r * RD + D_ARRMIN] = --this.R[r * RI + R_ARRCNT] === 0 ? Infinity : t;
  }

  /**
   * Let rank r's CPU take its lowest startable step at t. Unless forced (a deferred
   * decision), the decision waits for the end of the instant when an arrival for r
   * may still be queued at t: arrivals precede CPU decisions (rule 7). Other ranks'
   * events at t cannot change r's choice.
   */
  private dispatch(r: number, t: number, force: boolean): void {
    const R = this.R;
    const b = r * RI;
    if (R[b + R_RUN] >= 0 || R[b + R_STATE] !== ST_RUNNING) return;
    const st = this.st;
    while (R[b + R_HEAP] > 0) {
      if (!force && R[b + R_ARRCNT] > 0 && this.D[r * RD + D_ARRMIN] <= t) {
        if (!R[b + R_PEND]) {
          R[b + R_PEND] = 1;
          this.collPending++;
          this.q.pushKeyed(t, EV_DISPATCH, r, 0, K_DECIDE + r * RANK_STRIDE);
        }
        return;
      }
      const step = st.popReady(r);
      if (!this.execute(r, step, t)) return;
      if (this.settle(r, step, t)) return;
    }
  }

  /** Phased execution: open the next phase at t (an event, so no rank runs re-entrantly). */
  private phaseEvent(t: number): void {
    this.gate!.pending = true;
    this.collPending++;
    this.q.push(t, EV_PHASE, 0, 0);
  }

  /** Release the steps of the phases that open at t; their critical path continues from the phase's last step. */
  private openPhases(t: number): void {
    const g = this.gate!;
    const list = g.advance();
    const st = this.st;
    const I = st.I;
    const F = st.F;
    const R = this.R;
    for (let j = 0; j < list.length; j += 2) {
      const r = list[j];
      const i = list[j + 1];
      const b = r * RI;
      const o = R[b + R_OFFI];
      const n = R[b + R_N];
      // A rank still starting picks its ready steps up when it is enabled.
      if (--I[o + 3 * n + i] === 0 && R[b + R_STATE] === ST_RUNNING) {
        const of = R[b + R_OFFF];
        F[of + n + i] = t;
        I[o + 4 * n + i] = -2;
        F.set(g.path, of + 2 * n + i * PATH);
        st.pushReady(r, i);
      }
    }
    for (let j = 0; j < list.length; j += 2) this.dispatch(list[j], t, false);
  }

  /** Step completed at t: release dependents; true when the rank is finished. */
  private settle(r: number, step: number, t: number): boolean {
    const R = this.R;
    const b = r * RI;
    R[b + R_LAST] = step;
    const st = this.st;
    const I = st.I;
    const F = st.F;
    const o = R[b + R_OFFI];
    const of = R[b + R_OFFF];
    const n = R[b + R_N];
    if (this.gate && this.gate.stepDone(r, step, F, of + 2 * n + step * PATH)) this.phaseEvent(t);
    const oRem = o + 3 * n;
    const oDstart = o + 5 * n;
    const oDlist = o + 6 * n + 1;
    const e = I[oDstart + step + 1];
    for (let j = I[oDstart + step]; j < e; j++) {
      const d = I[oDlist + j];
      if (--I[oRem + d] === 0) {
        F[of + n + d] = t;
        I[o + 4 * n + d] = step;
        st.pushReady(r, d);
      }
    }
    I[oRem + step] = -1;
    if (++R[b + R_DONE] === n) {
      this.beginFinish(r, t, of + 2 * n + step * PATH);
      return true;
    }
    return false;
  }

  /** Start `step` at t; true when it completed at once (zero duration). */
  private execute(r: number, step: number, t: number): boolean {
    const cfg = this.cfg;
    const st = this.st;
    const R = this.R;
    const b = r * RI;
    const I = st.I;
    const F = st.F;
    const o = R[b + R_OFFI];
    const of = R[b + R_OFFF];
    const n = R[b + R_N];
    const kind = I[o + step];
    const nic = R[b + R_NIC] === 1;
    const c = nic ? cfg.nic : cfg.host;
    let start = t;
    const node = R[b + R_NODE];
    if (nic && this.nicFree[node] > t) start = this.nicFree[node];
    let work: number;
    let part: number;
    if (kind === K_SEND) {
      work = c.oSend;
      part = nic ? P_NIC : P_CPU;
    } else if (kind === K_RECV) {
      work = c.oRecv;
      part = nic ? P_NIC : P_CPU;
      // A data message reaches a NIC-run rank through the regular packet path, per packet.
      if (nic && this.pktRecv > 0 && F[of + step] > 0) work += Math.ceil(F[of + step] / this.pktBytes) * this.pktRecv;
    } else if (kind === K_REDUCE) {
      work = F[of + step] * c.gamma;
      part = P_GAMMA;
    } else {
      work = F[of + step] * c.copyPerByte;
      part = P_GAMMA;
    }
    let end = start + work;
    if (!nic && work > 0 && cfg.noise && this.noisy[r]) end = cfg.noise.stretch(r, start, work);
    if (nic) {
      this.nicFree[node] = end;
      this.nicBusy += end - start;
    } else this.hostBusy += end - start;
    this.stepsRun++;
    // Critical path: the predecessor is what made the step ready, unless the executor was busy.
    const oPath = of + 2 * n;
    const po = oPath + step * PATH;
    let base: number;
    if (t === F[of + n + step]) {
      const from = I[o + 4 * n + step];
      base = from >= 0 ? oPath + from * PATH : from === -1 ? oPath + n * PATH : po;
    } else {
      const last = R[b + R_LAST];
      base = last >= 0 ? oPath + last * PATH : oPath + n * PATH;
    }
    if (base !== po) for (let i = 0; i < PATH; i++) F[po + i] = F[base + i];
    F[po + P_QUEUE] += start - t;
    F[po + part] += work;
    F[po + P_NOISE] += end - start - work;
    if (this.timeline) {
      // The message's index between the two ranks: a send's k, a recv's k (kept + 1 once matched).
      const index = kind === K_SEND ? I[o + 2 * n + step] : kind === K_RECV ? I[o + 2 * n + step] - 1 : -1;
      this.record(r, step, KIND_NAMES[kind], nic, start, end, I[o + n + step], F[of + step], index);
    }
    if (kind === K_SEND) this.send(r, step, end, po);
    if (end > t) {
      R[b + R_RUN] = step;
      this.collPending++;
      this.q.push(end, EV_DONE, r, step);
      return false;
    }
    return true;
  }

  private send(r: number, step: number, end: number, po: number): void {
    const cfg = this.cfg;
    const st = this.st;
    const R = this.R;
    const D = this.D;
    const rb = r * RI;
    const I = st.I;
    const F = st.F;
    const o = R[rb + R_OFFI];
    const n = R[rb + R_N];
    const dst = I[o + n + step];
    const db = dst * RI;
    const bytes = F[R[rb + R_OFFF] + step];
    const na = R[rb + R_NODE];
    const nb = R[db + R_NODE];
    const cls = na !== nb ? C_NETWORK : R[rb + R_SOCKET] === R[db + R_SOCKET] ? C_SOCKET : C_NODE;
    const beta = cfg.beta[cls];
    const of = r * RD + D_OUT;
    const s = end > D[of] ? end : D[of];
    D[of] = s + cfg.gap[cls] + bytes * beta;
    const m = this.allocMsg();
    this.messages++;
    this.mSrc[m] = r;
    this.mDst[m] = dst;
    this.mK[m] = I[o + 2 * n + step];
    this.mStep[m] = step;
    this.mCls[m] = cls;
    this.mKind[m] = MK_COLL;
    this.mBytes[m] = bytes;
    const mp = m * PATH;
    const MP = this.mPath;
    for (let i = 0; i < PATH; i++) MP[mp + i] = F[po + i];
    MP[mp + P_QUEUE] += s - end;
    let alpha = cfg.alpha[cls];
    if (cls === C_NETWORK && cfg.busCrossing > 0) {
      if (R[rb + R_NIC]) alpha -= cfg.busCrossing;
      if (R[db + R_STATE] !== ST_IDLE ? R[db + R_NIC] : cfg.mode === 'offload') alpha -= cfg.busCrossing;
    }
    const net = cfg.network;
    if (cls === C_NETWORK && this.worm) {
      // Wormhole: packets from s + α; the network reports the tail's arrival.
      this.mTail[m] = s + alpha;
      MP[mp + P_ALPHA] += alpha;
      this.worm.sendMessage(m, na, nb, bytes, s + alpha, beta);
      return;
    }
    if (cls === C_NETWORK && net) {
      // Into the network: the head reaches the first link after the endpoint latency.
      this.mWire[m] = bytes;
      const off = m * this.maxHops;
      this.mDstNode[m] = nb;
      const nh = net.route(na, nb, this.mRoute, off, this.linkFree);
      this.mNHops[m] = nh;
      let bmax = beta;
      for (let i = 0; i < nh; i++) {
        const lb = net.linkBeta[this.mRoute[off + i]];
        if (lb > bmax) bmax = lb;
      }
      this.mBeff[m] = bmax;
      this.mHop[m] = 0;
      // The tail leaves the rank's port at s + α + b·β.
      this.mTail[m] = s + alpha + bytes * beta;
      MP[mp + P_ALPHA] += alpha;
      this.collPending++;
      this.q.pushKeyed(s + alpha, EV_HOP, m, 0, K_NET + this.q.pushed);
      return;
    }
    let lat = alpha;
    let b = beta;
    if (cls === C_NETWORK && cfg.routeNetwork) {
      const hops = cfg.routeNetwork.hops(na, nb);
      lat += hops * this.hopLatency;
      const lb = hops <= 2 ? this.nodeLinkBeta : this.maxLinkBeta;
      if (lb > b) b = lb;
    }
    MP[mp + P_ALPHA] += lat;
    MP[mp + P_BETA] += bytes * b;
    this.collPending++;
    this.arrivalQueued(dst, s + lat + bytes * b);
    this.q.pushKeyed(s + lat + bytes * b, EV_ARRIVE, m, 0, arrivalKey(r, step));
  }

  /** The head of message m reaches link mHop[m] at t. */
  private onHop(m: number, t: number): void {
    const net = this.cfg.network!;
    const h = this.mHop[m];
    if (net.adaptive) net.adapt(this.mRoute, m * this.maxHops, h, this.mNHops[m], this.mDstNode[m], this.linkFree, t);
    const link = this.mRoute[m * this.maxHops + h];
    const wire = this.mWire[m];
    const lf = this.linkFree[link];
    let start: number;
    let tail: number;
    let alphaPart = 0;
    if (this.nblF !== undefined && link < this.cfg.nodes) {
      // The data crosses the channel in its last wire·β before `tail`; the head moves
      // on then, so downstream links are not booked before the data can reach them.
      // With α in the channels (link-step), the receiving end's α may start α before
      // the head arrives: it runs alongside the sending end's, as in the seed's step.
      const a = this.nblAlpha;
      tail = this.nblChannel(link, t, wire, net.linkBeta[link], a, h === 0 ? t : t - a);
      const s0 = tail - wire * net.linkBeta[link];
      start = s0 > t ? s0 : t;
      if (h === 0 && a > 0) alphaPart = start - t < a ? start - t : a;
    } else {
      start = lf > t ? lf : t;
      const occ = wire * net.linkBeta[link];
      this.linkFree[link] = start + occ;
      this.linkBusy += occ;
      tail = start + occ;
    }
    const lat = net.linkLatency[link];
    if (this.mTail[m] > tail) tail = this.mTail[m];
    const coll = this.mKind[m] === MK_COLL;
    if (h + 1 < this.mNHops[m]) {
      this.mTail[m] = tail + lat;
      this.mHop[m] = h + 1;
      if (coll) {
        this.mPath[m * PATH + P_ALPHA] += lat + alphaPart;
        this.mPath[m * PATH + P_QUEUE] += start - t - alphaPart;
        this.collPending++;
      }
      this.q.pushKeyed(start + lat, EV_HOP, m, 0, K_NET + this.q.pushed);
      return;
    }
    const arrival = tail + lat;
    if (coll) {
      const mp = m * PATH;
      const MP = this.mPath;
      MP[mp + P_ALPHA] += lat;
      MP[mp + P_QUEUE] += start - t;
      // What is left beyond the pure transfer time is queueing (pipelining stalls).
      const b = this.mBytes[m] * this.mBeff[m];
      MP[mp + P_BETA] += b;
      MP[mp + P_QUEUE] += arrival - (start + lat) - b;
      this.collPending++;
      this.arrivalQueued(this.mDst[m], arrival);
      this.q.pushKeyed(arrival, EV_ARRIVE, m, 0, arrivalKey(this.mSrc[m], this.mStep[m]));
    } else this.q.pushKeyed(arrival, EV_ARRIVE, m, 0, K_NET + this.q.pushed);
  }

  /**
   * A message of `wire` bytes reaches NBL node channel `ch` at t; L − 1 other
   * messages are still using the channel. It ends at
   *   max(t0 + α + own, min(t0 + L·α + f(L)·own, max(last, t0) + α + (f(L) − f(L−1))·own)),
   * own = wire·β, α the channel's per-message overhead (0 unless link-step), t0 = t
   * (t − α for the receiving end, whose α runs alongside the sender's), `last` the
   * latest end on the channel: L equal messages starting together take
   * L·α + f(L)·own (the seed's T(L); with α = 0 the closed form's transfer), f = L
   * serialises them (FIFO), f = 1 overlaps their transfers fully (the α's stay
   * serial), and a small message arriving behind a large one is not held for all of
   * it (processor-sharing-like). Earlier messages are not revised. Returns when its
   * tail leaves the channel.
   */
  private nblChannel(ch: number, t: number, wire: number, beta: number, alpha: number, t0: number): number {
    // Tail ends of the messages using the channel: a min-heap per channel.
    let h = this.nblHeaps[ch];
    if (!h) h = this.nblHeaps[ch] = new Float64Array(8);
    let n = this.nblCount[ch];
    while (n > 0 && h[0] <= t) {
      // Pop the minimum.
      const x = h[--n];
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const c = l + 1 < n && h[l + 1] < h[l] ? l + 1 : l;
        if (h[c] >= x) break;
        h[i] = h[c];
        i = c;
      }
      h[i] = x;
    }
    const L = n + 1;
    const own = wire * beta;
    const S = wire / 8;
    const f = this.nblF!;
    const fL = f(L, S);
    const delta = own * (fL - (L > 1 ? f(L - 1, S) : 0));
    const last = this.linkFree[ch];
    const from = last > t0 ? last : t0;
    const a = t0 + L * alpha + fL * own;
    const b = from + alpha + (delta > 0 ? delta : 0);
    const lim = a < b ? a : b;
    const lo = t0 + alpha + own;
    const end = lim > lo ? lim : lo;
    if (end > last) {
      this.linkBusy += end - from;
      this.linkFree[ch] = end;
    }
    // Push its end.
    if (n === h.length) {
      const g = new Float64Array(2 * n);
      g.set(h);
      h = this.nblHeaps[ch] = g;
    }
    let i = n++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (h[p] <= end) break;
      h[i] = h[p];
      i = p;
    }
    h[i] = end;
    this.nblCount[ch] = n;
    return end;
  }


  /** Message m has fully arrived at its receiver at t: the in-port absorbs it. */
  private onArrive(m: number, t: number): void {
    const dst = this.mDst[m];
    const cls = this.mCls[m];
    const cfg = this.cfg;
    const di = dst * RD + D_IN;
    const via = this.D[di] + cfg.gap[cls] + this.mBytes[m] * cfg.beta[cls];
    const done = via > t ? via : t;
    this.D[di] = done;
    if (done > t) {
      this.mPath[m * PATH + P_QUEUE] += done - t;
      this.collPending++;
      this.arrivalQueued(dst, done);
      this.q.pushKeyed(done, EV_MSGDONE, m, 0, arrivalKey(this.mSrc[m], this.mStep[m]));
      return;
    }
    this.deliver(m, t);
  }

  private deliver(m: number, t: number): void {
    const dst = this.mDst[m];
    const state = this.R[dst * RI + R_STATE];
    const mp = m * PATH;
    if (state === ST_IDLE || state === ST_STARTING) {
      // Receiver not started (skew): keep the message until it is.
      let l = this.pending.get(dst);
      if (!l) this.pending.set(dst, (l = []));
      l.push(this.mSrc[m], this.mK[m], this.mBytes[m], t);
      for (let i = 0; i < PATH; i++) l.push(this.mPath[mp + i]);
      this.freeMsg(m);
      return;
    }
    if (state !== ST_RUNNING) {
      throw new ScheduleError(
        `rank ${this.mSrc[m]} sent message #${this.mK[m]} (${this.mBytes[m]} B) to rank ${dst}, which has already finished: no matching receive`,
      );
    }
    this.matchMessage(dst, this.mSrc[m], this.mK[m], this.mBytes[m], t, this.mPath, mp);
    this.freeMsg(m);
    this.dispatch(dst, t, false);
  }

  private matchMessage(dst: number, src: number, k: number, bytes: number, t: number, path: Float64Array, off: number): void {
    const st = this.st;
    const step = st.findRecv(dst, src, k);
    if (step < 0) {
      throw new ScheduleError(`rank ${src} sent message #${k} (${bytes} B) to rank ${dst}, which has no matching receive`);
    }
    const I = st.I;
    const F = st.F;
    const R = this.R;
    const o = R[dst * RI + R_OFFI];
    const of = R[dst * RI + R_OFFF];
    const n = R[dst * RI + R_N];
    I[o + 2 * n + step] = k + 1; // message matched (its index + 1, for the timeline)
    if (F[of + step] !== bytes) {
      throw new ScheduleError(`rank ${src} sent ${bytes} B to rank ${dst} but the matching receive (step ${step}) expects ${F[of + step]} B`);
    }
    if (--I[o + 3 * n + step] === 0) {
      F[of + n + step] = t;
      I[o + 4 * n + step] = -2;
      const po = of + 2 * n + step * PATH;
      for (let i = 0; i < PATH; i++) F[po + i] = path[off + i];
      st.pushReady(dst, step);
    }
  }

  // ---------------------------------------------------------------- background traffic

  private onTraffic(node: number, t: number): void {
    const tr = this.cfg.traffic!;
    if (this.tOut[node] >= tr.window) {
      this.tBlocked[node] = 1;
      return;
    }
    const net = this.cfg.network!;
    const N = this.cfg.nodes;
    if (N < 2) return;
    let dst: number;
    if (tr.pattern === 'complement') dst = N - 1 - node;
    else {
      dst = Math.floor(nextUniform(this.tRng, node) * (N - 1));
      if (dst >= node) dst++;
    }
    if (dst === node) return;
    const m = this.allocMsg();
    this.mKind[m] = MK_TRAFFIC;
    this.mSrc[m] = node;
    this.mDst[m] = dst;
    this.mDstNode[m] = dst;
    this.mBytes[m] = tr.bytes;
    this.mWire[m] = tr.bytes + tr.overhead;
    this.mNHops[m] = net.route(node, dst, this.mRoute, m * this.maxHops, this.linkFree);
    this.mHop[m] = 0;
    this.mTail[m] = -Infinity;
    this.tOut[node]++;
    this.trafficPackets++;
    // Next injection when this packet has left the injection link.
    const inj = this.mRoute[m * this.maxHops];
    const next = Math.max(t, this.linkFree[inj]) + this.mWire[m] * net.linkBeta[inj];
    this.q.pushKeyed(t, EV_HOP, m, 0, K_NET + this.q.pushed);
    this.q.pushKeyed(next, EV_TRAFFIC, node, 0, K_NET + this.q.pushed);
  }

  private trafficArrived(m: number, t: number): void {
    const src = this.mSrc[m];
    this.tOut[src]--;
    this.freeMsg(m);
    if (this.tBlocked[src]) {
      this.tBlocked[src] = 0;
      this.q.pushKeyed(t, EV_TRAFFIC, src, 0, K_NET + this.q.pushed);
    }
  }

  // ---------------------------------------------------------------- timeline

  private record(rank: number, step: number, kind: TimelineRecord['kind'], nic: boolean, start: number, end: number, peer: number, bytes: number, index = -1): void {
    const tl = this.timeline;
    if (!tl) return;
    if (tl.length >= (this.cfg.timelineLimit ?? 1_000_000)) {
      this.timelineDropped++;
      return;
    }
    const rec: { -readonly [K in keyof TimelineRecord]: TimelineRecord[K] } = { rank, step, kind, on: nic ? 'nic' : 'host', start, end };
    if (peer >= 0) rec.peer = peer;
    if (bytes > 0) rec.bytes = bytes;
    if (index >= 0) rec.index = index;
    tl.push(rec);
  }
}
