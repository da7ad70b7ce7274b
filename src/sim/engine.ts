/**
 * The discrete-event core: replays per-rank schedules on modelled resources.
 *
 * Resources: per rank a host CPU, an out-port and an in-port (docs/cost-semantics.md);
 * per node a NIC processor (offload / intermediate modes, seed 000) and, with
 * contention on, the network's links (FIFO by head arrival, reserved for the
 * message's wire time; cut-through pipelining across hops). With contention and
 * noise off, a run is exactly the DAG evaluation of docs/cost-semantics.md:
 * - the CPU runs the lowest-index ready step first (ties at one instant are
 *   resolved after every other event of that instant, by a deferred dispatch);
 * - send: CPU oSend; transmission at s = max(end, out-port free); out-port busy
 *   b·β; arrival s + α + b·β; in-port absorbs in arrival order;
 * - recv: CPU oRecv once its message is absorbed; reduce (k−1)·count·γ; copy b·c.
 * Every step carries the breakdown of the critical path that ends with it (skew,
 * CPU, NIC, γ, host–NIC sync, noise, α, β, queueing), so the collective's critical
 * path is known without storing the DAG. Ranks' schedules are generated when the
 * rank starts and dropped when it finishes. State is in typed arrays; events are
 * integers in one heap; there are no per-event closures.
 */
import { DeadlockError, ScheduleError } from '../core/errors.js';
import type { RankSchedule } from '../schedule/types.js';
import {
  CompiledRank,
  K_RECV,
  K_REDUCE,
  K_SEND,
  P_ALPHA,
  P_BETA,
  P_CPU,
  P_GAMMA,
  P_NIC,
  P_NOISE,
  P_QUEUE,
  P_SKEW,
  P_SYNC,
  PATH,
} from './compiled.js';
import { EventQueue } from './event-queue.js';
import type { Network } from './network.js';
import type { NoiseModel } from './noise.js';
import { mixSeed, nextUniform } from './random.js';

export const EV_START = 0;
export const EV_ENABLE = 1;
export const EV_DONE = 2;
export const EV_ARRIVE = 3;
export const EV_MSGDONE = 4;
export const EV_HOP = 5;
export const EV_DISPATCH = 7;
export const EV_TRAFFIC = 8;
export const EV_HW = 9;

const ST_IDLE = 0;
const ST_STARTING = 1;
const ST_RUNNING = 2;
const ST_FINISHING = 3;
const ST_DONE = 4;

/** Message classes. */
export const C_SOCKET = 0;
export const C_NODE = 1;
export const C_NETWORK = 2;

/** Primary keys of event classes at equal times (docs/cost-semantics.md rule 7). */
const PK_NET = 2 ** 31;
const PK_ARRIVE = 2 * 2 ** 31;
const PK_DECIDE = 3 * 2 ** 31;

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
  readonly mode: 'host' | 'offload' | 'intermediate';
  readonly elementSize: number;
  /** Schedule of a rank (called once, when the rank starts). */
  readonly source: (rank: number) => RankSchedule;
  /** Links with contention (undefined: contention-free, α refined by route hops when `routeNetwork` is set). */
  readonly network?: Network;
  /** Network used only for hop counts in contention-free mode. */
  readonly routeNetwork?: Network;
  readonly noise?: NoiseModel;
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
}

/** Hooks for simulator-level algorithms (hardware collectives). */
export interface EnginePlugin {
  /** Called once before the run; schedule EV_HW events with engine.pushHw. */
  start(e: Engine): void;
  onEvent(e: Engine, t: number, a: number, b: number): void;
}

export interface TimelineRecord {
  readonly rank: number;
  readonly step: number;
  readonly kind: 'send' | 'recv' | 'reduce' | 'copy' | 'start' | 'finish';
  readonly on: 'host' | 'nic';
  readonly start: number;
  readonly end: number;
  readonly peer?: number;
  readonly bytes?: number;
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
  /** Resource busy times summed over all ranks / nodes / links (s). */
  readonly busy: { readonly host: number; readonly nic: number; readonly links: number; readonly noise: number; readonly trafficPackets: number };
  readonly timeline?: readonly TimelineRecord[];
}

