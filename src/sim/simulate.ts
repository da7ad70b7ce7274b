/**
 * `simulate`: run one collective algorithm on a simulated machine, possibly many
 * times (distributions under noise), and report where the time goes.
 *
 * Everything that can be wrong with the request (machine, placement, algorithm
 * restrictions, estimated memory, perturbation parameters) is checked before the
 * first event. Schedules come from the catalogue (`src/algorithms`), generated per
 * rank when the rank starts; 'hw_multicast' (bcast) and 'hw_barrier' (barrier) are
 * the seed 002 hardware collectives, simulated directly on the fat tree.
 */
import { ArgumentError } from '../core/errors.js';
import { datatype, type DatatypeName } from '../core/datatypes.js';
import { checkRestrictions, getAlgorithm } from '../algorithms/registry.js';
import { resolveParams } from '../algorithms/params.js';
import type { AlgorithmSpec } from '../algorithms/types.js';
import { makeContext, type ParamValue, type ScheduleContext } from '../schedule/context.js';
import type { CollectiveKind, RankSchedule } from '../schedule/types.js';
import { PATH, PATH_PARTS, type PathPart } from './store.js';
import { C_NETWORK, C_NODE, C_SOCKET, Engine, type EngineConfig, type EngineResult, type TimelineRecord } from './engine.js';
import { HW_ALGORITHMS, makeHardwarePlugin } from './hardware.js';
import { fatTreeLevels, gammaOf, validateMachine, type MachineSpec } from './machine.js';
import { buildNetwork, type Network } from './network.js';
import { drawSkew, NoiseModel, validateNoise, type NoiseSpec, type SkewSpec } from './noise.js';
import { place, type Placement } from './placement.js';
import { mixSeed } from '../core/random.js';
import { resolveF } from '../model/nbl.js';
import { summarize, type Distribution } from './stats.js';
import { EXECUTIONS, type Execution } from './phases.js';

export type SimMode = 'host' | 'offload' | 'intermediate';

export interface TrafficSpec {
  readonly pattern: 'uniform' | 'complement';
  /** Payload bytes per background packet (default: the machine's packet size, else 320). */
  readonly bytes?: number;
  /** Packets in flight per node (default 2: with wormhole flow control, one per virtual channel of the injection link). */
  readonly window?: number;
  /** s of traffic before the collective starts (default 100 µs). */
  readonly warmup?: number;
  /**
   * Wormhole flow control only: s of the receiving NIC's thread processor taken by
   * each background packet (default 0). Not in any seed: a sensitivity knob for what
   * slows NIC-run software collectives under load (docs/simulator.md).
   */
  readonly nicPerPacket?: number;
  /**
   * Nodes running the background job (default: the collective's nodes). Seed 002 ran
   * it on all 64 nodes whatever the collective's size (§5.2), so a 4-node barrier
   * shares the tree with traffic from the other 60. Wormhole flow control only.
   */
  readonly nodes?: number;
}

