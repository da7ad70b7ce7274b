/**
 * The multicast experiment (`coll experiment multicast`, src/experiments/multicast-*.ts)
 * and its `coll reproduce 003` rows: the L0 + S/C fit, the jobs a plan makes, the
 * program's records, the summaries, tables, markdown and plots from synthetic jobs,
 * the pass/fail logic of the rows on synthetic results, the CLI's option rules, and
 * one small real run (3 node processes: the node sweep's two algorithms, split-phase
 * off at 1 and 4 channels, a corrupt-only and a blocked-node fault run).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import {
  caseTiming,
  checksumCosts,
  DOCS_MARKERS,
  FULL_PLAN,
  fitChannels,
  measureJson,
  measureMarkdown,
  measurePlots,
  measureTables,
  parseCase,
  planJobs,
  QUICK_PLAN,
  runMulticastMeasure,
  SEED_FIT,
  summarize,
  type McastJobSample,
  type McastMeasureResult,
  type McastPlan,
  type NodeMcast,
} from '../../src/experiments/multicast-measure.js';
import type { McastCaseRecord } from '../../src/experiments/multicast-program.js';
import { multicastChecks, REPRODUCE_PLAN } from '../../src/experiments/multicast-reproduce.js';

// ---- synthetic jobs ------------------------------------------------------------------

function counters(node: number, x: Partial<NodeMcast> = {}): NodeMcast {
  return {
    node, messagesSent: 0, fragmentsSent: 0, fragmentsReceived: 0, setsSynced: 0, syncMs: 0, syncMsMax: 0, stalls: 0, stallMs: 0, polls: 0, closes: 0,
    nacksSent: 0, nacksReceived: 0, retransmissions: 0, resyncs: 0, failovers: 0, treeFrames: 0, duplicates: 0, corrupt: 0,
    injectedLoss: 0, injectedDup: 0, injectedReorder: 0, injectedCorrupt: 0, ...x,
  };
}

function rec(algorithm: 'multicast' | 'binomial', bytes: number, b2b: number, single: number, x: Partial<McastCaseRecord> = {}): McastCaseRecord {
  return { name: algorithm, algorithm, bytes, calls: 100, sampleUs: [b2b * 1.1, b2b, b2b * 0.9], singleUs: single > 0 ? [single, single * 2, single * 0.5] : [], errors: 0, checked: 300, ms: 10, ...x };
}

function job(part: McastJobSample['part'], nodes: number, rep: number, x: Partial<McastJobSample>): McastJobSample {
  return { part, nodes, rep, mcast: 'on', faults: '', cases: [], multicast: [counters(0)], load: [0.5, 0.6], initMs: 300, wallMs: 1000, ...x };
}

const PLAN: McastPlan = { ...FULL_PLAN, reps: 2, nodes: [2, 4], channels: [1, 2, 16], setSizes: [4, 64], sizes: [8, 256, 65536], faultNodes: 4, bandwidthSizes: [65536, 1048576], bandwidthNodes: [2] };

/** Two repetitions of every part, with figures chosen so that every exact row passes. */
function samples(): McastJobSample[] {
  const out: McastJobSample[] = [];
  for (let rep = 0; rep < 2; rep++) {
    const d = rep * 5;
    for (const n of [2, 4]) out.push(job('nodes', n, rep, { cases: [rec('multicast', 8, 100 * n + d, 600 * n), rec('binomial', 8, 50 * n + d, 300 * n)] }));
    for (const c of [1, 2, 16]) {
      // 320 broadcasts, 3 early closes (after the warm-up and between samples).
      const full = Math.floor((320 - 3) / c);
      out.push(job('channels', 8, rep, { channels: c, sets: 1, cases: [rec('multicast', 8, 200 + 2000 / c + d, 0)], multicast: [counters(0, { messagesSent: 320, setsSynced: full + 3, closes: 3, syncMs: (full + 3) * 2, stalls: full, stallMs: full * 1.5 })] }));
    }
    for (const [k, size, stalls, syncMax] of [[1, 4, 150, 8], [4, 4, 140, 19], [1, 64, 14, 15], [4, 64, 0, 12]] as const) {
      out.push(job('sets', 4, rep, { channels: k * size, sets: k, gapUs: 500, cases: [rec('multicast', 8, 300, 0)], multicast: [counters(0, { messagesSent: 620, setsSynced: Math.ceil(620 / size), syncMs: Math.ceil(620 / size) * 5, syncMsMax: syncMax, stalls, stallMs: stalls * 1.2 })] }));
    }
    for (const reliable of [true, false]) {
      out.push(job('reliability', 2, rep, { reliable, cases: [8, 256, 65536].map((b) => ({ ...rec('multicast', b, (b > 1000 ? 500 : 100) + (reliable ? 2 : 0), 700), name: String(b) })) }));
    }
    const fault = (name: string, faults: string, receivers: Partial<NodeMcast>, rootX: Partial<NodeMcast>, blockedNode?: number): McastJobSample =>
      job('faults', 4, rep, {
        fault: name,
        faults,
        ...(blockedNode !== undefined ? { blockedNode } : {}),
        cases: [rec('multicast', 8, 300, 0, { name: '8 B', checked: 600 }), rec('multicast', 65536, 4000, 0, { name: '64 KiB', checked: 60 })],
        multicast: [counters(0, rootX), counters(1, receivers), counters(2, receivers), counters(3, receivers)],
      });
    out.push(fault('corrupt', `corrupt=0.05,seed=${7 + rep}`, { corrupt: 10, nacksSent: 8, injectedCorrupt: 12 }, { resyncs: 20, retransmissions: 22 }));
    out.push(fault('mix', `loss=0.2,dup=0.1,reorder=0.2,corrupt=0.1,seed=${7 + rep}`, { corrupt: 5, nacksSent: 12, injectedLoss: 30 }, { resyncs: 30, retransmissions: 80, failovers: 1, treeFrames: 300 }));
    out.push(fault('blocked', `loss=1,node=3,seed=${7 + rep}`, { injectedLoss: 40 }, { polls: 20, failovers: 1, treeFrames: 800 }, 3));
    out.push(job('bandwidth', 2, rep, { cases: [rec('multicast', 65536, 1000, 0), rec('multicast', 1048576, 7000, 0), rec('binomial', 65536, 200, 0), rec('binomial', 1048576, 1700, 0)] }));
  }
  return out;
}

