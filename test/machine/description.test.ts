/**
 * One machine description for every command: a file `coll fit` writes runs in
 * `coll sim`, `coll model` and `coll tune`; the examples validate and run; bad fields
 * are named with the allowed range; the older `coll fit` and `coll sim` shapes are read
 * with one warning on stderr that says how to convert, and give the same results.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { toSimMachine } from '../../src/machine/convert.js';
import { readMachineFile, resetMachineWarnings } from '../../src/machine/read.js';
import { parseMachineDescription } from '../../src/machine/schema.js';
import { saveMachineFile } from '../../src/model/machines/load.js';
import { PRESETS } from '../../src/sim/presets.js';
import { runFit } from '../../src/tune/fit-machine.js';
import { fitPlan } from '../../src/tune/fit-plan.js';
import { captureConsole } from '../helpers/console.js';

const dir = mkdtempSync(join(tmpdir(), 'coll-machine-desc-'));
const fitted = join(dir, 'fitted.json');
const io = captureConsole({ quietStderr: true });

/** Run the CLI; returns exit code and what it printed. */
async function coll(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  io.clear();
  const code = await main(argv);
  return { code, out: io.out.join('\n'), err: io.err.join('\n') };
}

const json = (text: string): Record<string, unknown> => JSON.parse(text) as Record<string, unknown>;
const simTime = (out: string): number => (json(out).first as { time: number }).time;
const modelTime = (out: string, algorithm: string): number =>
  (json(out).predictions as { algorithm: string; time: number }[]).find((p) => p.algorithm === algorithm)?.time ?? NaN;

beforeAll(async () => {
  // A machine file written the way `coll fit` writes it, from synthetic measurements.
  const r = await runFit({
    name: 'desc-test',
    ops: ['sum'],
    dtypes: ['float64'],
    counts: [1, 64, 4096],
    timing: { minSeconds: 1e-4, trials: 1 },
    plan: fitPlan(true),
    hooks: {
      pingPongIntra: async (b) => 2e-6 + b * 1e-10,
      pingPongInter: async (b) => 40e-6 + b * 2e-9,
    },
  });
  saveMachineFile(fitted, r.machine);
}, 60_000);

describe('the machine description', () => {
  it('coll fit writes it: schema, version, links, host, sources', () => {
    const d = json(readFileSync(fitted, 'utf8'));
    expect(d).toMatchObject({ schema: 'collectives/machine', version: 1, name: 'desc-test' });
    expect(d.links).toHaveProperty('network.alpha');
    expect(d.host).toHaveProperty('gamma.sum/float64');
    expect(() => parseMachineDescription(d)).not.toThrow();
  });

  it('round trip: fit → sim → model → tune on the written file', async () => {
    const v = await coll('machine', 'validate', fitted);
    expect(v.code).toBe(0);
    expect(v.out).toMatch(/valid machine description 'desc-test'/);
    // Without contention and noise the simulator equals the DAG model exactly (a
    // broadcast: the simulator has no c(op, n) table, so reductions differ by design).
    const sim = await coll('sim', 'bcast', '--machine', fitted, '--procs', '4', '--ppn', '1', '--bytes', '64', '--algorithm', 'binomial', '--no-contention', '--json', '--quiet');
    expect(sim.code, sim.err).toBe(0);
    const model = await coll('model', 'bcast', '--machine', fitted, '--procs', '4', '--ppn', '1', '--bytes', '64', '--json');
    expect(model.code, model.err).toBe(0);
    const t = modelTime(model.out, 'binomial');
    expect(t).toBeGreaterThan(80e-6); // two inter-node steps of ≥ 40 µs
    expect(simTime(sim.out)).toBeCloseTo(t, 12);
    const table = join(dir, 'table.json');
    const tune = await coll('tune', '--machine', fitted, '--collectives', 'allreduce', '--procs', '2,4', '--bytes', '8,65536', '--out', table, '--quiet', '--no-verify');
    expect(tune.code, tune.err).toBe(0);
    expect(json(readFileSync(table, 'utf8'))).toMatchObject({ machine: 'desc-test' });
    expect(io.err.join('\n')).not.toMatch(/warning/);
  });

  it('the examples in examples/machines validate and run in coll model and coll sim', async () => {
    const root = new URL('../../examples/machines/', import.meta.url).pathname;
    const files = readdirSync(root).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThanOrEqual(2);
    for (const f of files) {
      const p = join(root, f);
      expect((await coll('machine', 'validate', p)).code).toBe(0);
      const m = await coll('model', 'bcast', '--machine', p, '--procs', '8', '--bytes', '1k');
      expect(m.code, m.err).toBe(0);
      expect(m.out).toMatch(/binomial/);
      const s = await coll('sim', 'bcast', '--machine', p, '--procs', '8', '--bytes', '1k', '--quiet');
      expect(s.code, s.err).toBe(0);
      expect(s.out).toMatch(/^bcast\/binomial on /);
      expect(io.err.join('\n')).not.toMatch(/warning/);
    }
  });

  it('a preset-based description: base + overrides with units', async () => {
    const p = join(dir, 'fast.json');
    writeFileSync(p, JSON.stringify({ schema: 'collectives/machine', version: 1, base: 'crescendo', name: 'crescendo-800', network: { linkBandwidth: '800MB/s' }, links: { network: { alpha: '1.5us' } } }));
    const m = toSimMachine(readMachineFile(p));
    expect(m.network.linkBandwidth).toBe(800e6);
    expect(m.classes.network.alpha).toBeCloseTo(1.5e-6, 15);
    expect(m.nodes).toBe(PRESETS.crescendo.nodes);
    expect(m.nic).toEqual(PRESETS.crescendo.nic);
  });
});

