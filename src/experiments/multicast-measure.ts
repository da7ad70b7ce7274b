/**
 * The multicast broadcast measured (seed 003 ch. 5, issue 18), the driver behind
 * `coll experiment multicast`: real jobs on this machine, one rank per node process,
 * the rank program multicast-program.ts, the node processes' multicast agents
 * (transport/mcast) configured through COLL_MCAST and COLL_MCAST_FAULTS. Parts:
 *
 * - nodes (claim 1): an 8-byte bcast, `multicast` against `binomial` (the tree over
 *   TCP), at 2, 4, 8, 16 node processes; both algorithms in the same job (their order
 *   alternates per repetition); the back-to-back time per call (the seed's method:
 *   warm-up, then samples of back-to-back broadcasts each after a barrier) and the
 *   latency of single calls with a barrier between them;
 * - channels (claim 2): split-phase off (`sets=1`, the sender blocks on a sync whenever
 *   its C channels are used up), C = 1 … 32, an 8-byte bcast on 8 nodes; the fit
 *   L ≈ L0 + S/C (fitChannels) and the syncs per broadcast from the job report;
 * - sets (claim 3): `sets=1` against `sets=4` for set sizes S = channels/sets, on 4
 *   nodes: the sender's stalls and stall time, the mean and largest set sync time
 *   (syncMs / setsSynced, syncMsMax) against the time to use up a set (S × the time
 *   per broadcast); back-to-back, and paced (the root sleeps 500 µs before each call,
 *   a rate the receivers can follow); `idle=200000` so that sets end only when used up;
 * - reliability (claim 4): `reliable=1` against `reliable=0`, 8 B … 1 MiB on 2 nodes,
 *   and what CRC-32 and the HMAC cost per message in this process (checksumCosts);
 * - faults (claim 5): COLL_MCAST_FAULTS runs (corrupt only; a loss/dup/reorder/corrupt
 *   mix; one node's reception blocked, `loss=1,node=K`) on 4 nodes, every byte of every
 *   call checked, with the job report's NACKs, resyncs, rebroadcasts and fail-overs;
 * - bandwidth: 64 KiB … 16 MiB, multicast against binomial, 2 and 4 nodes, MB/s.
 *
 * Jobs of one repetition run part by part, the variants of a part in an order rotated
 * per repetition (like connections-measure.ts), so that drift of the machine spreads
 * over them; figures are medians over the repetitions with their min–max. On a shared
 * 2-core machine every node process competes for the CPUs: the tables carry the spread
 * and the load, and the timing claims are read as shapes, not absolutes.
 */
import { createHmac } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { CollectivesError } from '../core/errors.js';
import { median } from '../core/stats.js';
import { formatTable } from '../core/table.js';
import { lineChartSvg, type Series } from '../plot/svg.js';
import type { JobReport } from '../runtime/job-report.js';
import { launch } from '../runtime/launcher.js';
import { DEFAULT_MCAST_OPTIONS } from '../transport/mcast/options.js';
import { checksumOf, datagramBytes } from '../transport/mcast/wire.js';
import { rotation } from './connections-measure.js';
import { waitForIdle } from './job.js';
import type { McastAlgorithm, McastCase, McastCaseRecord, McastProgramConfig } from './multicast-program.js';
import { round } from './stats.js';

export const PARTS = ['nodes', 'channels', 'sets', 'reliability', 'faults', 'bandwidth'] as const;
export type McastPart = (typeof PARTS)[number];

/** Iteration counts of one case of ≤ 16 KiB (larger messages get fewer: caseTiming). */
export interface Timing {
  readonly warmup: number;
  readonly samples: number;
  /** Back-to-back calls per sample. */
  readonly calls: number;
  /** Calls timed one by one, each after a barrier. */
  readonly single: number;
}

/** A fault run: COLL_MCAST_FAULTS without its seed (`node=K` is the last node when `blocked`). */
export interface FaultSpec {
  readonly name: string;
  readonly faults: string;
  /** One node's reception blocked (loss=1 on the last node): a fail-over is expected. */
  readonly blocked?: boolean;
}

export interface McastPlan {
  readonly parts: readonly McastPart[];
  readonly reps: number;
  readonly timing: Timing;
  readonly nodes: readonly number[];
  readonly channels: readonly number[];
  readonly channelNodes: number;
  readonly setSizes: readonly number[];
  readonly setCounts: readonly number[];
  /** Sleep of the root before each call, µs (0: back-to-back). */
  readonly setGapsUs: readonly number[];
  readonly setNodes: number;
  readonly sizes: readonly number[];
  readonly reliabilityNodes: number;
  readonly faults: readonly FaultSpec[];
  readonly faultNodes: number;
  /** 8-byte and 64 KiB calls of each fault run. */
  readonly faultCalls: readonly [number, number];
  readonly bandwidthSizes: readonly number[];
  readonly bandwidthNodes: readonly number[];
}

export const DEFAULT_FAULTS: readonly FaultSpec[] = [
  { name: 'corrupt', faults: 'corrupt=0.05' },
  { name: 'mix', faults: 'loss=0.2,dup=0.1,reorder=0.2,corrupt=0.1' },
  { name: 'blocked', faults: 'loss=1', blocked: true },
];

const KiB = 1024;
const MiB = 1024 * KiB;

/** The full experiment (about 5–10 minutes on 2 cores with 3 repetitions). */
export const FULL_PLAN: McastPlan = {
  parts: PARTS,
  reps: 3,
  timing: { warmup: 20, samples: 5, calls: 200, single: 50 },
  nodes: [2, 4, 8, 16],
  channels: [1, 2, 4, 8, 16, 32],
  channelNodes: 8,
  setSizes: [1, 2, 4, 8, 16, 32, 64],
  setCounts: [1, 4],
  setGapsUs: [0, 500],
  setNodes: 4,
  sizes: [8, 64, 256, KiB, 4 * KiB, 16 * KiB, 64 * KiB, 256 * KiB, MiB],
  reliabilityNodes: 2,
  faults: DEFAULT_FAULTS,
  faultNodes: 4,
  faultCalls: [200, 20],
  bandwidthSizes: [64 * KiB, 256 * KiB, MiB, 4 * MiB, 16 * MiB],
  bandwidthNodes: [2, 4],
};

/** `--quick`: every part, fewer points and calls, one repetition (about a minute). */
export const QUICK_PLAN: McastPlan = {
  ...FULL_PLAN,
  reps: 1,
  timing: { warmup: 10, samples: 2, calls: 60, single: 15 },
  nodes: [2, 4],
  channels: [1, 4, 16],
  channelNodes: 4,
  setSizes: [2, 64],
  setGapsUs: [500],
  sizes: [8, 4 * KiB, 64 * KiB],
  faultCalls: [60, 6],
  bandwidthSizes: [64 * KiB, MiB],
  bandwidthNodes: [2],
};

/** Node counts allowed for any part. */
export const MAX_NODES = 32;

export interface MeasureRunOptions {
  /** Before each job wait (up to 30 s) until the CPUs are at most this busy (0..1). */
  readonly idleBusy?: number;
  /** Called before each job. */
  readonly onJob?: (done: number, total: number, what: string) => void;
  /** Output lines of the jobs that are not experiment records. */
  readonly onOutput?: (line: string) => void;
}

/** One job: its node count, multicast settings and cases. */
export interface McastJob {
  readonly part: McastPart;
  readonly nodes: number;
  /** COLL_MCAST and COLL_MCAST_FAULTS of the job ('' = no faults). */
  readonly mcast: string;
  readonly faults: string;
  readonly cases: readonly McastCase[];
  readonly label: string;
  readonly channels?: number;
  readonly sets?: number;
  readonly gapUs?: number;
  readonly reliable?: boolean;
  readonly fault?: string;
  readonly blockedNode?: number;
  readonly arenaMb: number;
}

