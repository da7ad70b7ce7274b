/**
 * Measured connection policies (seed 003 ch. 3, claims 11–13 and A3.11), the driver
 * behind `coll experiment connections --measure`: real jobs on this machine, one rank
 * per node process, under each policy (static, on-demand, partial; the job's other
 * connection settings are the project defaults, DEFAULT_CONNECTIONS):
 *
 * 1. start-up (claim 12): per node count K, the job report's `initMs` (launch to every
 *    rank running), `connectMs` (the slowest node's initial connections) and the mean
 *    over nodes of `startRssMb` (each node process's resident memory when its ranks
 *    run, the seed's "memory at the end of MPI_Init"); medians over the repetitions
 *    with their min–max;
 * 2. the first messages (A3.11): on 2 nodes, the round trip of each of the first 40
 *    ping-pongs of 8 B (connections-program.ts), median over the repetitions per
 *    message; from the job report, where the pair's message count passed the
 *    threshold and from which round trip both directions went over TCP;
 * 3. application time (claim 13): on 4 nodes a fixed mix of collectives (200
 *    allreduces of 8 B and 20 of 64 KiB), the slowest rank's time per pass; the
 *    first pass pays any on-demand connection set-up, the second runs on the
 *    connections made; medians and the ratio to static.
 *
 * The jobs are few and shared: the 2-node jobs of (1) also run the ping-pong and the
 * 4-node jobs the mix, after init (they do not change what init measures). Jobs run
 * interleaved (repetition, K, then the policies in an order rotated per repetition) so
 * that drift of the machine spreads over the policies. On 2 shared cores the node
 * processes of one job compete for the CPUs while they start: the tables give the
 * spread so that differences within it can be read as such.
 */
import { fileURLToPath } from 'node:url';
import { CollectivesError } from '../core/errors.js';
import { median } from '../core/stats.js';
import { formatTable } from '../core/table.js';
import { lineChartSvg, type Series } from '../plot/svg.js';
import type { JobReport } from '../runtime/job-report.js';
import { launch } from '../runtime/launcher.js';
import { CONNECTION_POLICIES, DEFAULT_CONNECTIONS, type ConnectionPolicy } from '../transport/connections.js';
import type { ConnectionsProgramConfig, LatencyConfig, LatencyRecord, MixConfig, MixRecord } from './connections-program.js';
import { SEED_NAMES } from './connections.js';
import { waitForIdle } from './job.js';
import { round } from './stats.js';

export const DEFAULT_MEASURE_NODES: readonly number[] = [2, 4, 8];
export const DEFAULT_LATENCY: LatencyConfig = { rounds: 40, bytes: 8 };
export const DEFAULT_MIX: MixConfig = { small: 200, smallBytes: 8, large: 20, largeBytes: 64 * 1024, passes: 2 };

export interface MeasureOptions {
  /** Node counts of the start-up measurement (default 2, 4, 8). */
  readonly nodes?: readonly number[];
  /** Jobs per (policy, K); medians reported (default 3). */
  readonly reps?: number;
  readonly policies?: readonly ConnectionPolicy[];
  /** Messages per pair before on-demand connects (default the project's, 16). */
  readonly threshold?: number;
  /** The ping-pong on 2 nodes (false: none). */
  readonly latency?: LatencyConfig | false;
  /** The collective mix and its node count (default 4; false: none). */
  readonly mix?: MixConfig | false;
  readonly mixNodes?: number;
  /** Wait before each job until the CPUs are at most this busy (0..1); undefined: start at once. */
  readonly idleBusy?: number;
  /** Called before each job. */
  readonly onJob?: (done: number, total: number, what: string) => void;
  /** Lines of the jobs that are not experiment records. */
  readonly onOutput?: (line: string) => void;
}

