/**
 * `coll reproduce` with simulator checks: the structure of every check (published,
 * ours, relative error, tolerance, status, basis, a reason when not matchable), the
 * plots, and the CLI's JSON for one seed (model and simulator rows together).
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { reproduceSim, SIM_SEEDS, simSeeds, type SimCheck } from '../../src/sim/reproduce/index.js';
import { seed004 } from '../../src/sim/reproduce/seed004.js';

const STATUSES = ['pass', 'fail', 'not-matchable', 'info'];
const BASES = ['calibrated', 'validation', 'input', 'derived'];

function wellFormed(c: SimCheck): void {
  expect(c.seed).toMatch(/^seed 00\d$/);
  for (const k of ['claim', 'published', 'ours', 'tolerance'] as const) expect(typeof c[k] === 'string' && c[k].length > 0, `${k} of ${c.claim}`).toBe(true);
  expect(STATUSES).toContain(c.status);
  expect(BASES).toContain(c.basis);
  if (c.relError !== undefined) expect(Number.isFinite(c.relError) && c.relError >= 0).toBe(true);
  if (c.status === 'not-matchable') expect(c.note?.length ?? 0).toBeGreaterThan(10);
}

describe('simulator reproduction', () => {
  it('covers every seed', () => {
    expect(simSeeds()).toEqual([...SIM_SEEDS]);
  });

  it('seed 003: well-formed checks, calibration targets declared, a plot', () => {
    const [r] = reproduceSim(['003'], { plots: true });
    expect(r.seed).toBe('seed 003');
    expect(r.checks.length).toBeGreaterThanOrEqual(10);
    r.checks.forEach(wellFormed);
    expect(r.checks.some((c) => c.basis === 'calibrated')).toBe(true);
    expect(r.checks.some((c) => c.basis === 'validation' && c.status === 'pass')).toBe(true);
    // A calibrated row passes by construction; it must say so, never pose as validation.
    const nic = r.checks.find((c) => c.claim.startsWith('NIC-based barrier, 16 nodes'))!;
    expect(nic.basis).toBe('calibrated');
    expect(nic.status).toBe('pass');
    expect(r.plots.map((p) => p.name)).toEqual(['seed003-fig6.4-6.6-barrier-vs-nodes']);
    expect(r.plots[0].svg).toMatch(/^<svg/);
    expect(r.seconds).toBeGreaterThan(0);
  });

  it('seed 004 on a small grid: regime checks and simulated regime maps', () => {
    const r = seed004({ meshes: [[2, 2], [4, 4]], lengths: [100, 10000] });
    r.checks.forEach(wellFormed);
    expect(r.checks.filter((c) => c.claim.startsWith('each algorithm ≥ 33%'))).toHaveLength(3);
    expect(r.plots.map((p) => p.name)).toEqual(['seed004-fig5-regimes-simulated-standard', 'seed004-fig5-regimes-simulated-nominal']);
  });
});

describe('coll reproduce <seed>', () => {
  let out: string[];
  beforeEach(() => {
    out = [];
    vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  });
  afterEach(() => vi.restoreAllMocks());

  it('003 --quick --json --plot: model and simulator rows, SVG files, exit 1 only when a check fails', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'coll-repro-')), 'plots');
    const code = await main(['reproduce', '003', '--quick', '--json', '--plot', dir]);
    const j = JSON.parse(out.join('\n')) as { checks: { source: string; status: string; seed: string }[]; maps: string[]; effort: { seed: string }[] };
    expect(j.checks.every((c) => c.seed === 'seed 003')).toBe(true);
    expect(new Set(j.checks.map((c) => c.source))).toEqual(new Set(['model', 'runtime', 'sim']));
    expect(code).toBe(j.checks.some((c) => c.status === 'fail') ? 1 : 0);
    expect(j.maps.some((f) => f.endsWith('seed003-fig6.4-6.6-barrier-vs-nodes.svg'))).toBe(true);
    for (const f of j.maps) expect(existsSync(f) && readFileSync(f, 'utf8').startsWith('<svg')).toBe(true);
    expect(j.effort.map((e) => e.seed)).toEqual(['seed 003']);
    expect(await main(['reproduce', '007'])).toBe(2);
  });
});