/** A node's multicast counters (from its job report). */
export interface NodeMcast {
  readonly node: number;
  readonly messagesSent: number;
  readonly fragmentsSent: number;
  readonly fragmentsReceived: number;
  readonly setsSynced: number;
  readonly syncMs: number;
  readonly syncMsMax: number;
  readonly stalls: number;
  readonly stallMs: number;
  readonly polls: number;
  readonly closes: number;
  readonly nacksSent: number;
  readonly nacksReceived: number;
  readonly retransmissions: number;
  readonly resyncs: number;
  readonly failovers: number;
  readonly treeFrames: number;
  readonly duplicates: number;
  readonly corrupt: number;
  readonly injectedLoss: number;
  readonly injectedDup: number;
  readonly injectedReorder: number;
  readonly injectedCorrupt: number;
}

export interface McastJobSample {
  readonly part: McastPart;
  readonly nodes: number;
  readonly rep: number;
  readonly mcast: string;
  readonly faults: string;
  readonly channels?: number;
  readonly sets?: number;
  readonly gapUs?: number;
  readonly reliable?: boolean;
  readonly fault?: string;
  readonly blockedNode?: number;
  readonly cases: readonly McastCaseRecord[];
  /** Per node (index = node); empty when no node ran a multicast agent. */
  readonly multicast: readonly NodeMcast[];
  /** 1-minute load average before and after the job. */
  readonly load: readonly [number, number];
  readonly initMs: number;
  readonly wallMs: number;
}

export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

export interface NodesPoint {
  readonly nodes: number;
  readonly algorithm: McastAlgorithm;
  /** Back-to-back time per call (per job: the median sample). */
  readonly b2bUs: Spread;
  /** Single calls after a barrier (per job: the median call). */
  readonly singleUs: Spread;
  readonly runs: number;
}

export interface ChannelsPoint {
  readonly channels: number;
  readonly nodes: number;
  readonly b2bUs: Spread;
  /** The root's set syncs per broadcast, and its mean sync time (ms) and stall time per broadcast (µs); medians over jobs. */
  readonly syncsPerBcast: number;
  readonly syncMeanMs: number;
  readonly stallUsPerBcast: number;
  readonly runs: number;
}

/** L(C) ≈ L0 + S/C, least squares over the channel counts. */
export interface ChannelFit {
  readonly l0: number;
  readonly s: number;
  readonly r2: number;
  readonly points: number;
}

export interface SetsPoint {
  readonly sets: number;
  readonly setSize: number;
  /** The root's sleep before each call, µs (0: back-to-back). */
  readonly gapUs: number;
  readonly nodes: number;
  readonly b2bUs: Spread;
  /** Time to use up a set: setSize × the back-to-back time per broadcast, ms (median over jobs). */
  readonly useMs: number;
  readonly syncMeanMs: number;
  readonly syncMaxMs: number;
  /** Sets synchronised and stalls (medians over jobs), stalls per set, stall time as a share of the timed calls. */
  readonly setsUsed: number;
  readonly stalls: number;
  readonly stallsPerSet: number;
  readonly stallShare: number;
  readonly runs: number;
}

export interface ReliabilityPoint {
  readonly bytes: number;
  readonly fragments: number;
  readonly reliable: { readonly b2bUs: Spread; readonly singleUs: Spread };
  readonly unreliable: { readonly b2bUs: Spread; readonly singleUs: Spread };
  /** Median reliable − median unreliable, µs. */
  readonly costB2bUs: number;
  readonly costSingleUs: number;
  /** In this process: CRC-32 and HMAC-SHA256 of the message's datagrams, sender and one receiver, µs. */
  readonly crcUs: number;
  readonly hmacUs: number;
  readonly runs: number;
}

export interface FaultRun {
  readonly name: string;
  readonly faults: string;
  readonly nodes: number;
  readonly rep: number;
  readonly blockedNode?: number;
  /** Calls checked on the receivers (every byte) and the wrong ones. */
  readonly checked: number;
  readonly errors: number;
  readonly injected: { readonly loss: number; readonly dup: number; readonly reorder: number; readonly corrupt: number };
  /** Corrupt datagrams detected, duplicates dropped, NACKs sent, resyncs and rebroadcast fragments at the root, polls, fail-overs, tree frames. */
  readonly corrupt: number;
  readonly duplicates: number;
  readonly nacks: number;
  readonly resyncs: number;
  readonly retransmissions: number;
  readonly polls: number;
  readonly failovers: number;
  readonly treeFrames: number;
  /** Back-to-back time per call of the 8-byte and the 64 KiB case, µs. */
  readonly smallUs: number;
  readonly largeUs: number;
}

export interface BandwidthPoint {
  readonly nodes: number;
  readonly algorithm: McastAlgorithm;
  readonly bytes: number;
  /** MB/s (10^6 bytes per second) from the back-to-back time per call. */
  readonly mbps: Spread;
  readonly runs: number;
}

export interface ChecksumCost {
  readonly bytes: number;
  readonly fragments: number;
  readonly crcUs: number;
  readonly hmacUs: number;
}

export interface McastMeasureResult {
  readonly plan: McastPlan;
  readonly started: string;
  readonly finished: string;
  readonly machine: string;
  readonly loadBefore: readonly number[];
  readonly loadAfter: readonly number[];
  readonly seconds: number;
  readonly samples: readonly McastJobSample[];
  readonly nodesPoints: readonly NodesPoint[];
  readonly channelsPoints: readonly ChannelsPoint[];
  readonly channelFit?: ChannelFit;
  readonly setsPoints: readonly SetsPoint[];
  readonly reliabilityPoints: readonly ReliabilityPoint[];
  readonly faultRuns: readonly FaultRun[];
  readonly bandwidthPoints: readonly BandwidthPoint[];
}

/** Seed 003 ch. 5's numbers (§5, §4 model 9). */
export const SEED = {
  /** Fig. 5.5, 8 nodes, 8 B: raw hardware broadcast and elan_hbcast (a sync before every broadcast), µs. */
  raw8: 3.6,
  hbcast8: 9.5,
  /** Fig. 5.13, split-phase off, 8 processes on 8 nodes, 8 B: latency at 2 and 16 channels, µs. */
  c2: 17.1,
  c16: 4.3,
  /** Fig. 5.14(a): reliability cost for messages ≤ 256 B, µs. */
  reliabilityUs: 1,
} as const;

// ---- plan and jobs --------------------------------------------------------------

const ALGORITHMS: readonly McastAlgorithm[] = ['multicast', 'binomial'];

/** The sets part's idle close (µs): long enough that a set ends only when used up, as in the seed. */
export const SETS_IDLE_US = 200_000;

/** Iteration counts for a message of `bytes`: as given up to 16 KiB, fewer above (∝ 1/√size). */
export function caseTiming(bytes: number, t: Timing): Timing {
  if (bytes <= 16 * KiB) return t;
  const k = Math.sqrt(bytes / (16 * KiB));
  return {
    warmup: Math.max(1, Math.round(t.warmup / k)),
    samples: Math.min(t.samples, bytes >= 4 * MiB ? 2 : 3),
    calls: Math.max(3, Math.round(t.calls / k)),
    single: t.single > 0 ? Math.max(3, Math.round(t.single / k)) : 0,
  };
}

const sizeLabel = (b: number): string => (b >= MiB ? `${b / MiB} MiB` : b >= KiB ? `${b / KiB} KiB` : `${b} B`);

function bcastCase(name: string, algorithm: McastAlgorithm, bytes: number, t: Timing, o: { single?: boolean; verify?: 'ends' | 'full' } = {}): McastCase {
  const c = caseTiming(bytes, t);
  return { name, algorithm, bytes, warmup: c.warmup, samples: c.samples, calls: c.calls, single: o.single === false ? 0 : c.single, ...(o.verify ? { verify: o.verify } : {}) };
}