/** What the job report says about a 2-node ping-pong (node 0 pings, node 1 answers). */
export interface PingPongPaths {
  /** Messages each node sent to the other before the ping-pong (the barrier's). */
  readonly before: readonly [number, number];
  /** Data frames each node sent as datagrams (everything before its switch to TCP). */
  readonly datagrams: readonly [number, number];
  /** Pings and pongs that went as datagrams. */
  readonly pingsByDatagram: number;
  readonly pongsByDatagram: number;
  /** The round trip that carries the pair's (threshold + 1)-th message (0: none does, or static). */
  readonly crossingRound: number;
  /** The first round trip with both messages over TCP (1 when the pair was connected from the start; 0: never). */
  readonly firstTcpRound: number;
  /** Connections of the job (0 or 1) and the median set-up time, µs. */
  readonly connections: number;
  readonly setupUs: number;
}

/** One job's figures. */
export interface MeasureSample {
  readonly policy: ConnectionPolicy;
  readonly nodes: number;
  readonly rep: number;
  readonly initMs: number;
  readonly connectMs: number;
  /** Mean over nodes of startRssMb. */
  readonly rssMb: number;
  readonly connections: number;
  readonly connectionSetupUs: number;
  readonly rttUs?: readonly number[];
  readonly paths?: PingPongPaths;
  readonly mixPassMs?: readonly number[];
}

export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

export interface InitPoint {
  readonly policy: ConnectionPolicy;
  readonly nodes: number;
  readonly initMs: Spread;
  readonly connectMs: Spread;
  readonly rssMb: Spread;
  /** Pairs connected at the end of the job (median). */
  readonly connections: number;
  /** Medians relative to static's at the same K (NaN without static). */
  readonly initVsStatic: number;
  readonly rssVsStatic: number;
  readonly runs: number;
}

export interface LatencySeries {
  readonly policy: ConnectionPolicy;
  /** Median over the repetitions of each round trip, µs (message 1 first). */
  readonly rttUs: readonly number[];
  readonly minUs: readonly number[];
  readonly maxUs: readonly number[];
  /** From the job reports (medians over the repetitions). */
  readonly crossingRound: number;
  readonly firstTcpRound: number;
  readonly datagramMessages: number;
  readonly setupUs: number;
  readonly runs: number;
}

export interface MixPoint {
  readonly policy: ConnectionPolicy;
  readonly nodes: number;
  /** Per pass: the slowest rank's time, ms, over the repetitions, and the median's ratio to static's. */
  readonly passMs: readonly Spread[];
  readonly vsStatic: readonly number[];
  readonly connections: number;
  readonly runs: number;
}

export interface MeasureResult {
  readonly nodes: readonly number[];
  readonly reps: number;
  readonly policies: readonly ConnectionPolicy[];
  readonly threshold: number;
  readonly byteThreshold: number;
  readonly latency?: LatencyConfig;
  readonly mix?: MixConfig & { readonly nodes: number };
  readonly samples: readonly MeasureSample[];
  readonly init: readonly InitPoint[];
  readonly latencySeries: readonly LatencySeries[];
  readonly mixPoints: readonly MixPoint[];
  /** Wall time of the whole measurement, s. */
  readonly seconds: number;
}

const RECORD = /^\[0\] EXP ([A-Z]+) (\{.*\})$/;

/** An `EXP KIND {json}` record of rank 0 in a job's output line (program-io.ts), or undefined. */
export function parseRecord(line: string): { readonly kind: string; readonly data: unknown } | undefined {
  const m = RECORD.exec(line);
  if (!m) return undefined;
  return { kind: m[1], data: JSON.parse(m[2]) as unknown };
}

function isNumbers(x: unknown): x is number[] {
  return Array.isArray(x) && x.every((v) => typeof v === 'number');
}

/** The LATENCY record's round trips (throws on a malformed record). */
export function latencyOf(data: unknown): number[] {
  const r = data as Partial<LatencyRecord> | null;
  if (!r || !isNumbers(r.rttUs)) throw new CollectivesError('RANK_FAILED', `malformed LATENCY record: ${JSON.stringify(data)}`);
  return r.rttUs;
}

/** The MIX record's pass times (throws on a malformed record). */
export function mixOf(data: unknown): number[] {
  const r = data as Partial<MixRecord> | null;
  if (!r || !isNumbers(r.passMs)) throw new CollectivesError('RANK_FAILED', `malformed MIX record: ${JSON.stringify(data)}`);
  return r.passMs;
}

