/**
 * `coll experiment` end to end with tiny iteration counts: structure and sanity of
 * the JSON records and plots, never timing thresholds.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';

async function run(args: string[]): Promise<{ code: number; out: string[]; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  const error = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  const w = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => (err.push(String(s)), true));
  try {
    const code = await main(['experiment', ...args]);
    return { code, out, err: err.join('') };
  } finally {
    log.mockRestore();
    error.mockRestore();
    w.mockRestore();
  }
}

function records(out: string[]): Record<string, unknown>[] {
  return out.map((l) => JSON.parse(l) as Record<string, unknown>);
}

const dir = mkdtempSync(join(tmpdir(), 'coll-exp-'));

describe('coll experiment', () => {
  it('noise: per-mode statistics, σ ratio, histogram and plot', async () => {
    const plot = join(dir, 'noise.svg');
    const r = await run(['noise', '-n', '2', '--iterations', '60', '--repetitions', '2', '--warmup', '5', '--noise-period-us', '500', '--noise-duration-us', '50', '--json', '--plot', plot]);
    expect(r.code, r.err).toBe(0);
    const recs = records(r.out);
    expect(recs.map((x) => x.variant)).toEqual(['host', 'offload']);
    for (const rec of recs) {
      expect(rec.experiment).toBe('noise');
      expect(rec.noise).toEqual({ periodUs: 500, durationUs: 50, poisson: false, seed: 1 });
      const s = rec.stats as Record<string, number> & { windows: { widthUs: number; densest: number }[] };
      expect(s.n).toBe(60);
      expect(s.trimmedN).toBe(60); // floor(60 · 1%) = 0 dropped
      expect(s.min).toBeGreaterThan(0);
      expect(s.min).toBeLessThanOrEqual(s.median);
      expect(s.median).toBeLessThanOrEqual(s.p99);
      expect(s.p99).toBeLessThanOrEqual(s.max);
      expect(s.sd).toBeGreaterThanOrEqual(0);
      expect(s.windows.map((w) => w.widthUs)).toEqual([4, 20]);
      for (const w of s.windows) expect(w.densest).toBeGreaterThan(0);
      expect((rec.pooled as { n: number }).n).toBe(120);
      const h = rec.histogram as { counts: number[]; below: number; above: number };
      expect(h.counts.reduce((a, b) => a + b, 0) + h.below + h.above).toBe(60);
    }
    for (const rec of recs) expect(rec.repetitionTrimmedSd as number[]).toHaveLength(2);
    expect(recs[0].sdRatioHostOverThis).toBeNull();
    expect(typeof recs[1].sdRatioHostOverThis).toBe('number');
    const svg = readFileSync(plot, 'utf8');
    expect(svg).toMatch(/^<svg/);
    expect(svg).toContain('host: σ');
    expect(svg).toContain('offload: σ');
  });

  it('skew: CPU and wall time per collective, mode and skew, with a table', async () => {
    const plot = join(dir, 'skew.svg');
    const args = ['skew', '-n', '2', '--mode', 'host', '--mode', 'offload', '--skew-us', '0,100', '--iterations', '8', '--warmup', '3', '--repetitions', '1'];
    const r = await run([...args, '--json', '--plot', plot]);
    expect(r.code, r.err).toBe(0);
    const recs = records(r.out);
    expect(recs).toHaveLength(2 * 2 * 2);
    for (const rec of recs) {
      expect(rec.experiment).toBe('skew');
      expect(['barrier', 'bcast']).toContain(rec.collective);
      expect([0, 100]).toContain(rec.skewUs);
      expect(rec.cpuRawUs as number).toBeGreaterThan(0);
      expect(rec.wallUs as number).toBeGreaterThan(0);
      expect(rec.overheadUs as number).toBeGreaterThanOrEqual(0);
      if (rec.skewUs === 0) expect(rec.computedUs).toBe(0);
      expect(rec.cpuRatioHostOverThis === null).toBe(rec.variant === 'host');
    }
    expect(readFileSync(plot, 'utf8')).toContain('bcast offload');
  });

  it('overlap: the table and the overlap share per mode and size', async () => {
    const r = await run(['overlap', '-n', '2', '--bytes', '8,4096', '--compute-us', '200', '--iterations', '4', '--warmup', '1']);
    expect(r.code, r.err).toBe(0);
    const text = r.out.join('\n');
    expect(text).toContain('overlap = 1 - (total - compute) / comm');
    const rows = text.split('\n').filter((l) => /^(host|offload) /.test(l));
    expect(rows).toHaveLength(4);
    for (const row of rows) expect(row).toMatch(/-?\d+\.\d%\s+-?\d+\.\d%$/);
  });

  it('rejects bad arguments with a message', async () => {
    expect((await run(['warp'])).code).toBe(2);
    expect((await run(['noise', '--mode', 'nic'])).err).toContain("unknown --mode 'nic'");
    expect((await run(['noise', '--noise-period-us', '100', '--noise-duration-us', '100'])).err).toContain('duration < period');
    expect((await run(['skew', '--collective', 'allreduce'])).err).toContain('barrier or bcast');
    const help = await run(['skew', '--help']);
    expect(help.code).toBe(0);
    expect(help.out.join('\n')).toContain('--skew-us');
  });
});