export interface SimOptions {
  readonly collective: CollectiveKind;
  readonly algorithm: string;
  readonly machine: MachineSpec;
  readonly procs: number;
  readonly ppn?: number;
  /** Bytes of each rank's vector (the per-rank block for allgather-like collectives); default 8 (0 for barrier). */
  readonly bytes?: number;
  readonly datatype?: DatatypeName;
  readonly op?: string;
  readonly root?: number;
  readonly commutative?: boolean;
  readonly params?: Readonly<Record<string, ParamValue>>;
  /**
   * A custom per-rank schedule instead of the catalogue's (`algorithm` is then only a
   * label): e.g. the seed 004 testjig exchange. Called once per rank and run.
   */
  readonly schedule?: (rank: number) => RankSchedule;
  readonly mode?: SimMode;
  /**
   * 'dag' (default): a step starts when its own dependencies are met. 'phased': the
   * schedule's rounds are global phases, a step of round k starting only when every
   * step of rounds < k of every rank has completed (seed 000's f-nomial, whose
   * partial last phases still cost L; src/sim/phases.ts).
   */
  readonly execution?: Execution;
  /** Link contention (default true). Off: each message costs its class α (+ hops × hop latency) + b·β. */
  readonly contention?: boolean;
  /**
   * Network flow control with contention (default: the machine's, else 'message'):
   * 'wormhole' simulates packets, circuits held until the ack and virtual channels
   * (seed 002); it needs the machine's `network.wormhole` parameters.
   */
  readonly flowControl?: 'message' | 'wormhole';
  readonly noise?: NoiseSpec;
  readonly skew?: SkewSpec;
  readonly traffic?: TrafficSpec;
  readonly runs?: number;
  readonly seed?: number;
  /** Record the first run's intervals (steps, start/finish, noise detours) as `timeline`. */
  readonly timeline?: boolean;
  /** Intervals kept in the timeline (default 10⁶); later ones are counted in `timelineDropped`. */
  readonly timelineLimit?: number;
  readonly mesh?: { readonly width: number; readonly height: number };
  /** Refuse runs whose estimated memory exceeds this (bytes; default 4 GiB). */
  readonly maxMemory?: number;
  /** Keep generated schedules between runs (default: when they are small). */
  readonly cacheSchedules?: boolean;
  /** Return every run's time in `samples` (default false). */
  readonly keepSamples?: boolean;
  /** Called every 2^20 events (run = index of the run in progress) and after each run (run = runs done). */
  readonly onProgress?: (p: { run: number; runs: number; events: number; simTime: number }) => void;
}

export type PathBreakdown = Readonly<Record<PathPart, number>>;

export interface RunSummary {
  /** Latest rank completion (s), from t = 0. */
  readonly time: number;
  /** Per-rank time in the collective (completion − own start). */
  readonly rankTime: { readonly min: number; readonly avg: number; readonly max: number };
  /** Rank completing last and the breakdown of its critical path (sums to `time`). */
  readonly criticalPath: { readonly rank: number; readonly parts: PathBreakdown };
  readonly events: number;
  readonly messages: number;
  readonly steps: number;
  /** Busy time summed over resources (s). */
  readonly busy: EngineResult['busy'];
}

export interface SimReport {
  readonly collective: CollectiveKind;
  readonly algorithm: string;
  readonly machine: string;
  readonly procs: number;
  readonly ppn: number;
  readonly nodes: number;
  readonly bytes: number;
  readonly count: number;
  readonly datatype: DatatypeName;
  readonly op: string;
  readonly mode: SimMode;
  readonly execution: Execution;
  readonly contention: boolean;
  readonly flowControl: 'message' | 'wormhole';
  readonly seed: number;
  readonly runs: number;
  /** The algorithm's closed form with the machine's network α, β and host γ (s), when it has one. */
  readonly closedForm?: { readonly formula: string; readonly estimate: number };
  /** The first run. */
  readonly first: RunSummary;
  /** Collective time over runs. */
  readonly distribution: Distribution;
  /** Every run's time (with `keepSamples`). */
  readonly samples?: Float64Array;
  /** Critical-path breakdown averaged over runs. */
  readonly meanPath: PathBreakdown;
  readonly wallSeconds: number;
  /** Events over all runs. */
  readonly totalEvents: number;
  readonly eventsPerSecond: number;
  readonly estimatedMemory: number;
  readonly timeline?: readonly TimelineRecord[];
  /** Intervals of the first run not kept in `timeline` (its limit reached). */
  readonly timelineDropped?: number;
  readonly perturbations: { readonly noise?: NoiseSpec; readonly skew?: SkewSpec; readonly traffic?: TrafficSpec };
}

/** Everything a run needs, checked. */
interface Prepared {
  readonly o: SimOptions;
  readonly placement: Placement;
  readonly spec?: AlgorithmSpec;
  readonly hw: boolean;
  readonly count: number;
  readonly elementSize: number;
  readonly dtype: DatatypeName;
  readonly op: string;
  readonly base?: ScheduleContext;
  readonly network?: Network;
  readonly routeNetwork?: Network;
  readonly memory: number;
  readonly stepsTotal: number;
  readonly cache?: (RankSchedule | undefined)[];
  readonly flowControl: 'message' | 'wormhole';
}