const KIND_NAMES = ['send', 'recv', 'reduce', 'copy'] as const;

export class Engine {
  readonly cfg: EngineConfig;
  readonly q = new EventQueue(4096);
  readonly P: number;
  // Per rank.
  private readonly state: Uint8Array;
  private readonly running: Int32Array;
  private readonly lastStep: Int32Array;
  private readonly pendingDispatch: Uint8Array;
  private readonly onNic: Uint8Array;
  private readonly cpuFree: Float64Array;
  private readonly outFree: Float64Array;
  private readonly inFree: Float64Array;
  readonly rankStart: Float64Array;
  readonly rankEnd: Float64Array;
  private readonly compiled: (CompiledRank | undefined)[];
  private readonly pending = new Map<number, number[]>();
  // Per node.
  private readonly nicFree: Float64Array;
  // Links.
  readonly linkFree: Float64Array;
  private readonly maxLinkBeta: number;
  /** Largest per-byte time of node links (the only links of a two-hop route). */
  private readonly nodeLinkBeta: number;
  // Message pool.
  private mCap = 0;
  private mTop = 0;
  private mFreeList: Int32Array = new Int32Array(0);
  private mFreeN = 0;
  private mSrc: Int32Array = new Int32Array(0);
  private mDst: Int32Array = new Int32Array(0);
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
  private messages = 0;
  private stepsRun = 0;
  private hostBusy = 0;
  private nicBusy = 0;
  private linkBusy = 0;
  private readonly timeline: TimelineRecord[] | undefined;
  private readonly tmpPath = new Float64Array(PATH);
  private now = 0;

  constructor(cfg: EngineConfig) {
    this.cfg = cfg;
    const P = cfg.P;
    this.P = P;
    this.state = new Uint8Array(P);
    this.running = new Int32Array(P).fill(-1);
    this.lastStep = new Int32Array(P).fill(-1);
    this.pendingDispatch = new Uint8Array(P);
    this.onNic = new Uint8Array(P);
    this.cpuFree = new Float64Array(P);
    this.outFree = new Float64Array(P).fill(-Infinity);
    this.inFree = new Float64Array(P).fill(-Infinity);
    this.rankStart = new Float64Array(P);
    this.rankEnd = new Float64Array(P).fill(NaN);
    this.compiled = new Array<CompiledRank | undefined>(P);
    this.nicFree = new Float64Array(cfg.nodes).fill(-Infinity);
    const net = cfg.network;
    this.linkFree = new Float64Array(net ? net.linkCount : 0).fill(-Infinity);
    let mb = 0;
    const rn = net ?? cfg.routeNetwork;
    if (rn) for (let i = 0; i < rn.linkBeta.length; i++) mb = Math.max(mb, rn.linkBeta[i]);
    this.maxLinkBeta = mb;
    let nb = 0;
    if (rn) for (let i = 0; i < Math.min(2 * cfg.nodes, rn.linkBeta.length); i++) nb = Math.max(nb, rn.linkBeta[i]);
    this.nodeLinkBeta = nb;
    this.maxHops = net ? net.maxHops : 0;
    this.growMessages(1024);
    const N = cfg.nodes;
    this.tOut = new Int32Array(cfg.traffic ? N : 0);
    this.tBlocked = new Uint8Array(cfg.traffic ? N : 0);
    this.tRng = new Uint32Array(cfg.traffic ? N : 0);
    if (cfg.traffic) for (let n = 0; n < N; n++) this.tRng[n] = mixSeed(cfg.seed ^ 0x7aff1c, n);
    this.timeline = cfg.timeline ? [] : undefined;
  }

  // ---------------------------------------------------------------- messages

  private growMessages(cap: number): void {
    const old = this.mCap;
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
    void old;
  }

  private allocMsg(): number {
    if (this.mFreeN > 0) return this.mFreeList[--this.mFreeN];
    if (this.mTop === this.mCap) this.growMessages(this.mCap * 2);
    return this.mTop++;
  }

