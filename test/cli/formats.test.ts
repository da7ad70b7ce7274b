/**
 * The documented file formats the viewer reads (docs/view-formats.md), from the commands
 * that write them: `coll schedule --json`, `coll tune --report`, `coll fit --report` (the
 * report builder on a fit with every series, from deterministic hooks, and the quickest
 * real fit) and `coll bench matrix --json` (rewriting a saved run, old files included).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { runFit } from '../../src/tune/fit-machine.js';
import { fitPlan } from '../../src/tune/fit-plan.js';
import { fitReportDocument, type FitReportDocument } from '../../src/tune/fit-report.js';
import type { MatrixRun } from '../../src/bench/matrix.js';
import { captureConsole } from '../helpers/console.js';

const con = captureConsole({ quietStderr: true });
const tmp = (): string => mkdtempSync(join(tmpdir(), 'coll-formats-'));

describe('coll schedule --json', () => {
  it('tags the document and gives the element size beside schedule and stats', async () => {
    expect(await main(['schedule', 'allreduce', 'recursive_doubling', '-n', '4', '--count', '2', '--json'])).toBe(0);
    const d = JSON.parse(con.out.join('\n')) as { format: string; version: number; elementBytes: number; schedule: { rank: number }[]; stats: { totalBytes: number } };
    expect(d).toMatchObject({ format: 'collectives-schedule', version: 1, elementBytes: 8 });
    expect(d.schedule.map((r) => r.rank)).toEqual([0, 1, 2, 3]);
    expect(d.stats.totalBytes).toBe(128); // 8 messages of 2 elements at 8 bytes
  });
});

describe('coll tune --report', () => {
  it('tags the report (predicted only here: --no-verify)', async () => {
    const file = join(tmp(), 'tune.json');
    expect(await main(['tune', '--machine', 'bluewaters', '--collectives', 'allreduce', '--procs', '2,4', '--bytes', '8,1k', '--no-verify', '--report', file, '-q'])).toBe(0);
    const d = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(d).toMatchObject({ format: 'collectives-tune-report', version: 1, machine: 'bluewaters', model: 'dag', ppn: 1, verified: null });
    expect(Object.keys(d).slice(0, 2)).toEqual(['format', 'version']);
    expect((d.rules as unknown[]).length).toBeGreaterThan(0);
  });
});

describe('coll fit --report', () => {
  it('every fitted series with its samples, the prediction at each (the fit\'s own residuals) and the statistics', async () => {
    const plan = { ...fitPlan(true), pingSizes: [0, 1024, 65536], loggpSizes: [0, 512, 8192], serialProcs: [2, 3, 4], serialSeries: ['noop/float64/1', 'sum/float64/8'], nblSizes: [60, 120, 300] };
    // Deterministic "measurements": straight lines with a small wobble, so every fit has residuals.
    const wobble = (x: number): number => 1 + 0.01 * Math.sin(x + 1);
    const report = await runFit({
      ops: ['sum'],
      dtypes: ['float64'],
      counts: [1, 64, 4096],
      timing: { minSeconds: 1e-4, trials: 1 },
      plan,
      hooks: {
        pingPongIntra: async (b) => (2e-6 + b * 1e-10) * wobble(b),
        pingPongInter: async (b) => (3e-5 + b * 1e-9) * wobble(b),
        logGPInter: async (b) => ({ gap: (1e-6 + b * 1e-9) * wobble(b), oSend: 2e-6 * wobble(b), oRecv: 1e-6 }),
        logGPIntra: async (b) => ({ gap: (5e-7 + b * 1e-10) * wobble(b), oSend: 1e-6, oRecv: 5e-7 * wobble(b) }),
        serialReduction: async (P, op, _dt, n) => (1e-5 + (P - 1) * (2e-6 + (op === 'noop' ? 0 : n * 1e-8))) * wobble(P),
        nblTestjig: async (L, S) => (1e-5 + S * L * 1e-8) * wobble(S + L),
        nblTestjigIntra: async (L, S) => (1e-6 + S * L * 1e-9) * wobble(S + L),
      },
    });
    const d = JSON.parse(JSON.stringify(fitReportDocument(report))) as FitReportDocument;
    expect(d).toMatchObject({ format: 'collectives-fit-report', version: 1, machine: 'local' });
    expect(d.series.map((s) => s.name)).toEqual([
      'copy',
      'reduce sum/float64',
      'ping-pong intra',
      'ping-pong inter',
      'loggp inter gap',
      'loggp inter oSend',
      'loggp inter oRecv',
      'loggp intra gap',
      'loggp intra oSend',
      'loggp intra oRecv',
      'serial-reduction noop/float64/1',
      'serial-reduction sum/float64/8',
      'nbl-testjig inter L=1',
      'nbl-testjig inter L=2',
      'nbl-testjig inter L=4',
      'nbl-testjig inter L=6',
      'nbl-testjig intra L=1',
      'nbl-testjig intra L=2',
      'nbl-testjig intra L=4',
      'nbl-testjig intra L=6',
    ]);
    for (const s of d.series) {
      expect(s.samples.x.length, s.name).toBeGreaterThanOrEqual(3);
      expect(s.samples.measured).toHaveLength(s.samples.x.length);
      expect(s.samples.predicted).toHaveLength(s.samples.x.length);
      if (s.fit) {
        // The prediction is the fitted line: measured − predicted are the residuals, whose RMS the fit reports.
        const res = s.samples.measured.map((m, i) => m - s.samples.predicted[i]);
        expect(Math.sqrt(res.reduce((a, r) => a + r * r, 0) / res.length)).toBeCloseTo(s.fit.rms, 12);
      }
    }
    const pp = d.series.find((s) => s.name === 'ping-pong inter');
    expect(pp?.samples.x).toEqual([0, 1024, 65536]);
    expect(pp?.samples.measured).toEqual(report.inter?.samples.map((x) => x.seconds));
    expect(pp?.params.alpha).toBe(report.inter?.alpha);
    expect(pp?.samples.predicted.map((p, i) => p - (report.inter?.alpha ?? 0) - (report.inter?.beta ?? 0) * [0, 1024, 65536][i]).every((e) => Math.abs(e) < 1e-15)).toBe(true);
    expect(d.series.find((s) => s.name === 'serial-reduction sum/float64/8')).toMatchObject({ x: 'processes', samples: { x: [2, 3, 4] } });
    expect(d.series.find((s) => s.name === 'loggp inter oSend')?.fit).toBeUndefined();
  });

  it('coll fit --kernels-only --quick --report writes it', async () => {
    const dir = tmp();
    const file = join(dir, 'fit.json');
    expect(await main(['fit', '--kernels-only', '--quick', '--out', join(dir, 'm.json'), '--report', file])).toBe(0);
    const d = JSON.parse(readFileSync(file, 'utf8')) as FitReportDocument;
    expect(d).toMatchObject({ format: 'collectives-fit-report', version: 1 });
    expect(d.series[0]).toMatchObject({ name: 'copy', kind: 'copy', x: 'bytes' });
    expect(d.series.filter((s) => s.kind === 'reduce').length).toBe(12); // sum, max, noop × 4 datatypes
    expect(d.missing.length).toBeGreaterThan(0);
  }, 20_000);
});

describe('coll bench matrix --json', () => {
  it('tags the run it writes, also when it rewrites a saved run without the tags', async () => {
    const dir = tmp();
    const old = join(dir, 'old.json');
    const job = { collective: 'allreduce', ranks: 2, sizes: [8], datatype: 'float64', op: 'sum', kind: 'grid' } as const;
    const run: MatrixRun = {
      started: '2026-01-01T00:00:00.000Z',
      finished: '2026-01-01T00:01:00.000Z',
      machine: 'test',
      loadBefore: [0, 0, 0],
      loadAfter: [0, 0, 0],
      options: { collectives: ['allreduce'], sizes: [8], ranks: [2], peers: ['openmpi'], reps: 1, iterations: 10, shared: true, extras: false, idle: 1 },
      samples: [
        { impl: 'collectives', job, bytes: 8, rep: 0, avg_us: 3, algorithm: 'allreduce/shm_flat' },
        { impl: 'openmpi', job, bytes: 8, rep: 0, avg_us: 1.5 },
      ],
    };
    writeFileSync(old, JSON.stringify(run));
    const out = join(dir, 'new.json');
    expect(await main(['bench', 'matrix', '--from', old, '--json', out])).toBe(0);
    const d = JSON.parse(readFileSync(out, 'utf8')) as MatrixRun;
    expect(d).toMatchObject({ format: 'collectives-bench-matrix', version: 1, machine: 'test' });
    expect(d.samples).toEqual(run.samples);
    // The tagged file reads back.
    expect(await main(['bench', 'matrix', '--from', out])).toBe(0);
    expect(con.out.join('\n')).toContain('allreduce');
  });
});
