/**
 * The parallel I/O of issue 20 measured (seed 003 ch. 7), the driver behind
 * `coll experiment io`: real jobs on this machine running io-program.ts, with I/O
 * servers started per job (`launch({ io })`) and Open MPI's MPI-IO
 * (src/bench/peer/mpi_io_bench.c through runPeerIo) on the same patterns. Parts:
 *
 * - scaling: pfs: files on tmpfs, 1, 2, 4 servers × 2 and 4 ranks (1 node process for
 *   2 ranks, 2 for 4) × contiguous and tile, collective writeAtAll then readAtAll;
 * - compare: 4 ranks on 2 node processes, contiguous and tile, collective, on tmpfs
 *   and on disk (the temporary directory): ours on a local file in that directory,
 *   ours on pfs: (2 servers storing there), Open MPI's MPI_File_write_at_all /
 *   read_at_all on a file there; the three alternate in every round (order rotated),
 *   and ours runs a breakdown of the collective call (view walk, exchange, the
 *   aggregators' own I/O) after its timed repetitions;
 * - listio (claim 15): tile pattern, independent writeAt / readAt through the subarray
 *   view (each call 512 regions), pfs: on 2 servers, one list request per server and
 *   call vs one request per region, with the servers' request and region counts;
 * - eager: one rank, pfs: on 1 server, independent writeAt / readAt of 256 B … 64 KiB,
 *   eager limit 0, 2048 and 65536 bytes: median µs per call, and getSize() (a round trip
 *   with no data) as the floor;
 * - throttle (claim 16): 8 ranks on 2 node processes, 1 MiB each, independent writes
 *   and reads to 1 server, rendezvous 'server' vs 'adaptive', the throttle at 1 vs 4
 *   bulk transfers, completion by event vs FIN: MB/s and the server's counters.
 *
 * Methodology (IOR's, and the C program's): every repetition opens the file, barrier,
 * write, sync, barrier, read, barrier, close, delete; a phase takes as long as its
 * slowest rank; aggregate MB/s = ranks × bytes per rank / that time / 10^6. Every job
 * (and every mpirun) runs one warm-up repetition that is dropped (`warmup`), then
 * `perJob` timed ones; the jobs of a round run part by part, variants rotated per round; figures are
 * medians over every timed repetition of every round, with their min–max.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runPeerIo, type PeerIoRecord } from '../bench/peer-io.js';
import { peerAvailable } from '../bench/peer.js';
import { CollectivesError } from '../core/errors.js';
import { median } from '../core/stats.js';
import { formatTable } from '../core/table.js';
import { DEFAULT_STRIPE } from '../io/pfs/client.js';
import { DEFAULT_MESSAGING, type Completion, type RendezvousPolicy } from '../io/pfs/policy.js';
import { color, escapeXml, formatTick, lineChartSvg, type Series } from '../plot/svg.js';
import { launch } from '../runtime/launcher.js';
import { rotation } from './connections-measure.js';
import { STEPS, type IoCase, type IoCaseRecord, type IoPattern, type IoProgramConfig, type Step } from './io-program.js';
import { waitForIdle } from './job.js';
import { round } from './stats.js';

export const PARTS = ['scaling', 'compare', 'listio', 'eager', 'throttle'] as const;
export type IoPart = (typeof PARTS)[number];
export type Storage = 'tmpfs' | 'disk';
export type Impl = 'local' | 'pfs' | 'openmpi';

export interface ThrottleSetting {
  readonly rendezvous: RendezvousPolicy;
  readonly maxBulk: number;
  readonly completion: Completion;
}

export interface IoPlan {
  readonly parts: readonly IoPart[];
  /** Rounds: every job of every part runs once per round (the compare part at least `compareRounds`). */
  readonly reps: number;
  /** Timed repetitions inside each job, after `warmup` dropped ones (the same for Open MPI's runs). */
  readonly perJob: number;
  readonly warmup: number;
  readonly bytesPerRank: number;
  readonly scalingServers: readonly number[];
  readonly scalingRanks: readonly number[];
  readonly patterns: readonly IoPattern[];
  readonly compareRanks: number;
  readonly compareNodes: number;
  readonly compareServers: number;
  readonly compareStorages: readonly Storage[];
  readonly compareRounds: number;
  readonly listRanks: number;
  readonly listNodes: number;
  readonly listServers: number;
  readonly eagerLimits: readonly number[];
  readonly eagerSizes: readonly number[];
  readonly eagerOps: number;
  readonly throttleRanks: number;
  readonly throttleNodes: number;
  readonly throttleBytes: number;
  readonly throttleSettings: readonly ThrottleSetting[];
}

const KiB = 1024;
const MiB = 1024 * KiB;

export const THROTTLE_SETTINGS: readonly ThrottleSetting[] = [
  { rendezvous: 'server', maxBulk: 1, completion: 'event' },
  { rendezvous: 'adaptive', maxBulk: 1, completion: 'event' },
  { rendezvous: 'server', maxBulk: 4, completion: 'event' },
  { rendezvous: 'adaptive', maxBulk: 4, completion: 'event' },
  { rendezvous: 'adaptive', maxBulk: 4, completion: 'fin' },
];

/** The documented run (about 5–8 minutes on 2 shared cores). */
export const FULL_PLAN: IoPlan = {
  parts: PARTS,
  reps: 2,
  perJob: 3,
  warmup: 1,
  bytesPerRank: 4 * MiB,
  scalingServers: [1, 2, 4],
  scalingRanks: [2, 4],
  patterns: ['contiguous', 'tile'],
  compareRanks: 4,
  compareNodes: 2,
  compareServers: 2,
  compareStorages: ['tmpfs', 'disk'],
  compareRounds: 3,
  listRanks: 4,
  listNodes: 2,
  listServers: 2,
  eagerLimits: [0, 2048, 65536],
  eagerSizes: [256, KiB, 4 * KiB, 16 * KiB, 64 * KiB],
  eagerOps: 200,
  throttleRanks: 8,
  throttleNodes: 2,
  throttleBytes: MiB,
  throttleSettings: THROTTLE_SETTINGS,
};

/** `--quick`: every part, small and once (well under a minute): a smoke run, not the documented figures. */
export const QUICK_PLAN: IoPlan = {
  ...FULL_PLAN,
  reps: 1,
  perJob: 1,
  bytesPerRank: MiB,
  scalingServers: [1, 2],
  scalingRanks: [2],
  compareStorages: ['tmpfs'],
  compareRounds: 1,
  eagerLimits: [0, 2048],
  eagerSizes: [256, 4 * KiB, 64 * KiB],
  eagerOps: 30,
  throttleRanks: 4,
  throttleBytes: 256 * KiB,
  throttleSettings: [THROTTLE_SETTINGS[0], THROTTLE_SETTINGS[3], THROTTLE_SETTINGS[4]],
};

export interface MeasureRunOptions {
  /** Before each job wait (up to 30 s) until the CPUs are at most this busy (0..1). */
  readonly idleBusy?: number;
  readonly onJob?: (done: number, total: number, what: string) => void;
  /** Output lines of the jobs that are not experiment records. */
  readonly onOutput?: (line: string) => void;
  /** Compare with Open MPI when it is installed (default true). */
  readonly peer?: boolean;
}