/** The jobs of repetition `rep`, in the order they run. */
export function planJobs(p: McastPlan, rep: number): McastJob[] {
  const jobs: McastJob[] = [];
  const want = (x: McastPart): boolean => p.parts.includes(x);
  const t = p.timing;
  if (want('nodes')) {
    for (const n of rotation(p.nodes, rep)) {
      jobs.push({
        part: 'nodes',
        nodes: n,
        mcast: 'on',
        faults: '',
        cases: rotation(ALGORITHMS, rep).map((a) => bcastCase(a, a, 8, t)),
        label: `nodes: ${n} nodes, 8 B, multicast and binomial`,
        arenaMb: 16,
      });
    }
  }
  if (want('channels')) {
    for (const c of rotation(p.channels, rep)) {
      jobs.push({
        part: 'channels',
        nodes: p.channelNodes,
        mcast: `sets=1,channels=${c}`,
        faults: '',
        cases: [bcastCase('multicast', 'multicast', 8, t, { single: false })],
        label: `channels: ${p.channelNodes} nodes, sets=1, channels=${c}`,
        channels: c,
        sets: 1,
        arenaMb: 16,
      });
    }
  }
  if (want('sets')) {
    const variants = p.setGapsUs.flatMap((g) => p.setSizes.flatMap((s) => p.setCounts.map((k) => [g, s, k] as const)));
    for (const [g, s, k] of rotation(variants, rep)) {
      // Enough calls per sample to use up several sets of the largest size; sets end only when used up.
      const timing = { ...t, samples: Math.min(t.samples, 3), calls: Math.max(t.calls, 8 * s) };
      jobs.push({
        part: 'sets',
        nodes: p.setNodes,
        mcast: `sets=${k},channels=${k * s},idle=${SETS_IDLE_US}`,
        faults: '',
        cases: [{ ...bcastCase('multicast', 'multicast', 8, timing, { single: false }), ...(g > 0 ? { gapUs: g } : {}) }],
        label: `sets: ${p.setNodes} nodes, sets=${k}, set size ${s}, ${g > 0 ? `${g} µs between calls` : 'back-to-back'}`,
        channels: k * s,
        sets: k,
        gapUs: g,
        arenaMb: 16,
      });
    }
  }
  if (want('reliability')) {
    for (const reliable of rotation([true, false], rep)) {
      jobs.push({
        part: 'reliability',
        nodes: p.reliabilityNodes,
        mcast: `reliable=${reliable ? 1 : 0}`,
        faults: '',
        cases: p.sizes.map((b) => bcastCase(sizeLabel(b), 'multicast', b, t)),
        label: `reliability: ${p.reliabilityNodes} nodes, reliable=${reliable ? 1 : 0}, ${p.sizes.length} sizes`,
        reliable,
        arenaMb: 32,
      });
    }
  }
  if (want('faults')) {
    const last = p.faultNodes - 1;
    for (const f of p.faults) {
      const faults = `${f.faults}${f.blocked ? `,node=${last}` : ''},seed=${7 + rep}`;
      const [small, large] = p.faultCalls;
      jobs.push({
        part: 'faults',
        nodes: p.faultNodes,
        mcast: 'on',
        faults,
        cases: [
          { name: '8 B', algorithm: 'multicast', bytes: 8, warmup: 0, samples: 1, calls: small, single: 0, verify: 'full' },
          { name: '64 KiB', algorithm: 'multicast', bytes: 64 * KiB, warmup: 0, samples: 1, calls: large, single: 0, verify: 'full' },
        ],
        label: `faults: ${p.faultNodes} nodes, ${f.name} (${faults})`,
        fault: f.name,
        ...(f.blocked ? { blockedNode: last } : {}),
        arenaMb: 16,
      });
    }
  }
  if (want('bandwidth')) {
    for (const n of rotation(p.bandwidthNodes, rep)) {
      jobs.push({
        part: 'bandwidth',
        nodes: n,
        mcast: 'on',
        faults: '',
        cases: rotation(ALGORITHMS, rep).flatMap((a) => p.bandwidthSizes.map((b) => bcastCase(a, a, b, { ...t, single: 0 }, { single: false }))),
        label: `bandwidth: ${n} nodes, ${sizeLabel(p.bandwidthSizes[0])} – ${sizeLabel(p.bandwidthSizes[p.bandwidthSizes.length - 1])}, multicast and binomial`,
        arenaMb: 64,
      });
    }
  }
  return jobs;
}

const CASE = /^\[0\] EXP CASE (\{.*\})$/;

/** A CASE record of rank 0 in a job's output line, or undefined. */
export function parseCase(line: string): McastCaseRecord | undefined {
  const m = CASE.exec(line);
  if (!m) return undefined;
  const r = JSON.parse(m[1]) as Partial<McastCaseRecord> | null;
  const nums = (x: unknown): boolean => Array.isArray(x) && x.every((v) => typeof v === 'number');
  if (!r || typeof r.name !== 'string' || !nums(r.sampleUs) || !nums(r.singleUs) || typeof r.errors !== 'number' || typeof r.checked !== 'number') {
    throw new CollectivesError('RANK_FAILED', `malformed CASE record: ${m[1]}`);
  }
  return r as McastCaseRecord;
}

/** The counters of every node that ran a multicast agent. */
export function nodeCounters(report: Pick<JobReport, 'nodes'>): NodeMcast[] {
  return report.nodes.flatMap((n) => {
    const m = n.multicast;
    if (!m) return [];
    return [
      {
        node: n.node,
        messagesSent: m.messagesSent,
        fragmentsSent: m.fragmentsSent,
        fragmentsReceived: m.fragmentsReceived,
        setsSynced: m.setsSynced,
        syncMs: round(m.syncMs, 3),
        syncMsMax: round(m.syncMsMax, 3),
        stalls: m.stalls,
        stallMs: round(m.stallMs, 3),
        polls: m.polls,
        closes: m.closes,
        nacksSent: m.nacksSent,
        nacksReceived: m.nacksReceived,
        retransmissions: m.retransmissions,
        resyncs: m.resyncs,
        failovers: m.failovers,
        treeFrames: m.treeFrames,
        duplicates: m.duplicates,
        corrupt: m.corrupt,
        injectedLoss: m.injectedLoss,
        injectedDup: m.injectedDup,
        injectedReorder: m.injectedReorder,
        injectedCorrupt: m.injectedCorrupt,
      },
    ];
  });
}

async function runJob(job: McastJob, rep: number, program: string, o: MeasureRunOptions): Promise<McastJobSample> {
  if (o.idleBusy !== undefined) await waitForIdle(o.idleBusy, 30_000);
  const before = loadavg()[0];
  const cases: McastCaseRecord[] = [];
  const config: McastProgramConfig = { cases: job.cases };
  const r = await launch({
    ranks: job.nodes,
    nodes: job.nodes,
    program,
    args: [JSON.stringify(config)],
    arenaMb: job.arenaMb,
    engine: false,
    jobTimeoutMs: 300_000,
    env: { COLL_MCAST: job.mcast, COLL_MCAST_FAULTS: job.faults },
    onLine: (_stream, line) => {
      const c = parseCase(line);
      if (c) cases.push(c);
      else o.onOutput?.(line);
    },
  });
  if (r.exitCode !== 0) throw new CollectivesError('RANK_FAILED', `multicast job (${job.label}) failed: ${r.failure ? `rank ${r.failure.rank}: ${r.failure.reason}` : `exit code ${r.exitCode}`}`);
  const multicast = nodeCounters(r.report);
  if (job.cases.some((c) => c.algorithm === 'multicast') && !multicast.some((m) => m.node === 0)) {
    const why = r.report.nodes.find((n) => n.node === 0)?.multicastUnavailable ?? 'no multicast agent in the job report';
    throw new CollectivesError('TRANSPORT', `multicast job (${job.label}): the root's node ran without multicast (${why}); the multicast algorithm fell back to point-to-point sends`, 'check that the loopback interface takes IPv4 multicast (COLL_MCAST_IFACE)');
  }
  if (cases.length !== job.cases.length) throw new CollectivesError('RANK_FAILED', `multicast job (${job.label}): ${cases.length} of ${job.cases.length} CASE records`);
  return {
    part: job.part,
    nodes: job.nodes,
    rep,
    mcast: job.mcast,
    faults: job.faults,
    ...(job.channels !== undefined ? { channels: job.channels } : {}),
    ...(job.sets !== undefined ? { sets: job.sets } : {}),
    ...(job.gapUs !== undefined ? { gapUs: job.gapUs } : {}),
    ...(job.reliable !== undefined ? { reliable: job.reliable } : {}),
    ...(job.fault !== undefined ? { fault: job.fault } : {}),
    ...(job.blockedNode !== undefined ? { blockedNode: job.blockedNode } : {}),
    cases,
    multicast,
    load: [round(before, 2), round(loadavg()[0], 2)],
    initMs: r.report.initMs,
    wallMs: r.report.wallMs,
  };
}

