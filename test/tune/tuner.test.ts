import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UnknownAlgorithmError } from '../../src/core/errors.js';
import { generateSchedule, listAlgorithms } from '../../src/algorithms/registry.js';
import { evaluateDag } from '../../src/model/dag.js';
import { UnknownModelError } from '../../src/model/errors.js';
import { BLUE_WATERS, DELTA, ELAN3_NIC } from '../../src/model/machines/index.js';
import { costSchedule } from '../../src/model/models.js';
import { predictAlgorithm, predictAll, resolveScenario } from '../../src/model/predict.js';
import { meshTopology } from '../../src/schedule/topology.js';
import { parameterGrid } from '../../src/tune/candidates.js';
import { buildDecisionTable, loadDecisionTable, lookupDecision, saveDecisionTable } from '../../src/tune/decision.js';
import { tune } from '../../src/tune/tuner.js';

const has = (c: 'allreduce' | 'reduce', n: string): boolean => listAlgorithms(c).some((a) => a.name === n);

describe('tuner', () => {
  it('f-nomial degree at P = 31 (NIC, Float64 Add, 1 element, DAG): the brute-force optimum, f = 2 at 27.20 µs', () => {
    const r = tune({ collective: 'reduce', P: 31, ppn: 1, bytes: 8, datatype: 'float64', op: 'sum' }, ELAN3_NIC, { algorithms: ['fnomial'] });
    // Independent brute force over f = 2..30.
    let best = { f: 0, t: Infinity };
    for (let f = 2; f <= 30; f++) {
      const t = evaluateDag(generateSchedule('reduce', 'fnomial', { size: 31, count: 1, params: { f } }), ELAN3_NIC).time;
      if (t < best.t) best = { f, t };
    }
    expect(r.ranked[0].params.f).toBe(best.f);
    expect(r.ranked[0].time).toBe(best.t);
    expect(best.f).toBe(2);
    expect(best.t * 1e6).toBeCloseTo(27.2, 9);
    expect(r.ranked.map((x) => x.params.f)).toHaveLength(16); // f = 2..16 and 30
  });

  it.runIf(has('allreduce', 'snake') && has('allreduce', 'mesh_tree'))('seed 004 regimes on a 4×4 DELTA mesh (nominal NBL): Tree for 100 doubles, Snake for 5·10^5; block = brute-force best', () => {
    // The seed compares its three mesh algorithms (others, e.g. Rabenseifner, are not link-conflict-free on a mesh).
    const short = tune({ collective: 'allreduce', P: 16, ppn: 1, bytes: 800 }, DELTA, { model: 'nbl:nominal', algorithms: ['snake', 'fence', 'mesh_tree'] });
    expect(short.ranked[0].algorithm).toBe('mesh_tree');
    const long = tune({ collective: 'allreduce', P: 16, ppn: 1, bytes: 8 * 5e5 }, DELTA, { model: 'nbl:nominal', algorithms: ['snake', 'fence', 'mesh_tree'], grid: { maxSegments: 1024 } });
    expect(long.ranked[0].algorithm).toBe('snake');
    const topo = meshTopology(4, 4);
    let best = { block: 0, t: Infinity };
    for (const block of [512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144, 500000]) {
      const t = costSchedule(generateSchedule('allreduce', 'snake', { size: 16, count: 5e5, topology: topo, params: { block } }), DELTA, 'nbl:nominal', { topology: topo }).time;
      if (t < best.t) best = { block, t };
    }
    expect(long.ranked[0].params.block).toBe(best.block);
    expect(long.ranked[0].time).toBe(best.t);
  });

  it('parameter grids: degrees 2..16 and P−1, splits to lg count, power-of-two segments capped', () => {
    const fn = listAlgorithms('reduce').find((a) => a.name === 'fnomial');
    if (!fn) throw new Error('fnomial missing');
    expect(parameterGrid(fn, { P: 5, count: 8 }).map((g) => g.f)).toEqual([2, 3, 4]);
    expect(parameterGrid(fn, { P: 40, count: 8 }).map((g) => g.f)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 39]);
    const sn = listAlgorithms('allreduce').find((a) => a.name === 'snake');
    if (sn) expect(parameterGrid(sn, { P: 16, count: 1000, maxSegments: 8 }).map((g) => g.block)).toEqual([128, 256, 512, 1000]);
  });

  it('predictAll lists mesh algorithms as not applicable with ppn > 1, and sorts best first', () => {
    const r = predictAll({ collective: 'allreduce', P: 64, ppn: 4, bytes: 64 }, BLUE_WATERS, 'maxrate');
    const times = r.predictions.map((p) => p.time);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    if (has('allreduce', 'snake')) expect(r.notApplicable.find((n) => n.algorithm === 'snake')?.reason).toMatch(/ppn = 1/);
    expect(r.predictions[0].dominant.length).toBeGreaterThan(0);
  });

  it('bad scenarios give typed errors naming the value and the accepted range', () => {
    expect(() => resolveScenario({ collective: 'allreduce', P: 30, ppn: 4, bytes: 8 }, { base: 'maxrate', label: 'maxrate' })).toThrow(/P = 30 is not divisible by ppn = 4/);
    expect(() => resolveScenario({ collective: 'allreduce', P: 20, ppn: 1, bytes: 8, mesh: { W: 4, H: 4 } })).toThrow(/a 4x4 mesh holds 16 ranks, not P = 20[\s\S]*4x5/);
    expect(() => resolveScenario({ collective: 'allreduce', P: 8, ppn: 1, bytes: 12 })).toThrow(/12 bytes is not a whole number of float64 elements/);
    expect(() => resolveScenario({ collective: 'allreduce', P: 8, ppn: 9, bytes: 8 })).toThrow(/ppn \(ranks per node\) must be an integer in \[1, 8\], got 9/);
    const s = resolveScenario({ collective: 'allreduce', P: 8, ppn: 1, bytes: 8 });
    expect(() => predictAlgorithm(s, 'nonesuch', BLUE_WATERS, 'dag')).toThrow(UnknownAlgorithmError);
    expect(() => predictAlgorithm(s, 'recursive_doubling', BLUE_WATERS, 'postal')).toThrow(UnknownModelError);
  });

  it.runIf(has('allreduce', 'rabenseifner'))('a restriction violation is reported as not applicable with the restriction', () => {
    const s = resolveScenario({ collective: 'allreduce', P: 8, ppn: 1, bytes: 8, op: 'sum' });
    const r = predictAlgorithm(s, 'rabenseifner', BLUE_WATERS, 'dag');
    if ('reason' in r) expect(r.reason).toMatch(/requires/);
  });
});

