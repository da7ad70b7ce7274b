/**
 * The NBL node channel (seed 004) with the f(L) presets: on the testjig pattern
 * (Table 1: the centre of a 3×3 mesh exchanging with 1–3 neighbours at once),
 * dT(L)/dT(1) is exactly the preset's f(L), as the closed form L·α + f(L)·β·S says;
 * nominal Snake and Fence near their closed forms for long vectors.
 */
import { describe, expect, it } from 'vitest';
import { littlefieldParams } from '../../src/model/regime.js';
import { fenceTime, snakeTime } from '../../src/model/closed/littlefield.js';
import { DELTA } from '../../src/model/machines/index.js';
import { resolveF, type FSpec } from '../../src/model/nbl.js';
import { validateMachine, type MachineSpec } from '../../src/sim/machine.js';
import { getPreset } from '../../src/sim/presets.js';
import { simulate } from '../../src/sim/simulate.js';
import { testjigSchedule } from '../../src/sim/testjig.js';

const delta = getPreset('delta');
const withF = (f: FSpec): MachineSpec => ({ ...delta, network: { ...delta.network, nodeChannelF: f } });
const jig = (m: MachineSpec, L: number, S: number): number =>
  simulate({ collective: 'allgather', algorithm: 'testjig', schedule: testjigSchedule(L, S), machine: m, procs: 9, mesh: { width: 3, height: 3 }, bytes: 8 * S }).first.time;

describe('NBL node channel: f(L) presets', () => {
  it('testjig: dT(L)/dT(1) = f(L) for standard, nominal, fitted and a table', () => {
    const table: FSpec = { table: { 2: 1.5, 4: 2.5, 6: 3 }, source: 'test' };
    for (const f of ['standard', 'nominal', 'fitted', table] as const) {
      const m = withF(f);
      const d1 = jig(m, 1, 300) - jig(m, 1, 60);
      for (const L of [2, 4, 6]) {
        const dL = jig(m, L, 300) - jig(m, L, 60);
        expect(dL / d1).toBeCloseTo(resolveF(f).f(L, 60), 9);
      }
    }
  });

  it('the presets order the same exchange as the closed form: standard < fitted < nominal at L = 4', () => {
    const t = (f: FSpec) => jig(withF(f), 4, 300);
    expect(t('standard')).toBeLessThan(t('fitted'));
    expect(t('fitted')).toBeLessThan(t('nominal'));
    // Extra time over the standard model: about (f(4) − 1)·β·S (the sends and receives
    // are posted 27 µs apart by the CPU, so the four transfers overlap a little less).
    const betaS = 1.54e-6 * 300;
    expect(Math.abs((t('nominal') - t('standard')) / betaS / 3 - 1)).toBeLessThan(0.03);
    expect(Math.abs((t('fitted') - t('standard')) / betaS / 2.9 - 1)).toBeLessThan(0.03);
  });

  it('nominal Snake and Fence on a 4×4 DELTA mesh come within 15% of the seed 004 closed form for a long vector; f orders them', () => {
    // (The closed form charges α per link and step at the busiest node; the simulator
    // charges α/2 at each end of a message, so it runs a little faster.)
    const N = 100_000;
    const run = (algorithm: string, S: number, f: FSpec = 'nominal') =>
      simulate({ collective: 'allreduce', algorithm, machine: withF(f), procs: 16, mesh: { width: 4, height: 4 }, bytes: 8 * N, params: { block: S } }).first.time;
    const p = littlefieldParams(DELTA, 'nominal');
    expect(Math.abs(run('snake', 400) / snakeTime(p, 16, N, 400) - 1)).toBeLessThan(0.15);
    expect(Math.abs(run('fence', 599) / fenceTime(p, 4, 4, N, 599) - 1)).toBeLessThan(0.15);
    expect(run('snake', 400, 'standard')).toBeLessThan(run('snake', 400, 'fitted'));
    expect(run('snake', 400, 'fitted')).toBeLessThan(run('snake', 400, 'nominal'));
  });

  it('rejects an f(L) without a shared node channel and a bad preset', () => {
    expect(() => validateMachine({ ...delta, network: { ...delta.network, nodeChannelShared: false } })).toThrow(/nodeChannelF needs network.nodeChannelShared/);
    expect(() => validateMachine(withF('bogus' as FSpec))).toThrow(/nodeChannelF: .*f preset/);
  });
});
