/**
 * The presets against the seeds' numbers: NIC-based reduction on crescendo (seed
 * 000 Table 4.2/4.3 model values from the extract), Quadrics hardware collectives on
 * the ES40 (seed 002), noise exposure of host vs NIC modes.
 */
import { describe, expect, it } from 'vitest';
import { NOISE_PROFILES } from '../../src/sim/noise.js';
import { getPreset } from '../../src/sim/presets.js';
import { simulate, type SimMode } from '../../src/sim/simulate.js';

const us = 1e-6;

describe('seed 000: NIC-based reduction on crescendo', () => {
  const cres = getPreset('crescendo');
  const reduce = (P: number, mode: SimMode, datatype: 'int32' | 'float64' = 'int32'): number =>
    simulate({ collective: 'reduce', algorithm: 'binomial', machine: cres, procs: P, bytes: datatype === 'int32' ? 4 : 8, datatype, mode }).first.time / us;

  it('binomial, 1-element int32 sum: host 6.04 / NIC 11.97 µs at P = 2 and 19.40 / 23.05 µs at P = 32 (Table 4.2/4.3 model, within 2%)', () => {
    expect(reduce(2, 'host')).toBeCloseTo(6.04, 0);
    expect(Math.abs(reduce(2, 'host') / 6.04 - 1)).toBeLessThan(0.02);
    expect(Math.abs(reduce(2, 'offload') / 11.97 - 1)).toBeLessThan(0.02);
    expect(Math.abs(reduce(32, 'host') / 19.4 - 1)).toBeLessThan(0.02);
    expect(Math.abs(reduce(32, 'offload') / 23.05 - 1)).toBeLessThan(0.02);
  });

  it('the NIC lags by about 5–6 µs at 2 nodes (about twice the host time)', () => {
    const gap = reduce(2, 'offload') - reduce(2, 'host');
    expect(gap).toBeGreaterThan(5);
    expect(gap).toBeLessThan(6.5);
  });

  it('intermediate-only equals host-based at P = 2 and 3 (no interior nodes)', () => {
    for (const P of [2, 3]) expect(reduce(P, 'intermediate')).toBe(reduce(P, 'host'));
  });

  it('NIC scales better than host iff its per-phase compute saving beats L_host − L_NIC = 0.80 µs', () => {
    // int32 add (c_NIC 0.25 µs): the NIC − host gap shrinks with P; float64 add (1.50 µs): it grows.
    const gap = (P: number, dt: 'int32' | 'float64'): number => reduce(P, 'offload', dt) - reduce(P, 'host', dt);
    expect(gap(32, 'int32')).toBeLessThan(gap(2, 'int32'));
    expect(gap(32, 'float64')).toBeGreaterThan(gap(2, 'float64'));
  });

  it('idle-core absorption (as in the seed000-alc profile) spreads host-based reductions, not NIC-based ones', () => {
    // The profile's detours are rare (0.4 s apart); use frequent ones to see them in 60 runs.
    const noise = NOISE_PROFILES['seed000-alc'];
    expect(noise.absorbedByIdleCores).toBe(true);
    const run = (mode: SimMode, ppn: number) =>
      simulate({ collective: 'reduce', algorithm: 'fnomial', params: { f: 4 }, machine: cres, procs: 16 * ppn, ppn, bytes: 8, datatype: 'float64', mode, noise: { ...noise, components: [{ kind: 'random', meanInterval: 1e-3, duration: 50e-6 }] }, runs: 60, seed: 5 })
        .distribution;
    // Detours hit a node only when both of its CPUs run application processes.
    expect(run('host', 2).std).toBeGreaterThan(1e-6);
    expect(run('host', 1).std).toBeLessThan(1e-15);
    expect(run('offload', 2).std).toBeLessThan(1e-15);
  });
});