/** Run the plan's jobs (see the header) and summarise them. */
export async function runMulticastMeasure(plan: McastPlan = FULL_PLAN, o: MeasureRunOptions = {}): Promise<McastMeasureResult> {
  checkPlan(plan);
  const t0 = performance.now();
  const started = new Date().toISOString();
  const loadBefore = loadavg().map((x) => round(x, 2));
  const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  const program = fileURLToPath(new URL(`./multicast-program.${ext}`, import.meta.url));
  const perRep = Array.from({ length: plan.reps }, (_, rep) => planJobs(plan, rep));
  const total = perRep.reduce((s, j) => s + j.length, 0);
  const samples: McastJobSample[] = [];
  let done = 0;
  for (let rep = 0; rep < plan.reps; rep++) {
    for (const job of perRep[rep]) {
      o.onJob?.(done, total, `${job.label} (rep ${rep + 1}/${plan.reps})`);
      samples.push(await runJob(job, rep, program, o));
      done++;
    }
  }
  o.onJob?.(total, total, 'done');
  return summarize(plan, samples, { started, finished: new Date().toISOString(), loadBefore, loadAfter: loadavg().map((x) => round(x, 2)), seconds: round((performance.now() - t0) / 1000, 1) });
}

export function checkPlan(p: McastPlan): void {
  const bad = (what: string): never => {
    throw new CollectivesError('ARGUMENT', `multicast experiment: ${what}`);
  };
  if (!(Number.isInteger(p.reps) && p.reps >= 1)) bad(`reps ${p.reps} must be a positive integer`);
  const counts = [...p.nodes, p.channelNodes, p.setNodes, p.reliabilityNodes, p.faultNodes, ...p.bandwidthNodes];
  if (counts.some((n) => !Number.isInteger(n) || n < 2 || n > MAX_NODES)) bad(`node counts must be integers in [2, ${MAX_NODES}]`);
  if (p.channels.some((c) => !Number.isInteger(c) || c < 1)) bad('channel counts must be positive integers');
  if (p.setSizes.some((s) => !Number.isInteger(s) || s < 1) || p.setCounts.some((k) => !Number.isInteger(k) || k < 1)) bad('set sizes and set counts must be positive integers');
  if (p.setGapsUs.some((g) => !(g >= 0 && g <= 1e6))) bad('gaps between calls must be in [0, 1 s]');
  if ([...p.sizes, ...p.bandwidthSizes].some((b) => !Number.isInteger(b) || b < 1 || b > 256 * MiB)) bad('message sizes must be integers in [1, 256 MiB]');
  if (p.faultNodes < 3 && p.faults.some((f) => f.blocked)) bad('a blocked-node fault run needs at least 3 nodes (the blocked node is not the root, and others must still hear the multicast)');
}

// ---- summaries ---------------------------------------------------------------------

const finite = (xs: readonly number[]): number[] => xs.filter((x) => Number.isFinite(x));

export function spreadOf(xs: readonly number[]): Spread {
  const v = finite(xs);
  if (v.length === 0) return { median: NaN, min: NaN, max: NaN };
  return { median: round(median(v), 2), min: round(Math.min(...v), 2), max: round(Math.max(...v), 2) };
}

/** Per job: the median sample (back-to-back µs per call) and the median single call of a case. */
export const caseB2b = (c: McastCaseRecord | undefined): number => (c && c.sampleUs.length > 0 ? median(c.sampleUs) : NaN);
export const caseSingle = (c: McastCaseRecord | undefined): number => (c && c.singleUs.length > 0 ? median(c.singleUs) : NaN);

const rootOf = (s: McastJobSample): NodeMcast | undefined => s.multicast.find((m) => m.node === 0);
const sum = (ms: readonly NodeMcast[], f: (m: NodeMcast) => number): number => ms.reduce((a, m) => a + f(m), 0);

/** Least squares L = l0 + s/C over the (C, L) points. */
export function fitChannels(points: readonly { readonly channels: number; readonly us: number }[]): ChannelFit | undefined {
  const p = points.filter((x) => Number.isFinite(x.us) && x.channels > 0);
  if (p.length < 2) return undefined;
  const xs = p.map((x) => 1 / x.channels);
  const ys = p.map((x) => x.us);
  const n = p.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < n; i++) {
    sxx += (xs[i] - mx) ** 2;
    sxy += (xs[i] - mx) * (ys[i] - my);
  }
  if (sxx === 0) return undefined;
  const s = sxy / sxx;
  const l0 = my - s * mx;
  const ssTot = ys.reduce((a, y) => a + (y - my) ** 2, 0);
  const ssRes = ys.reduce((a, y, i) => a + (y - (l0 + s * xs[i])) ** 2, 0);
  return { l0, s, r2: ssTot > 0 ? 1 - ssRes / ssTot : 1, points: n };
}

/** The seed's L0 and S from its two published points (17.1 µs at 2 channels, 4.3 at 16). */
export const SEED_FIT = fitChannels([
  { channels: 2, us: SEED.c2 },
  { channels: 16, us: SEED.c16 },
]) as ChannelFit;

/** CRC-32 and HMAC-SHA256 of a message's datagrams in this process, sender and one receiver (µs). */
export function checksumCosts(sizes: readonly number[], fragmentBytes = DEFAULT_MCAST_OPTIONS.fragmentBytes, dsts = 1): ChecksumCost[] {
  const key = Buffer.alloc(32, 7);
  // Warm-up, then the median of 9 rounds of at least 0.5 ms (a round that meets a GC pause or a
  // busy CPU is an outlier, not the cost).
  const per = (bytes: number, f: (b: Buffer) => void): number => {
    const b = Buffer.alloc(datagramBytes(dsts, bytes), 0x5a);
    for (let i = 0; i < 64; i++) f(b);
    const rounds: number[] = [];
    for (let r = 0; r < 9; r++) {
      let n = 0;
      const t0 = performance.now();
      let t = t0;
      while (t - t0 < 0.5 || n < 16) {
        for (let i = 0; i < 8; i++) f(b);
        n += 8;
        t = performance.now();
      }
      rounds.push(((t - t0) * 1000) / n);
    }
    return median(rounds);
  };
  const crc = (b: Buffer): void => void checksumOf(b);
  const mac = (b: Buffer): void => void createHmac('sha256', key).update(b).digest();
  const cache = new Map<number, [number, number]>();
  const cost = (bytes: number): [number, number] => {
    let c = cache.get(bytes);
    if (!c) cache.set(bytes, (c = [per(bytes, crc), per(bytes, mac)]));
    return c;
  };
  return sizes.map((bytes) => {
    const full = Math.floor(bytes / fragmentBytes);
    const rest = bytes - full * fragmentBytes;
    const pieces = [...(full > 0 ? [[fragmentBytes, full]] : []), ...(rest > 0 || full === 0 ? [[rest, 1]] : [])] as [number, number][];
    const [c, h] = pieces.reduce(([a, b], [sz, k]) => [a + k * cost(sz)[0], b + k * cost(sz)[1]], [0, 0]);
    return { bytes, fragments: Math.max(1, Math.ceil(bytes / fragmentBytes)), crcUs: round(2 * c, 2), hmacUs: round(2 * h, 2) };
  });
}