  private freeMsg(m: number): void {
    this.mFreeList[this.mFreeN++] = m;
  }

  // ---------------------------------------------------------------- public helpers for plugins

  /** Schedule a plugin event. */
  pushHw(t: number, a: number, b: number): void {
    this.collPending++;
    this.q.push(t, EV_HW, a, b);
  }

  /** Host CPU work of rank r from t (with noise); returns the end. */
  hostWork(r: number, t: number, work: number): number {
    const start = Math.max(t, this.cpuFree[r]);
    const end = work > 0 && this.cfg.noise ? this.cfg.noise.stretch(r, start, work) : start + work;
    this.cpuFree[r] = end;
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

  /** Mark rank r finished at t with the given critical-path breakdown (plugins). */
  finishRankAt(r: number, t: number, path: Float64Array): void {
    this.state[r] = ST_DONE;
    this.rankEnd[r] = t;
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
    for (let r = 0; r < P; r++) {
      const t0 = skew ? skew[r] : 0;
      this.rankStart[r] = t0;
    }
    if (cfg.plugin) cfg.plugin.start(this);
    else {
      for (let r = 0; r < P; r++) {
        this.collPending++;
        q.push(this.rankStart[r], EV_START, r, 0);
      }
    }
    if (cfg.traffic && cfg.network) {
      for (let n = 0; n < cfg.nodes; n++) q.pushKeyed(-cfg.traffic.warmup, EV_TRAFFIC, n, 0, PK_NET, n);
    }
    const maxEvents = cfg.maxEvents ?? Number.MAX_SAFE_INTEGER;
    let events = 0;
    const progressEvery = 1 << 20;
    while (this.finished < P) {
      if (this.collPending === 0) break; // only background traffic (or nothing) left: deadlock
      if (!q.pop()) break;
      const t = q.popTime;
      const kind = q.popKind;
      const a = q.popA;
      const b = q.popB;
      this.now = t;
      if (kind !== EV_TRAFFIC && !(kind === EV_HOP && this.mKind[a] === MK_TRAFFIC) && !(kind === EV_ARRIVE && this.mKind[a] === MK_TRAFFIC)) {
        this.collPending--;
      }
      events++;
      switch (kind) {
        case EV_DISPATCH:
          this.pendingDispatch[a] = 0;
          this.dispatch(a, t, true);
          break;
        case EV_DONE:
          this.onDone(a, b, t);
          break;
        case EV_ARRIVE:
          this.onArrive(a, t);
          break;
        case EV_MSGDONE:
          this.deliver(a, t);
          break;
        case EV_HOP:
          this.onHop(a, t);
          break;
        case EV_START:
          this.onStart(a, t);
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
      }
      if (events % progressEvery === 0) {
        cfg.onProgress?.(events, t);
        if (events >= maxEvents) throw new ScheduleError(`simulation stopped after ${events} events (limit ${maxEvents})`);
      }
    }
    if (this.finished < P) this.reportDeadlock();
    return {
      end: this.rankEnd,
      start: this.rankStart,
      time: this.bestTime,
      lastRank: this.bestRank,
      path: this.bestPath,
      events,
      messages: this.messages,
      steps: this.stepsRun,
      busy: {
        host: this.hostBusy,
        nic: this.nicBusy,
        links: this.linkBusy,
        noise: cfg.noise?.charged ?? 0,
        trafficPackets: this.trafficPackets,
      },
      timeline: this.timeline,
    };
  }

  private reportDeadlock(): never {
    const stuck: { rank: number; step: number; description: string }[] = [];
    for (let r = 0; r < this.P && stuck.length < 64; r++) {
      if (this.state[r] === ST_DONE) continue;
      const cr = this.compiled[r];
      if (!cr) {
        stuck.push({ rank: r, step: -1, description: 'never started' });
        continue;
      }
      const I = cr.I;
      const before = stuck.length;
      let firstBlocked = -1;
      for (let i = 0; i < cr.n && stuck.length < 64; i++) {
        const rem = I[cr.oRem + i];
        if (rem <= 0) continue;
        if (firstBlocked < 0) firstBlocked = i;
        // A receive whose only unmet condition is its message (aux marks a matched message).
        if (I[i] === K_RECV && rem === 1 && I[cr.oAux + i] === 0) {
          stuck.push({ rank: r, step: i, description: `recv ${cr.F[i]} B <- ${I[cr.oPeer + i]}: the message is never sent` });
        }
      }
      if (stuck.length === before && firstBlocked >= 0) {
        const i = firstBlocked;
        stuck.push({ rank: r, step: i, description: `${KIND_NAMES[I[i]]} waits for ${I[cr.oRem + i]} unmet dependencies (${cr.done}/${cr.n} steps done)` });
      }
    }
    throw new DeadlockError(stuck);
  }

  // ---------------------------------------------------------------- rank lifecycle

  private onStart(r: number, t: number): void {
    const cfg = this.cfg;
    const cr = new CompiledRank(cfg.source(r), cfg.elementSize);
    this.compiled[r] = cr;
    this.state[r] = ST_STARTING;
    const nic = cfg.mode === 'offload' || (cfg.mode === 'intermediate' && cr.interior);
    this.onNic[r] = nic ? 1 : 0;
    const F = cr.F;
    const sp = cr.oStartPath;
    F[sp + P_SKEW] = t;
    this.cpuFree[r] = t;
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
    const cr = this.compiled[r]!;
    this.state[r] = ST_RUNNING;
    const I = cr.I;
    const F = cr.F;
    for (let i = 0; i < cr.n; i++) {
      if (I[cr.oRem + i] === 0) {
        F[cr.oReady + i] = t;
        I[cr.oFrom + i] = -1;
        cr.pushReady(i);
      }
    }
    const pend = this.pending.get(r);
    if (pend) {
      this.pending.delete(r);
      for (let j = 0; j < pend.length; j += 4 + PATH) {
        this.tmpPath.set(pend.slice(j + 4, j + 4 + PATH));
        this.matchMessage(r, cr, pend[j], pend[j + 1], pend[j + 2], pend[j + 3], this.tmpPath, 0);
      }
    }
    if (cr.n === 0) {
      this.beginFinish(r, t, F, cr.oStartPath);
      return;
    }
    this.dispatch(r, t, false);
  }

  /** All steps done at t: finish now (host rank) or after the host takes the result back (NIC rank). */
  private beginFinish(r: number, t: number, F: Float64Array, pathOff: number): void {
    const cfg = this.cfg;
    this.state[r] = ST_FINISHING;
    const tp = this.tmpPath;
    for (let i = 0; i < PATH; i++) tp[i] = F[pathOff + i];
    let e = t;
    if (this.onNic[r] && cfg.nicCompletion > 0) {
      const start = Math.max(t, this.cpuFree[r]);
      e = this.hostWork(r, t, cfg.nicCompletion);
      tp[P_QUEUE] += start - t;
      tp[P_SYNC] += cfg.nicCompletion;
      tp[P_NOISE] += e - start - cfg.nicCompletion;
      this.record(r, -1, 'finish', false, start, e, -1, 0);
    }
    this.compiled[r] = undefined;
    this.finishRankAt(r, e, tp);
  }

  // ---------------------------------------------------------------- steps

  private dispatch(r: number, t: number, force: boolean): void {
    if (this.running[r] >= 0 || this.state[r] !== ST_RUNNING) return;
    const cr = this.compiled[r]!;
    while (cr.heapSize > 0) {
      if (!force && this.q.peekTime() <= t) {
        if (!this.pendingDispatch[r]) {
          this.pendingDispatch[r] = 1;
          this.collPending++;
          this.q.pushKeyed(t, EV_DISPATCH, r, 0, PK_DECIDE + r, 0);
        }
        return;
      }
      const step = cr.popReady();
      if (!this.execute(r, cr, step, t)) return;
      if (this.settle(r, cr, step, t)) return;
    }
  }

  private onDone(r: number, step: number, t: number): void {
    this.running[r] = -1;
    const cr = this.compiled[r]!;
    if (this.settle(r, cr, step, t)) return;
    this.dispatch(r, t, false);
  }

  /** Step completed at t: release dependents; true when the rank is finished. */
  private settle(r: number, cr: CompiledRank, step: number, t: number): boolean {
    this.lastStep[r] = step;
    const I = cr.I;
    const F = cr.F;
    const e = I[cr.oDstart + step + 1];
    for (let j = I[cr.oDstart + step]; j < e; j++) {
      const d = I[cr.oDlist + j];
      if (--I[cr.oRem + d] === 0) {
        F[cr.oReady + d] = t;
        I[cr.oFrom + d] = step;
        cr.pushReady(d);
      }
    }
    I[cr.oRem + step] = -1; // done
    if (++cr.done === cr.n) {
      this.beginFinish(r, t, F, cr.oPath + step * PATH);
      return true;
    }
    return false;
  }

  /** Start `step` at t; true when it completed at once (zero duration). */
  private execute(r: number, cr: CompiledRank, step: number, t: number): boolean {
    const cfg = this.cfg;
    const I = cr.I;
    const F = cr.F;
    const kind = I[step];
    const nic = this.onNic[r] === 1;
    const c = nic ? cfg.nic : cfg.host;
    let start = t;
    const node = cfg.rankNode[r];
    if (nic && this.nicFree[node] > t) start = this.nicFree[node];
    let work: number;
    let part: number;
    switch (kind) {
      case K_SEND:
        work = c.oSend;
        part = nic ? P_NIC : P_CPU;
        break;
      case K_RECV:
        work = c.oRecv;
        part = nic ? P_NIC : P_CPU;
        break;
      case K_REDUCE:
        work = F[step] * c.gamma;
        part = P_GAMMA;
        break;
      default:
        work = F[step] * c.copyPerByte;
        part = P_GAMMA;
        break;
    }
    let end = start + work;
    if (!nic && work > 0 && cfg.noise) end = cfg.noise.stretch(r, start, work);
    if (nic) {
      this.nicFree[node] = end;
      this.nicBusy += end - start;
    } else this.hostBusy += end - start;
    this.stepsRun++;
    // Critical path: the step's predecessor is what made it ready, unless the executor was busy.
    const po = cr.oPath + step * PATH;
    let base: number;
    let baseArr: Float64Array = F;
    if (t === F[cr.oReady + step]) {
      const from = I[cr.oFrom + step];
      base = from >= 0 ? cr.oPath + from * PATH : from === -1 ? cr.oStartPath : po;
    } else {
      const last = this.lastStep[r];
      base = last >= 0 ? cr.oPath + last * PATH : cr.oStartPath;
    }
    if (base !== po) for (let i = 0; i < PATH; i++) F[po + i] = baseArr[base + i];
    baseArr = F;
    F[po + P_QUEUE] += start - t;
    F[po + part] += work;
    F[po + P_NOISE] += end - start - work;
    if (this.timeline) this.record(r, step, KIND_NAMES[kind], nic, start, end, I[cr.oPeer + step], kind === K_REDUCE ? F[step] : F[step]);
    if (kind === K_SEND) this.send(r, cr, step, end, po);
    if (end > t) {
      this.running[r] = step;
      this.collPending++;
      this.q.push(end, EV_DONE, r, step);
      return false;
    }
    return true;
  }

  private classOf(a: number, b: number): number {
    const na = this.cfg.rankNode[a];
    const nb = this.cfg.rankNode[b];
    if (na !== nb) return C_NETWORK;
    return this.cfg.rankSocket[a] === this.cfg.rankSocket[b] ? C_SOCKET : C_NODE;
  }

  private send(r: number, cr: CompiledRank, step: number, end: number, po: number): void {
    const cfg = this.cfg;
    const I = cr.I;
    const F = cr.F;
    const dst = I[cr.oPeer + step];
    const bytes = F[step];
    const cls = this.classOf(r, dst);
    const beta = cfg.beta[cls];
    const s = Math.max(end, this.outFree[r]);
    this.outFree[r] = s + cfg.gap[cls] + bytes * beta;
    const m = this.allocMsg();
    this.messages++;
    this.mSrc[m] = r;
    this.mDst[m] = dst;
    this.mK[m] = I[cr.oAux + step];
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
      if (this.onNic[r]) alpha -= cfg.busCrossing;
      if (this.state[dst] !== ST_IDLE ? this.onNic[dst] : cfg.mode === 'offload') alpha -= cfg.busCrossing;
    }
    const net = cfg.network;
    if (cls === C_NETWORK && net) {
      // Into the network: the head reaches the first link after the endpoint latency.
      this.mWire[m] = bytes;
      const src = cfg.rankNode[r];
      const dn = cfg.rankNode[dst];
      const off = m * this.maxHops;
      const nh = net.route(src, dn, this.mRoute, off, this.linkFree);
      this.mNHops[m] = nh;
      let bmax = beta;
      for (let i = 0; i < nh; i++) {
        const lb = net.linkBeta[this.mRoute[off + i]];
        if (lb > bmax) bmax = lb;
      }
      this.mBeff[m] = bmax;
      this.mHop[m] = 0;
      // Tail of the message leaves the rank's port at s + α + b·β.
      this.mTail[m] = s + alpha + bytes * beta;
      MP[mp + P_ALPHA] += alpha;
      this.collPending++;
      this.q.pushKeyed(s + alpha, EV_HOP, m, 0, PK_NET, this.q.pushed);
      return;
    }
    let lat = alpha;
    let b = beta;
    if (cls === C_NETWORK && cfg.routeNetwork) {
      const rn = cfg.routeNetwork;
      const hops = rn.hops(cfg.rankNode[r], cfg.rankNode[dst]);
      lat += hops * rn.linkLatency[0];
      const lb = hops <= 2 ? this.nodeLinkBeta : this.maxLinkBeta;
      if (lb > b) b = lb;
    }
    MP[mp + P_ALPHA] += lat;
    MP[mp + P_BETA] += bytes * b;
    this.collPending++;
    this.q.pushKeyed(s + lat + bytes * b, EV_ARRIVE, m, 0, PK_ARRIVE + r, step);
  }