/** One job: ours (a launch) or Open MPI's (one mpirun per pattern). */
export interface IoJob {
  readonly part: IoPart;
  readonly impl: Impl;
  readonly label: string;
  readonly ranks: number;
  readonly nodes: number;
  readonly storage: Storage;
  /** I/O servers started for the job (0: none). */
  readonly servers: number;
  readonly settings?: { readonly eager?: number; readonly rendezvous?: RendezvousPolicy; readonly maxBulk?: number; readonly completion?: Completion };
  /** Ours: the cases ('@local' stands for a file in the job's directory). */
  readonly cases: readonly IoCase[];
  readonly listIo?: boolean;
  readonly eagerLimit?: number;
  readonly throttle?: ThrottleSetting;
}

/** A server's counters (from the job report), summed over the servers (maxConcurrentBulk: the largest). */
export interface IoCounters {
  readonly eager: number;
  readonly rendezvousPull: number;
  readonly rendezvousPush: number;
  readonly finMessages: number;
  readonly throttled: number;
  readonly maxConcurrentBulk: number;
  readonly listRequests: number;
  readonly listRegions: number;
  readonly bytesWritten: number;
  readonly bytesRead: number;
}

export interface IoJobSample {
  readonly part: IoPart;
  readonly impl: Impl;
  readonly round: number;
  readonly label: string;
  readonly ranks: number;
  readonly nodes: number;
  readonly storage: Storage;
  readonly servers: number;
  readonly listIo?: boolean;
  readonly eagerLimit?: number;
  readonly throttle?: ThrottleSetting;
  readonly cases: readonly IoCaseRecord[];
  /** Open MPI's records, warm-up repetitions dropped. */
  readonly peer: readonly PeerIoRecord[];
  readonly counters?: IoCounters;
  readonly load: readonly [number, number];
  readonly wallMs: number;
}

export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

export interface PhaseMBps {
  readonly write: Spread;
  readonly writeSync: Spread;
  readonly read: Spread;
  readonly samples: number;
}

export interface ScalingPoint extends PhaseMBps {
  readonly pattern: IoPattern;
  readonly ranks: number;
  readonly nodes: number;
  readonly servers: number;
}

export interface ComparePoint extends PhaseMBps {
  readonly storage: Storage;
  readonly pattern: IoPattern;
  readonly impl: Impl;
}

/** Ours' collective call taken apart: rank 0's time inside each step (medians over repetitions, ms). */
export interface BreakdownPoint {
  readonly storage: Storage;
  readonly pattern: IoPattern;
  readonly impl: Impl;
  readonly phase: 'write' | 'read';
  /** Rank 0's whole call, and the slowest rank's. */
  readonly totalMs: number;
  readonly slowestMs: number;
  /** Per step (STEPS of io-program.ts), and `other`: the rest of the call (computation in the rank). */
  readonly steps: Readonly<Record<Step | 'other', number>>;
}

export interface ListPoint extends PhaseMBps {
  readonly listIo: boolean;
  /** Per rank and call (write or read): list requests and regions the servers saw (job counters / calls). */
  readonly requestsPerCall: number;
  readonly regionsPerCall: number;
  readonly counters: readonly IoCounters[];
}

export interface EagerPoint {
  readonly limit: number;
  readonly bytes: number;
  readonly writeUs: Spread;
  readonly readUs: Spread;
  readonly sizeUs: Spread;
}

export interface ThrottlePoint extends PhaseMBps {
  readonly setting: ThrottleSetting;
  /** Per job, summed over the servers. */
  readonly counters: readonly IoCounters[];
}

export interface IoMeasureResult {
  readonly plan: IoPlan;
  readonly started: string;
  readonly finished: string;
  readonly machine: string;
  readonly loadBefore: readonly number[];
  readonly loadAfter: readonly number[];
  readonly seconds: number;
  /** Where tmpfs and disk files went. */
  readonly dirs: Readonly<Record<Storage, string>>;
  /** Why there is no Open MPI comparison, when there is none. */
  readonly peerMissing?: string;
  /** The last commit that touched src/io (and whether src/io had uncommitted changes), when run from a git checkout. */
  readonly source?: string;
  readonly samples: readonly IoJobSample[];
  readonly scalingPoints: readonly ScalingPoint[];
  readonly comparePoints: readonly ComparePoint[];
  readonly breakdownPoints: readonly BreakdownPoint[];
  readonly listPoints: readonly ListPoint[];
  readonly eagerPoints: readonly EagerPoint[];
  readonly throttlePoints: readonly ThrottlePoint[];
}

// ---- plan and jobs --------------------------------------------------------------

/** tmpfs: /dev/shm when this machine has it, else the temporary directory. */
export function tmpfsDir(): string {
  try {
    if (statSync('/dev/shm').isDirectory()) return '/dev/shm';
  } catch {
    // no /dev/shm
  }
  return tmpdir();
}

export const storageDir = (s: Storage): string => (s === 'tmpfs' ? tmpfsDir() : tmpdir());

const nodesFor = (ranks: number): number => (ranks <= 2 ? 1 : 2);
const sizeLabel = (b: number): string => (b >= MiB ? `${b / MiB} MiB` : b >= KiB ? `${b / KiB} KiB` : `${b} B`);
export const settingLabel = (s: ThrottleSetting): string => `${s.rendezvous}, maxBulk ${s.maxBulk}, ${s.completion}`;

function phases(p: IoPlan, name: string, path: string, pattern: IoPattern, bytes: number, collective: boolean, open?: IoCase['open']): IoCase {
  return { kind: 'phases', name, path, pattern, bytesPerRank: bytes, collective, warmup: p.warmup, reps: p.perJob, ...(open ? { open } : {}) };
}

