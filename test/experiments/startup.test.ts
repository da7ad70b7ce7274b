/**
 * The start-up experiment (`coll experiment startup`): the §2.7-form model recovers a
 * known per-process cost and adds the scheme's volume; a small real run produces a
 * point per process count with the launcher's measured bytes, and a fit.
 */
import { describe, expect, it } from 'vitest';
import { fitStartup, runStartupExperiment, schemeVolume, type StartupPoint } from '../../src/experiments/startup.js';

const point = (scheme: StartupPoint['scheme'], n: number, ms: number): StartupPoint => ({
  initiation: 'direct',
  scheme,
  processes: n,
  startupMs: ms,
  initiationMs: 0,
  exchangeMs: 0,
  ringMs: 0,
  launcherBytes: 0,
  ringBytesPerNode: 0,
  runs: 1,
});

describe('start-up model', () => {
  it('fits a + b·N to the start-up curve and adds the volume over the given bandwidth', () => {
    const [a, b] = [0.2, 0.05];
    const ps = [2, 4, 8, 16].map((n) => point('original', n, (a + b * n) * 1000));
    const [f] = fitStartup(ps, 1e8);
    expect(f.a).toBeCloseTo(a, 6);
    expect(f.b).toBeCloseTo(b, 6);
    // Original at 2048: the launcher moves 2048·2047·4 B in and 2048·2048·2047·4 B out.
    const v = 2048 * 2047 * 4 * (1 + 2048);
    expect(schemeVolume('original', 2048)).toBe(v);
    expect(f.volumeAt2048).toBeCloseTo(v / 1e8, 9);
    expect(f.at2048).toBeCloseTo(a + b * 2048 + v / 1e8, 6);
  });

  it('the ring’s volume is one node’s (N−1)²·q, reassembly’s the launcher’s 2N(N−1)·q', () => {
    expect(schemeVolume('bootstrap', 1024)).toBe(1023 * 1023 * 4);
    expect(schemeVolume('reassembly', 1024)).toBe(2 * 1024 * 1023 * 4);
  });
});

describe('coll experiment startup', () => {
  it('runs real jobs: a point per N with the launcher’s bytes, and a fit', async () => {
    const r = await runStartupExperiment({ processes: [2, 3], schemes: ['original'], initiations: ['direct'], repetitions: 1 });
    expect(r.points.map((p) => [p.processes, p.launcherBytes])).toEqual([
      [2, 2 * 1 * 4 + 2 * 2 * 1 * 4],
      [3, 3 * 2 * 4 + 3 * 3 * 2 * 4],
    ]);
    for (const p of r.points) expect(p.startupMs).toBeGreaterThan(0);
    expect(r.fits).toHaveLength(1);
  });
});