  /** The head of message m reaches link mHop[m] at t. */
  private onHop(m: number, t: number): void {
    const net = this.cfg.network!;
    const h = this.mHop[m];
    const link = this.mRoute[m * this.maxHops + h];
    const wire = this.mWire[m];
    const start = Math.max(t, this.linkFree[link]);
    const occ = wire * net.linkBeta[link];
    this.linkFree[link] = start + occ;
    this.linkBusy += occ;
    const lat = net.linkLatency[link];
    let tail = start + occ;
    if (this.mTail[m] > tail) tail = this.mTail[m];
    if (h + 1 < this.mNHops[m]) {
      this.mTail[m] = tail + lat;
      this.mHop[m] = h + 1;
      if (this.mKind[m] === MK_COLL) {
        this.mPath[m * PATH + P_ALPHA] += lat;
        this.mPath[m * PATH + P_QUEUE] += start - t;
        this.collPending++;
      }
      this.q.pushKeyed(start + lat, EV_HOP, m, 0, PK_NET, this.q.pushed);
      return;
    }
    const arrival = tail + lat;
    if (this.mKind[m] === MK_COLL) {
      const mp = m * PATH;
      const MP = this.mPath;
      MP[mp + P_ALPHA] += lat;
      MP[mp + P_QUEUE] += start - t;
      // What is left beyond the pure transfer time is queueing (pipelining stalls).
      const b = this.mBytes[m] * this.mBeff[m];
      MP[mp + P_BETA] += b;
      MP[mp + P_QUEUE] += arrival - (start + lat) - b;
      this.collPending++;
    }
    this.q.pushKeyed(arrival, EV_ARRIVE, m, 0, PK_ARRIVE + this.mSrc[m], this.mStep[m]);
  }

