/** coll model / tune / fit / reproduce, run in-process through main(). */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureConsole } from '../helpers/console.js';
import { main } from '../../src/cli/main.js';
import { listAlgorithms } from '../../src/algorithms/registry.js';
import { DELTA } from '../../src/model/machines/index.js';
import { machineToJson } from '../../src/model/machines/load.js';

const captured = captureConsole({ quietStderr: true });
const { out, err } = captured;
const dir = mkdtempSync(join(tmpdir(), 'coll-cli-'));

describe('coll model', () => {
  it('ranks every applicable algorithm best first with dominant terms', async () => {
    expect(await main(['model', 'allreduce', '--procs', '64', '--ppn', '4', '--bytes', '64', '--model', 'maxrate'])).toBe(0);
    const text = out.join('\n');
    expect(text).toContain('allreduce: P = 64 (16 nodes × 4), 64 B per rank');
    expect(text).toMatch(/1 {2}\S+ .*µs .*alpha \d+%/);
    expect(text).toContain('recursive_doubling');
  });

  it('--json: predictions sorted by time, with terms summing to the time', async () => {
    expect(await main(['model', 'reduce', '-n', '31', '--bytes', '8', '--machine', 'elan3-nic', '--tune', '--json'])).toBe(0);
    const j = JSON.parse(out.join('\n')) as { predictions: { algorithm: string; params: Record<string, number>; time: number; terms: Record<string, number> }[] };
    const t = j.predictions.map((p) => p.time);
    expect([...t].sort((a, b) => a - b)).toEqual(t);
    for (const p of j.predictions) expect(Object.values(p.terms).reduce((a, b) => a + b, 0)).toBeCloseTo(p.time, 12);
    const fn = j.predictions.find((p) => p.algorithm === 'fnomial');
    expect(fn?.params.f).toBe(2);
    expect((fn?.time ?? 0) * 1e6).toBeCloseTo(27.2, 6);
  });

  it('mesh algorithms on a given mesh under the NBL model', async () => {
    expect(await main(['model', 'allreduce', '-n', '16', '--bytes', '800', '--machine', 'delta', '--model', 'nbl:nominal', '--mesh', '4x4'])).toBe(0);
    if (listAlgorithms('allreduce').some((a) => a.name === 'mesh_tree')) expect(out.join('\n')).toContain('mesh_tree');
  });

  it('bad input: unknown model, machine, collective; P not divisible by ppn; a mesh that does not fit; negative latency', async () => {
    expect(await main(['model', 'allreduce', '--model', 'telepathy'])).toBe(2);
    expect(err.join('\n')).toMatch(/unknown model 'telepathy'[\s\S]*known models: dag, loggp, hockney, split, maxrate, nbl/);
    expect(await main(['model', 'allreduce', '--machine', 'cray1'])).toBe(2);
    expect(err.join('\n')).toMatch(/unknown machine 'cray1'[\s\S]*known machines: .*delta/);
    expect(await main(['model', 'allsum'])).toBe(2);
    expect(err.join('\n')).toMatch(/unknown collective 'allsum'/);
    expect(await main(['model', 'allreduce', '-n', '30', '--ppn', '4', '--model', 'maxrate'])).toBe(2);
    expect(err.join('\n')).toMatch(/P = 30 is not divisible by ppn = 4/);
    expect(await main(['model', 'allreduce', '-n', '20', '--mesh', '4x4'])).toBe(2);
    expect(err.join('\n')).toMatch(/a 4x4 mesh holds 16 ranks, not P = 20/);
    const bad = join(dir, 'neg.json');
    writeFileSync(bad, machineToJson(DELTA).replace('"alpha": 0.000054', '"alpha": -0.000054'));
    expect(await main(['model', 'allreduce', '--machine', bad])).toBe(2);
    expect(err.join('\n')).toMatch(/neg\.json: invalid machine description:\n\s+- links\.node\.alpha: -0\.000054 is out of range; allowed: ≥ 0 \(s\)/);
  });

  it('restriction violations are reported per algorithm with the requirement', async () => {
    // 10 ranks, 4 per node: nodes of 4, 4 and 2 ranks (the DAG model accepts uneven nodes).
    expect(await main(['model', 'allreduce', '-n', '10', '--ppn', '4', '--bytes', '64'])).toBe(0);
    const text = out.join('\n');
    if (listAlgorithms('allreduce').some((a) => a.name === 'nap')) {
      expect(text).toMatch(/not applicable:[\s\S]*nap: algorithm 'allreduce\/nap' requires the same number of ranks on every node/);
    }
  });

  it('--list shows machines with their sources and the models', async () => {
    expect(await main(['model', '--list'])).toBe(0);
    expect(out.join('\n')).toContain('seed 004 (Littlefield 1992)');
    expect(out.join('\n')).toContain('nbl:testjig');
  });
});

describe('coll tune', () => {
  it('writes a decision table and answers lookups from it', async () => {
    const f = join(dir, 'table.json');
    expect(await main(['tune', '--machine', 'bluewaters', '--collectives', 'allreduce,barrier', '--procs', '4,8', '--bytes', '8,4k', '--ppn', '2', '--model', 'split', '-q', '--out', f])).toBe(0);
    expect(existsSync(f)).toBe(true);
    const t = JSON.parse(readFileSync(f, 'utf8')) as { format: string; rules: { collective: string }[] };
    expect(t.format).toBe('collectives-decisions/1');
    captured.clear();
    expect(await main(['tune', '--table', f, '--lookup', 'allreduce,6,100'])).toBe(0);
    expect(out.join('\n')).toMatch(/^allreduce\/\w+/);
    expect(await main(['tune', '--table', f, '--lookup', 'gather,6,100'])).toBe(1);
    expect(await main(['tune', '--machine', 'bluewaters', '--collectives', 'allsum'])).toBe(2);
  });
});

describe('coll fit', () => {
  it('--quick --kernels-only measures kernels and memcpy and writes a loadable machine file', async () => {
    const f = join(dir, 'machine.json');
    expect(await main(['fit', '--quick', '--kernels-only', '--out', f, '--name', 'ci'])).toBe(0);
    expect(out.join('\n')).toMatch(/sum\/float64 +[\d.]+ ns/);
    expect(out.join('\n')).toContain('not measured (written as marked assumptions or left out)');
    captured.clear();
    expect(await main(['model', 'allreduce', '-n', '8', '--bytes', '1k', '--machine', f])).toBe(0);
    expect(out.join('\n')).toMatch(/machine ci \(measured on .* by coll fit/);
  });
});

describe('coll reproduce models', () => {
  it('--quick --json --plot: checks without failures and SVG regime maps', async () => {
    const d = join(dir, 'plots');
    expect(await main(['reproduce', 'models', '--quick', '--json', '--plot', d])).toBe(0);
    const j = JSON.parse(out.join('\n')) as { checks: { status: string }[]; maps: string[] };
    expect(j.checks.filter((c) => c.status === 'fail')).toEqual([]);
    expect(j.maps.length).toBeGreaterThanOrEqual(5);
    expect(readFileSync(j.maps[0], 'utf8')).toMatch(/^<svg/);
    expect(await main(['reproduce', 'everything'])).toBe(2);
  });
});
