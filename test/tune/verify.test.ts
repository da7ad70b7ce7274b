/**
 * A tuner that never makes things worse: `coll tune`'s measured check runs each choice
 * against the runtime's default in one job (alternating, medians of passes) and takes
 * out of the table every choice that loses beyond noise. The decision logic is checked
 * with scripted timings; the real check on a tiny matrix (2 ranks over 2 node
 * processes, 2 sizes, a few calls) with a deliberately slowed candidate injected, which
 * loses by construction, and through the CLI.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BenchJob, BenchResult } from '../../src/bench/bench.js';
import type { BenchRecord } from '../../src/bench/bench-program.js';
import { main } from '../../src/cli/main.js';
import { getMachine } from '../../src/model/machines/index.js';
import { buildDecisionTable, lookupDecision } from '../../src/tune/decision.js';
import { verifyDecisionTable, verifyReport } from '../../src/tune/verify.js';
import { captureConsole } from '../helpers/console.js';

const machine = getMachine('bluewaters');
const io = captureConsole({ quietStderr: true });

function table(bytes: number[]) {
  return buildDecisionTable(machine, { collectives: ['allreduce'], procs: [2, 4], bytes, ppn: 1 });
}

/** A runner that answers every case with scripted µs: the default `d`, the choice `c(bytes, pass)`. */
function scripted(d: number, c: (bytes: number, rep: number) => number) {
  const jobs: BenchJob[] = [];
  const runner = async (job: BenchJob): Promise<BenchResult> => {
    jobs.push(job);
    const records: BenchRecord[] = [];
    for (let rep = 0; rep < (job.repetitions ?? 1); rep++) {
      job.cases?.forEach((k, i) => {
        const us = k.algorithm === null ? d : c(k.bytes, rep);
        records.push({ collective: job.collective, algorithm: k.algorithm ?? 'recursive_doubling', requested: k.algorithm ?? 'auto', mode: 'host', ranks: job.ranks, nodes: job.nodes, bytes: k.bytes, iterations: 1, min_us: us, avg_us: us, max_us: us, case: i, rep });
      });
    }
    return { records, skipped: [] };
  };
  return { jobs, runner };
}

describe('the measured check (scripted timings)', () => {
  it('alternating cases of choice and default in one job per P, default without a decision table', async () => {
    const t = table([8, 1024]);
    const { jobs, runner } = scripted(100, () => 100);
    const r = await verifyDecisionTable(t, { procs: [2], machine, model: 'dag', runner, repetitions: 3 });
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ ranks: 2, nodes: 2, repetitions: 3, env: { COLL_DECISION_TABLE: '' } });
    expect(jobs[0].cases?.map((k) => [k.algorithm === null ? 'default' : 'choice', k.bytes])).toEqual([
      ['default', 8],
      ['choice', 8],
      ['default', 1024],
      ['choice', 1024],
    ]);
    expect(r.points.map((p) => p.verdict)).toEqual(['kept', 'kept']);
    expect(r.table.rules).toEqual(t.rules);
    expect(r.table.verified).toMatchObject({ procs: [2], measured: 2, rejected: 0 });
  });

  it('a choice slower beyond noise is rejected and its cell leaves the table; within noise it stays', async () => {
    const t = table([8, 1024, 65536]);
    // 8 B: 30% slower in every pass → rejected. 1 KiB: 3% slower → within the 5% allowance.
    // 64 KiB: 30% slower in the median pass, but not slower in the first → noise.
    const { runner } = scripted(100, (b, rep) => (b === 8 ? 130 : b === 1024 ? 103 : [100, 160, 130][rep]));
    // (the scripted default runs recursive_doubling, the table's choice at these points is another algorithm)
    const r = await verifyDecisionTable(t, { procs: [2], machine, model: 'dag', runner, repetitions: 3 });
    expect(r.points.map((p) => [p.bytes, p.verdict])).toEqual([
      [8, 'rejected'],
      [1024, 'kept'],
      [65536, 'kept'],
    ]);
    expect(r.points[2].noise).toBeCloseTo(0.6 / 1.3, 6);
    expect(lookupDecision(r.table, { collective: 'allreduce', P: 2, bytes: 8 })).toBeUndefined();
    const before = lookupDecision(t, { collective: 'allreduce', P: 2, bytes: 1024 });
    expect(lookupDecision(r.table, { collective: 'allreduce', P: 2, bytes: 1024 })).toMatchObject({ algorithm: before?.algorithm, params: before?.params, bytesMax: before?.bytesMax });
    expect(lookupDecision(r.table, { collective: 'allreduce', P: 2, bytes: 1024 })?.bytesMin).toBe(1024); // the 8 B grid cell [0, 1023] is gone
    expect(lookupDecision(r.table, { collective: 'allreduce', P: 4, bytes: 8 })).toEqual(lookupDecision(t, { collective: 'allreduce', P: 4, bytes: 8 }));
    const text = verifyReport(r);
    expect(text).toMatch(/REJECTED: default kept/);
    expect(text).toMatch(/1 of 3 measured choices were slower than the default beyond noise/);
  });

  it("a choice that is the default's own algorithm with default parameters is kept (its difference is noise)", async () => {
    const t0 = table([8]);
    const t = { ...t0, rules: t0.rules.map((r) => ({ ...r, algorithm: 'recursive_doubling', params: {} })) };
    const { runner } = scripted(100, () => 150);
    const r = await verifyDecisionTable(t, { procs: [2], machine, model: 'dag', runner });
    expect(r.points.map((p) => [p.verdict, p.same])).toEqual([['kept', true]]);
    expect(verifyReport(r)).toMatch(/kept \(= default\)/);
  });
});