  /** Message m has fully arrived at its receiver at t: the in-port absorbs it. */
  private onArrive(m: number, t: number): void {
    if (this.mKind[m] === MK_TRAFFIC) {
      this.trafficArrived(m, t);
      return;
    }
    const dst = this.mDst[m];
    const cls = this.mCls[m];
    const cfg = this.cfg;
    const done = Math.max(t, this.inFree[dst] + cfg.gap[cls] + this.mBytes[m] * cfg.beta[cls]);
    this.inFree[dst] = done;
    if (done > t) {
      this.mPath[m * PATH + P_QUEUE] += done - t;
      this.collPending++;
      this.q.pushKeyed(done, EV_MSGDONE, m, 0, PK_ARRIVE + this.mSrc[m], this.mStep[m]);
      return;
    }
    this.deliver(m, t);
  }

  private deliver(m: number, t: number): void {
    const dst = this.mDst[m];
    const st = this.state[dst];
    const mp = m * PATH;
    if (st === ST_IDLE || st === ST_STARTING) {
      // Receiver not started (skew): keep the message until it is.
      let l = this.pending.get(dst);
      if (!l) this.pending.set(dst, (l = []));
      l.push(this.mSrc[m], this.mK[m], this.mBytes[m], t);
      for (let i = 0; i < PATH; i++) l.push(this.mPath[mp + i]);
      this.freeMsg(m);
      return;
    }
    if (st !== ST_RUNNING) {
      throw new ScheduleError(
        `rank ${this.mSrc[m]} sent message #${this.mK[m]} (${this.mBytes[m]} B) to rank ${dst}, which has already finished: no matching receive`,
      );
    }
    const cr = this.compiled[dst]!;
    this.matchMessage(dst, cr, this.mSrc[m], this.mK[m], this.mBytes[m], t, this.mPath, mp);
    this.freeMsg(m);
    this.dispatch(dst, t, false);
  }