describe('validation errors name the field and the allowed range', () => {
  const base = () => json(readFileSync(fitted, 'utf8'));
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- edits reach into nested JSON
  const bad = async (edit: (d: Record<string, any>) => void): Promise<string> => {
    const d = base();
    edit(d);
    const p = join(dir, `bad-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(p, JSON.stringify(d));
    const r = await coll('sim', 'barrier', '--machine', p, '--procs', '2');
    expect(r.code).toBe(2);
    const m = await coll('model', 'barrier', '--machine', p, '--procs', '2');
    expect(m.code).toBe(2);
    expect(m.err).toBe(r.err.replace('coll sim:', 'coll model:'));
    return r.err;
  };

  it('negative, non-integer, misspelt, wrong-unit and missing fields, all at once', async () => {
    const err = await bad((d) => {
      d.links.network.alpha = '-3us';
      d.links.node.alpah = 1;
      d.nodes = 0;
      d.coresPerNode = 1.5;
      d.host.copyPerByte = '3 furlongs';
      delete d.host.oRecv;
    });
    expect(err).toMatch(/links\.network\.alpha: -0\.000003 is out of range; allowed: ≥ 0 \(s\)/);
    expect(err).toMatch(/links\.node: unknown field 'alpah'/);
    expect(err).toMatch(/nodes: 0 is out of range; allowed: an integer ≥ 1/);
    expect(err).toMatch(/coresPerNode: 1\.5 is out of range; allowed: an integer ≥ 1/);
    expect(err).toMatch(/host\.copyPerByte: "3 furlongs" is not a number or a quantity with units .*allowed: ≥ 0 \(s\/B\)/);
    expect(err).toMatch(/host\.oRecv: missing/);
  });

  it('enumerations and the version', async () => {
    expect(await bad((d) => (d.version = 2))).toMatch(/version: must be 1/);
    expect(await bad((d) => (d.network = { topology: 'ring', linkBandwidth: '1GB/s', hopLatency: 0 }))).toMatch(/network\.topology: must be "crossbar" or "fattree" or "mesh2d" or "torus3d"/);
    expect(await bad((d) => (d.network = { topology: 'crossbar', linkBandwidth: 0, hopLatency: 0 }))).toMatch(/network\.linkBandwidth: 0 is out of range; allowed: > 0 \(B\/s\)/);
  });

  it('cross-field rules of the simulator are checked when the file is read', async () => {
    const err = await bad((d) => {
      d.nodes = 100;
      d.network = { topology: 'fattree', arity: 4, levels: 2, linkBandwidth: '1GB/s', hopLatency: '50ns' };
    });
    expect(err).toMatch(/a 4-ary 2-tree has 16 node ports, fewer than nodes = 100/);
  });
});

describe('the older shapes', () => {
  it("coll fit's collectives-machine/1: one warning saying how to convert, the same result", async () => {
    resetMachineWarnings();
    const d = json(readFileSync(fitted, 'utf8'));
    const m = (await import('../../src/model/machines/load.js')).loadMachineFile(fitted);
    const old = join(dir, 'old-fit.json');
    writeFileSync(old, JSON.stringify({ format: 'collectives-machine/1', ...m }));
    const args = ['bcast', '--procs', '4', '--ppn', '1', '--bytes', '64'];
    const now = await coll('model', ...args, '--machine', fitted, '--json');
    const before = await coll('model', ...args, '--machine', old, '--json');
    expect(before.code).toBe(0);
    const warnings = before.err.split('\n').filter((l) => /warning/.test(l));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/older 'coll fit' shape .* coll machine convert .*old-fit\.json --out NEW\.json/);
    expect(json(before.out).predictions).toEqual(json(now.out).predictions);
    // Once per file: a second command in the same process does not repeat it.
    const sim = await coll('sim', ...args, '--machine', old, '--algorithm', 'binomial', '--no-contention', '--json', '--quiet');
    expect(sim.err).not.toMatch(/warning/);
    expect(simTime(sim.out)).toBeCloseTo(modelTime(now.out, 'binomial'), 12);
    // Converted, it reads without a warning and says the same.
    const conv = join(dir, 'converted.json');
    expect((await coll('machine', 'convert', old, '--out', conv)).code).toBe(0);
    expect(json(readFileSync(conv, 'utf8'))).toEqual(d);
    const after = await coll('model', ...args, '--machine', conv, '--json');
    expect(after.err).not.toMatch(/warning/);
    expect(json(after.out).predictions).toEqual(json(now.out).predictions);
  });

  it("coll sim's MachineSpec (with base and units): one warning, the same simulation", async () => {
    resetMachineWarnings();
    const old = join(dir, 'old-sim.json');
    writeFileSync(old, JSON.stringify({ base: 'alc', name: 'alc-800', network: { linkBandwidth: '800MB/s' }, classes: { network: { alpha: '2us' } } }));
    const neu = join(dir, 'new-sim.json');
    writeFileSync(neu, JSON.stringify({ schema: 'collectives/machine', version: 1, base: 'alc', name: 'alc-800', network: { linkBandwidth: '800MB/s' }, links: { network: { alpha: '2us' } } }));
    const args = ['reduce', '--procs', '64', '--ppn', '2', '--algorithm', 'fnomial', '--mode', 'offload', '--json', '--quiet'];
    const before = await coll('sim', ...args, '--machine', old);
    expect(before.code, before.err).toBe(0);
    expect(before.err.split('\n').filter((l) => /warning/.test(l))).toEqual([expect.stringMatching(/older 'coll sim' shape .*coll machine convert/)]);
    const now = await coll('sim', ...args, '--machine', neu);
    expect(now.err).not.toMatch(/warning/);
    expect(simTime(before.out)).toBe(simTime(now.out));
    expect(simTime(now.out)).not.toBe(simTime((await coll('sim', ...args, '--machine', 'alc')).out));
  });
});

describe('start-up cost', () => {
  it('importing the package does not load zod (it loads when a machine file is read)', async () => {
    const { spawnSync } = await import('node:child_process');
    const index = new URL('../../src/index.ts', import.meta.url).href;
    const code = `await import(${JSON.stringify(index)});
      const { createRequire } = await import('node:module');
      const cache = createRequire(import.meta.url).cache;
      const before = Object.keys(cache).some((k) => k.includes('/node_modules/zod/'));
      const m = await import(${JSON.stringify(new URL('../../src/machine/index.ts', import.meta.url).href)});
      m.parseMachineDescription(JSON.parse(${JSON.stringify(readFileSync(new URL('../../examples/machines/elan3-cluster.json', import.meta.url), 'utf8'))}));
      const after = Object.keys(cache).some((k) => k.includes('/node_modules/zod/'));
      console.log(JSON.stringify({ before, after }));`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { encoding: 'utf8', cwd: new URL('../../', import.meta.url).pathname, timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}')).toEqual({ before: false, after: true });
    // Only type imports of zod at the top of a module; the schema requires it on first use.
    const src = new URL('../../src/', import.meta.url).pathname;
    const { execFileSync } = await import('node:child_process');
    const hits = execFileSync('grep', ['-rn', "from 'zod'", src], { encoding: 'utf8' }).trim().split('\n');
    for (const h of hits) expect(h).toMatch(/import type /);
  }, 60_000);
});
