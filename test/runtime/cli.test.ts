/** `coll run` and `coll bench` end to end (small jobs). */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { benchTable } from '../../src/bench/bench.js';
import { iterationsFor, sizesFor } from '../../src/bench/bench-program.js';

const hello = fileURLToPath(new URL('./programs/hello.ts', import.meta.url));

function capture(): { out: string[]; err: string[]; restore: () => void } {
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  const error = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  const w1 = vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => (out.push(String(s)), true));
  const w2 = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => (err.push(String(s)), true));
  return {
    out,
    err,
    restore: () => {
      log.mockRestore();
      error.mockRestore();
      w1.mockRestore();
      w2.mockRestore();
    },
  };
}

describe('coll run', () => {
  it('runs a TypeScript program on 3 ranks in 2 nodes with prefixed output', async () => {
    const c = capture();
    const code = await main(['run', '-n', '3', '--nodes', '2', hello]).finally(c.restore);
    expect(code).toBe(0);
    const lines = c.out.join('').split('\n').filter(Boolean).sort();
    expect(lines).toEqual(['[0] rank 0/3 node 0/2 sum 6', '[1] rank 1/3 node 0/2 sum 6', '[2] rank 2/3 node 1/2 sum 6']);
  });

  it('rejects a missing rank count and a missing program', async () => {
    const c = capture();
    const codes = [await main(['run', hello]), await main(['run', '-n', '2']), await main(['run', '-n', '0', hello])];
    c.restore();
    expect(codes).toEqual([2, 2, 2]);
    expect(c.err.join('')).toContain('-n <ranks> is required');
    expect(c.err.join('')).toContain('no program given');
    expect(c.err.join('')).toContain('ranks must be an integer in [1, 4096]');
  });

  it('--timeout kills a job that runs too long (exit code 124); --warn-after sets the still-waiting warning', async () => {
    const late = fileURLToPath(new URL('./programs/early-exit.ts', import.meta.url));
    const c = capture();
    const t0 = Date.now();
    // 'never' keeps the last rank away for a minute: the 4 s job timeout ends the job.
    const code = await main(['run', '-n', '2', '--timeout', '4', '--warn-after', '0.3', late, 'never']).finally(c.restore);
    expect(code).toBe(124);
    expect(Date.now() - t0).toBeLessThan(30_000);
    const err = c.err.join('');
    expect(err).toContain('job timed out after 4000 ms');
    expect(err).toMatch(/still waiting after \d+ s in allreduce/);
    const bad = capture();
    const codes = [await main(['run', '-n', '2', '--timeout', '-1', late]), await main(['run', '-n', '2', '--warn-after', 'x', late])];
    bad.restore();
    expect(codes).toEqual([2, 2]);
  });
});

describe('coll bench', () => {
  it('times allreduce over a size range: JSON lines and an SVG plot', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'coll-bench-'));
    const plot = join(dir, 'p.svg');
    const c = capture();
    const code = await main(['bench', 'allreduce', '-n', '2', '--min-bytes', '8', '--max-bytes', '64', '--iterations', '20', '-a', 'auto', '-a', 'recursive_doubling', '--json', '--plot', plot]).finally(c.restore);
    expect(code).toBe(0);
    const recs = c.out.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { algorithm: string; bytes: number; avg_us: number; min_us: number; max_us: number });
    expect(recs.map((r) => r.bytes)).toEqual([8, 16, 32, 64, 8, 16, 32, 64]);
    expect(recs.slice(4).every((r) => r.algorithm === 'allreduce/recursive_doubling')).toBe(true);
    for (const r of recs) expect(r.min_us).toBeLessThanOrEqual(r.max_us);
    expect(c.err.join('')).not.toMatch(/\[\d+\/8\]/); // no progress when piped or with --json
    expect(readFileSync(plot, 'utf8')).toContain('<svg');
  });

  it('rejects an unknown collective', async () => {
    const c = capture();
    const code = await main(['bench', 'allfoo']).finally(c.restore);
    expect(code).toBe(2);
    expect(c.err.join('')).toContain("unknown collective 'allfoo'");
  });

  it('iteration counts and sizes follow peer-bench; the table has one row per record', () => {
    expect([iterationsFor(8, 1000), iterationsFor(65536, 1000), iterationsFor(1 << 21, 1000)]).toEqual([1000, 50, 20]);
    expect(sizesFor({ collective: 'bcast', algorithms: [null], minBytes: 8, maxBytes: 40, iterations: 1, shared: true, datatype: 'float64', op: 'sum' })).toEqual([8, 16, 32]);
    const t = benchTable([{ collective: 'bcast', algorithm: 'bcast/binomial', requested: 'auto', mode: 'host', ranks: 2, nodes: 1, bytes: 8, iterations: 10, min_us: 1, avg_us: 2, max_us: 3 }]);
    expect(t.split('\n')).toHaveLength(3);
    expect(t).toContain('bcast/binomial');
  });
});