  private matchMessage(dst: number, cr: CompiledRank, src: number, k: number, bytes: number, t: number, path: Float64Array, off: number): void {
    const step = cr.findRecv(src, k);
    if (step < 0) {
      throw new ScheduleError(`rank ${src} sent message #${k} (${bytes} B) to rank ${dst}, which has no matching receive`);
    }
    const I = cr.I;
    const F = cr.F;
    I[cr.oAux + step] = 1; // message matched
    if (F[step] !== bytes) {
      throw new ScheduleError(`rank ${src} sent ${bytes} B to rank ${dst} but the matching receive (step ${step}) expects ${F[step]} B`);
    }
    if (--I[cr.oRem + step] === 0) {
      F[cr.oReady + step] = t;
      I[cr.oFrom + step] = -2;
      const po = cr.oPath + step * PATH;
      for (let i = 0; i < PATH; i++) F[po + i] = path[off + i];
      cr.pushReady(step);
    }
  }

  // ---------------------------------------------------------------- background traffic

  private onTraffic(node: number, t: number): void {
    const tr = this.cfg.traffic!;
    if (this.finished >= this.P) return;
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
    this.q.pushKeyed(t, EV_HOP, m, 0, PK_NET, this.q.pushed);
    this.q.pushKeyed(next, EV_TRAFFIC, node, 0, PK_NET, this.q.pushed);
  }

  private trafficArrived(m: number, t: number): void {
    const src = this.mSrc[m];
    this.tOut[src]--;
    this.freeMsg(m);
    if (this.tBlocked[src]) {
      this.tBlocked[src] = 0;
      this.q.pushKeyed(t, EV_TRAFFIC, src, 0, PK_NET, this.q.pushed);
    }
  }

  // ---------------------------------------------------------------- timeline

  private record(rank: number, step: number, kind: TimelineRecord['kind'], nic: boolean, start: number, end: number, peer: number, bytes: number): void {
    const tl = this.timeline;
    if (!tl || tl.length >= (this.cfg.timelineLimit ?? 1_000_000)) return;
    tl.push({ rank, step, kind, on: nic ? 'nic' : 'host', start, end, ...(peer >= 0 ? { peer } : {}), ...(bytes > 0 ? { bytes } : {}) });
  }
}