const RUN = { started: '2026-11-26T10:00:00.000Z', finished: '2026-11-26T10:05:00.000Z', loadBefore: [0.5, 0.4, 0.3], loadAfter: [1, 0.8, 0.5], seconds: 300, costs: [8, 256, 65536].map((bytes) => ({ bytes, fragments: Math.ceil(bytes / 8192), crcUs: 0.1 * Math.ceil(bytes / 8192), hmacUs: 2 * Math.ceil(bytes / 8192) })) };

const result = (ss: McastJobSample[] = samples()): McastMeasureResult => summarize(PLAN, ss, RUN);

const row = (rows: ReturnType<typeof multicastChecks>, start: string) => {
  const r = rows.find((c) => c.claim.startsWith(start));
  expect(r, start).toBeDefined();
  return r!;
};

// ---- tests ---------------------------------------------------------------------------

describe('fitChannels (L = L0 + S/C)', () => {
  it('recovers L0 and S exactly from points on the curve, r² = 1', () => {
    const f = fitChannels([1, 2, 4, 8, 16, 32].map((c) => ({ channels: c, us: 40 + 600 / c })))!;
    expect(f.l0).toBeCloseTo(40, 9);
    expect(f.s).toBeCloseTo(600, 9);
    expect(f.r2).toBeCloseTo(1, 12);
    expect(f.points).toBe(6);
  });

  it("gives the seed's L0 ≈ 2.5 µs and S ≈ 29.3 µs from 17.1 µs at 2 channels and 4.3 at 16", () => {
    expect(SEED_FIT.s).toBeCloseTo(29.257, 2);
    expect(SEED_FIT.l0).toBeCloseTo(2.471, 2);
  });

  it('least squares on noisy points; undefined below two points or without spread in C', () => {
    const f = fitChannels([{ channels: 2, us: 110 }, { channels: 4, us: 70 }, { channels: 8, us: 40 }, { channels: 16, us: 35 }])!;
    expect(f.s).toBeGreaterThan(0);
    expect(f.r2).toBeGreaterThan(0.9);
    expect(f.r2).toBeLessThan(1);
    expect(fitChannels([{ channels: 2, us: 1 }])).toBeUndefined();
    expect(fitChannels([{ channels: 2, us: 1 }, { channels: 2, us: 3 }])).toBeUndefined();
  });
});