const GiB = 1024 ** 3;

/** Validate the request and estimate memory; throws before any simulation. */
export function prepare(o: SimOptions): Prepared {
  validateMachine(o.machine);
  const dtype = o.datatype ?? 'float64';
  const dt = datatype(dtype);
  const elementSize = dt.size;
  const bytes = o.bytes ?? (o.collective === 'barrier' ? 0 : elementSize);
  if (!Number.isSafeInteger(bytes) || bytes < 0) throw new ArgumentError(`--bytes must be a non-negative integer, got ${bytes}`);
  if (bytes % elementSize !== 0) {
    throw new ArgumentError(`--bytes ${bytes} is not a multiple of the ${dtype} element size (${elementSize} B)`);
  }
  const count = bytes / elementSize;
  const mode = o.mode ?? 'host';
  if (mode !== 'host' && !o.machine.nic) {
    throw new ArgumentError(`--mode ${mode} needs NIC costs, and machine '${o.machine.name}' has no 'nic' section`);
  }
  if (o.execution !== undefined && !EXECUTIONS.includes(o.execution)) {
    throw new ArgumentError(`--execution must be ${EXECUTIONS.join(' or ')}, got '${String(o.execution)}'`);
  }
  const runs = o.runs ?? 1;
  if (!Number.isSafeInteger(runs) || runs < 1) throw new ArgumentError(`--runs must be a positive integer, got ${runs}`);
  if (o.noise) validateNoise(o.noise);
  const contention = o.contention ?? true;
  if (o.traffic && !contention) throw new ArgumentError('background traffic needs link contention (drop --no-contention)');
  if (o.traffic && !['uniform', 'complement'].includes(o.traffic.pattern)) {
    throw new ArgumentError(`--traffic must be uniform or complement, got '${o.traffic.pattern}'`);
  }
  if (o.flowControl !== undefined && o.flowControl !== 'message' && o.flowControl !== 'wormhole') {
    throw new ArgumentError(`--flow must be message or wormhole, got '${String(o.flowControl)}'`);
  }
  if (o.flowControl === 'wormhole' && !contention) throw new ArgumentError('wormhole flow control needs link contention (drop --no-contention)');
  if (o.flowControl === 'wormhole' && !o.machine.network.wormhole) {
    throw new ArgumentError(`wormhole flow control needs the machine's network.wormhole parameters ({ vcs, ackTurnaround }); '${o.machine.name}' has none`);
  }
  const flowControl = contention ? (o.flowControl ?? o.machine.network.flowControl ?? 'message') : 'message';
  if (o.machine.network.alphaPer === 'link-step') {
    // α per link and step lives in the shared node channels, which only contention simulates.
    if (!contention) throw new ArgumentError(`machine '${o.machine.name}' charges α per link and step (network.alphaPer 'link-step') in its node channels: drop --no-contention`);
    if (mode !== 'host') throw new ArgumentError(`network.alphaPer 'link-step' charges the host's α in the node channels: it needs --mode host, got '${mode}'`);
    if (flowControl === 'wormhole') throw new ArgumentError("network.alphaPer 'link-step' needs message-level flow control (the node channels), not wormhole");
  }
  const placement = place(o.machine, o.procs, { ppn: o.ppn, mesh: o.mesh });
  const P = placement.P;
  const root = o.root ?? 0;
  if (!Number.isSafeInteger(root) || root < 0 || root >= P) throw new ArgumentError(`--root must be in [0, ${P - 1}], got ${root}`);
  const hw = HW_ALGORITHMS.some((h) => h.collective === o.collective && h.name === o.algorithm);
  let spec: AlgorithmSpec | undefined;
  let base: ScheduleContext | undefined;
  if (o.schedule) {
    if (hw) throw new ArgumentError(`a custom schedule cannot replace the hardware algorithm '${o.algorithm}'`);
  } else if (!hw) {
    spec = getAlgorithm(o.collective, o.algorithm);
    const ctxOpts = {
      size: P,
      count,
      root,
      commutative: o.commutative ?? true,
      elementSize,
      topology: placement.topology,
    };
    checkRestrictions(spec, ctxOpts);
    const ctx0 = makeContext(spec.collective, { ...ctxOpts, rank: 0 });
    base = { ...ctx0, params: resolveParams(spec, ctx0, o.params ?? {}) };
  } else if (o.machine.network.topology !== 'fattree' || !o.machine.hw) {
    throw new ArgumentError(
      `'${o.algorithm}' is a Quadrics hardware collective: it needs a fat-tree machine with an 'hw' section (crescendo, alc, es40)`,
    );
  }
  // Networks: with the machine's tree depth, for the nodes in use.
  const netSpec = o.machine.network.topology === 'fattree'
    ? { ...o.machine.network, levels: o.machine.network.levels ?? fatTreeLevels(o.machine.network.arity ?? 4, o.machine.nodes) }
    : o.machine.network;
  // Memory estimate: per-rank state, live schedules (all ranks may be live at once), links.
  let stepsTotal = 0;
  if (o.schedule) {
    const sample = [0, P - 1].filter((r, i, a) => a.indexOf(r) === i).map((r) => o.schedule!(r).steps.length);
    stepsTotal = Math.max(...sample) * P;
  } else if (base && spec) {
    const sample = [0, 1, Math.floor(P / 2), P - 1].filter((r, i, a) => r < P && a.indexOf(r) === i);
    const counts = sample.map((r) => spec!.generate({ ...base!, rank: r }).steps.length).sort((x, y) => x - y);
    stepsTotal = counts[Math.floor(counts.length / 2)] * P + counts[counts.length - 1];
  }
  const needsNetwork = contention || hw;
  const linkEstimate = o.machine.network.topology === 'fattree'
    ? 2 * placement.nodeSpan * (1 + (netSpec.levels ?? 1))
    : 8 * placement.nodeSpan;
  const memory = P * 120 + stepsTotal * 180 + (needsNetwork ? linkEstimate * 16 : 0) + placement.nodeSpan * 16;
  const maxMemory = o.maxMemory ?? 4 * GiB;
  if (memory > maxMemory) {
    throw new ArgumentError(
      `estimated memory ${(memory / GiB).toFixed(2)} GiB exceeds the limit of ${(maxMemory / GiB).toFixed(2)} GiB (${P} ranks, about ${stepsTotal} steps)`,
      'use fewer processes, a cheaper algorithm, or raise --max-memory',
    );
  }
  const trafficNodes = o.traffic?.nodes ?? placement.nodeSpan;
  if (o.traffic?.nodes !== undefined) {
    if (!Number.isSafeInteger(trafficNodes) || trafficNodes < placement.nodeSpan || trafficNodes > o.machine.nodes) {
      throw new ArgumentError(`traffic.nodes must be an integer from the job's ${placement.nodeSpan} nodes to the machine's ${o.machine.nodes}, got ${trafficNodes}`);
    }
    if (trafficNodes > placement.nodeSpan && flowControl !== 'wormhole') throw new ArgumentError('traffic.nodes beyond the job needs wormhole flow control');
  }
  const network = needsNetwork ? buildNetwork(netSpec, Math.max(placement.nodeSpan, trafficNodes)) : undefined;
  const routeNetwork = !needsNetwork && placement.nodeSpan > 1 && netSpec.hopLatency > 0 ? buildNetwork(netSpec, placement.nodeSpan) : undefined;
  const cacheOk = o.cacheSchedules ?? (runs > 1 && stepsTotal < 2_000_000);
  return {
    o,
    placement,
    spec,
    hw,
    count,
    elementSize,
    dtype,
    op: o.op ?? 'sum',
    base,
    network,
    routeNetwork,
    memory,
    stepsTotal,
    cache: cacheOk ? new Array<RankSchedule | undefined>(P) : undefined,
    flowControl,
  };
}