/** Aggregate the jobs' samples into each part's points. */
export function summarize(
  plan: McastPlan,
  samples: readonly McastJobSample[],
  run: { started: string; finished: string; loadBefore: readonly number[]; loadAfter: readonly number[]; seconds: number; costs?: readonly ChecksumCost[]; machine?: string },
): McastMeasureResult {
  const of = (part: McastPart): McastJobSample[] => samples.filter((s) => s.part === part);
  const caseOf = (s: McastJobSample, name: string): McastCaseRecord | undefined => s.cases.find((c) => c.name === name);

  const nodesPoints: NodesPoint[] = [];
  for (const n of [...new Set(of('nodes').map((s) => s.nodes))].sort((a, b) => a - b)) {
    const ss = of('nodes').filter((s) => s.nodes === n);
    for (const a of ALGORITHMS) {
      const cs = ss.map((s) => caseOf(s, a)).filter((c) => c !== undefined);
      if (cs.length === 0) continue;
      nodesPoints.push({ nodes: n, algorithm: a, b2bUs: spreadOf(cs.map(caseB2b)), singleUs: spreadOf(cs.map(caseSingle)), runs: cs.length });
    }
  }

  const channelsPoints: ChannelsPoint[] = [];
  for (const c of [...new Set(of('channels').map((s) => s.channels ?? 0))].sort((a, b) => a - b)) {
    const ss = of('channels').filter((s) => s.channels === c);
    const roots = ss.map(rootOf).filter((m) => m !== undefined);
    channelsPoints.push({
      channels: c,
      nodes: ss[0].nodes,
      b2bUs: spreadOf(ss.map((s) => caseB2b(s.cases[0]))),
      syncsPerBcast: round(median(roots.map((m) => m.setsSynced / Math.max(1, m.messagesSent))), 4),
      syncMeanMs: round(median(roots.map((m) => m.syncMs / Math.max(1, m.setsSynced))), 3),
      stallUsPerBcast: round(median(roots.map((m) => (m.stallMs * 1000) / Math.max(1, m.messagesSent))), 1),
      runs: ss.length,
    });
  }
  const channelFit = fitChannels(channelsPoints.map((p) => ({ channels: p.channels, us: p.b2bUs.median })));

  const setsPoints: SetsPoint[] = [];
  const setKeys = [...new Set(of('sets').map((s) => `${s.gapUs ?? 0}/${s.sets}/${(s.channels ?? 0) / (s.sets ?? 1)}`))];
  for (const key of setKeys) {
    const [gap, k, size] = key.split('/').map(Number);
    const ss = of('sets').filter((s) => (s.gapUs ?? 0) === gap && s.sets === k && (s.channels ?? 0) / k === size);
    const per = ss.map((s) => setFigures(s)).filter((x) => x !== undefined);
    if (per.length === 0) continue;
    const b2b = spreadOf(per.map((x) => x.b2bUs));
    setsPoints.push({
      sets: k,
      setSize: size,
      gapUs: gap,
      nodes: ss[0].nodes,
      b2bUs: b2b,
      useMs: round(median(per.map((x) => x.useMs)), 3),
      syncMeanMs: round(median(per.map((x) => x.syncMeanMs)), 3),
      syncMaxMs: round(median(per.map((x) => x.syncMaxMs)), 3),
      setsUsed: median(per.map((x) => x.setsUsed)),
      stalls: median(per.map((x) => x.stalls)),
      stallsPerSet: round(median(per.map((x) => x.stallsPerSet)), 3),
      stallShare: round(median(per.map((x) => x.stallShare)), 3),
      runs: per.length,
    });
  }
  setsPoints.sort((a, b) => a.gapUs - b.gapUs || a.sets - b.sets || a.setSize - b.setSize);

  const rel = of('reliability');
  const sizes = [...new Set(rel.flatMap((s) => s.cases.map((c) => c.bytes)))].sort((a, b) => a - b);
  const costs = run.costs ?? (sizes.length > 0 ? checksumCosts(sizes, fragmentOf(rel[0]?.mcast)) : []);
  const reliabilityPoints: ReliabilityPoint[] = [];
  for (const bytes of sizes) {
    const pick = (reliable: boolean): McastCaseRecord[] => rel.filter((s) => s.reliable === reliable).flatMap((s) => s.cases.filter((c) => c.bytes === bytes));
    const [on, off] = [pick(true), pick(false)];
    if (on.length === 0 || off.length === 0) continue;
    const side = (cs: McastCaseRecord[]) => ({ b2bUs: spreadOf(cs.map(caseB2b)), singleUs: spreadOf(cs.map(caseSingle)) });
    const [a, b] = [side(on), side(off)];
    const c = costs.find((x) => x.bytes === bytes);
    reliabilityPoints.push({
      bytes,
      fragments: c?.fragments ?? Math.max(1, Math.ceil(bytes / DEFAULT_MCAST_OPTIONS.fragmentBytes)),
      reliable: a,
      unreliable: b,
      costB2bUs: round(a.b2bUs.median - b.b2bUs.median, 2),
      costSingleUs: round(a.singleUs.median - b.singleUs.median, 2),
      crcUs: c?.crcUs ?? NaN,
      hmacUs: c?.hmacUs ?? NaN,
      runs: Math.min(on.length, off.length),
    });
  }

  const faultRuns: FaultRun[] = of('faults').map((s) => faultRun(s));

  const bandwidthPoints: BandwidthPoint[] = [];
  for (const n of [...new Set(of('bandwidth').map((s) => s.nodes))].sort((a, b) => a - b)) {
    const ss = of('bandwidth').filter((s) => s.nodes === n);
    for (const a of ALGORITHMS) {
      const cs = ss.flatMap((s) => s.cases.filter((c) => c.algorithm === a));
      for (const bytes of [...new Set(cs.map((c) => c.bytes))].sort((x, y) => x - y)) {
        const at = cs.filter((c) => c.bytes === bytes);
        bandwidthPoints.push({ nodes: n, algorithm: a, bytes, mbps: spreadOf(at.map((c) => bytes / caseB2b(c))), runs: at.length });
      }
    }
  }

  return {
    plan,
    started: run.started,
    finished: run.finished,
    machine: run.machine ?? `${cpus().length} CPU${cpus().length === 1 ? '' : 's'} (${cpus()[0]?.model.trim() ?? 'unknown'})`,
    loadBefore: run.loadBefore,
    loadAfter: run.loadAfter,
    seconds: run.seconds,
    samples,
    nodesPoints,
    channelsPoints,
    ...(channelFit ? { channelFit } : {}),
    setsPoints,
    reliabilityPoints,
    faultRuns,
    bandwidthPoints,
  };
}

function fragmentOf(mcast: string | undefined): number {
  const m = /fragment=(\d+)/.exec(mcast ?? '');
  return m ? Number(m[1]) : DEFAULT_MCAST_OPTIONS.fragmentBytes;
}

/** One sets job's figures: the root's syncs and stalls against the time to use up a set. */
export function setFigures(s: McastJobSample):
  | { b2bUs: number; useMs: number; syncMeanMs: number; syncMaxMs: number; setsUsed: number; stalls: number; stallsPerSet: number; stallShare: number }
  | undefined {
  const root = rootOf(s);
  const c = s.cases[0];
  if (!root || !c || s.sets === undefined || s.channels === undefined) return undefined;
  const size = s.channels / s.sets;
  const b2bUs = caseB2b(c);
  const timedMs = (c.sampleUs.reduce((a, b) => a + b, 0) * c.calls) / 1000;
  return {
    b2bUs,
    useMs: (size * b2bUs) / 1000,
    syncMeanMs: root.syncMs / Math.max(1, root.setsSynced),
    syncMaxMs: root.syncMsMax,
    setsUsed: root.setsSynced,
    stalls: root.stalls,
    stallsPerSet: root.stalls / Math.max(1, root.setsSynced),
    stallShare: timedMs > 0 ? Math.min(1, root.stallMs / timedMs) : NaN,
  };
}