/**
 * Where a 2-node ping-pong of `rounds` round trips went, from its job report: what
 * each node received beyond the ping-pong is what the other sent before it (nothing
 * follows the ping-pong in the program); data frames sent as datagrams beyond those
 * are pings (node 0) or pongs (node 1). Every message is one frame (8 B).
 */
export function pingPongPaths(report: Pick<JobReport, 'nodes' | 'connections' | 'connectionSetupUs'>, rounds: number, threshold: number): PingPongPaths {
  const node = (i: number) => report.nodes.find((n) => n.node === i)?.connections;
  const [a, b] = [node(0), node(1)];
  if (!a || !b) throw new CollectivesError('RANK_FAILED', 'the ping-pong job report lacks the connection counters of node 0 or 1');
  const received = (c: typeof a, peer: number): number => c.traffic.find((t) => t.peer === peer)?.messagesReceived ?? 0;
  const before: [number, number] = [Math.max(0, received(b, 0) - rounds), Math.max(0, received(a, 1) - rounds)];
  const datagrams: [number, number] = [a.datagramFramesSent, b.datagramFramesSent];
  const pings = Math.min(rounds, Math.max(0, datagrams[0] - before[0]));
  const pongs = Math.min(rounds, Math.max(0, datagrams[1] - before[1]));
  const onDemand = a.policy !== 'static' && !a.initialPeers.includes(1);
  // Pair message m of the ping-pong (1-based) is in round trip ⌈m/2⌉.
  const m = threshold + 1 - (before[0] + before[1]);
  const crossingRound = onDemand && Number.isFinite(m) && m >= 1 && m <= 2 * rounds ? Math.ceil(m / 2) : 0;
  const firstTcpRound = report.connections === 0 ? 0 : Math.max(pings, pongs) + 1 <= rounds ? Math.max(pings, pongs) + 1 : 0;
  return { before, datagrams, pingsByDatagram: pings, pongsByDatagram: pongs, crossingRound, firstTcpRound, connections: report.connections, setupUs: report.connectionSetupUs };
}

const spread = (xs: readonly number[]): Spread => ({ median: round(median(xs), 2), min: round(Math.min(...xs), 2), max: round(Math.max(...xs), 2) });

/** The policies in the order of repetition `rep` (rotated, so that no policy always goes first). */
export function rotation<T>(xs: readonly T[], rep: number): T[] {
  const k = xs.length > 0 ? rep % xs.length : 0;
  return [...xs.slice(k), ...xs.slice(0, k)];
}

