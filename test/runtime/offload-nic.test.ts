/**
 * The engine's NIC-style protocols through the real runtime: correct results on
 * several node layouts, with and without frame loss (COLL_ENGINE_LOSS makes every
 * engine drop a seeded share of its protocol frames, so NACK and Go-back-N
 * retransmission must recover them).
 */
import { describe, expect, it } from 'vitest';
import { explain, runJob } from './job.js';

describe('offload engine: NIC protocols', () => {
  const layouts: [ranks: number, nodes: number, loss: string][] = [
    [2, 2, '0'],
    [5, 3, '0'],
    [4, 2, '0.2'],
    [3, 3, '0.3'],
  ];
  it.each(layouts)('%i ranks on %i nodes, loss %s', async (ranks, nodes, loss) => {
    const r = await runJob('offload-nic.ts', ranks, nodes, ['3'], { COLL_ENGINE_LOSS: loss });
    expect(r.exitCode, explain(r)).toBe(0);
    expect(r.reports.length).toBe(ranks);
    for (const rep of r.reports) {
      expect(rep.failures, explain(r)).toEqual([]);
      expect(rep.checks).toBeGreaterThan(20);
    }
  }, 120_000);
});