export function faultRun(s: McastJobSample): FaultRun {
  const ms = s.multicast;
  const root = rootOf(s);
  const small = s.cases.find((c) => c.bytes === 8);
  const large = s.cases.find((c) => c.bytes !== 8);
  return {
    name: s.fault ?? '?',
    faults: s.faults,
    nodes: s.nodes,
    rep: s.rep,
    ...(s.blockedNode !== undefined ? { blockedNode: s.blockedNode } : {}),
    checked: s.cases.reduce((a, c) => a + c.checked, 0),
    errors: s.cases.reduce((a, c) => a + c.errors, 0),
    injected: { loss: sum(ms, (m) => m.injectedLoss), dup: sum(ms, (m) => m.injectedDup), reorder: sum(ms, (m) => m.injectedReorder), corrupt: sum(ms, (m) => m.injectedCorrupt) },
    corrupt: sum(ms, (m) => m.corrupt),
    duplicates: sum(ms, (m) => m.duplicates),
    nacks: sum(ms, (m) => m.nacksSent),
    resyncs: root?.resyncs ?? 0,
    retransmissions: root?.retransmissions ?? 0,
    polls: root?.polls ?? 0,
    failovers: sum(ms, (m) => m.failovers),
    treeFrames: sum(ms, (m) => m.treeFrames),
    smallUs: round(caseB2b(small), 1),
    largeUs: round(caseB2b(large), 1),
  };
}

// ---- output ------------------------------------------------------------------------

/** A table with its title and notes, printed as text or as markdown. */
export interface Table {
  readonly id: McastPart;
  readonly title: string;
  readonly head: readonly string[];
  readonly rows: readonly (readonly string[])[];
  readonly notes: readonly string[];
  /** Left-aligned leading columns (the others right-aligned). */
  readonly left?: number;
}

const f1 = (x: number): string => (Number.isFinite(x) ? x.toFixed(1) : '—');
const f2 = (x: number): string => (Number.isFinite(x) ? x.toFixed(2) : '—');
const f0 = (x: number): string => (Number.isFinite(x) ? x.toFixed(0) : '—');
const us = (x: number): string => (!Number.isFinite(x) ? '—' : x >= 100 ? x.toFixed(0) : x.toFixed(1));
const rangeUs = (s: Spread): string => (Number.isFinite(s.median) ? `${us(s.median)} (${us(s.min)}–${us(s.max)})` : '—');
const ratio = (a: number, b: number): string => (Number.isFinite(a / b) ? `${(a / b).toFixed(2)}×` : '—');

export function nodesTable(r: McastMeasureResult): Table | undefined {
  const pts = r.nodesPoints;
  if (pts.length === 0) return undefined;
  const ns = [...new Set(pts.map((p) => p.nodes))];
  const at = (n: number, a: McastAlgorithm): NodesPoint | undefined => pts.find((p) => p.nodes === n && p.algorithm === a);
  const rows = ns.map((n) => {
    const [m, b] = [at(n, 'multicast'), at(n, 'binomial')];
    return [
      String(n),
      m ? rangeUs(m.b2bUs) : '—',
      b ? rangeUs(b.b2bUs) : '—',
      m && b ? ratio(m.b2bUs.median, b.b2bUs.median) : '—',
      m ? rangeUs(m.singleUs) : '—',
      b ? rangeUs(b.singleUs) : '—',
      m && b ? ratio(m.singleUs.median, b.singleUs.median) : '—',
    ];
  });
  const t = r.plan.timing;
  const growth = (a: McastAlgorithm, f: (p: NodesPoint) => number): string => {
    const first = at(ns[0], a);
    const last = at(ns[ns.length - 1], a);
    return first && last ? `×${(f(last) / f(first)).toFixed(2)}` : '—';
  };
  const lo = ns[0];
  const hi = ns[ns.length - 1];
  return {
    id: 'nodes',
    title: `Claim 1 — 8-byte bcast against node processes (1 rank each): µs per call, median (min–max) of ${pts[0].runs} job(s); back-to-back = ${t.samples} samples of ${t.calls} calls after ${t.warmup} warm-up calls, each sample after a barrier (the slowest rank's time / calls); single = ${t.single} calls each after a barrier (the slowest rank's)`,
    head: ['nodes', 'multicast b2b', 'binomial b2b', 'mc / bin', 'multicast single', 'binomial single', 'mc / bin'],
    rows,
    notes: [
      `from ${lo} to ${hi} nodes: multicast back-to-back ${growth('multicast', (p) => p.b2bUs.median)}, binomial ${growth('binomial', (p) => p.b2bUs.median)}; single calls: multicast ${growth('multicast', (p) => p.singleUs.median)}, binomial ${growth('binomial', (p) => p.singleUs.median)}; a binomial tree's depth grows ×${(Math.ceil(Math.log2(hi)) / Math.max(1, Math.ceil(Math.log2(lo)))).toFixed(0)} (⌈lg N⌉ ${Math.ceil(Math.log2(lo))} → ${Math.ceil(Math.log2(hi))}), the node processes ×${(hi / lo).toFixed(0)}`,
      `seed 003 (Figs 5.4, 5.12): the hardware broadcast is close to O(1) up to 128 processes, a point-to-point tree grows as log N`,
    ],
  };
}

export function channelsTable(r: McastMeasureResult): Table | undefined {
  const pts = r.channelsPoints;
  if (pts.length === 0) return undefined;
  const fit = r.channelFit;
  const rows = pts.map((p) => [
    String(p.channels),
    rangeUs(p.b2bUs),
    fit ? us(fit.l0 + fit.s / p.channels) : '—',
    f2(p.syncsPerBcast),
    f2(p.syncMeanMs),
    us(p.stallUsPerBcast),
    [2, 16].includes(p.channels) ? String(p.channels === 2 ? SEED.c2 : SEED.c16) : '',
  ]);
  const t = r.plan.timing;
  return {
    id: 'channels',
    title: `Claim 2 — split-phase off (COLL_MCAST=sets=1,channels=C): 8-byte bcast on ${pts[0].nodes} node processes, back-to-back µs per call (${t.samples} samples of ${t.calls}), median (min–max) of ${pts[0].runs} job(s); the root's set syncs per broadcast, mean sync time and stall time per broadcast from the job report`,
    head: ['channels', 'b2b µs', 'fit µs', 'syncs / bcast', 'sync ms', 'stall µs / bcast', 'seed µs'],
    rows,
    notes: [
      fit
        ? `fit L = L0 + S/C over ${fit.points} channel counts: L0 = ${us(fit.l0)} µs, S = ${us(fit.s)} µs (r² = ${fit.r2.toFixed(3)}); seed: L0 ≈ ${SEED_FIT.l0.toFixed(1)} µs, S ≈ ${SEED_FIT.s.toFixed(1)} µs from 17.1 µs at 2 channels and 4.3 at 16 (Fig. 5.13)`
        : 'fewer than two channel counts: no fit',
      fit && pts.some((p) => p.channels === 1)
        ? `a sync before every broadcast (1 channel, the elan_hbcast style) against the fitted L0: ${ratio(pts.find((p) => p.channels === 1)?.b2bUs.median ?? NaN, fit.l0)}; seed: ${SEED.hbcast8} vs ${SEED.raw8} µs, ${(SEED.hbcast8 / SEED.raw8).toFixed(1)}×`
        : '',
    ].filter((x) => x.length > 0),
  };
}