/** Aggregate the jobs' samples into the three measurements. */
export function summarize(
  samples: readonly MeasureSample[],
  o: { nodes: readonly number[]; policies: readonly ConnectionPolicy[]; mixNodes?: number; latencyNodes?: number },
): { init: InitPoint[]; latencySeries: LatencySeries[]; mixPoints: MixPoint[] } {
  const of = (p: ConnectionPolicy, k: number): MeasureSample[] => samples.filter((s) => s.policy === p && s.nodes === k);
  const init: InitPoint[] = [];
  for (const k of o.nodes) {
    const base = of('static', k);
    for (const p of o.policies) {
      const ss = of(p, k);
      if (ss.length === 0) continue;
      const im = median(ss.map((s) => s.initMs));
      const rm = median(ss.map((s) => s.rssMb));
      init.push({
        policy: p,
        nodes: k,
        initMs: spread(ss.map((s) => s.initMs)),
        connectMs: spread(ss.map((s) => s.connectMs)),
        rssMb: spread(ss.map((s) => s.rssMb)),
        connections: median(ss.map((s) => s.connections)),
        initVsStatic: base.length > 0 ? round(im / median(base.map((s) => s.initMs)), 3) : NaN,
        rssVsStatic: base.length > 0 ? round(rm / median(base.map((s) => s.rssMb)), 3) : NaN,
        runs: ss.length,
      });
    }
  }
  const latencySeries: LatencySeries[] = [];
  for (const p of o.policies) {
    const ss = samples.filter((s) => s.policy === p && s.rttUs && s.paths && (o.latencyNodes === undefined || s.nodes === o.latencyNodes));
    if (ss.length === 0) continue;
    const n = Math.min(...ss.map((s) => s.rttUs?.length ?? 0));
    const at = (i: number): number[] => ss.map((s) => s.rttUs?.[i] ?? NaN);
    const paths = ss.map((s) => s.paths as PingPongPaths);
    latencySeries.push({
      policy: p,
      rttUs: Array.from({ length: n }, (_, i) => round(median(at(i)), 1)),
      minUs: Array.from({ length: n }, (_, i) => round(Math.min(...at(i)), 1)),
      maxUs: Array.from({ length: n }, (_, i) => round(Math.max(...at(i)), 1)),
      crossingRound: median(paths.map((x) => x.crossingRound)),
      firstTcpRound: median(paths.map((x) => x.firstTcpRound)),
      datagramMessages: median(paths.map((x) => x.datagrams[0] + x.datagrams[1])),
      setupUs: median(paths.map((x) => x.setupUs)),
      runs: ss.length,
    });
  }
  const mixPoints: MixPoint[] = [];
  const mixed = samples.filter((s) => s.mixPassMs && (o.mixNodes === undefined || s.nodes === o.mixNodes));
  const passes = Math.min(...mixed.map((s) => s.mixPassMs?.length ?? 0));
  const passAt = (ss: readonly MeasureSample[], i: number): number[] => ss.map((s) => s.mixPassMs?.[i] ?? NaN);
  const baseMix = mixed.filter((s) => s.policy === 'static');
  for (const p of o.policies) {
    const ss = mixed.filter((s) => s.policy === p);
    if (ss.length === 0) continue;
    mixPoints.push({
      policy: p,
      nodes: ss[0].nodes,
      passMs: Array.from({ length: passes }, (_, i) => spread(passAt(ss, i))),
      vsStatic: Array.from({ length: passes }, (_, i) => (baseMix.length > 0 ? round(median(passAt(ss, i)) / median(passAt(baseMix, i)), 3) : NaN)),
      connections: median(ss.map((s) => s.connections)),
      runs: ss.length,
    });
  }
  return { init, latencySeries, mixPoints };
}

/** Run the measurement's jobs (see the header). */
export async function runConnectionsMeasure(o: MeasureOptions = {}): Promise<MeasureResult> {
  const t0 = performance.now();
  const nodes = o.nodes ?? DEFAULT_MEASURE_NODES;
  const reps = o.reps ?? 3;
  const policies = o.policies ?? CONNECTION_POLICIES;
  const threshold = o.threshold ?? DEFAULT_CONNECTIONS.threshold;
  const byteThreshold = DEFAULT_CONNECTIONS.byteThreshold;
  const latency = o.latency === false ? undefined : (o.latency ?? DEFAULT_LATENCY);
  const mix = o.mix === false ? undefined : (o.mix ?? DEFAULT_MIX);
  const mixNodes = o.mixNodes ?? 4;
  const ks = [...new Set([...nodes, ...(latency ? [2] : []), ...(mix ? [mixNodes] : [])])].sort((x, y) => x - y);
  const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  const program = fileURLToPath(new URL(`./connections-program.${ext}`, import.meta.url));
  const samples: MeasureSample[] = [];
  const total = reps * ks.length * policies.length;
  let done = 0;
  for (let rep = 0; rep < reps; rep++) {
    for (const k of ks) {
      for (const policy of rotation(policies, rep)) {
        const config: ConnectionsProgramConfig = { ...(latency && k === 2 ? { latency } : {}), ...(mix && k === mixNodes ? { mix } : {}) };
        const what = `K=${k} ${policy} (rep ${rep + 1}/${reps}${config.latency ? ', ping-pong' : ''}${config.mix ? ', collective mix' : ''})`;
        o.onJob?.(done, total, what);
        if (o.idleBusy !== undefined) await waitForIdle(o.idleBusy, 30_000);
        const records = new Map<string, unknown>();
        const r = await launch({
          ranks: k,
          nodes: k,
          program,
          args: [JSON.stringify(config)],
          arenaMb: 8,
          engine: false,
          jobTimeoutMs: 120_000,
          connections: { policy, threshold, byteThreshold },
          onLine: (_stream, line) => {
            const rec = parseRecord(line);
            if (rec) records.set(rec.kind, rec.data);
            else o.onOutput?.(line);
          },
        });
        if (r.exitCode !== 0) throw new CollectivesError('RANK_FAILED', `connections job (${what}) failed: ${r.failure ? `rank ${r.failure.rank}: ${r.failure.reason}` : `exit code ${r.exitCode}`}`);
        const rep0 = r.report;
        const rss = rep0.nodes.map((n) => n.startRssMb ?? NaN).filter((x) => Number.isFinite(x));
        const rttUs = config.latency ? latencyOf(records.get('LATENCY')) : undefined;
        samples.push({
          policy,
          nodes: k,
          rep,
          initMs: rep0.initMs,
          connectMs: rep0.connectMs,
          rssMb: rss.length > 0 ? round(rss.reduce((x, y) => x + y, 0) / rss.length, 2) : NaN,
          connections: rep0.connections,
          connectionSetupUs: rep0.connectionSetupUs,
          ...(rttUs && config.latency ? { rttUs, paths: pingPongPaths(rep0, config.latency.rounds, threshold) } : {}),
          ...(config.mix ? { mixPassMs: mixOf(records.get('MIX')) } : {}),
        });
        done++;
      }
    }
  }
  o.onJob?.(total, total, 'done');
  const s = summarize(samples, { nodes, policies, mixNodes, latencyNodes: 2 });
  return {
    nodes,
    reps,
    policies,
    threshold,
    byteThreshold,
    ...(latency ? { latency } : {}),
    ...(mix ? { mix: { ...mix, nodes: mixNodes } } : {}),
    samples,
    ...s,
    seconds: round((performance.now() - t0) / 1000, 1),
  };
}

