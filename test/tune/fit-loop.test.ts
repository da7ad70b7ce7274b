/**
 * Closing the loop: a machine file written by `coll fit` (here from synthetic hooks,
 * so the test does not depend on timing) → `coll tune --machine file --out table`
 * → the runtime's automatic selection loads the table (setDecisionTable, and
 * COLL_DECISION_TABLE in a real job) and runs the tuner's choices.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkRestrictions, getAlgorithm } from '../../src/algorithms/registry.js';
import { main } from '../../src/cli/main.js';
import { launch } from '../../src/runtime/launcher.js';
import { saveMachineFile } from '../../src/model/machines/load.js';
import { selectAlgorithm, setDecisionTable } from '../../src/exec/selection.js';
import { flatTopology } from '../../src/schedule/topology.js';
import { buildDecisionTable, loadDecisionTable, lookupDecision, type DecisionTable } from '../../src/tune/decision.js';
import { getMachine } from '../../src/model/machines/index.js';
import { runFit } from '../../src/tune/fit-machine.js';
import { fitPlan } from '../../src/tune/fit-plan.js';

const dir = mkdtempSync(join(tmpdir(), 'coll-loop-'));
const machineFile = join(dir, 'machine.json');
const tableFile = join(dir, 'table.json');
const BYTES = [8, 1024, 65536, 1 << 20];
let table: DecisionTable;

beforeAll(async () => {
  const r = await runFit({
    name: 'loop-test',
    ops: ['sum'],
    dtypes: ['float64'],
    counts: [1, 64, 4096],
    timing: { minSeconds: 1e-4, trials: 1 },
    plan: fitPlan(true),
    hooks: {
      pingPongIntra: async (b) => 2e-6 + b * 1e-10,
      pingPongInter: async (b) => 40e-6 + b * 2e-9,
      serialReduction: async (P, op) => 5e-6 + (P - 1) * (3e-6 + (op === 'noop' ? 0 : 1e-7)),
      nblTestjig: async (L, S) => L * 30e-6 + [0, 1, 1.4, 0, 2.5, 0, 3.6][L] * 8e-9 * S,
    },
  });
  saveMachineFile(machineFile, r.machine);
  const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
  try {
    const code = await main(['tune', '--machine', machineFile, '--out', tableFile, '--collectives', 'allreduce,bcast', '--procs', '2,4', '--bytes', BYTES.join(','), '--quiet', '--no-verify']);
    expect(code).toBe(0);
  } finally {
    log.mockRestore();
  }
  table = loadDecisionTable(tableFile);
}, 60_000);

afterAll(() => setDecisionTable(undefined));

const query = (collective: 'allreduce' | 'bcast', P: number, bytes: number) =>
  ({ collective, size: P, count: bytes / 8, root: 0, commutative: true, elementSize: 8, topology: flatTopology(P), datatype: 'float64', op: 'sum', bytes }) as const;

/**
 * What the runtime must run for a table rule: its algorithm when its restrictions hold
 * at the call, else the algorithm's declared fallback (the runtime never runs an
 * inapplicable one).
 */
function expected(collective: 'allreduce' | 'bcast', P: number, bytes: number): string {
  const rule = lookupDecision(table, { collective, P, bytes, datatype: 'float64', op: 'sum' });
  if (!rule) throw new Error(`no rule for ${collective} P=${P} ${bytes} B`);
  const spec = getAlgorithm(collective, rule.algorithm);
  try {
    checkRestrictions(spec, { ...query(collective, P, bytes), params: rule.params });
    return rule.algorithm;
  } catch {
    if (!spec.fallback) throw new Error(`table rule ${rule.algorithm} is inapplicable and has no fallback`);
    return spec.fallback;
  }
}

describe('fit → tune → runtime selection', () => {
  it('the table is built from the fitted machine', () => {
    expect(table.machine).toBe('loop-test');
    expect(table.rules.some((r) => r.collective === 'allreduce')).toBe(true);
    expect(table.rules.some((r) => r.collective === 'bcast')).toBe(true);
  });

  it('selectAlgorithm honours the loaded table at every grid point', () => {
    setDecisionTable(table);
    try {
      for (const collective of ['allreduce', 'bcast'] as const) {
        for (const P of [2, 4]) {
          for (const bytes of BYTES) {
            const rule = lookupDecision(table, { collective, P, bytes, datatype: 'float64', op: 'sum' });
            expect(rule, `${collective} P=${P} ${bytes} B`).toBeDefined();
            const c = selectAlgorithm(query(collective, P, bytes));
            expect(c.reason).toBe('table');
            expect(c.spec.name, `${collective} P=${P} ${bytes} B`).toBe(expected(collective, P, bytes));
            if (c.spec.name === rule?.algorithm) expect(c.params).toEqual(rule.params);
          }
        }
      }
    } finally {
      setDecisionTable(undefined);
    }
  });

  it('a real job with COLL_DECISION_TABLE runs the tuner’s choices', async () => {
    const counts = BYTES.map((b) => b / 8);
    const r = await launch({
      ranks: 2,
      nodes: 2, // two nodes: no shared-memory fast path, selection decides
      program: fileURLToPath(new URL('./programs/which-algorithm.ts', import.meta.url)),
      args: [counts.join(',')],
      env: { COLL_DECISION_TABLE: tableFile },
      arenaMb: 64,
      jobTimeoutMs: 60_000,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const picks = r.stdout
      .split('\n')
      .filter((l) => l.includes('PICK '))
      .map((l) => JSON.parse(l.slice(l.indexOf('{'))) as { count: number; allreduce: string; bcast: string; sum: number });
    expect(picks.map((p) => p.count)).toEqual(counts);
    // The table changes at least one choice against the built-in rules, so matching it proves it was loaded.
    const rulesOnly = (c: 'allreduce' | 'bcast', bytes: number): string => selectAlgorithm(query(c, 2, bytes)).spec.name;
    expect(picks.some((p) => (['allreduce', 'bcast'] as const).some((c) => rulesOnly(c, p.count * 8) !== expected(c, 2, p.count * 8)))).toBe(true);
    for (const p of picks) {
      expect(p.sum).toBe(3);
      for (const collective of ['allreduce', 'bcast'] as const) {
        expect(p[collective], `${collective} ${p.count} elements`).toMatch(new RegExp(`^${collective}/${expected(collective, 2, p.count * 8)}\\b`));
      }
    }
  }, 60_000);
});

describe('decision tables for the runtime', () => {
  it('never rank mesh algorithms (runtime communicators have no mesh placement)', () => {
    const t = buildDecisionTable(getMachine('delta'), { collectives: ['allreduce'], procs: [4, 16, 64], bytes: [8, 8 * 1024, 8 * 100_000] });
    expect(t.rules.length).toBeGreaterThan(0);
    for (const r of t.rules) expect(['mesh_tree', 'snake', 'fence']).not.toContain(r.algorithm);
  });
});
