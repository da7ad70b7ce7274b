import { describe, expect, it } from 'vitest';
import { serialReduction } from '../../src/model/lrc.js';
import { numericPaths, sourceOf, validateMachine } from '../../src/model/machine.js';
import { getMachine, machineNames } from '../../src/model/machines/index.js';
import { machineFromJson, machineToJson } from '../../src/model/machines/load.js';
import { perUnit, runFit } from '../../src/tune/fit-machine.js';
import { measureReduce, supportedPairs } from '../../src/tune/measure.js';

const quick = { ops: ['sum', 'band'], dtypes: ['float64', 'int32'], counts: [1, 64, 4096], timing: { minSeconds: 2e-4, trials: 1 } };

describe('coll fit machinery', () => {
  it('supported (op, dtype) pairs skip bitwise operators on floats', () => {
    expect(supportedPairs(['sum', 'band'], ['float64', 'int32']).map((p) => `${p.op}/${p.dtype}`)).toEqual(['sum/float64', 'sum/int32', 'band/int32']);
  });

  it('a per-unit cost is never zero: a noisy non-positive slope falls back to the time per unit of the largest sample', () => {
    expect(perUnit(2e-9, [{ x: 10, seconds: 1 }])).toEqual({ value: 2e-9, how: 'slope' });
    const noisy = perUnit(-1e-12, [
      { x: 64, seconds: 4e-7 },
      { x: 4096, seconds: 3e-7 },
    ]);
    expect(noisy.value).toBeCloseTo(3e-7 / 4096, 18);
    expect(noisy.how).toMatch(/time per unit at 4096 .*noise/);
  });

  it('measured reduce time grows with the vector length', () => {
    const s = measureReduce('sum', 'float64', [16, 65536], { minSeconds: 2e-4, trials: 1 });
    expect(s[1].seconds).toBeGreaterThan(s[0].seconds);
  });

  it('without runtime hooks: measured γ and copy rate, link values marked assumed, a valid machine file', async () => {
    const steps: string[] = [];
    const r = await runFit({ ...quick, progress: (i, n, what) => steps.push(`${i}/${n} ${what}`) });
    expect(steps).toHaveLength(4);
    expect(steps[3]).toMatch(/^4\/4 copy: /);
    expect(r.missing).toHaveLength(4);
    expect(sourceOf(r.machine, 'inter.alpha')).toMatch(/^assumed: .*hook missing/);
    expect(sourceOf(r.machine, 'gammaBy.sum/float64')).toMatch(/^measured on .* by coll fit/);
    expect(r.machine.gammaBy?.['sum/float64']).toBeGreaterThan(0);
    expect(r.machine.copyPerByte).toBeGreaterThan(0);
    expect(() => validateMachine(r.machine)).not.toThrow();
    for (const p of numericPaths(r.machine)) expect(sourceOf(r.machine, p)).toBeTruthy();
    expect(machineFromJson(JSON.parse(machineToJson(r.machine)))).toEqual(r.machine);
  });

  it('with (synthetic) runtime hooks: α, β, r, C and f(L) are fitted from them', async () => {
    const truth = { L: 3e-6, r: 2e-6, C: 10e-6 }; // L = intra α: the serial jig runs on one node
    const r = await runFit({
      ...quick,
      hooks: {
        pingPongIntra: async (b) => 3e-6 + b * 2e-10,
        pingPongInter: async (b) => 20e-6 + b * 1e-9,
        serialReduction: async (P, op) => serialReduction(P, { ...truth, c: op === 'noop' ? 0 : 0.5e-6 }),
        nblTestjig: async (L, S) => L * 20e-6 + (L === 1 ? 1 : L === 2 ? 1.5 : L === 4 ? 3 : 4.5) * 1e-8 * S,
      },
    });
    expect(r.missing).toHaveLength(0);
    expect(r.machine.intra.alpha).toBeCloseTo(3e-6, 12);
    expect(r.machine.inter.beta).toBeCloseTo(1e-9, 15);
    expect(r.machine.lrc?.r).toBeCloseTo(2e-6, 12);
    expect(r.machine.lrc?.C).toBeCloseTo(10e-6, 12);
    expect(r.serial?.c['sum/float64/1']).toBeCloseTo(0.5e-6, 12);
    const f = r.machine.nbl?.f;
    expect(typeof f === 'object' ? f.table[4] : NaN).toBeCloseTo(3, 9);
    expect(() => validateMachine(r.machine)).not.toThrow();
  });

  it('the committed this-machine preset (a coll fit run) loads with measured link values', () => {
    expect(machineNames()).toContain('this-machine');
    const m = getMachine('this-machine');
    expect(m.intra.alpha).toBeGreaterThan(0);
    expect(m.inter.beta).toBeGreaterThan(0);
    expect(sourceOf(m, 'inter.alpha')).toMatch(/^measured on .* by coll fit/);
    expect(sourceOf(m, 'oSend')).toMatch(/^assumed/);
  });
});
