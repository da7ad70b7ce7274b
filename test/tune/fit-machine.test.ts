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
    expect(r.missing).toHaveLength(5);
    expect(r.machine.oSend).toBe(0);
    expect(sourceOf(r.machine, 'oSend')).toMatch(/^assumed: 0 .*no LogGP hook/);
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
    expect(r.missing).toEqual([expect.stringMatching(/^LogGP o, g, G: no runtime LogGP hook/)]);
    expect(r.machine.intra.alpha).toBeCloseTo(3e-6, 12);
    expect(r.machine.inter.beta).toBeCloseTo(1e-9, 15);
    expect(r.machine.lrc?.r).toBeCloseTo(2e-6, 12);
    expect(r.machine.lrc?.C).toBeCloseTo(10e-6, 12);
    expect(r.serial?.c['sum/float64/1']).toBeCloseTo(0.5e-6, 12);
    const f = r.machine.nbl?.f;
    expect(typeof f === 'object' ? f.table[4] : NaN).toBeCloseTo(3, 9);
    expect(() => validateMachine(r.machine)).not.toThrow();
  });

  it('with a LogGP hook: o_s, o_r measured, g and G fitted, link α = one-way time less both overheads', async () => {
    const steps: string[] = [];
    const r = await runFit({
      ...quick,
      progress: (i, n, what) => steps.push(`${i}/${n} ${what}`),
      hooks: {
        pingPongIntra: async (b) => 3e-6 + b * 2e-10,
        pingPongInter: async (b) => 20e-6 + b * 1e-9,
        // o_s grows with the copy of large messages; the overhead is taken from sizes ≤ 1 KiB.
        logGPInter: async (b) => ({ gap: 8e-6 + b * 2e-9, oSend: 4e-6 + (b > 1024 ? b * 1e-9 : 0), oRecv: 6e-6 }),
        logGPIntra: async () => ({ gap: 1e-6, oSend: 0.5e-6, oRecv: 0.7e-6 }),
      },
    });
    expect(steps.some((s) => /LogGP inter: o_s 4\.00 µs, o_r 6\.00 µs, g 8\.00 µs/.test(s))).toBe(true);
    expect(r.machine.oSend).toBeCloseTo(4e-6, 12);
    expect(r.machine.oRecv).toBeCloseTo(6e-6, 12);
    expect(r.machine.inter.alpha).toBeCloseTo(10e-6, 12);
    expect(r.machine.intra.alpha).toBe(0); // 3 µs − 10 µs: clamped, and the source says so
    expect(sourceOf(r.machine, 'intra.alpha')).toMatch(/clamped to 0/);
    expect(r.machine.loggp?.L).toBeCloseTo(10e-6, 12);
    expect(r.machine.loggp?.o).toBeCloseTo(5e-6, 12);
    expect(r.machine.loggp?.g).toBeCloseTo(8e-6, 10);
    expect(r.machine.loggp?.G).toBeCloseTo(2e-9, 14);
    expect(sourceOf(r.machine, 'oSend')).toMatch(/^measured on .*LogGP jig between node processes/);
    expect(sourceOf(r.machine, 'loggpIntra')).toMatch(/o_s 0\.50 µs/);
    expect(r.missing.some((m) => /LogGP/.test(m))).toBe(false);
    expect(machineFromJson(JSON.parse(machineToJson(r.machine)))).toEqual(r.machine);
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
