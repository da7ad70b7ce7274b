/**
 * The randomized correctness suite, short run (npm run fuzz for long ones): random
 * sequences of collectives (programs/fuzz.ts) on 1–3 nodes, two fixed seeds and one
 * fresh seed printed for reproduction, each rank checked against the sequential
 * reference.
 */
import { describe, expect, it } from 'vitest';
import { explain, runJob } from '../runtime/job.js';

const fresh = Math.floor(Math.random() * 2 ** 31);

describe('randomized collectives against the sequential reference', () => {
  for (const [ranks, nodes, seed, calls] of [
    [3, 1, 20261125, 400],
    [4, 2, 424242, 300],
    [5, 3, fresh, 250],
  ] as const) {
    it(`${ranks} ranks on ${nodes} node(s), seed ${seed} (reproduce: coll run -n ${ranks} --nodes ${nodes} test/fuzz/programs/fuzz.ts ${seed} ${calls})`, { timeout: 170_000 }, async () => {
      const r = await runJob('../../fuzz/programs/fuzz.ts', ranks, nodes, [String(seed), String(calls)]);
      expect(r.exitCode, explain(r)).toBe(0);
      expect(r.reports.map((x) => x.rank), explain(r)).toEqual(Array.from({ length: ranks }, (_, i) => i));
      for (const rep of r.reports) {
        expect(rep.failures, explain(r)).toEqual([]);
        expect(rep.checks).toBeGreaterThan(calls);
      }
    });
  }
});