// ---- output -------------------------------------------------------------------

const f1 = (x: number): string => (Number.isFinite(x) ? x.toFixed(1) : '—');
const pct = (ratio: number): string => (Number.isFinite(ratio) ? `${ratio >= 1 ? '+' : '−'}${Math.abs((ratio - 1) * 100).toFixed(1)}%` : '—');
const range = (s: Spread, d = 1): string => `${s.median.toFixed(d)} (${s.min.toFixed(d)}–${s.max.toFixed(d)})`;

/** The head and rows, the first `left` columns left-aligned and the others right-aligned. */
function grid(head: readonly string[], rows: readonly (readonly string[])[], left = 1): string[] {
  return formatTable([head, ...rows], { align: Array.from({ length: left }, () => 'l' as const), others: 'r' });
}

/** Does `a` lie outside `b`'s min–max range (a difference larger than the spread)? */
const outside = (a: Spread, b: Spread): boolean => a.median < b.min || a.median > b.max;

export function initTable(r: MeasureResult): string {
  const rows = r.init.map((p) => [
    String(p.nodes),
    `${p.policy} (${SEED_NAMES[p.policy]})`,
    range(p.initMs),
    range(p.connectMs),
    range(p.rssMb),
    String(p.connections),
    p.policy === 'static' ? '' : pct(p.initVsStatic),
    p.policy === 'static' ? '' : pct(p.rssVsStatic),
  ]);
  const lines = [
    `start-up per policy: K node processes, 1 rank each; median (min–max) of ${r.reps} job(s); memory = mean over nodes of the node process's resident set when its ranks run`,
    ...grid(['K', 'policy', 'initMs', 'connectMs', 'start RSS MiB', 'connected pairs', 'init vs static', 'RSS vs static'], rows, 2),
  ];
  // Is any difference to static larger than the spread of either?
  const verdict = (a: Spread, b: Spread, runs: number): string => (runs < 2 ? '(one job: no spread to judge by)' : outside(a, b) && outside(b, a) ? '(beyond both spreads)' : '(within the spread)');
  for (const k of r.nodes) {
    const base = r.init.find((p) => p.nodes === k && p.policy === 'static');
    if (!base) continue;
    for (const p of r.init.filter((x) => x.nodes === k && x.policy !== 'static')) {
      const runs = Math.min(p.runs, base.runs);
      const same = p.policy === 'partial' && k <= 4 ? ' — partial connects every pair at start for K ≤ 4 (±2^i covers all), so this row is static again: its difference is noise' : '';
      lines.push(`  K=${k} ${p.policy}: init ${pct(p.initVsStatic)} ${verdict(p.initMs, base.initMs, runs)}, RSS ${pct(p.rssVsStatic)} ${verdict(p.rssMb, base.rssMb, runs)}${same}`);
    }
  }
  return lines.join('\n');
}