export function setsTable(r: McastMeasureResult): Table | undefined {
  const pts = r.setsPoints;
  if (pts.length === 0) return undefined;
  const rows = pts.map((p) => [
    p.gapUs > 0 ? `${p.gapUs} µs` : 'back-to-back',
    String(p.sets),
    String(p.setSize),
    String(p.sets * p.setSize),
    rangeUs(p.b2bUs),
    f2(p.useMs),
    f2(p.syncMeanMs),
    f2(p.syncMaxMs),
    f0(p.setsUsed),
    f0(p.stalls),
    f2(p.stallsPerSet),
    `${f0(p.stallShare * 100)}%`,
  ]);
  const clear = pts.filter((p) => p.sets >= 4 && p.useMs >= p.syncMaxMs);
  return {
    id: 'sets',
    title: `Claim 3 — split-phase synchronisation: 8-byte bcasts on ${pts[0].nodes} node processes, back-to-back or paced (the root sleeps between calls), COLL_MCAST=sets=K,channels=K·size,idle=${SETS_IDLE_US} (a set ends only when used up); the root's stalls (no free channel set) against the time to use up a set (set size × time per broadcast) and its sets' sync time (closing to sync-down); medians of ${pts[0].runs} job(s)`,
    head: ['pace', 'sets', 'set size', 'channels', 'µs / call', 'use-up ms', 'sync ms', 'sync max ms', 'sets', 'stalls', 'stalls / set', 'stall time'],
    rows,
    notes: [
      clear.length > 0
        ? `with 4 sets, where a set outlasts the slowest sync (use-up ≥ sync max): ${clear.map((p) => `${p.gapUs > 0 ? `paced ${p.gapUs} µs` : 'back-to-back'}, size ${p.setSize}: ${p.stalls} stall(s)`).join('; ')}`
        : 'no point with 4 sets where using up a set took longer than the slowest sync',
      'stall time: the root\'s time waiting for a free set as a share of the timed calls; seed A4: no blocking when using up a set takes longer than each phase (sync-up, sync-down, reclaim) with 4 sets',
    ],
  };
}

export function reliabilityTable(r: McastMeasureResult): Table | undefined {
  const pts = r.reliabilityPoints;
  if (pts.length === 0) return undefined;
  const rows = pts.map((p) => [
    sizeLabel(p.bytes),
    String(p.fragments),
    rangeUs(p.reliable.b2bUs),
    rangeUs(p.unreliable.b2bUs),
    us(p.costB2bUs),
    us(p.reliable.singleUs.median),
    us(p.unreliable.singleUs.median),
    us(p.costSingleUs),
    f2(p.crcUs),
    f1(p.hmacUs),
  ]);
  const nodes = r.plan.reliabilityNodes;
  return {
    id: 'reliability',
    title: `Claim 4 — the cost of reliability: multicast bcast on ${nodes} node processes, COLL_MCAST=reliable=1 against reliable=0 (no CRC, NACKs, polls or rebroadcasts; the same channels and syncs), µs per call, median (min–max) of ${pts[0].runs} job(s) each; CRC-32 and HMAC: this process, per message (every datagram, sender and one receiver)`,
    head: ['size', 'fragments', 'reliable b2b', 'unreliable b2b', 'cost b2b', 'reliable single', 'unreliable single', 'cost single', 'CRC-32 µs', 'HMAC µs'],
    rows,
    notes: [
      `seed 003 (Fig. 5.14): about ${SEED.reliabilityUs} µs for messages ≤ 256 B, significant for large messages (CRC/checksum time); both modes here sign every datagram (HMAC-SHA256), so only the CRC-32 and the NACK/poll timers differ`,
    ],
  };
}

export function faultsTable(r: McastMeasureResult): Table | undefined {
  const runs = r.faultRuns;
  if (runs.length === 0) return undefined;
  const rows = runs.map((f) => [
    `${f.name} (rep ${f.rep + 1})`,
    f.faults,
    `${f.errors} / ${f.checked}`,
    `${f.injected.loss}/${f.injected.dup}/${f.injected.reorder}/${f.injected.corrupt}`,
    String(f.corrupt),
    String(f.nacks),
    String(f.resyncs),
    String(f.retransmissions),
    String(f.polls),
    String(f.failovers),
    String(f.treeFrames),
    us(f.smallUs),
    us(f.largeUs),
  ]);
  const [small, large] = r.plan.faultCalls;
  return {
    id: 'faults',
    title: `Claim 5 — injected faults (COLL_MCAST_FAULTS, on reception) on ${runs[0].nodes} node processes: ${small} bcasts of 8 B and ${large} of 64 KiB (8 fragments), every byte of every call checked on every receiver; counters summed over the nodes (resyncs, rebroadcasts and polls: the root's)`,
    head: ['run', 'faults', 'wrong / checked', 'injected loss/dup/reorder/corrupt', 'corrupt seen', 'NACKs', 'resyncs', 'rebroadcasts', 'polls', 'fail-overs', 'tree frames', '8 B µs', '64 KiB µs'],
    rows,
    left: 2,
    notes: ['seed 003 (B10, A5): a corrupt fragment → NACK straight to the manager → global resync and rebroadcast; repeated failures → fail-over to the point-to-point tree'],
  };
}

export function bandwidthTable(r: McastMeasureResult): Table | undefined {
  const pts = r.bandwidthPoints;
  if (pts.length === 0) return undefined;
  const sizes = [...new Set(pts.map((p) => p.bytes))].sort((a, b) => a - b);
  const series = [...new Set(pts.map((p) => `${p.nodes}/${p.algorithm}`))];
  const rows = series.map((key) => {
    const [n, a] = key.split('/');
    return [`${a}, ${n} nodes`, ...sizes.map((b) => {
      const p = pts.find((x) => x.nodes === Number(n) && x.algorithm === a && x.bytes === b);
      return p ? f0(p.mbps.median) : '—';
    })];
  });
  return {
    id: 'bandwidth',
    title: `Bandwidth — bcast of large messages, MB/s (size / back-to-back time per call), median of ${pts[0].runs} job(s)`,
    head: ['algorithm', ...sizes.map(sizeLabel)],
    rows,
    notes: [],
  };
}

export function measureTableList(r: McastMeasureResult): Table[] {
  return [nodesTable(r), channelsTable(r), setsTable(r), reliabilityTable(r), faultsTable(r), bandwidthTable(r)].filter((t): t is Table => t !== undefined);
}

export function tableText(t: Table): string {
  const align = Array.from({ length: t.left ?? 1 }, () => 'l' as const);
  return [t.title, ...formatTable([t.head, ...t.rows], { align, others: 'r' }), ...t.notes.map((n) => `  ${n}`)].join('\n');
}

export function tableMarkdown(t: Table): string {
  const left = t.left ?? 1;
  const esc = (s: string): string => s.replace(/\|/g, '\\|');
  const colon = t.title.indexOf(': ');
  return [
    colon > 0 ? `**${t.title.slice(0, colon)}**${t.title.slice(colon)}` : t.title,
    '',
    `| ${t.head.map(esc).join(' | ')} |`,
    `|${t.head.map((_, i) => (i < left ? '---' : '---:')).join('|')}|`,
    ...t.rows.map((row) => `| ${row.map(esc).join(' | ')} |`),
    ...(t.notes.length > 0 ? ['', ...t.notes.map((n) => `- ${n}`)] : []),
  ].join('\n');
}

function runLine(r: McastMeasureResult): string {
  return `${r.samples.length} jobs in ${r.seconds} s, ${r.plan.reps} repetition(s), ${r.started.replace('T', ' ').slice(0, 16)}–${r.finished.slice(11, 16)} UTC on ${r.machine}; load average ${r.loadBefore.map((x) => x.toFixed(2)).join(' ')} before, ${r.loadAfter.map((x) => x.toFixed(2)).join(' ')} after`;
}

/** Every table as text, with a line on the run. */
export function measureTables(r: McastMeasureResult): string {
  return [`multicast broadcast measured: ${runLine(r)}`, ...measureTableList(r).map(tableText)].join('\n\n');
}

export const DOCS_MARKERS = {
  begin: '<!-- multicast-measure:begin (generated by `coll experiment multicast --docs`; edits inside are overwritten) -->',
  end: '<!-- multicast-measure:end -->',
};

