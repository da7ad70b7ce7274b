/**
 * comm.free() (issue 12, defect 5): see programs/comm-free.ts. Before free() existed,
 * the arena check failed after a few hundred dup() calls and the 33rd offloaded
 * communicator was refused by the engine.
 */
import { describe, expect, it } from 'vitest';
import { explain, runJob } from './job.js';

describe('comm.free()', () => {
  for (const [ranks, nodes, cycles] of [
    [4, 1, 600],
    [4, 2, 200],
    [3, 1, 300],
  ] as const) {
    it(`reclaims the arena block and the engine slot, completes outstanding requests, refuses a freed communicator (${ranks} ranks, ${nodes} node(s))`, async () => {
      const r = await runJob('comm-free.ts', ranks, nodes, [String(cycles)]);
      expect(r.exitCode, explain(r)).toBe(0);
      expect(r.reports.length).toBe(ranks);
      for (const rep of r.reports) {
        expect(rep.failures, explain(r)).toEqual([]);
        expect(rep.checks).toBeGreaterThan(10);
      }
    });
  }
});
