/**
 * `coll view`'s loader (src/view/load.ts) on the fixtures (real command outputs) and
 * on broken files: the kind recognised by tag or shape, the normalised views (schedule
 * steps and bytes, bench medians and ratio cells, tune points in µs), and errors that
 * name the file, the problem and the commands that write each kind.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BenchView, ModelView, ScheduleView } from '../../src/view/document.js';
import { loadViewDocument, loadViewFile, parseViewFile } from '../../src/view/load.js';
import { median } from '../../src/core/stats.js';
import { fixture } from './harness.js';

const tmp = mkdtempSync(join(tmpdir(), 'coll-view-load-'));
const write = (name: string, text: string): string => {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
};
const errorOf = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('no error');
};

describe('coll view loads', () => {
  it('a schedule: ranks in order, one view step per schedule step, bytes at 8 B per element', () => {
    const v = loadViewFile(fixture('schedule-allreduce-ring-8.json')) as ScheduleView & { name: string };
    expect(v).toMatchObject({ kind: 'schedule', name: 'schedule-allreduce-ring-8.json', collective: 'allreduce', algorithm: 'ring', size: 8, elementBytes: 8 });
    expect(v.ranks.map((r) => r.rank)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const raw = JSON.parse(readFileSync(fixture('schedule-allreduce-ring-8.json'), 'utf8')) as { schedule: { steps: { kind: string; region?: { count: number } }[]; rounds: number }[] };
    expect(v.ranks[3].steps.length).toBe(raw.schedule[3].steps.length);
    const send = v.ranks[0].steps.find((s) => s.kind === 'send');
    expect(send?.peer).toBe(1);
    expect(send?.bytes).toBe((send?.count ?? 0) * 8);
    expect(v.rounds).toBe(Math.max(...raw.schedule.map((r) => r.rounds)));
    expect(v.stats).toBeDefined();
  });

  it('a schedule: tagged (now) or untagged (before the tag), with the file\'s element size', () => {
    const raw = JSON.parse(readFileSync(fixture('schedule-bcast-binomial-16.json'), 'utf8')) as object;
    const v = parseViewFile(JSON.stringify({ ...raw, format: 'collectives-schedule', version: 1, elementBytes: 4 }), 'b.json') as ScheduleView;
    const send = v.ranks[0].steps.find((s) => s.kind === 'send');
    expect(v.elementBytes).toBe(4);
    expect(send?.bytes).toBe((send?.count ?? 0) * 4);
    const { format: _f, version: _v, elementBytes: _e, ...untagged } = raw as { format?: string; version?: number; elementBytes?: number };
    const old = parseViewFile(JSON.stringify(untagged), 'old.json') as ScheduleView;
    expect(old.elementBytes).toBe(8);
    expect(old.ranks).toEqual((parseViewFile(JSON.stringify(raw), 'new.json') as ScheduleView).ranks);
  });

  it('a timeline (a Chrome trace of coll sim) through the timeline loader', () => {
    const v = loadViewFile(fixture('timeline-sim-allreduce-16.json'));
    expect(v.kind).toBe('timeline');
    if (v.kind !== 'timeline') return;
    expect(v.ranks).toBe(16);
    expect(v.spans.lane.length).toBeGreaterThan(100);
  });

  it('a timeline of a real run (coll run --trace): its ranks, and the node engines as NIC lanes', () => {
    const v = loadViewFile(fixture('timeline-run-allreduce-4.json'));
    expect(v.kind).toBe('timeline');
    if (v.kind !== 'timeline') return;
    expect(v.source).toBe('run');
    expect(v.ranks).toBe(4);
    expect(v.lanes).toContain('rank 0 nic');
    expect(v.kinds).toEqual(expect.arrayContaining(['send', 'recv', 'reduce']));
  });

  it('bench lines: one series per implementation and algorithm with the median per size, ratios against the peer', () => {
    const v = loadViewFile(fixture('bench-allreduce-2.jsonl')) as BenchView;
    expect(v.kind).toBe('bench');
    const lines = readFileSync(fixture('bench-allreduce-2.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { impl?: string; requested: string; bytes: number; avg_us: number });
    const auto = v.series.find((s) => s.impl === 'collectives' && s.algorithm === 'auto');
    expect(auto?.bytes).toEqual(lines.filter((l) => !l.impl && l.requested === 'auto').map((l) => l.bytes));
    expect(v.series.find((s) => s.impl === 'collectives' && s.algorithm === 'allreduce/ring')).toBeDefined();
    const peer = v.series.find((s) => s.impl !== 'collectives');
    if (!peer) return; // no Open MPI when the fixture was made
    expect(peer.algorithm).toBe('');
    const cell = v.ratios.find((r) => r.bytes === 8);
    const ours = lines.find((l) => !l.impl && l.requested === 'auto' && l.bytes === 8)?.avg_us ?? NaN;
    const theirs = lines.find((l) => l.impl && l.bytes === 8)?.avg_us ?? NaN;
    expect(cell).toMatchObject({ peer: peer.impl, ranks: 2, collective: 'allreduce', oursUs: ours, peerUs: theirs });
    expect(cell?.ratio).toBeCloseTo(ours / theirs, 12);
    expect(v.ratios.length).toBe(peer.bytes.length);
  });

  it('bench lines: the median of repeated sizes; the fastest algorithm for the ratio when no auto ran', () => {
    const l = (o: object): string => JSON.stringify({ collective: 'bcast', requested: 'x', mode: 'host', ranks: 4, nodes: 1, iterations: 1, min_us: 0, max_us: 0, ...o });
    const text = [
      l({ algorithm: 'binomial', requested: 'binomial', bytes: 8, avg_us: 3 }),
      l({ algorithm: 'binomial', requested: 'binomial', bytes: 8, avg_us: 1 }),
      l({ algorithm: 'binomial', requested: 'binomial', bytes: 8, avg_us: 2 }),
      l({ algorithm: 'linear', requested: 'linear', bytes: 8, avg_us: 1.5 }),
      l({ algorithm: 'linear', requested: 'linear', bytes: 8, avg_us: 1, nonblocking: true }),
      JSON.stringify({ collective: 'bcast', ranks: 4, bytes: 8, iterations: 1, min_us: 0, avg_us: 0.5, max_us: 0, impl: 'mpich' }),
    ].join('\n');
    const v = parseViewFile(text, 'b.jsonl') as BenchView;
    expect(v.series.find((s) => s.algorithm === 'binomial')?.us).toEqual([2]);
    expect(v.series.find((s) => s.algorithm === 'linear' && s.variant === 'nonblocking')?.us).toEqual([1]);
    expect(v.ratios).toEqual([{ peer: 'mpich', ranks: 4, collective: 'bcast', bytes: 8, ratio: 3, oursUs: 1.5, peerUs: 0.5 }]);
  });

  it('a benchmark matrix: a series per job and implementation (variants labelled), ratio cells of the main grid', () => {
    const v = loadViewFile(fixture('bench-matrix.json')) as BenchView;
    const run = JSON.parse(readFileSync(fixture('bench-matrix.json'), 'utf8')) as { options: { peers: string[] }; samples: { impl: string; job: { collective: string; kind: string; ranks: number; nonblocking?: boolean; communicator?: string }; bytes: number; avg_us: number }[] };
    const grid = (impl: string, c: string, b: number): number => median(run.samples.filter((s) => s.impl === impl && s.job.kind === 'grid' && s.job.collective === c && s.bytes === b).map((s) => s.avg_us));
    const ours = v.series.find((s) => s.impl === 'collectives' && s.collective === 'allreduce' && s.variant === '');
    expect(ours).toMatchObject({ ranks: 2, nodes: 1, algorithm: 'auto', bytes: [8, 65536] });
    expect(ours?.us).toEqual([grid('collectives', 'allreduce', 8), grid('collectives', 'allreduce', 65536)]);
    expect(v.series.some((s) => s.variant === 'variant nonblocking')).toBe(true);
    expect(v.series.some((s) => s.variant === 'variant dup')).toBe(true);
    expect(v.series.some((s) => s.variant.startsWith('spot'))).toBe(true);
    const peer = run.options.peers[0];
    expect(v.ratios.length).toBe(2 * 2 * run.options.peers.length);
    const cell = v.ratios.find((r) => r.collective === 'bcast' && r.bytes === 65536 && r.peer === peer);
    expect(cell?.ratio).toBeCloseTo(grid('collectives', 'bcast', 65536) / grid(peer, 'bcast', 65536), 12);
    expect(v.meta[`geomean vs ${peer}, 2 ranks`]).toBeGreaterThan(0);
  });

  it('an untagged matrix (written before the tag) as well as a tagged one', () => {
    const run = JSON.parse(readFileSync(fixture('bench-matrix.json'), 'utf8')) as { format?: string; version?: number };
    const { format: _f, version: _v, ...old } = run;
    const tagged = parseViewFile(JSON.stringify({ ...run, format: 'collectives-bench-matrix', version: 1 }), 'm.json') as BenchView;
    const untagged = parseViewFile(JSON.stringify(old), 'm.json') as BenchView;
    expect(tagged.ratios).toEqual(untagged.ratios);
  });

  it('a tuning report: the choice and the default of each verified point, predicted and measured in µs', () => {
    const v = loadViewFile(fixture('tune-report.json')) as ModelView;
    const raw = JSON.parse(readFileSync(fixture('tune-report.json'), 'utf8')) as { verified: { points: { collective: string; P: number; bytes: number; choice: { algorithm: string; predicted?: number; measured: number } }[] } };
    expect(v.kind).toBe('model');
    expect(v.points.length).toBe(2 * raw.verified.points.length);
    const p = raw.verified.points[0];
    const choice = v.points.find((x) => x.role === 'choice' && x.collective === p.collective && x.bytes === p.bytes);
    expect(choice?.measuredUs).toBeCloseTo(p.choice.measured * 1e6, 6);
    if (p.choice.predicted !== undefined) expect(choice?.predictedUs).toBeCloseTo(p.choice.predicted * 1e6, 6);
    expect(v.meta.machine).toBe('this-machine');
    const { format: _f, version: _v, ...old } = raw as { format?: string; version?: number };
    expect((parseViewFile(JSON.stringify(old), 'old.json') as ModelView).points).toEqual(v.points);
  });

  it('a fit report: every series\' samples, measured and fitted, in µs under the series\' kind', () => {
    const v = loadViewFile(fixture('fit-report.json')) as ModelView;
    const raw = JSON.parse(readFileSync(fixture('fit-report.json'), 'utf8')) as { machine: string; series: { name: string; kind: string; samples: { x: number[]; measured: number[]; predicted: number[] } }[] };
    expect(v.kind).toBe('model');
    expect(v.points.length).toBe(raw.series.reduce((n, s) => n + s.samples.x.length, 0));
    expect(v.points.every((p) => p.role === 'fit' && p.P === 0)).toBe(true);
    const s = raw.series[raw.series.length - 1];
    const p = v.points.filter((x) => x.algorithm === s.name);
    expect(p.map((x) => x.bytes)).toEqual(s.samples.x);
    expect(p.map((x) => x.collective)).toEqual(s.samples.x.map(() => s.kind));
    p.forEach((x, i) => {
      expect(x.measuredUs).toBeCloseTo(s.samples.measured[i] * 1e6, 9);
      expect(x.predictedUs).toBeCloseTo(s.samples.predicted[i] * 1e6, 9);
    });
    expect(v.meta.machine).toBe(raw.machine);
    const broken = { ...raw, series: [{ ...s, samples: { ...s.samples, predicted: [] } }] };
    expect(errorOf(() => parseViewFile(JSON.stringify(broken), 'f.json'))).toMatch(/^f\.json: a fit report \(coll fit --report\), but series\[0\]\.samples: x, measured and predicted must have equal lengths/);
  });

  it('a document of several files, in order', async () => {
    const doc = await loadViewDocument([fixture('schedule-bcast-binomial-16.json'), fixture('tune-report.json')]);
    expect(doc.format).toBe('collectives-view');
    expect(doc.files.map((f) => f.kind)).toEqual(['schedule', 'model']);
  });
});

describe('coll view explains a file it cannot load', () => {
  it('no files, an unreadable file', async () => {
    await expect(loadViewDocument([])).rejects.toThrow(/no files to view/);
    expect(errorOf(() => loadViewFile(join(tmp, 'missing.json')))).toMatch(/missing\.json: cannot read the file \(no such file\)/);
    expect(errorOf(() => loadViewFile(tmp))).toMatch(/cannot read the file \(a directory\)/);
  });

  it('not JSON, empty, JSON lines that are not benchmark lines', () => {
    expect(errorOf(() => loadViewFile(write('bad.json', '{"a": ')))).toMatch(/^bad\.json: not JSON/);
    expect(errorOf(() => loadViewFile(write('empty.json', '\n')))).toMatch(/^empty\.json: the file is empty/);
    expect(errorOf(() => loadViewFile(write('lines.jsonl', '{"a":1}\n{"b":2}\n')))).toMatch(/^lines\.jsonl: JSON lines, but not benchmark lines \(line 1 is a JSON object with keys a/);
    expect(errorOf(() => loadViewFile(write('half.jsonl', `${JSON.stringify({ collective: 'bcast', ranks: 2, bytes: 8, avg_us: 1 })}\nnope\n`)))).toMatch(/^half\.jsonl: not JSON lines: line 2/);
  });

  it('an unknown format, an unknown shape: the hint lists what coll view reads and which commands write it', () => {
    const unknown = errorOf(() => loadViewFile(write('u.json', JSON.stringify({ format: 'collectives-nope', x: 1 }))));
    expect(unknown).toMatch(/^u\.json: unknown format 'collectives-nope'/);
    for (const w of ['coll schedule', 'coll sim', 'coll run --trace', 'coll bench', 'coll bench matrix', 'coll tune', 'coll fit']) expect(unknown).toContain(w);
    expect(errorOf(() => loadViewFile(write('shape.json', JSON.stringify({ hello: [1] }))))).toMatch(/^shape\.json: not a file coll view knows \(a JSON object with keys hello\)/);
    expect(errorOf(() => loadViewFile(write('num.json', '42')))).toMatch(/a JSON number/);
  });

  it('a schedule with a wrong field names the JSON path and the producing command', () => {
    const raw = JSON.parse(readFileSync(fixture('schedule-bcast-binomial-16.json'), 'utf8')) as { schedule: { steps: { round: unknown; peer?: number; deps: number[] }[] }[] };
    raw.schedule[2].steps[0].round = 'first';
    const e = errorOf(() => parseViewFile(JSON.stringify(raw), 's.json'));
    expect(e).toMatch(/^s\.json: a schedule \(coll schedule --json\), but schedule\[2\]\.steps\[0\]\.round: /);
    expect(e).toContain('hint: a schedule file is written by coll schedule');
    raw.schedule[2].steps[0].round = 0;
    raw.schedule[2].steps[0].peer = 99;
    expect(errorOf(() => parseViewFile(JSON.stringify(raw), 's.json'))).toMatch(/schedule\[2\]\.steps\[0\]\.peer 99 is not below the size 16/);
    expect(errorOf(() => parseViewFile(JSON.stringify({ ...raw, format: 'collectives-schedule', version: 2 }), 's.json'))).toMatch(/of version 2; this coll view reads version 1/);
  });

  it('a bench line without its time, a tuning report without measurements', () => {
    expect(errorOf(() => parseViewFile(`${JSON.stringify({ collective: 'bcast', ranks: 2, bytes: 8, avg_us: 'fast' })}\n`, 'b.jsonl'))).toMatch(/^b\.jsonl: benchmark lines \(coll bench --json\), but line 1: avg_us: /);
    const tune = JSON.parse(readFileSync(fixture('tune-report.json'), 'utf8')) as object;
    expect(errorOf(() => parseViewFile(JSON.stringify({ ...tune, verified: null }), 't.json'))).toMatch(/^t\.json: a tuning report \(coll tune --report\) without measured points .*--verify/);
  });
});