describe('seed 002: Quadrics hardware collectives on the ES40 (4-ary 3-tree)', () => {
  const es = getPreset('es40');
  const time = (o: Partial<Parameters<typeof simulate>[0]>): number =>
    simulate({ collective: 'barrier', algorithm: 'hw_barrier', machine: es, procs: 64, ...o }).first.time / us;

  it('the hardware barrier takes about 5 µs and hardly grows with nodes (R9)', () => {
    const t4 = time({ procs: 4 });
    const t64 = time({ procs: 64 });
    expect(t4).toBeGreaterThan(4);
    expect(t64).toBeLessThan(7);
    expect(t64 / t4).toBeLessThan(1.3);
  });

  it('the hardware barrier retries (with back-off) until late processes have arrived', () => {
    const late = simulate({ collective: 'barrier', algorithm: 'hw_barrier', machine: es, procs: 16, skew: { kind: 'fixed', value: 30 * us } });
    // The last process starts at 15/16 · 30 µs; the barrier cannot end before it has entered.
    expect(late.first.time / us).toBeGreaterThan(28.125 + 0.5);
    expect(late.first.time / us).toBeLessThan(28.125 + 0.5 + 64 + 10);
  });

  it('complement traffic affects it less than doubling; uniform traffic slows it less than the software tree (R12, R14, R19)', () => {
    const quiet = time({});
    const comp = simulate({ collective: 'barrier', algorithm: 'hw_barrier', machine: es, procs: 64, traffic: { pattern: 'complement' } }).first.time / us;
    expect(comp / quiet).toBeLessThan(2);
    const sw = (traffic?: { pattern: 'uniform' }) =>
      simulate({ collective: 'barrier', algorithm: 'kary_tree', params: { k: 4 }, mode: 'offload', machine: es, procs: 64, traffic, runs: 3 }).distribution.mean;
    const hw = (traffic?: { pattern: 'uniform' }) =>
      simulate({ collective: 'barrier', algorithm: 'hw_barrier', machine: es, procs: 64, traffic, runs: 3 }).distribution.mean;
    const swSlow = sw({ pattern: 'uniform' }) - sw();
    const hwSlow = hw({ pattern: 'uniform' }) - hw();
    expect(hwSlow).toBeLessThan(swSlow);
  });

  it('hardware multicast: 1 MB at about 288 MB/s (R27), small messages nearly flat in node count (R29/R31)', () => {
    const big = simulate({ collective: 'bcast', algorithm: 'hw_multicast', machine: es, procs: 64, bytes: 1 << 20 }).first.time;
    expect(Math.abs((1 << 20) / big / 288e6 - 1)).toBeLessThan(0.02);
    const small = (P: number) => simulate({ collective: 'bcast', algorithm: 'hw_multicast', machine: es, procs: P, bytes: 8 }).first.time;
    expect(small(64) / small(4)).toBeLessThan(1.15);
  });

  it('uniform background traffic cuts broadcast bandwidth (R34–R37 direction)', () => {
    const quiet = simulate({ collective: 'bcast', algorithm: 'hw_multicast', machine: es, procs: 64, bytes: 1 << 18 }).first.time;
    const loaded = simulate({ collective: 'bcast', algorithm: 'hw_multicast', machine: es, procs: 64, bytes: 1 << 18, traffic: { pattern: 'uniform' } }).first.time;
    expect(loaded / quiet).toBeGreaterThan(1.1);
  });
});

describe('noise models', () => {
  const m = getPreset('crescendo');
  const barrier = (noise: Parameters<typeof simulate>[0]['noise'], runs = 40) =>
    simulate({ collective: 'barrier', algorithm: 'dissemination', machine: m, procs: 64, ppn: 2, noise, runs, seed: 11 }).distribution;

  it('periodic detours stretch CPU work by exactly the detours it overlaps', () => {
    // Two processes; rank 0 reduces 1000 elements at 1 µs each, 10% of every 100 µs taken.
    const mach = { ...m, host: { ...m.host, callOverhead: 0, gamma: { default: 1e-6 } } };
    const o = { collective: 'reduce' as const, algorithm: 'binomial', machine: mach, procs: 2, bytes: 8 * 1000 };
    const quiet = simulate(o).first.time;
    const noisy = simulate({ ...o, noise: { components: [{ kind: 'periodic', period: 100 * us, duration: 10 * us }] } }).first;
    // 1000 µs of work at 90% availability: 10 or 11 detours, plus at most one in progress at a start.
    const extra = (noisy.time - quiet) / us;
    expect(extra).toBeGreaterThanOrEqual(100 - 1e-6);
    expect(extra).toBeLessThanOrEqual(130 + 1e-6);
    expect(noisy.criticalPath.parts.noise / us).toBeCloseTo(extra, 6);
  });

  it('co-scheduled detours cost about one detour per collective; independent ones cost more', () => {
    const comp = (co: boolean) => ({ components: [{ kind: 'random' as const, meanInterval: 500 * us, duration: 40 * us }], coScheduled: co });
    const quiet = barrier(undefined, 1).mean;
    const co = barrier(comp(true)).mean - quiet;
    const ind = barrier(comp(false)).mean - quiet;
    expect(co).toBeLessThan(ind);
    expect(co).toBeLessThan(45 * us);
  });
});