describe('the jobs of a plan', () => {
  it('one job per point and repetition, variants rotated, the multicast settings in COLL_MCAST / COLL_MCAST_FAULTS', () => {
    const a = planJobs(FULL_PLAN, 0);
    const b = planJobs(FULL_PLAN, 1);
    const count = (js: typeof a, p: string) => js.filter((j) => j.part === p).length;
    expect([count(a, 'nodes'), count(a, 'channels'), count(a, 'sets'), count(a, 'reliability'), count(a, 'faults'), count(a, 'bandwidth')]).toEqual([4, 6, 28, 2, 3, 2]);
    expect(a.filter((j) => j.part === 'nodes').map((j) => j.nodes)).toEqual([2, 4, 8, 16]);
    expect(b.filter((j) => j.part === 'nodes').map((j) => j.nodes)).toEqual([4, 8, 16, 2]);
    expect(a.find((j) => j.part === 'nodes')?.cases.map((c) => c.algorithm)).toEqual(['multicast', 'binomial']);
    expect(b.find((j) => j.part === 'nodes')?.cases.map((c) => c.algorithm)).toEqual(['binomial', 'multicast']);
    expect(a.filter((j) => j.part === 'channels').map((j) => j.mcast)).toEqual([1, 2, 4, 8, 16, 32].map((c) => `sets=1,channels=${c}`));
    const sets = a.filter((j) => j.part === 'sets');
    const big = sets.filter((j) => j.mcast === 'sets=4,channels=256,idle=200000');
    expect(big.map((j) => [j.gapUs, j.cases[0].calls, j.cases[0].gapUs])).toEqual([
      [0, 512, undefined],
      [500, 512, 500],
    ]);
    expect(a.filter((j) => j.part === 'reliability').map((j) => j.mcast)).toEqual(['reliable=1', 'reliable=0']);
    expect(a.filter((j) => j.part === 'faults').map((j) => j.faults)).toEqual(['corrupt=0.05,seed=7', 'loss=0.2,dup=0.1,reorder=0.2,corrupt=0.1,seed=7', 'loss=1,node=3,seed=7']);
    expect(a.find((j) => j.fault === 'blocked')?.blockedNode).toBe(3);
    expect(a.filter((j) => j.part === 'faults').every((j) => j.cases.every((c) => c.verify === 'full'))).toBe(true);
    expect(planJobs({ ...FULL_PLAN, parts: ['faults'] }, 0).every((j) => j.part === 'faults')).toBe(true);
  });

  it('fewer calls for large messages; the quick and reproduce plans are small', () => {
    const t = FULL_PLAN.timing;
    expect(caseTiming(16384, t)).toEqual(t);
    const big = caseTiming(16 * 1024 * 1024, t);
    expect(big.calls).toBeLessThan(t.calls);
    expect(big.samples).toBe(2);
    expect(caseTiming(1024 * 1024, { ...t, single: 0 }).single).toBe(0);
    const jobs = (p: McastPlan) => Array.from({ length: p.reps }, (_, r) => planJobs(p, r).length).reduce((a, b) => a + b, 0);
    expect(jobs(QUICK_PLAN)).toBeLessThan(20);
    expect(jobs(REPRODUCE_PLAN)).toBeLessThan(25);
    expect(REPRODUCE_PLAN.parts).not.toContain('bandwidth');
  });
});

describe('the program output', () => {
  it('parses rank 0 CASE records only, and rejects malformed ones', () => {
    const r = rec('multicast', 8, 100, 500);
    expect(parseCase(`[0] EXP CASE ${JSON.stringify(r)}`)).toEqual(r);
    expect(parseCase(`[1] EXP CASE ${JSON.stringify(r)}`)).toBeUndefined();
    expect(parseCase('[0] something else')).toBeUndefined();
    expect(() => parseCase('[0] EXP CASE {"name":"x"}')).toThrow(/malformed CASE/);
  });
});