/** The jobs of round `rep` in the order they run. */
export function planJobs(p: IoPlan, rep: number, peer: boolean): IoJob[] {
  const jobs: IoJob[] = [];
  const want = (x: IoPart): boolean => p.parts.includes(x);
  const B = p.bytesPerRank;
  if (want('scaling') && rep < p.reps) {
    for (const ranks of p.scalingRanks) {
      for (const servers of rotation(p.scalingServers, rep)) {
        jobs.push({
          part: 'scaling',
          impl: 'pfs',
          label: `scaling: ${servers} server(s), ${ranks} ranks, ${sizeLabel(B)} each, collective`,
          ranks,
          nodes: nodesFor(ranks),
          storage: 'tmpfs',
          servers,
          cases: rotation(p.patterns, rep).map((pat) => phases(p, pat, 'pfs:scaling', pat, B, true)),
        });
      }
    }
  }
  if (want('compare') && rep < Math.max(p.reps, p.compareRounds)) {
    for (const storage of p.compareStorages) {
      const impls: Impl[] = peer ? ['local', 'pfs', 'openmpi'] : ['local', 'pfs'];
      for (const impl of rotation(impls, rep)) {
        const path = impl === 'pfs' ? 'pfs:compare' : '@local';
        const cases: IoCase[] =
          impl === 'openmpi'
            ? []
            : [
                ...p.patterns.map((pat) => phases(p, pat, path, pat, B, true)),
                ...p.patterns.map((pat): IoCase => ({ kind: 'breakdown', name: `breakdown ${pat}`, path, pattern: pat, bytesPerRank: B, warmup: p.warmup, reps: p.perJob })),
              ];
        jobs.push({
          part: 'compare',
          impl,
          label: `compare: ${impl === 'openmpi' ? 'Open MPI MPI-IO' : impl === 'pfs' ? `ours, pfs: on ${p.compareServers} servers` : 'ours, local file'} on ${storage}, ${p.compareRanks} ranks, ${sizeLabel(B)} each`,
          ranks: p.compareRanks,
          nodes: p.compareNodes,
          storage,
          servers: impl === 'pfs' ? p.compareServers : 0,
          cases,
        });
      }
    }
  }
  if (want('listio') && rep < p.reps) {
    for (const listIo of rotation([true, false], rep)) {
      jobs.push({
        part: 'listio',
        impl: 'pfs',
        label: `listio: ${listIo ? 'one list request per server' : 'one request per region'}, tile, independent, ${p.listRanks} ranks`,
        ranks: p.listRanks,
        nodes: p.listNodes,
        storage: 'tmpfs',
        servers: p.listServers,
        listIo,
        cases: [phases(p, 'tile', 'pfs:listio', 'tile', B, false, { listIo })],
      });
    }
  }
  if (want('eager') && rep < p.reps) {
    for (const limit of rotation(p.eagerLimits, rep)) {
      jobs.push({
        part: 'eager',
        impl: 'pfs',
        label: `eager: limit ${limit} B, 1 rank, ${p.eagerSizes.map(sizeLabel).join('…')}`,
        ranks: 1,
        nodes: 1,
        storage: 'tmpfs',
        servers: 1,
        settings: { eager: limit },
        eagerLimit: limit,
        cases: [{ kind: 'latency', name: `eager ${limit}`, path: 'pfs:eager', sizes: p.eagerSizes, ops: p.eagerOps, warmup: Math.max(5, Math.round(p.eagerOps / 10)) }],
      });
    }
  }
  if (want('throttle') && rep < p.reps) {
    for (const s of rotation(p.throttleSettings, rep)) {
      jobs.push({
        part: 'throttle',
        impl: 'pfs',
        label: `throttle: ${settingLabel(s)}, ${p.throttleRanks} ranks × ${sizeLabel(p.throttleBytes)} to 1 server`,
        ranks: p.throttleRanks,
        nodes: p.throttleNodes,
        storage: 'tmpfs',
        servers: 1,
        settings: { rendezvous: s.rendezvous, maxBulk: s.maxBulk, completion: s.completion },
        throttle: s,
        cases: [phases(p, 'contiguous', 'pfs:throttle', 'contiguous', p.throttleBytes, false)],
      });
    }
  }
  return jobs;
}

const IOCASE = /^\[0\] EXP IOCASE (\{.*\})$/;

/** An IOCASE record of rank 0 in a job's output line, or undefined. */
export function parseIoCase(line: string): IoCaseRecord | undefined {
  const m = IOCASE.exec(line);
  if (!m) return undefined;
  const r = JSON.parse(m[1]) as Partial<IoCaseRecord> | null;
  if (!r || typeof r.name !== 'string' || typeof r.kind !== 'string' || typeof r.errors !== 'number' || typeof r.checked !== 'number') {
    throw new CollectivesError('RANK_FAILED', `malformed IOCASE record: ${m[1]}`);
  }
  return r as IoCaseRecord;
}

const COUNTER_KEYS = ['eager', 'rendezvousPull', 'rendezvousPush', 'finMessages', 'throttled', 'maxConcurrentBulk', 'listRequests', 'listRegions', 'bytesWritten', 'bytesRead'] as const;

/** The servers' counters of a job report, summed (maxConcurrentBulk: the largest). */
export function sumCounters(servers: readonly { readonly counters?: Record<string, unknown> }[]): IoCounters {
  const out: Record<string, number> = {};
  for (const k of COUNTER_KEYS) {
    const xs = servers.map((s) => Number(s.counters?.[k] ?? 0)).filter((x) => Number.isFinite(x));
    out[k] = k === 'maxConcurrentBulk' ? Math.max(0, ...xs) : xs.reduce((a, b) => a + b, 0);
  }
  return out as unknown as IoCounters;
}