/** The generated docs section: the run, each table and its plot (paths relative to the docs file). */
export function measureMarkdown(r: McastMeasureResult, plots: Partial<Record<McastPart, string>> = {}): string {
  const parts = [`Run: ${runLine(r)}. Medians over the repetitions, min–max in brackets.`];
  for (const t of measureTableList(r)) {
    parts.push(tableMarkdown(t));
    const p = plots[t.id];
    if (p) parts.push(`![${t.id}](${p})`);
  }
  return parts.join('\n\n');
}

// ---- plots -------------------------------------------------------------------------

export function nodesPlot(r: McastMeasureResult): string {
  const series: Series[] = [];
  for (const a of ALGORITHMS) {
    const ps = r.nodesPoints.filter((p) => p.algorithm === a);
    if (ps.length === 0) continue;
    series.push({ name: `${a}, back-to-back`, points: ps.map((p) => [p.nodes, p.b2bUs.median] as [number, number]) });
    series.push({ name: `${a}, single call after a barrier`, points: ps.map((p) => [p.nodes, p.singleUs.median] as [number, number]) });
  }
  return lineChartSvg({ title: 'Claim 1: 8-byte bcast vs node processes (1 rank each), median µs per call', x: { label: 'node processes', log: true }, y: { label: 'µs per call', log: true }, series });
}

export function channelsPlot(r: McastMeasureResult): string {
  const pts = r.channelsPoints;
  const series: Series[] = [{ name: 'measured (sets=1), back-to-back', points: pts.map((p) => [p.channels, p.b2bUs.median] as [number, number]) }];
  const fit = r.channelFit;
  const cs = pts.map((p) => p.channels);
  const dense = cs.length > 0 ? Array.from({ length: 24 }, (_, i) => round(Math.min(...cs) * (Math.max(...cs) / Math.min(...cs)) ** (i / 23), 2)) : [];
  if (fit) series.push({ name: `fit L0 + S/C: L0 ${us(fit.l0)} µs, S ${us(fit.s)} µs`, points: dense.map((c) => [c, round(fit.l0 + fit.s / c, 1)] as [number, number]) });
  series.push({ name: 'seed Fig. 5.13 (Elan3, 8 nodes): 17.1 µs at 2, 4.3 at 16', points: [[2, SEED.c2], [16, SEED.c16]] });
  series.push({ name: `seed fit: L0 ${SEED_FIT.l0.toFixed(1)} µs, S ${SEED_FIT.s.toFixed(1)} µs`, points: dense.map((c) => [c, round(SEED_FIT.l0 + SEED_FIT.s / c, 2)] as [number, number]) });
  return lineChartSvg({ title: `Claim 2: split-phase off, 8-byte bcast on ${pts[0]?.nodes ?? 0} node processes vs channels`, x: { label: 'channels (a sync each time all are used)', log: true }, y: { label: 'µs per call', log: true }, series });
}

export function setsPlot(r: McastMeasureResult): string {
  const series: Series[] = [];
  for (const g of [...new Set(r.setsPoints.map((p) => p.gapUs))]) {
    for (const k of [...new Set(r.setsPoints.map((p) => p.sets))]) {
      const ps = r.setsPoints.filter((p) => p.sets === k && p.gapUs === g);
      if (ps.length > 0) series.push({ name: `${k} set${k === 1 ? '' : 's'}, ${g > 0 ? `paced (${g} µs sleep per call)` : 'back-to-back'}`, points: ps.map((p) => [p.setSize, p.stallsPerSet] as [number, number]) });
    }
  }
  return lineChartSvg({ title: `Claim 3: the root's stalls per set used vs set size (8-byte bcasts, ${r.setsPoints[0]?.nodes ?? 0} node processes)`, x: { label: 'set size (channels per set)', log: true }, y: { label: 'stalls per set used' }, series });
}

export function reliabilityPlot(r: McastMeasureResult): string {
  const pts = r.reliabilityPoints;
  const series: Series[] = [
    { name: 'reliable=1, back-to-back', points: pts.map((p) => [p.bytes, p.reliable.b2bUs.median] as [number, number]) },
    { name: 'reliable=0, back-to-back', points: pts.map((p) => [p.bytes, p.unreliable.b2bUs.median] as [number, number]) },
    { name: 'reliable=1, single call', points: pts.map((p) => [p.bytes, p.reliable.singleUs.median] as [number, number]) },
    { name: 'reliable=0, single call', points: pts.map((p) => [p.bytes, p.unreliable.singleUs.median] as [number, number]) },
    { name: 'CRC-32 per message (in process)', points: pts.map((p) => [p.bytes, p.crcUs] as [number, number]) },
    { name: 'HMAC per message (in process, both modes)', points: pts.map((p) => [p.bytes, p.hmacUs] as [number, number]) },
  ];
  return lineChartSvg({ title: `Claim 4: multicast bcast on ${r.plan.reliabilityNodes} node processes, reliable vs unreliable mode`, x: { label: 'message bytes', log: true }, y: { label: 'µs', log: true }, series });
}

export function bandwidthPlot(r: McastMeasureResult): string {
  const series: Series[] = [];
  for (const n of [...new Set(r.bandwidthPoints.map((p) => p.nodes))]) {
    for (const a of ALGORITHMS) {
      const ps = r.bandwidthPoints.filter((p) => p.nodes === n && p.algorithm === a);
      if (ps.length > 0) series.push({ name: `${a}, ${n} nodes`, points: ps.map((p) => [p.bytes, p.mbps.median] as [number, number]) });
    }
  }
  return lineChartSvg({ title: 'Bandwidth: bcast of large messages, multicast vs binomial tree', x: { label: 'message bytes', log: true }, y: { label: 'MB/s' }, series });
}

/** The plots of the parts that have points, by part (file name multicast-<part>.svg). */
export function measurePlots(r: McastMeasureResult): { part: McastPart; name: string; svg: string }[] {
  const out: { part: McastPart; name: string; svg: string }[] = [];
  const add = (part: McastPart, has: boolean, f: () => string): void => {
    if (has) out.push({ part, name: `multicast-${part}.svg`, svg: f() });
  };
  add('nodes', r.nodesPoints.length > 0, () => nodesPlot(r));
  add('channels', r.channelsPoints.length > 0, () => channelsPlot(r));
  add('sets', r.setsPoints.length > 0, () => setsPlot(r));
  add('reliability', r.reliabilityPoints.length > 0, () => reliabilityPlot(r));
  add('bandwidth', r.bandwidthPoints.length > 0, () => bandwidthPlot(r));
  return out;
}

/** A result written by measureJson, summarised again (the checksum costs measured anew here). */
export function resultFromJson(j: unknown): McastMeasureResult {
  const o = j as Partial<McastMeasureResult> & { experiment?: string };
  if (!o || o.experiment !== 'multicast-measure' || !o.plan || !Array.isArray(o.samples)) throw new CollectivesError('ARGUMENT', 'not the JSON of `coll experiment multicast --json`');
  const num = (v: unknown): number => (typeof v === 'number' ? v : NaN);
  const samples = (o.samples as readonly McastJobSample[]).map((s) => ({ ...s, cases: s.cases.map((c) => ({ ...c, sampleUs: c.sampleUs.map(num), singleUs: c.singleUs.map(num) })) }));
  return summarize(o.plan, samples, {
    started: o.started ?? '',
    finished: o.finished ?? '',
    loadBefore: o.loadBefore ?? [],
    loadAfter: o.loadAfter ?? [],
    seconds: o.seconds ?? NaN,
    ...(o.machine ? { machine: o.machine } : {}),
  });
}

/** The result as JSON (NaN → null). */
export function measureJson(r: McastMeasureResult): object {
  return JSON.parse(JSON.stringify({ experiment: 'multicast-measure', ...r, seed: SEED, seedFit: SEED_FIT }, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v))) as object;
}
