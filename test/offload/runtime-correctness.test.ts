/**
 * The offload engine end to end, correctness: every offloaded collective (barrier,
 * bcast, reduce, allreduce, allgather) against the sequential reference in offload and
 * intermediate mode — test/runtime/programs/offload.ts: blocking and nonblocking, shared
 * and private buffers, datatypes, operators, counts, roots and named inter-node
 * algorithms on the world, an uneven split and a communicator in reverse rank order —
 * and the three modes (host included) interleaved on one communicator with nonblocking
 * calls of different modes outstanding together (programs/mixed.ts, and deterministically
 * two intermediate ones, programs/intermediate-order.ts). Layouts: 1–8 ranks
 * on 1–4 nodes, non-powers of two and uneven nodes (5 = 3 + 2, 7 = 3 + 2 + 2).
 * Every check runs inside the ranks; nothing depends on timing.
 */
import { describe, expect, it } from 'vitest';
import { explain } from '../runtime/job.js';
import { markerDirs, runJob, type JobResult } from './programs/job.js';

const markerDir = markerDirs();

const OFFLOAD_TS = '../../runtime/programs/offload.ts';

function expectPassed(r: JobResult, ranks: number, minChecks: number): void {
  expect(r.exitCode, explain(r)).toBe(0);
  expect(r.reports.map((x) => x.rank), explain(r)).toEqual(Array.from({ length: ranks }, (_, i) => i));
  for (const rep of r.reports) {
    expect(rep.failures, explain(r)).toEqual([]);
    expect(rep.checks).toBeGreaterThanOrEqual(minChecks);
  }
}

describe.concurrent('offloaded collectives match the sequential reference (offload and intermediate modes)', () => {
  for (const [ranks, nodes, quick] of [
    [1, 1, false],
    [3, 1, true],
    [5, 2, true],
    [7, 3, true],
  ] as const) {
    it(`${ranks} rank(s) on ${nodes} node(s)${quick ? ' (quick)' : ''}`, { timeout: 150_000 }, async () => {
      expectPassed(await runJob(OFFLOAD_TS, { ranks, nodes, args: quick ? ['quick'] : [] }), ranks, 400);
    });
  }
});

describe.concurrent('host, offload and intermediate calls interleaved on one communicator', () => {
  for (const [ranks, nodes, calls] of [
    [4, 2, 80],
    [8, 4, 60],
  ] as const) {
    it(`${ranks} ranks on ${nodes} nodes`, { timeout: 120_000 }, async () => {
      expectPassed(await runJob('mixed.ts', { ranks, nodes, args: [String(calls)] }), ranks, 2 * calls);
    });
  }

  it('two nonblocking intermediate calls outstanding, the inter-node part of the first unfinished when the second is posted (3 ranks, 2 nodes)', { timeout: 120_000 }, async () => {
    expectPassed(await runJob('intermediate-order.ts', { ranks: 3, nodes: 2, args: [markerDir()] }), 3, 2);
  });
});

describe.concurrent('offloaded reductions fold into the right buffers', () => {
  for (const [ranks, nodes] of [
    [4, 1],
    [5, 1],
    [5, 2],
  ] as const) {
    it(`in place and not, every root, world and reversed split (${ranks} ranks, ${nodes} node(s))`, { timeout: 120_000 }, async () => {
      expectPassed(await runJob('aliasing.ts', { ranks, nodes }), ranks, 100);
    });
  }
});