function engineConfig(p: Prepared, run: number, seed: number): EngineConfig {
  const o = p.o;
  const m = o.machine;
  const cls = [m.classes.socket ?? m.classes.node, m.classes.node, m.classes.network];
  const alpha = new Float64Array(3);
  const beta = new Float64Array(3);
  const gap = new Float64Array(3);
  for (const c of [C_SOCKET, C_NODE, C_NETWORK]) {
    alpha[c] = cls[c].alpha;
    beta[c] = cls[c].beta;
  }
  // An NBL node channel carries the node's network bandwidth (f(L) decides how its
  // transfers overlap), so the rank's ports must not serialise them as well.
  if (m.network.nodeChannelShared && p.network) beta[C_NETWORK] = 0;
  const linkStep = m.network.alphaPer === 'link-step';
  const nic = m.nic;
  const spec = p.spec;
  const base = p.base;
  const cache = p.cache;
  const custom = o.schedule;
  const source = (rank: number): RankSchedule => {
    if (custom) return custom(rank);
    if (cache) {
      const c = cache[rank];
      if (c) return c;
      const s = spec!.generate({ ...base!, rank });
      cache[rank] = s;
      return s;
    }
    return spec!.generate({ ...base!, rank });
  };
  const tr = o.traffic;
  const P = p.placement.P;
  return {
    P,
    rankNode: p.placement.rankNode,
    rankSocket: p.placement.rankSocket,
    nodes: p.placement.nodeSpan,
    alpha,
    beta,
    gap,
    // alphaPer 'link-step': the host's α = oSend + oRecv moves from the CPUs to both ends' node channels.
    host: linkStep
      ? { oSend: 0, oRecv: 0, gamma: gammaOf(m.host, p.op, p.dtype), copyPerByte: m.host.copyPerByte }
      : { oSend: m.host.oSend, oRecv: m.host.oRecv, gamma: gammaOf(m.host, p.op, p.dtype), copyPerByte: m.host.copyPerByte },
    nic: nic
      ? { oSend: nic.oSend, oRecv: nic.oRecv, gamma: gammaOf(nic, p.op, p.dtype), copyPerByte: nic.copyPerByte }
      : { oSend: 0, oRecv: 0, gamma: 0, copyPerByte: 0 },
    callOverhead: m.host.callOverhead ?? 0,
    nicStartup: nic?.startup ?? 0,
    nicCompletion: nic?.completion ?? 0,
    busCrossing: nic?.busCrossing ?? 0,
    nicPacketRecv: nic?.packetRecv ?? 0,
    nicPacketBytes: nic?.packetBytes,
    mode: o.mode ?? 'host',
    elementSize: p.elementSize,
    source,
    network: p.network,
    nodeChannelF: m.network.nodeChannelShared ? resolveF(m.network.nodeChannelF ?? 'nominal').f : undefined,
    nodeChannelAlpha: linkStep ? m.host.oSend + m.host.oRecv : 0,
    wormhole:
      p.flowControl === 'wormhole' && m.network.wormhole
        ? { ...m.network.wormhole, packetBytes: m.network.packetBytes ?? 320, packetOverhead: m.network.packetOverhead ?? 0 }
        : undefined,
    routeNetwork: p.routeNetwork,
    noise: o.noise && o.noise.components.length > 0 ? new NoiseModel(o.noise, P, seed) : undefined,
    noiseScope: o.noise?.absorbedByIdleCores ? 'full-nodes' : 'all',
    nicWindowExposed: o.noise?.nicWindowExposed ?? false,
    coresPerNode: m.coresPerNode,
    skew: drawSkew(o.skew, P, seed),
    traffic: tr
      ? {
          pattern: tr.pattern,
          bytes: tr.bytes ?? m.network.packetBytes ?? 320,
          overhead: m.network.packetOverhead ?? 0,
          window: tr.window ?? 2,
          warmup: tr.warmup ?? 100e-6,
          nicPerPacket: tr.nicPerPacket ?? 0,
        }
      : undefined,
    seed,
    stepsHint: p.stepsTotal,
    phased: o.execution === 'phased',
    timeline: o.timeline && run === 0,
    timelineLimit: o.timelineLimit,
    plugin: p.hw ? makeHardwarePlugin(o.collective, o.algorithm, m, p.placement, p.count * p.elementSize, o.root ?? 0, p.network!) : undefined,
    onProgress: o.onProgress ? (events, simTime) => o.onProgress!({ run, runs: o.runs ?? 1, events, simTime }) : undefined,
  };
}