describe('decision tables', () => {
  const grid = { procs: [4, 8, 16], bytes: [8, 4096, 262144] };
  const table = buildDecisionTable(BLUE_WATERS, { collectives: ['allreduce', 'barrier'], ...grid, ppn: 4, model: 'maxrate' });

  it('rules reproduce the tuner at every grid point, cover the ranges between, and merge equal choices', () => {
    for (const P of grid.procs) {
      for (const b of grid.bytes) {
        const best = tune({ collective: 'allreduce', P, ppn: 4, bytes: b }, BLUE_WATERS, { model: 'maxrate' }).ranked[0];
        const rule = lookupDecision(table, { collective: 'allreduce', P, bytes: b });
        expect(rule?.algorithm).toBe(best.algorithm);
        expect(rule?.params).toEqual(best.params);
      }
    }
    const mid = lookupDecision(table, { collective: 'allreduce', P: 12, bytes: 100000 });
    expect(mid).toEqual(lookupDecision(table, { collective: 'allreduce', P: 8, bytes: 4096 }));
    expect(lookupDecision(table, { collective: 'allreduce', P: 1000, bytes: 1 << 30 })?.pMax).toBeNull();
    expect(lookupDecision(table, { collective: 'barrier', P: 16, bytes: 0 })).toBeDefined();
    expect(lookupDecision(table, { collective: 'gather', P: 16, bytes: 8 })).toBeUndefined();
    const rulesAt4 = table.rules.filter((r) => r.collective === 'allreduce' && r.pMin === 1);
    for (let i = 1; i < rulesAt4.length; i++) expect(rulesAt4[i].algorithm + JSON.stringify(rulesAt4[i].params)).not.toBe(rulesAt4[i - 1].algorithm + JSON.stringify(rulesAt4[i - 1].params));
  });

  it('JSON round trip and load errors', () => {
    const dir = mkdtempSync(join(tmpdir(), 'coll-dt-'));
    const p = join(dir, 't.json');
    saveDecisionTable(p, table);
    expect(loadDecisionTable(p)).toEqual(table);
    writeFileSync(p, '{"format": "other"}');
    expect(() => loadDecisionTable(p)).toThrow(/is not a decision table/);
  });
});