export function latencyTable(r: MeasureResult): string {
  if (r.latencySeries.length === 0) return '';
  const s = r.latencySeries;
  const n = Math.max(...s.map((x) => x.rttUs.length));
  const od = s.find((x) => x.policy === 'on-demand');
  const note = (i: number): string => {
    if (!od) return '';
    const m = i + 1;
    if (m === od.crossingRound) return `on-demand: the pair's ${r.threshold + 1}th message (threshold ${r.threshold}) → request`;
    if (od.firstTcpRound > 0 && m === od.firstTcpRound) return 'on-demand: first round trip over TCP both ways';
    if (od.firstTcpRound > 0 && m > od.crossingRound && m < od.firstTcpRound) return 'on-demand: set-up under way (datagrams)';
    return '';
  };
  const rows = Array.from({ length: n }, (_, i) => [String(i + 1), ...s.map((x) => f1(x.rttUs[i])), note(i)]);
  const lat = r.latency ?? DEFAULT_LATENCY;
  const lines = [
    `first messages: ${lat.rounds} ping-pongs of ${lat.bytes} B between 2 node processes after a barrier, round trip µs (median of ${s[0].runs} job(s) per message)`,
    ...grid(['msg', ...s.map((x) => x.policy), ''], rows, 0),
  ];
  for (const x of s) {
    const seg = (a: number, b: number): string => {
      const v = x.rttUs.slice(a, b);
      return v.length > 0 ? f1(median(v)) : '—';
    };
    if (x.policy === 'static' || x.firstTcpRound === 1) {
      lines.push(`  ${x.policy}: connected from the start; median round trip 1–10 ${seg(0, 10)} µs, 11–${n} ${seg(10, n)} µs`);
    } else if (x.firstTcpRound > 0) {
      const c = x.crossingRound;
      const t = x.firstTcpRound;
      lines.push(
        `  ${x.policy}: ${x.datagramMessages} messages as datagrams (barrier included), threshold passed in round trip ${c}, TCP both ways from round trip ${t} (set-up ${f1(x.setupUs / 1000)} ms, the pair keeps using datagrams meanwhile); median round trip 2–${c - 1} ${seg(1, c - 1)} µs, ${c}–${t - 1} ${seg(c - 1, t - 1)} µs, ${t}–${n} ${seg(t - 1, n)} µs`,
      );
      const st = s.find((y) => y.policy === 'static');
      if (st) {
        const sum = (v: readonly number[]): number => v.slice(0, t - 1).reduce((a, b) => a + b, 0) / 1000;
        lines.push(`    round trips 1–${t - 1} take ${sum(x.rttUs).toFixed(1)} ms in all against static's ${sum(st.rttUs).toFixed(1)} ms (${(sum(x.rttUs) - sum(st.rttUs)).toFixed(1)} ms more for this pair)`);
      }
    } else {
      lines.push(`  ${x.policy}: no connection within ${n} round trips; median round trip ${seg(0, n)} µs`);
    }
  }
  return lines.join('\n');
}

export function mixTable(r: MeasureResult): string {
  if (r.mixPoints.length === 0 || !r.mix) return '';
  const m = r.mix;
  const passes = r.mixPoints[0].passMs.length;
  const rows = r.mixPoints.map((p) => [`${p.policy} (${SEED_NAMES[p.policy]})`, ...p.passMs.flatMap((s, i) => [range(s, 2), p.policy === 'static' ? '1' : p.vsStatic[i].toFixed(3)]), String(p.connections)]);
  const head = ['policy', ...Array.from({ length: passes }, (_, i) => [`pass ${i + 1} ms${i === 0 ? ' (with set-up)' : ''}`, 'vs static']).flat(), 'connected pairs'];
  return [
    `collective mix on ${m.nodes} node processes: ${m.small} allreduce of ${m.smallBytes} B + ${m.large} of ${m.largeBytes / 1024} KiB (float64 sum) per pass, slowest rank; median (min–max) of ${r.mixPoints[0].runs} job(s)`,
    ...grid(head, rows),
  ].join('\n');
}

