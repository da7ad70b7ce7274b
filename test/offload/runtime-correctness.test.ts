/**
 * The offload engine end to end, correctness: every offloaded collective (barrier,
 * bcast, reduce, allreduce, allgather) against the sequential reference in offload and
 * intermediate mode — test/runtime/programs/offload.ts: blocking and nonblocking, shared
 * and private buffers, datatypes, operators, counts, roots and named inter-node
 * algorithms on the world, an uneven split and a communicator in reverse rank order —
 * and the three modes (host included) interleaved on one communicator with nonblocking
 * calls of different modes outstanding together (programs/mixed.ts). Layouts: 1–8 ranks
 * on 1–4 nodes, non-powers of two and uneven nodes (5 = 3 + 2, 7 = 3 + 2 + 2).
 * Every check runs inside the ranks; nothing depends on timing.
 */
import { describe, expect, it } from 'vitest';
import { explain } from '../runtime/job.js';
import { runJob, type JobResult } from './programs/job.js';

const OFFLOAD_TS = '../../runtime/programs/offload.ts';

/**
 * offload.ts names allgather 'recursive_doubling' as the inter-node algorithm, which
 * needs a power-of-two number of NODES: on 3 nodes every rank gets that RestrictionError
 * (a bug of offload.ts, reported in /tmp/helperB-findings.md). Tolerated on the 3-node
 * layout only, and nothing else.
 */
const RD_ON_3_NODES = /^\S+ P=\d+ allgather recursive_doubling .*RestrictionError: algorithm 'allgather\/recursive_doubling' requires a power-of-two/s;

function expectPassed(r: JobResult, ranks: number, minChecks: number, tolerate?: RegExp): void {
  expect(r.exitCode, explain(r)).toBe(0);
  expect(r.reports.map((x) => x.rank), explain(r)).toEqual(Array.from({ length: ranks }, (_, i) => i));
  for (const rep of r.reports) {
    expect(rep.failures.filter((f) => !tolerate?.test(f)), explain(r)).toEqual([]);
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
      const tolerate = nodes === 3 ? RD_ON_3_NODES : undefined;
      const r = await runJob(OFFLOAD_TS, { ranks, nodes, args: quick ? ['quick'] : [], env: tolerate ? { REPORT_MAX: '10000' } : {} });
      expectPassed(r, ranks, 400, tolerate);
    });
  }
});

describe.concurrent('host, offload and intermediate calls interleaved on one communicator', () => {
  // 'safe': no two nonblocking intermediate calls outstanding (a known bug, see the runtime-errors test).
  for (const [ranks, nodes, calls] of [
    [4, 2, 120],
    [8, 4, 60],
  ] as const) {
    it(`${ranks} ranks on ${nodes} nodes`, { timeout: 120_000 }, async () => {
      expectPassed(await runJob('mixed.ts', { ranks, nodes, args: [String(calls), 'safe'] }), ranks, 2 * calls);
    });
  }
});