describe('summaries, tables, markdown, plots (synthetic jobs)', () => {
  it('medians over the repetitions per point', () => {
    const r = result();
    const m2 = r.nodesPoints.find((p) => p.nodes === 2 && p.algorithm === 'multicast')!;
    expect(m2.b2bUs).toEqual({ median: 202.5, min: 200, max: 205 });
    expect(m2.singleUs.median).toBe(1200);
    expect(m2.runs).toBe(2);
    expect(r.channelsPoints.map((p) => p.channels)).toEqual([1, 2, 16]);
    expect(r.channelsPoints[0].syncsPerBcast).toBeCloseTo(320 / 320, 3);
    expect(r.channelFit!.s).toBeCloseTo(2000, 0);
    expect(r.channelFit!.l0).toBeCloseTo(202.5, 0);
    const s4 = r.setsPoints.find((p) => p.sets === 4 && p.setSize === 64)!;
    expect(s4.useMs).toBeCloseTo(19.2, 3);
    expect(s4.stalls).toBe(0);
    expect(r.setsPoints.find((p) => p.sets === 1 && p.setSize === 4)!.stallsPerSet).toBeCloseTo(150 / 155, 3);
    const r8 = r.reliabilityPoints.find((p) => p.bytes === 8)!;
    expect(r8.costB2bUs).toBe(2);
    expect(r8.crcUs).toBe(0.1);
    expect(r.faultRuns.map((f) => f.name)).toEqual(['corrupt', 'mix', 'blocked', 'corrupt', 'mix', 'blocked']);
    const c = r.faultRuns[0];
    expect([c.checked, c.errors, c.corrupt, c.nacks, c.resyncs, c.retransmissions, c.injected.corrupt]).toEqual([660, 0, 30, 24, 20, 22, 36]);
    expect(r.bandwidthPoints.find((p) => p.algorithm === 'binomial' && p.bytes === 1048576)!.mbps.median).toBeCloseTo(1048576 / 1700, 0);
  });

  it('tables, markdown between the markers, JSON without NaN, one plot per part with points', () => {
    const r = result();
    const text = measureTables(r);
    for (const s of ['Claim 1', 'Claim 2', 'Claim 3', 'Claim 4', 'Claim 5', 'Bandwidth', 'fit L = L0 + S/C', 'seed: L0 ≈ 2.5 µs, S ≈ 29.3 µs']) expect(text).toContain(s);
    const md = measureMarkdown(r, { nodes: 'img/multicast-nodes.svg' });
    expect(md).toContain('| nodes | multicast b2b |');
    expect(md).toContain('**Claim 1 — 8-byte bcast against node processes (1 rank each)**: µs per call');
    expect(md).toContain('![nodes](img/multicast-nodes.svg)');
    expect(md).toContain('loss=1,node=3,seed=7');
    expect(DOCS_MARKERS.begin).toContain('multicast-measure:begin');
    const json = JSON.stringify(measureJson({ ...r, nodesPoints: [{ ...r.nodesPoints[0], singleUs: { median: NaN, min: NaN, max: NaN } }] }));
    expect(json).not.toContain('NaN');
    const plots = measurePlots(r);
    expect(plots.map((p) => p.name)).toEqual(['multicast-nodes.svg', 'multicast-channels.svg', 'multicast-sets.svg', 'multicast-reliability.svg', 'multicast-bandwidth.svg']);
    for (const p of plots) expect(p.svg).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
    expect(measurePlots(summarize(PLAN, samples().filter((s) => s.part === 'faults'), RUN))).toEqual([]);
  });

  it('checksumCosts: per message, sender and one receiver, more for more fragments', () => {
    const [a, b] = checksumCosts([8, 65536]);
    expect(a.fragments).toBe(1);
    expect(b.fragments).toBe(8);
    expect(b.crcUs).toBeGreaterThan(a.crcUs);
    expect(b.hmacUs).toBeGreaterThan(a.hmacUs);
  });
});