async function runOurs(job: IoJob, rep: number, program: string, o: MeasureRunOptions): Promise<IoJobSample> {
  const dir = mkdtempSync(join(storageDir(job.storage), 'coll-io-exp-'));
  const before = loadavg()[0];
  try {
    const file = join(dir, 'io-exp.dat');
    const config: IoProgramConfig = { cases: job.cases.map((c) => (c.path === '@local' ? { ...c, path: file } : c)) };
    const cases: IoCaseRecord[] = [];
    const r = await launch({
      ranks: job.ranks,
      nodes: job.nodes,
      program,
      args: [JSON.stringify(config)],
      arenaMb: 64,
      engine: false,
      jobTimeoutMs: 300_000,
      ...(job.servers > 0 ? { io: { servers: job.servers, dir: join(dir, 'servers'), settings: { ...job.settings } } } : {}),
      onLine: (_stream, line) => {
        const c = parseIoCase(line);
        if (c) cases.push(c);
        else o.onOutput?.(line);
      },
    });
    if (r.exitCode !== 0) throw new CollectivesError('RANK_FAILED', `I/O job (${job.label}) failed: ${r.failure ? `rank ${r.failure.rank}: ${r.failure.reason}` : `exit code ${r.exitCode}`}`);
    if (cases.length !== job.cases.length) throw new CollectivesError('RANK_FAILED', `I/O job (${job.label}): ${cases.length} of ${job.cases.length} IOCASE records`);
    const bad = cases.find((c) => c.errors > 0);
    if (bad) throw new CollectivesError('IO', `I/O job (${job.label}): ${bad.errors} of ${bad.checked} bytes read back wrong in case '${bad.name}'`);
    const servers = r.report.io?.servers ?? [];
    const missing = servers.find((s) => s.error !== undefined);
    if (missing) throw new CollectivesError('IO', `I/O job (${job.label}): no counters from ${missing.error}`);
    return {
      ...sampleHead(job, rep),
      cases,
      peer: [],
      ...(job.servers > 0 ? { counters: sumCounters(servers) } : {}),
      load: [round(before, 2), round(loadavg()[0], 2)],
      wallMs: r.report.wallMs,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runOpenMpi(job: IoJob, rep: number, p: IoPlan): Promise<IoJobSample> {
  const dir = mkdtempSync(join(storageDir(job.storage), 'coll-io-exp-'));
  const before = loadavg()[0];
  const t0 = performance.now();
  try {
    const peer: PeerIoRecord[] = [];
    for (const pattern of rotation(p.patterns, rep)) {
      const recs = await runPeerIo('openmpi', { ranks: job.ranks, pattern, bytesPerRank: p.bytesPerRank, reps: p.warmup + p.perJob, dir, collective: true });
      peer.push(...recs.filter((x) => x.rep >= p.warmup));
    }
    return { ...sampleHead(job, rep), cases: [], peer, load: [round(before, 2), round(loadavg()[0], 2)], wallMs: round(performance.now() - t0, 1) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function sampleHead(job: IoJob, rep: number): Pick<IoJobSample, 'part' | 'impl' | 'round' | 'label' | 'ranks' | 'nodes' | 'storage' | 'servers' | 'listIo' | 'eagerLimit' | 'throttle'> {
  return {
    part: job.part,
    impl: job.impl,
    round: rep,
    label: job.label,
    ranks: job.ranks,
    nodes: job.nodes,
    storage: job.storage,
    servers: job.servers,
    ...(job.listIo !== undefined ? { listIo: job.listIo } : {}),
    ...(job.eagerLimit !== undefined ? { eagerLimit: job.eagerLimit } : {}),
    ...(job.throttle !== undefined ? { throttle: job.throttle } : {}),
  };
}

/** The last commit of src/io in this checkout, '+ changes' when src/io differs from it; undefined outside a git checkout. */
export function ioSource(): string | undefined {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  try {
    const git = (...a: string[]): string => execFileSync('git', ['-C', root, ...a], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 }).trim();
    const commit = git('log', '-1', '--format=%h %cs', '--', 'src/io');
    if (commit === '') return undefined;
    return `${commit}${git('status', '--porcelain', '--', 'src/io') !== '' ? ' + uncommitted changes' : ''}`;
  } catch {
    return undefined;
  }
}

export function checkPlan(p: IoPlan): void {
  const bad = (what: string): never => {
    throw new CollectivesError('ARGUMENT', `I/O experiment: ${what}`);
  };
  const int = (x: number, lo: number, hi: number): boolean => Number.isInteger(x) && x >= lo && x <= hi;
  if (!int(p.reps, 1, 100) || !int(p.perJob, 1, 100) || !int(p.compareRounds, 1, 100) || !int(p.warmup, 0, 100)) bad('rounds and repetitions must be integers from 1 to 100 (warm-up repetitions from 0)');
  if (!int(p.bytesPerRank, 8 * KiB, 256 * MiB) || p.bytesPerRank % (32 * 256) !== 0) bad(`bytes per rank must be a multiple of 8 KiB (a tile row: 256 elements of 32 B) from 8 KiB to 256 MiB, got ${p.bytesPerRank}`);
  if (!int(p.throttleBytes, 1, 256 * MiB)) bad('the throttle part\'s bytes per rank must be from 1 B to 256 MiB');
  if ([...p.scalingServers, p.compareServers, p.listServers].some((s) => !int(s, 1, 16))) bad('server counts must be integers from 1 to 16');
  if ([...p.scalingRanks, p.compareRanks, p.listRanks, p.throttleRanks].some((r) => !int(r, 1, 64))) bad('rank counts must be integers from 1 to 64');
  if (p.eagerSizes.some((s) => !int(s, 1, 64 * MiB)) || p.eagerLimits.some((l) => !int(l, 0, 16 * MiB)) || !int(p.eagerOps, 1, 1e6)) bad('eager sizes, limits and operations must be positive integers (limits may be 0)');
}

/** Run the plan's jobs (see the header) and summarise them. */
export async function runIoMeasure(plan: IoPlan = FULL_PLAN, o: MeasureRunOptions = {}): Promise<IoMeasureResult> {
  checkPlan(plan);
  const t0 = performance.now();
  const started = new Date().toISOString();
  const loadBefore = loadavg().map((x) => round(x, 2));
  const source = ioSource();
  const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  const program = fileURLToPath(new URL(`./io-program.${ext}`, import.meta.url));
  const wantPeer = o.peer ?? true;
  const peer = wantPeer && plan.parts.includes('compare') && peerAvailable('openmpi');
  const peerMissing = !plan.parts.includes('compare') ? undefined : !wantPeer ? 'not asked for (--no-peer)' : peer ? undefined : 'Open MPI is not installed (mpicc.openmpi and mpirun.openmpi): apt-get install -y openmpi-bin libopenmpi-dev';
  const rounds = Math.max(plan.reps, plan.parts.includes('compare') ? plan.compareRounds : 1);
  const perRound = Array.from({ length: rounds }, (_, rep) => planJobs(plan, rep, peer));
  const total = perRound.reduce((s, j) => s + j.length, 0);
  const samples: IoJobSample[] = [];
  let done = 0;
  for (let rep = 0; rep < rounds; rep++) {
    for (const job of perRound[rep]) {
      o.onJob?.(done, total, `${job.label} (round ${rep + 1}/${rounds})`);
      if (o.idleBusy !== undefined) await waitForIdle(o.idleBusy, 30_000);
      samples.push(job.impl === 'openmpi' ? await runOpenMpi(job, rep, plan) : await runOurs(job, rep, program, o));
      done++;
    }
  }
  o.onJob?.(total, total, 'done');
  return summarize(plan, samples, {
    started,
    finished: new Date().toISOString(),
    loadBefore,
    loadAfter: loadavg().map((x) => round(x, 2)),
    seconds: round((performance.now() - t0) / 1000, 1),
    dirs: { tmpfs: tmpfsDir(), disk: tmpdir() },
    ...(peerMissing ? { peerMissing } : {}),
    ...(source ? { source } : {}),
  });
}

// ---- summaries ---------------------------------------------------------------------

export function spreadOf(xs: readonly number[]): Spread {
  const v = xs.filter((x) => Number.isFinite(x));
  if (v.length === 0) return { median: NaN, min: NaN, max: NaN };
  return { median: round(median(v), 2), min: round(Math.min(...v), 2), max: round(Math.max(...v), 2) };
}

/** Aggregate MB/s of every timed repetition: ranks × bytes / time / 10^6. */
function mbps(samples: readonly { ranks: number; bytes: number; writeS: readonly number[]; writeSyncS: readonly number[]; readS: readonly number[] }[]): PhaseMBps {
  const of = (f: (s: (typeof samples)[number]) => readonly number[]): number[] => samples.flatMap((s) => f(s).map((t) => (s.ranks * s.bytes) / Math.max(t, 1e-9) / 1e6));
  return { write: spreadOf(of((s) => s.writeS)), writeSync: spreadOf(of((s) => s.writeSyncS)), read: spreadOf(of((s) => s.readS)), samples: samples.reduce((a, s) => a + s.writeS.length, 0) };
}

const oursTimes = (s: IoJobSample, pattern: IoPattern) =>
  s.cases
    .filter((c) => c.kind === 'phases' && c.pattern === pattern)
    .map((c) => ({ ranks: c.ranks, bytes: c.bytesPerRank ?? 0, writeS: c.writeS ?? [], writeSyncS: c.writeSyncS ?? [], readS: c.readS ?? [] }));

const peerTimes = (s: IoJobSample, pattern: IoPattern) =>
  s.peer.filter((x) => x.pattern === pattern).map((x) => ({ ranks: x.ranks, bytes: x.bytesPerRank, writeS: [x.write_s], writeSyncS: [x.write_sync_s], readS: [x.read_s] }));

const uniq = <T>(xs: readonly T[]): T[] => [...new Set(xs)];

export function summarize(
  plan: IoPlan,
  samples: readonly IoJobSample[],
  run: { started: string; finished: string; loadBefore: readonly number[]; loadAfter: readonly number[]; seconds: number; dirs: Readonly<Record<Storage, string>>; peerMissing?: string; machine?: string; source?: string },
): IoMeasureResult {
  const of = (part: IoPart) => samples.filter((s) => s.part === part);
  const scalingPoints: ScalingPoint[] = [];
  for (const pattern of plan.patterns) {
    for (const ranks of uniq(of('scaling').map((s) => s.ranks)).sort((a, b) => a - b)) {
      for (const servers of uniq(of('scaling').map((s) => s.servers)).sort((a, b) => a - b)) {
        const ss = of('scaling').filter((s) => s.ranks === ranks && s.servers === servers);
        if (ss.length === 0) continue;
        scalingPoints.push({ pattern, ranks, nodes: ss[0].nodes, servers, ...mbps(ss.flatMap((s) => oursTimes(s, pattern))) });
      }
    }
  }
  const comparePoints: ComparePoint[] = [];
  const breakdownPoints: BreakdownPoint[] = [];
  for (const storage of uniq(of('compare').map((s) => s.storage))) {
    for (const pattern of plan.patterns) {
      for (const impl of ['local', 'pfs', 'openmpi'] as const) {
        const ss = of('compare').filter((s) => s.storage === storage && s.impl === impl);
        if (ss.length === 0) continue;
        const times = ss.flatMap((s) => (impl === 'openmpi' ? peerTimes(s, pattern) : oursTimes(s, pattern)));
        if (times.length > 0) comparePoints.push({ storage, pattern, impl, ...mbps(times) });
        if (impl === 'openmpi') continue;
        const bd = ss.flatMap((s) => s.cases.filter((c) => c.kind === 'breakdown' && c.pattern === pattern));
        if (bd.length === 0) continue;
        for (const phase of ['write', 'read'] as const) {
          const rec = (c: IoCaseRecord): Record<string, number[]> => (phase === 'write' ? c.writeSteps : c.readSteps) ?? {};
          const med = (k: string): number => round(median(bd.flatMap((c) => rec(c)[k] ?? [])), 3);
          const stepMs = Object.fromEntries(STEPS.map((k) => [k, med(k)])) as Record<Step, number>;
          const totalMs = med('total');
          const other = round(median(bd.flatMap((c) => (rec(c).total ?? []).map((t, i) => t - STEPS.reduce((a, k) => a + (rec(c)[k]?.[i] ?? 0), 0)))), 3);
          breakdownPoints.push({
            storage,
            pattern,
            impl,
            phase,
            totalMs,
            slowestMs: round(median(bd.flatMap((c) => ((phase === 'write' ? c.writeS : c.readS) ?? []).map((x) => x * 1000))), 3),
            steps: { ...stepMs, other },
          });
        }
      }
    }
  }
  const listPoints: ListPoint[] = [];
  for (const listIo of [true, false]) {
    const ss = of('listio').filter((s) => s.listIo === listIo);
    if (ss.length === 0) continue;
    const counters = ss.map((s) => s.counters).filter((c): c is IoCounters => c !== undefined);
    // Calls per job: every rank writes and reads once per repetition (the warm-up one included).
    const calls = ss.map((s) => s.ranks * 2 * (plan.warmup + (s.cases[0]?.writeS?.length ?? 0)));
    const per = (f: (c: IoCounters) => number): number => round(median(counters.map((c, i) => f(c) / calls[i])), 2);
    listPoints.push({ listIo, ...mbps(ss.flatMap((s) => oursTimes(s, 'tile'))), requestsPerCall: per((c) => c.listRequests), regionsPerCall: per((c) => c.listRegions), counters });
  }
  const eagerPoints: EagerPoint[] = [];
  for (const limit of uniq(of('eager').map((s) => s.eagerLimit ?? 0)).sort((a, b) => a - b)) {
    const recs = of('eager')
      .filter((s) => s.eagerLimit === limit)
      .flatMap((s) => s.cases.filter((c) => c.kind === 'latency'));
    for (const bytes of plan.eagerSizes) {
      const at = (f: (c: IoCaseRecord) => readonly number[] | undefined): number[] =>
        recs.flatMap((c) => {
          const i = (c.sizes ?? []).indexOf(bytes);
          const v = f(c)?.[i];
          return i >= 0 && v !== undefined ? [v] : [];
        });
      if (at((c) => c.writeUs).length === 0) continue;
      eagerPoints.push({ limit, bytes, writeUs: spreadOf(at((c) => c.writeUs)), readUs: spreadOf(at((c) => c.readUs)), sizeUs: spreadOf(at((c) => c.sizeUs)) });
    }
  }
  const throttlePoints: ThrottlePoint[] = [];
  const key = (t: ThrottleSetting): string => settingLabel(t);
  for (const setting of plan.throttleSettings) {
    const ss = of('throttle').filter((s) => s.throttle !== undefined && key(s.throttle) === key(setting));
    if (ss.length === 0) continue;
    throttlePoints.push({ setting, ...mbps(ss.flatMap((s) => oursTimes(s, 'contiguous'))), counters: ss.map((s) => s.counters).filter((c): c is IoCounters => c !== undefined) });
  }
  return {
    plan,
    started: run.started,
    finished: run.finished,
    machine: run.machine ?? `${cpus().length} CPU(s), ${cpus()[0]?.model?.trim() ?? 'unknown'}`,
    loadBefore: run.loadBefore,
    loadAfter: run.loadAfter,
    seconds: run.seconds,
    dirs: run.dirs,
    ...(run.peerMissing ? { peerMissing: run.peerMissing } : {}),
    ...(run.source ? { source: run.source } : {}),
    samples,
    scalingPoints,
    comparePoints,
    breakdownPoints,
    listPoints,
    eagerPoints,
    throttlePoints,
  };
}

// ---- output ------------------------------------------------------------------------

export interface Table {
  readonly id: IoPart;
  readonly title: string;
  readonly head: readonly string[];
  readonly rows: readonly (readonly string[])[];
  readonly notes: readonly string[];
  readonly left?: number;
}

const f0 = (x: number): string => (Number.isFinite(x) ? x.toFixed(0) : '—');
const f1 = (x: number): string => (Number.isFinite(x) ? x.toFixed(1) : '—');
const range = (s: Spread): string => (Number.isFinite(s.median) ? `${f0(s.median)} (${f0(s.min)}–${f0(s.max)})` : '—');
const rangeUs = (s: Spread): string => (Number.isFinite(s.median) ? `${f0(s.median)} (${f0(s.min)}–${f0(s.max)})` : '—');
export const ratio = (a: number, b: number): string => (Number.isFinite(a / b) && b > 0 ? `${(a / b).toFixed(2)}×` : '—');
const IMPL_LABEL: Record<Impl, string> = { local: 'ours, local file', pfs: 'ours, pfs:', openmpi: 'Open MPI MPI-IO' };

export function scalingTable(r: IoMeasureResult): Table | undefined {
  const pts = r.scalingPoints;
  if (pts.length === 0) return undefined;
  return {
    id: 'scaling',
    title: `Scaling — pfs: on tmpfs (${r.dirs.tmpfs}), collective writeAtAll / readAtAll, ${sizeLabel(r.plan.bytesPerRank)} per rank, stripe ${sizeLabel(DEFAULT_STRIPE)}: aggregate MB/s, median (min–max) of ${pts[0].samples} repetition(s)`,
    head: ['pattern', 'ranks', 'nodes', 'servers', 'write', 'write+sync', 'read'],
    rows: pts.map((p) => [p.pattern, String(p.ranks), String(p.nodes), String(p.servers), range(p.write), range(p.writeSync), range(p.read)]),
    notes: [],
    left: 1,
  };
}

export function compareTable(r: IoMeasureResult): Table | undefined {
  const pts = r.comparePoints;
  if (pts.length === 0) return undefined;
  const rows: string[][] = [];
  for (const storage of uniq(pts.map((p) => p.storage))) {
    for (const pattern of uniq(pts.map((p) => p.pattern))) {
      const at = (impl: Impl) => pts.find((p) => p.storage === storage && p.pattern === pattern && p.impl === impl);
      const o = at('openmpi');
      for (const impl of ['local', 'pfs', 'openmpi'] as const) {
        const p = at(impl);
        if (!p) continue;
        const rel = (f: (x: PhaseMBps) => Spread): string => (impl === 'openmpi' || !o ? '' : ratio(f(p).median, f(o).median));
        rows.push([`${storage} (${r.dirs[storage]})`, pattern, IMPL_LABEL[impl], range(p.write), rel((x) => x.write), range(p.writeSync), rel((x) => x.writeSync), range(p.read), rel((x) => x.read)]);
      }
    }
  }
  const n = pts[0].samples;
  return {
    id: 'compare',
    title: `Against Open MPI — ${r.plan.compareRanks} ranks (ours on ${r.plan.compareNodes} node processes, pfs: on ${r.plan.compareServers} servers storing in the same directory), ${sizeLabel(r.plan.bytesPerRank)} per rank, collective: aggregate MB/s, median (min–max) of ${n} repetition(s) in ${Math.max(r.plan.reps, r.plan.compareRounds)} alternating round(s); ratios ours / Open MPI`,
    head: ['storage', 'pattern', 'implementation', 'write', '/ OMPI', 'write+sync', '/ OMPI', 'read', '/ OMPI'],
    rows,
    notes: r.peerMissing ? [`no Open MPI comparison: ${r.peerMissing}`] : [],
    left: 3,
  };
}

export function breakdownTable(r: IoMeasureResult): Table | undefined {
  const pts = r.breakdownPoints;
  if (pts.length === 0) return undefined;
  const st = (p: BreakdownPoint, k: Step | 'other'): string => f1(p.steps[k]);
  return {
    id: 'compare',
    title: `Where ours' collective time goes — writeAtAll / readAtAll of the compare jobs taken apart: rank 0's time inside each step (the communicator's collectives and the storage's calls, timed by wrappers while the call runs; "other" is the rest, computation in the rank), ms, median; rank 0 aggregates when the ranks' extents interleave (the tile), else every rank accesses its own block`,
    head: ['storage', 'pattern', 'implementation', 'call', 'rank 0', 'slowest', 'file', 'size', 'exchange', 'lists', 'allgather+alltoall', 'barrier', 'other'],
    rows: pts.map((p) => [p.storage, p.pattern, IMPL_LABEL[p.impl], p.phase === 'write' ? 'writeAtAll' : 'readAtAll', f1(p.totalMs), f1(p.slowestMs), st(p, 'file'), st(p, 'size'), st(p, 'exchange'), st(p, 'lists'), f1(p.steps.allgather + p.steps.alltoall), st(p, 'barrier'), st(p, 'other')]),
    notes: [],
    left: 4,
  };
}

export function listTable(r: IoMeasureResult): Table | undefined {
  const pts = r.listPoints;
  if (pts.length === 0) return undefined;
  const c = (p: ListPoint, f: (x: IoCounters) => number): string => p.counters.map(f).join(' / ');
  return {
    id: 'listio',
    title: `Claim 15 — list I/O: tile pattern, independent writeAt / readAt through the subarray view, ${r.plan.listRanks} ranks on ${r.plan.listNodes} node processes, pfs: on ${r.plan.listServers} servers (tmpfs), ${sizeLabel(r.plan.bytesPerRank)} per rank: aggregate MB/s, median (min–max) of ${pts[0].samples} repetition(s); the servers' counters per job`,
    head: ['requests', 'write', 'write+sync', 'read', 'list requests per call', 'regions per call', 'eager / pull / push per job'],
    rows: pts.map((p) => [p.listIo ? 'one list per server (listIo: true)' : 'one per region (listIo: false)', range(p.write), range(p.writeSync), range(p.read), f1(p.requestsPerCall), f1(p.regionsPerCall), p.counters.map((x) => `${x.eager}/${x.rendezvousPull}/${x.rendezvousPush}`).join(', ')]),
    notes: pts.length === 2 ? [`list / per-region: write ${ratio(pts[0].write.median, pts[1].write.median)}, read ${ratio(pts[0].read.median, pts[1].read.median)}; list requests per job: ${pts.map((p) => `${p.listIo ? 'list' : 'per region'} ${c(p, (x) => x.listRequests)}`).join('; ')}`] : [],
    left: 1,
  };
}

export function eagerTable(r: IoMeasureResult): Table | undefined {
  const pts = r.eagerPoints;
  if (pts.length === 0) return undefined;
  const sizes = uniq(pts.map((p) => p.bytes));
  const limits = uniq(pts.map((p) => p.limit));
  const rows: string[][] = [];
  for (const limit of limits) {
    for (const [what, f] of [['writeAt', (p: EagerPoint) => p.writeUs], ['readAt', (p: EagerPoint) => p.readUs], ['getSize', (p: EagerPoint) => p.sizeUs]] as const) {
      rows.push([`${limit} B`, what, ...sizes.map((b) => {
        const p = pts.find((x) => x.limit === limit && x.bytes === b);
        return p ? rangeUs(f(p)) : '—';
      })]);
    }
  }
  const jobs = r.samples.filter((s) => s.part === 'eager');
  return {
    id: 'eager',
    title: `Eager vs rendezvous — one rank, pfs: on 1 server (tmpfs), independent calls at offset 0: median µs per call over ${r.plan.eagerOps} calls (min–max over ${uniq(jobs.map((s) => s.round)).length} job(s)); getSize() is a round trip with no data`,
    head: ['eager limit', 'call', ...sizes.map(sizeLabel)],
    rows,
    notes: limits.map((l) => {
      const cs = jobs.filter((s) => s.eagerLimit === l && s.counters).map((s) => s.counters!);
      return `limit ${l} B: the server saw ${cs.map((c) => `${c.eager} eager, ${c.rendezvousPull + c.rendezvousPush} rendezvous`).join('; ')} data requests per job`;
    }),
    left: 2,
  };
}

export function throttleTable(r: IoMeasureResult): Table | undefined {
  const pts = r.throttlePoints;
  if (pts.length === 0) return undefined;
  const med = (p: ThrottlePoint, f: (c: IoCounters) => number): string => {
    const xs = p.counters.map(f);
    return xs.length === 0 ? '—' : uniq(xs).length === 1 ? String(xs[0]) : `${median(xs)} (${Math.min(...xs)}–${Math.max(...xs)})`;
  };
  return {
    id: 'throttle',
    title: `Claim 16 — adaptive rendezvous, throttle and completion: ${r.plan.throttleRanks} ranks on ${r.plan.throttleNodes} node processes, ${sizeLabel(r.plan.throttleBytes)} each, independent writeAt / readAt to 1 server (tmpfs), loaded at ${DEFAULT_MESSAGING.loadedAt} transfers: aggregate MB/s, median (min–max) of ${pts[0].samples} repetition(s); the server's counters per job (median, min–max over jobs)`,
    head: ['rendezvous', 'maxBulk', 'completion', 'write', 'write+sync', 'read', 'pulls', 'pushes', 'throttled', 'max concurrent', 'FIN messages'],
    rows: pts.map((p) => [p.setting.rendezvous, String(p.setting.maxBulk), p.setting.completion, range(p.write), range(p.writeSync), range(p.read), med(p, (c) => c.rendezvousPull), med(p, (c) => c.rendezvousPush), med(p, (c) => c.throttled), med(p, (c) => c.maxConcurrentBulk), med(p, (c) => c.finMessages)]),
    notes: [],
    left: 3,
  };
}

export function measureTableList(r: IoMeasureResult): Table[] {
  return [scalingTable(r), compareTable(r), breakdownTable(r), listTable(r), eagerTable(r), throttleTable(r)].filter((t): t is Table => t !== undefined);
}

export function tableText(t: Table): string {
  const align = Array.from({ length: t.left ?? 1 }, () => 'l' as const);
  return [t.title, ...formatTable([t.head, ...t.rows], { align, others: 'r' }), ...t.notes.map((n) => `  ${n}`)].join('\n');
}

export function tableMarkdown(t: Table): string {
  const left = t.left ?? 1;
  const esc = (s: string): string => s.replace(/\|/g, '\\|');
  const dash = t.title.indexOf(' — ');
  return [
    dash > 0 ? `**${t.title.slice(0, dash)}** — ${t.title.slice(dash + 3)}` : t.title,
    '',
    `| ${t.head.map(esc).join(' | ')} |`,
    `|${t.head.map((_, i) => (i < left ? '---' : '---:')).join('|')}|`,
    ...t.rows.map((row) => `| ${row.map(esc).join(' | ')} |`),
    ...(t.notes.length > 0 ? ['', ...t.notes.map((n) => `- ${n}`)] : []),
  ].join('\n');
}

function runLine(r: IoMeasureResult): string {
  return `${r.samples.length} jobs in ${r.seconds} s, ${r.plan.reps} round(s) (compare: ${Math.max(r.plan.reps, r.plan.compareRounds)}), ${r.plan.perJob} timed repetition(s) per job after ${r.plan.warmup} warm-up, ${r.started.replace('T', ' ').slice(0, 16)}–${r.finished.slice(11, 16)} UTC on ${r.machine}${r.source ? `, src/io at ${r.source}` : ''}; load average ${r.loadBefore.map((x) => x.toFixed(2)).join(' ')} before, ${r.loadAfter.map((x) => x.toFixed(2)).join(' ')} after`;
}

export function measureTables(r: IoMeasureResult): string {
  return [`parallel I/O measured: ${runLine(r)}`, ...(r.peerMissing ? [`NO OPEN MPI COMPARISON: ${r.peerMissing}`] : []), ...measureTableList(r).map(tableText)].join('\n\n');
}

export const DOCS_MARKERS = {
  begin: '<!-- io-measure:begin (generated by `coll experiment io --docs`; edits inside are overwritten) -->',
  end: '<!-- io-measure:end -->',
};

/** The generated docs section: the run, each table and its plot (paths relative to the docs file). */
export function measureMarkdown(r: IoMeasureResult, plots: Partial<Record<string, string>> = {}): string {
  const parts = [`Run: ${runLine(r)}. Medians over every timed repetition, min–max in brackets. MB = 10^6 bytes.`];
  if (r.peerMissing) parts.push(`**No Open MPI comparison in this run:** ${r.peerMissing}.`);
  const shown = new Set<string>();
  for (const t of measureTableList(r)) {
    parts.push(tableMarkdown(t));
    const p = plots[t.id];
    if (p && !shown.has(t.id)) {
      parts.push(`![${t.id}](${p})`);
      shown.add(t.id);
    }
  }
  return parts.join('\n\n');
}

// ---- plots -------------------------------------------------------------------------

export interface BarGroup {
  readonly name: string;
  /** One value per bar series (NaN: none). */
  readonly values: readonly number[];
}

/** Grouped vertical bars: one group per label, one bar per series, a legend on the right. */
export function barChartSvg(c: { title: string; yLabel: string; series: readonly string[]; groups: readonly BarGroup[]; width?: number; height?: number }): string {
  const legend = Math.max(200, 48 + 7 * Math.max(0, ...c.series.map((s) => s.length)));
  const w = c.width ?? Math.max(660, 90 + c.groups.length * (c.series.length * 18 + 24)) + legend;
  const h = c.height ?? 480;
  const [x0, x1, y1, y0] = [70, w - legend, 36, h - 110];
  const vals = c.groups.flatMap((g) => g.values).filter((v) => Number.isFinite(v));
  const top = Math.max(1, ...vals);
  const raw = top / 6;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? raw;
  const yMax = Math.ceil(top / step) * step;
  const y = (v: number): number => y0 - (v / yMax) * (y0 - y1);
  let body = `<rect x="${x0}" y="${y1}" width="${x1 - x0}" height="${y0 - y1}" fill="none" stroke="#444"/>\n`;
  for (let t = 0; t <= yMax + step / 2; t += step) {
    body += `<line x1="${x0}" y1="${y(t).toFixed(1)}" x2="${x1}" y2="${y(t).toFixed(1)}" stroke="#ddd"/><text x="${x0 - 6}" y="${(y(t) + 4).toFixed(1)}" text-anchor="end">${formatTick(+t.toPrecision(12))}</text>\n`;
  }
  body += `<text transform="translate(${x0 - 52},${(y0 + y1) / 2}) rotate(-90)" text-anchor="middle">${escapeXml(c.yLabel)}</text>\n`;
  const gw = (x1 - x0) / Math.max(1, c.groups.length);
  const bw = Math.min(28, (gw - 12) / Math.max(1, c.series.length));
  c.groups.forEach((g, i) => {
    const gx = x0 + i * gw + (gw - bw * c.series.length) / 2;
    g.values.forEach((v, k) => {
      if (!Number.isFinite(v)) return;
      body += `<rect x="${(gx + k * bw).toFixed(1)}" y="${y(v).toFixed(1)}" width="${(bw - 2).toFixed(1)}" height="${(y0 - y(v)).toFixed(1)}" fill="${color(k)}"><title>${escapeXml(`${g.name}, ${c.series[k]}: ${+v.toPrecision(4)}`)}</title></rect>\n`;
    });
    const cx = x0 + (i + 0.5) * gw;
    body += `<text transform="translate(${cx.toFixed(1)},${y0 + 12}) rotate(30)" text-anchor="start" font-size="11">${escapeXml(g.name)}</text>\n`;
  });
  c.series.forEach((s, k) => {
    body += `<rect x="${x1 + 14}" y="${y1 + 8 + k * 18}" width="12" height="12" fill="${color(k)}"/><text x="${x1 + 32}" y="${y1 + 18 + k * 18}">${escapeXml(s)}</text>\n`;
  });
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" font-family="sans-serif" font-size="12">\n` +
    `<rect width="${w}" height="${h}" fill="white"/>\n` +
    `<text x="${w / 2}" y="20" text-anchor="middle" font-size="15">${escapeXml(c.title)}</text>\n${body}</svg>\n`
  );
}

export function scalingPlot(r: IoMeasureResult): string {
  const series: Series[] = [];
  for (const pattern of uniq(r.scalingPoints.map((p) => p.pattern))) {
    for (const ranks of uniq(r.scalingPoints.map((p) => p.ranks))) {
      const ps = r.scalingPoints.filter((p) => p.pattern === pattern && p.ranks === ranks);
      for (const [phase, f] of [['write', (p: ScalingPoint) => p.write], ['write+sync', (p: ScalingPoint) => p.writeSync], ['read', (p: ScalingPoint) => p.read]] as const) {
        if (ps.length > 0) series.push({ name: `${pattern}, ${ranks} ranks, ${phase}`, points: ps.map((p) => [p.servers, f(p).median] as [number, number]) });
      }
    }
  }
  return lineChartSvg({ title: `pfs: collective I/O on tmpfs vs servers (${sizeLabel(r.plan.bytesPerRank)} per rank), aggregate MB/s`, x: { label: 'I/O servers' }, y: { label: 'MB/s' }, series });
}

export function comparePlot(r: IoMeasureResult): string {
  const impls = (['local', 'pfs', 'openmpi'] as const).filter((i) => r.comparePoints.some((p) => p.impl === i));
  const groups: BarGroup[] = [];
  for (const storage of uniq(r.comparePoints.map((p) => p.storage))) {
    for (const pattern of uniq(r.comparePoints.map((p) => p.pattern))) {
      for (const [phase, f] of [['write', (p: ComparePoint) => p.write], ['write+sync', (p: ComparePoint) => p.writeSync], ['read', (p: ComparePoint) => p.read]] as const) {
        groups.push({
          name: `${storage} ${pattern} ${phase}`,
          values: impls.map((i) => {
            const p = r.comparePoints.find((x) => x.storage === storage && x.pattern === pattern && x.impl === i);
            return p ? f(p).median : NaN;
          }),
        });
      }
    }
  }
  return barChartSvg({ title: `Collective I/O, ${r.plan.compareRanks} ranks × ${sizeLabel(r.plan.bytesPerRank)}: ours vs Open MPI MPI-IO (median MB/s)`, yLabel: 'aggregate MB/s', series: impls.map((i) => IMPL_LABEL[i]), groups });
}

export function listPlot(r: IoMeasureResult): string {
  const groups: BarGroup[] = (['write', 'writeSync', 'read'] as const).map((ph) => ({ name: ph === 'writeSync' ? 'write+sync' : ph, values: [true, false].map((l) => r.listPoints.find((p) => p.listIo === l)?.[ph].median ?? NaN) }));
  return barChartSvg({ title: 'Claim 15: tile pattern, independent calls through the view, pfs: on 2 servers', yLabel: 'aggregate MB/s', series: ['one list request per server', 'one request per region'], groups });
}

export function eagerPlot(r: IoMeasureResult): string {
  const series: Series[] = [];
  for (const limit of uniq(r.eagerPoints.map((p) => p.limit))) {
    const ps = r.eagerPoints.filter((p) => p.limit === limit);
    series.push({ name: `writeAt, eager limit ${limit} B`, points: ps.map((p) => [p.bytes, p.writeUs.median] as [number, number]) });
    series.push({ name: `readAt, eager limit ${limit} B`, points: ps.map((p) => [p.bytes, p.readUs.median] as [number, number]) });
  }
  const all = r.eagerPoints;
  if (all.length > 0) series.push({ name: 'getSize() (no data), all limits', points: uniq(all.map((p) => p.bytes)).map((b) => [b, median(all.filter((p) => p.bytes === b).map((p) => p.sizeUs.median))] as [number, number]) });
  return lineChartSvg({ title: 'Eager vs rendezvous: one rank, pfs: on 1 server, median µs per call', x: { label: 'bytes per call', log: true }, y: { label: 'µs per call', log: true }, series });
}

export function throttlePlot(r: IoMeasureResult): string {
  const groups: BarGroup[] = r.throttlePoints.map((p) => ({ name: settingLabel(p.setting), values: [p.write.median, p.writeSync.median, p.read.median] }));
  return barChartSvg({ title: `Claim 16: ${r.plan.throttleRanks} clients × ${sizeLabel(r.plan.throttleBytes)} to 1 server`, yLabel: 'aggregate MB/s', series: ['write', 'write+sync', 'read'], groups });
}

/** The plots of the parts that have points (file name io-<part>.svg). */
export function measurePlots(r: IoMeasureResult): { part: IoPart; name: string; svg: string }[] {
  const out: { part: IoPart; name: string; svg: string }[] = [];
  const add = (part: IoPart, has: boolean, f: () => string): void => {
    if (has) out.push({ part, name: `io-${part}.svg`, svg: f() });
  };
  add('scaling', r.scalingPoints.length > 0, () => scalingPlot(r));
  add('compare', r.comparePoints.length > 0, () => comparePlot(r));
  add('listio', r.listPoints.length > 0, () => listPlot(r));
  add('eager', r.eagerPoints.length > 0, () => eagerPlot(r));
  add('throttle', r.throttlePoints.length > 0, () => throttlePlot(r));
  return out;
}

/** A result written by measureJson, summarised again. */
export function resultFromJson(j: unknown): IoMeasureResult {
  const o = j as Partial<IoMeasureResult> & { experiment?: string };
  if (!o || o.experiment !== 'io-measure' || !o.plan || !Array.isArray(o.samples)) throw new CollectivesError('ARGUMENT', 'not the JSON of `coll experiment io --json`');
  const num = (v: unknown): number => (typeof v === 'number' ? v : NaN);
  const fix = (xs: unknown): number[] | undefined => (Array.isArray(xs) ? xs.map(num) : undefined);
  const samples = (o.samples as readonly IoJobSample[]).map((s) => ({
    ...s,
    cases: s.cases.map((c) => ({
      ...c,
      writeS: fix(c.writeS),
      writeSyncS: fix(c.writeSyncS),
      readS: fix(c.readS),
      writeUs: fix(c.writeUs),
      readUs: fix(c.readUs),
      sizeUs: fix(c.sizeUs),
    })),
  }));
  return summarize(o.plan, samples, {
    started: o.started ?? '',
    finished: o.finished ?? '',
    loadBefore: o.loadBefore ?? [],
    loadAfter: o.loadAfter ?? [],
    seconds: o.seconds ?? NaN,
    dirs: o.dirs ?? { tmpfs: tmpfsDir(), disk: tmpdir() },
    ...(o.peerMissing ? { peerMissing: o.peerMissing } : {}),
    ...(o.machine ? { machine: o.machine } : {}),
    ...(o.source ? { source: o.source } : {}),
  });
}

/** The result as JSON (NaN → null). */
export function measureJson(r: IoMeasureResult): object {
  return JSON.parse(JSON.stringify({ experiment: 'io-measure', ...r }, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v))) as object;
}