function pathRecord(a: Float64Array): PathBreakdown {
  const out: Partial<Record<PathPart, number>> = {};
  PATH_PARTS.forEach((k, i) => (out[k] = a[i]));
  return out as PathBreakdown;
}

function summarizeRun(r: EngineResult): RunSummary {
  let mn = Infinity;
  let mx = -Infinity;
  let sum = 0;
  const n = r.end.length;
  for (let i = 0; i < n; i++) {
    const d = r.end[i] - r.start[i];
    if (d < mn) mn = d;
    if (d > mx) mx = d;
    sum += d;
  }
  return {
    time: r.time,
    rankTime: { min: mn, avg: sum / n, max: mx },
    criticalPath: { rank: r.lastRank, parts: pathRecord(r.path) },
    events: r.events,
    messages: r.messages,
    steps: r.steps,
    busy: r.busy,
  };
}

/** Simulate `o.runs` runs (seeds derived from `o.seed`) and report. */
export function simulate(o: SimOptions): SimReport {
  const p = prepare(o);
  const runs = o.runs ?? 1;
  const seed = o.seed ?? 1;
  const times = new Float64Array(runs);
  const meanPath = new Float64Array(PATH);
  let first: RunSummary | undefined;
  let timeline: readonly TimelineRecord[] | undefined;
  let timelineDropped = 0;
  let events = 0;
  const t0 = performance.now();
  for (let run = 0; run < runs; run++) {
    const e = new Engine(engineConfig(p, run, run === 0 ? seed : mixSeed(seed, run)));
    const r = e.run();
    o.onProgress?.({ run: run + 1, runs, events: r.events, simTime: r.time });
    times[run] = r.time;
    for (let i = 0; i < PATH; i++) meanPath[i] += r.path[i] / runs;
    events += r.events;
    if (run === 0) {
      first = summarizeRun(r);
      timeline = r.timeline;
      timelineDropped = r.timelineDropped ?? 0;
    }
  }
  const wall = (performance.now() - t0) / 1000;
  const m = o.machine;
  let closedForm: SimReport['closedForm'];
  if (p.spec) {
    const est = p.spec.cost.estimate({
      P: p.placement.P,
      n: p.count * p.elementSize,
      alpha: m.classes.network.alpha + 2 * m.network.hopLatency + m.host.oSend + m.host.oRecv,
      beta: m.classes.network.beta,
      gamma: gammaOf(m.host, p.op, p.dtype) / p.elementSize,
      params: p.base!.params,
      elementSize: p.elementSize,
    });
    if (Number.isFinite(est)) closedForm = { formula: p.spec.cost.formula, estimate: est };
  }
  return {
    collective: o.collective,
    algorithm: o.algorithm,
    machine: m.name,
    procs: p.placement.P,
    ppn: p.placement.ppn,
    nodes: p.placement.nodes,
    bytes: p.count * p.elementSize,
    count: p.count,
    datatype: p.dtype,
    op: p.op,
    mode: o.mode ?? 'host',
    execution: o.execution ?? 'dag',
    contention: o.contention ?? true,
    flowControl: p.flowControl,
    seed,
    runs,
    ...(closedForm ? { closedForm } : {}),
    first: first!,
    distribution: summarize(times),
    ...(o.keepSamples ? { samples: times } : {}),
    meanPath: pathRecord(meanPath),
    wallSeconds: wall,
    totalEvents: events,
    eventsPerSecond: wall > 0 ? events / wall : 0,
    estimatedMemory: p.memory,
    ...(timeline ? { timeline, timelineDropped } : {}),
    perturbations: { ...(o.noise ? { noise: o.noise } : {}), ...(o.skew ? { skew: o.skew } : {}), ...(o.traffic ? { traffic: o.traffic } : {}) },
  };
}
