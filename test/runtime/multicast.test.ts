/**
 * bcast { algorithm: 'multicast' } on real rank threads on one node: no multicast
 * there (a single node sends no multicast-marked send), the node broadcast alone gives
 * the root's data on every rank. Across nodes the algorithm runs in the catalogue
 * sweep of runtime.test.ts (programs/check.ts runs every algorithm).
 */
import { describe, expect, it } from 'vitest';
import { explain, runJob } from './job.js';

describe("bcast { algorithm: 'multicast' } through the runtime", () => {
  it('3 ranks on one node: the root\'s data on every rank (roots 0, 1, 2; counts 0 … 20000; blocking and nonblocking)', async () => {
    const r = await runJob('multicast.ts', 3, 1);
    expect(r.exitCode, explain(r)).toBe(0);
    expect(r.reports.map((x) => x.rank), explain(r)).toEqual([0, 1, 2]);
    for (const rep of r.reports) {
      expect(rep.failures, explain(r)).toEqual([]);
      expect(rep.checks).toBe(3 * 4 * 3);
    }
  });
});