/** The three tables and the comparison with the seed's claim 12. */
export function measureTables(r: MeasureResult): string {
  const parts = [
    `measured connection policies (threshold ${r.threshold} messages${Number.isFinite(r.byteThreshold) ? ` or ${r.byteThreshold / 1024} KiB` : ''} per pair for on-demand and partial), ${r.samples.length} jobs in ${r.seconds} s`,
    initTable(r),
    latencyTable(r),
    mixTable(r),
    seedComparison(r),
  ];
  return parts.filter((x) => x.length > 0).join('\n\n');
}

/** Claim 12 beside what was measured at the largest K. */
export function seedComparison(r: MeasureResult): string {
  const k = Math.max(...r.init.map((p) => p.nodes));
  if (!Number.isFinite(k)) return '';
  const at = (p: ConnectionPolicy): InitPoint | undefined => r.init.find((x) => x.nodes === k && x.policy === p);
  const small = Math.min(...r.init.map((p) => p.nodes));
  const line = (p: ConnectionPolicy, seed: string): string => {
    const x = at(p);
    return x ? `  ${p} (${SEED_NAMES[p]}) at K=${k}: init ${pct(x.initVsStatic)}, RSS ${pct(x.rssVsStatic)} vs static; seed at 32 processes: ${seed}` : '';
  };
  const smallOd = r.init.find((x) => x.nodes === small && x.policy === 'on-demand');
  return [
    'seed 003 claim 12 (start-up of MPI_Init, 32 processes on InfiniBand):',
    line('on-demand', 'init −15 to −20%, memory −17%'),
    line('partial', 'init about −10%, memory about −12%'),
    smallOd ? `  at small N the seed's ACM starts slightly slower than static; here on-demand at K=${small}: init ${pct(smallOd.initVsStatic)}` : '',
  ]
    .filter((x) => x.length > 0)
    .join('\n');
}

export function measureJson(r: MeasureResult): object {
  return {
    experiment: 'connections-measure',
    threshold: r.threshold,
    byteThreshold: Number.isFinite(r.byteThreshold) ? r.byteThreshold : null,
    reps: r.reps,
    nodes: r.nodes,
    latency: r.latency ?? null,
    mix: r.mix ?? null,
    seconds: r.seconds,
    init: r.init.map((p) => ({ ...p, seedName: SEED_NAMES[p.policy] })),
    latencySeries: r.latencySeries,
    mixPoints: r.mixPoints,
    samples: r.samples,
  };
}

/** Round trip against message number, one line per policy (log y: the first message and the datagram path are far above TCP). */
export function latencyPlot(r: MeasureResult): string {
  const series: Series[] = r.latencySeries.map((x) => ({
    name:
      x.policy === 'static' || x.firstTcpRound === 1
        ? `${x.policy} (${SEED_NAMES[x.policy]})`
        : x.firstTcpRound > 0
          ? `${x.policy} (${SEED_NAMES[x.policy]}): threshold at ${x.crossingRound}, TCP from ${x.firstTcpRound}`
          : `${x.policy} (${SEED_NAMES[x.policy]}): datagrams only`,
    points: x.rttUs.map((v, i) => [i + 1, v] as [number, number]),
  }));
  const lat = r.latency ?? DEFAULT_LATENCY;
  return lineChartSvg({
    title: `First ${lat.rounds} ping-pongs of ${lat.bytes} B between 2 node processes, per policy (seed 003 A3.11), median of ${r.latencySeries[0]?.runs ?? 0}`,
    x: { label: 'round trip (message) number' },
    y: { label: 'round trip, µs', log: true },
    series,
  });
}