describe('coll reproduce 003 rows (synthetic results)', () => {
  it('the exact rows pass on figures that follow the protocol; timing rows are information', () => {
    const rows = multicastChecks(result());
    expect(rows.map((c) => [c.claim.slice(0, 8), c.status])).toEqual([
      ['claim 1:', 'info'],
      ['claim 2:', 'info'],
      ['claim 2:', 'pass'],
      ['claim 3:', 'pass'],
      ['claim 3:', 'info'],
      ['claim 4:', 'info'],
      ['claim 5:', 'pass'],
      ['claim 5:', 'pass'],
      ['claim 5:', 'pass'],
    ]);
    expect(row(rows, 'claim 2: with split-phase off, latency').ours).toMatch(/falling at every step\); fit L0 = 20[23] µs, S = 2000 µs/);
    expect(row(rows, 'claim 3: split-phase').ours).toMatch(/^size 64 \(paced 500 µs, 2 jobs\): use-up 19\.2 ms, sync 5\.0 ms \(max 12\.0\), 0 stall\(s\) in 20 sets$/);
    expect(rows.every((c) => c.seed === 'seed 003')).toBe(true);
  });

  it('fails on wrong data, missing NACKs or rebroadcasts, no fail-over, stalls where a set outlasts the sync, syncs off the bound', () => {
    const base = samples();
    const edit = (f: (s: McastJobSample) => McastJobSample | undefined): McastJobSample[] => base.map((s) => f(s) ?? s);
    const status = (ss: McastJobSample[], start: string) => row(multicastChecks(result(ss)), start).status;
    // A wrong byte in a corrupt run.
    expect(status(edit((s) => (s.fault === 'corrupt' && s.rep === 1 ? { ...s, cases: [{ ...s.cases[0], errors: 1 }, s.cases[1]] } : undefined)), 'claim 5: a corrupt fragment')).toBe('fail');
    // Corruption without a rebroadcast.
    expect(status(edit((s) => (s.fault === 'corrupt' ? { ...s, multicast: [counters(0), ...s.multicast.slice(1)] } : undefined)), 'claim 5: a corrupt fragment')).toBe('fail');
    // Blocked node without fail-over.
    expect(status(edit((s) => (s.fault === 'blocked' ? { ...s, multicast: s.multicast.map((m) => ({ ...m, failovers: 0, treeFrames: 0 })) } : undefined)), 'claim 5: repeated failures')).toBe('fail');
    // Mixed faults without NACKs.
    expect(status(edit((s) => (s.fault === 'mix' ? { ...s, multicast: s.multicast.map((m) => ({ ...m, nacksSent: 0 })) } : undefined)), 'claim 5: loss, duplication')).toBe('fail');
    // A stall with 4 sets where using up a set (19.2 ms) outlasts the slowest sync (12 ms).
    const stalled = edit((s) => (s.part === 'sets' && s.sets === 4 && s.channels === 256 ? { ...s, multicast: [{ ...s.multicast[0], stalls: 1 }] } : undefined));
    expect(status(stalled, 'claim 3: split-phase')).toBe('fail');
    // No 4-set job where a set outlasts the slowest sync: information, not a pass.
    const slow = edit((s) => (s.part === 'sets' && s.sets === 4 ? { ...s, multicast: [{ ...s.multicast[0], syncMsMax: 100 }] } : undefined));
    expect(status(slow, 'claim 3: split-phase')).toBe('info');
    expect(row(multicastChecks(result(slow)), 'claim 3: split-phase').ours).toMatch(/^no 4-set job/);
    // More syncs than one per C broadcasts plus the early closes.
    const extra = edit((s) => (s.part === 'channels' && s.channels === 16 && s.rep === 0 ? { ...s, multicast: [{ ...s.multicast[0], setsSynced: 40 }] } : undefined));
    expect(status(extra, 'claim 2: with split-phase off the sender')).toBe('fail');
    // Syncs per broadcast that do not fall with the channels.
    const flat = edit((s) => (s.part === 'channels' && s.channels === 16 ? { ...s, channels: 2 } : undefined));
    expect(status(flat, 'claim 2: with split-phase off the sender')).toBe('fail');
  });

  it('no rows for parts without jobs', () => {
    expect(multicastChecks(summarize(PLAN, [], RUN))).toEqual([]);
  });
});

describe('coll experiment multicast (CLI)', () => {
  let err: string[];
  beforeEach(() => {
    err = [];
    vi.spyOn(console, 'log').mockImplementation(() => undefined);
    vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  });
  afterEach(() => vi.restoreAllMocks());

  it('--help, and bad options are errors before any job', async () => {
    expect(await main(['experiment', 'multicast', '--help'])).toBe(0);
    expect(await main(['experiment', 'multicast', '--part', 'everything'])).not.toBe(0);
    expect(await main(['experiment', 'multicast', '--nodes', '1'])).not.toBe(0);
    expect(await main(['experiment', 'multicast', '--reps', '0'])).not.toBe(0);
    expect(await main(['experiment', 'multicast', '--idle', '2'])).not.toBe(0);
    expect(err.join('\n')).toMatch(/--part 'everything' is not one of nodes, channels, sets, reliability, faults, bandwidth/);
  });

  it('--from FILE: the tables, plots and docs section again from an earlier --json, without jobs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'coll-mcast-from-'));
    const file = join(dir, 'm.json');
    writeFileSync(file, JSON.stringify(measureJson(result())));
    const doc = join(dir, 'docs', 'multicast.md');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 'docs'));
    writeFileSync(doc, '# Multicast\n\nhand-written\n');
    expect(await main(['experiment', 'multicast', '--from', file, '--plot', join(dir, 'docs', 'img'), '--docs', doc])).toBe(0);
    const text = readFileSync(doc, 'utf8');
    expect(text).toMatch(/^# Multicast\n\nhand-written\n\n<!-- multicast-measure:begin/);
    expect(text).toContain('![channels](img/multicast-channels.svg)');
    expect(text).toContain('| 2 | 203 (200–205) | 103 (100–105) |');
    expect(readFileSync(join(dir, 'docs', 'img', 'multicast-sets.svg'), 'utf8')).toMatch(/^<svg/);
    expect(await main(['experiment', 'multicast', '--from', file, '--reps', '2'])).not.toBe(0);
    expect(await main(['experiment', 'multicast', '--from', doc])).not.toBe(0);
  });
});