describe('the measured check on the runtime (tiny matrix)', () => {
  it('runs choice and default and rejects a deliberately slowed candidate', async () => {
    const t = table([8, 1024]);
    const r = await verifyDecisionTable(t, {
      procs: [2],
      machine,
      model: 'dag',
      repetitions: 3,
      iterations: 5,
      inject: { collective: 'allreduce', algorithm: 'recursive_doubling', delayUs: 50_000 },
    });
    expect(r.points).toHaveLength(2);
    for (const p of r.points) {
      expect(p.injected).toBe(true);
      expect(p.default.measured).toBeGreaterThan(0);
      expect(p.choice.measured).toBeGreaterThan(50e-3); // the call plus the 50 ms wait
      expect(p.choice.predicted).toBeGreaterThan(0);
      expect(p.verdict).toBe('rejected');
      expect(lookupDecision(r.table, { collective: 'allreduce', P: 2, bytes: p.bytes })).toBeUndefined();
    }
    expect(r.points[0].default.predicted).toBeGreaterThan(0); // the default's algorithm is a catalogue one here
    expect(verifyReport(r)).toMatch(/recursive_doubling \(injected, slowed\)[\s\S]*REJECTED: default kept/);
  }, 60_000);

  it('coll tune --verify prints predicted and measured for choice and default and writes the report', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'coll-verify-'));
    const report = join(dir, 'report.json');
    const out = join(dir, 'table.json');
    const code = await main(['tune', '--machine', 'bluewaters', '--collectives', 'barrier', '--procs', '2', '--verify', '--verify-reps', '2', '--verify-iterations', '5', '--report', report, '--out', out, '-q']);
    expect(code, io.err.join('\n')).toBe(0);
    const text = io.out.join('\n');
    expect(text).toMatch(/measured check: P = 2; .*median of 2 alternating passes/);
    expect(text).toMatch(/collective\s+P\s+bytes\s+choice\s+predicted\s+measured\s+default\s+predicted\s+measured\s+choice\/default\s+verdict/);
    expect(text).toMatch(/\n\s+barrier\s+2\s+0\s+\S+.*\d+(\.\d+)? (µs|ms)\s+\S+\s+.*(kept|REJECTED: default kept)/);
    const rep = JSON.parse(readFileSync(report, 'utf8')) as { verified: { points: { choice: { measured: number }; default: { measured: number } }[] } };
    expect(rep.verified.points).toHaveLength(1);
    expect(rep.verified.points[0].default.measured).toBeGreaterThan(0);
    expect((JSON.parse(readFileSync(out, 'utf8')) as { verified?: { measured: number } }).verified?.measured).toBe(1);
  }, 60_000);
});