describe('a small real run (3 node processes)', () => {
  it('both algorithms per node count, syncs per broadcast, a corrupt-only and a blocked-node fault run, and the docs section', async () => {
    const plan: McastPlan = {
      ...FULL_PLAN,
      parts: ['nodes', 'channels', 'faults'],
      reps: 1,
      timing: { warmup: 5, samples: 2, calls: 20, single: 5 },
      nodes: [3],
      channels: [1, 4],
      channelNodes: 3,
      faults: [{ name: 'corrupt', faults: 'corrupt=0.2' }, { name: 'blocked', faults: 'loss=1', blocked: true }],
      faultNodes: 3,
      faultCalls: [30, 3],
    };
    const seen: string[] = [];
    const r = await runMulticastMeasure(plan, { onJob: (_d, _t, what) => seen.push(what) });
    expect(seen).toHaveLength(6);
    expect(r.samples).toHaveLength(5);
    expect(r.nodesPoints.map((p) => p.algorithm).sort()).toEqual(['binomial', 'multicast']);
    for (const p of r.nodesPoints) {
      expect(p.b2bUs.median).toBeGreaterThan(0);
      expect(p.singleUs.median).toBeGreaterThan(0);
    }
    // The nodes job: 5 + 2·20 + 5 multicasts from the root, each delivered to both other nodes.
    const nodesJob = r.samples.find((s) => s.part === 'nodes')!;
    expect(nodesJob.multicast.find((m) => m.node === 0)?.messagesSent).toBe(50);
    expect(nodesJob.multicast.filter((m) => m.node > 0).map((m) => m.fragmentsReceived)).toEqual([50, 50]);
    expect(nodesJob.cases.every((c) => c.errors === 0 && c.checked > 0)).toBe(true);
    const one = r.channelsPoints.find((p) => p.channels === 1)!;
    expect(one.syncsPerBcast).toBeGreaterThan(0.95);
    const [corrupt, blocked] = r.faultRuns;
    expect(corrupt.errors).toBe(0);
    expect(corrupt.checked).toBe(2 * 33);
    expect(corrupt.injected.corrupt).toBeGreaterThan(0);
    expect(blocked.failovers).toBeGreaterThanOrEqual(1);
    expect(blocked.errors).toBe(0);
    const rows = multicastChecks(r);
    expect(rows.filter((c) => c.status === 'fail')).toEqual([]);
    expect(row(rows, 'claim 2: with split-phase off the sender').status).toBe('pass');
    expect(row(rows, 'claim 5: a corrupt fragment').status).toBe('pass');
    expect(row(rows, 'claim 5: repeated failures').status).toBe('pass');
    // --docs keeps what is outside the markers.
    const doc = join(mkdtempSync(join(tmpdir(), 'coll-mcast-')), 'multicast.md');
    writeFileSync(doc, `# Title\n\nhand-written\n\n${DOCS_MARKERS.begin}\nold\n${DOCS_MARKERS.end}\n\nafter\n`);
    const { replaceSection } = await import('../../src/bench/matrix.js');
    writeFileSync(doc, replaceSection(readFileSync(doc, 'utf8'), measureMarkdown(r), DOCS_MARKERS));
    const text = readFileSync(doc, 'utf8');
    expect(text).toMatch(/^# Title\n\nhand-written\n\n<!-- multicast-measure:begin/);
    expect(text).not.toContain('\nold\n');
    expect(text).toMatch(/<!-- multicast-measure:end -->\n\nafter\n$/);
  });
});
