/**
 * Phased execution (`execution: 'phased'`, src/sim/phases.ts): rounds are global
 * phases. Hand-computed: a 3-rank binomial reduce whose second child sends in round
 * 1; seed 000's refined f-nomial model (§4.2.3) reproduced exactly at 31 ranks; full
 * trees unchanged; the option validated.
 */
import { describe, expect, it } from 'vitest';
import { ArgumentError } from '../../src/core/errors.js';
import { refinedModel, splitModel } from '../../src/sim/reproduce/seed000.js';
import { simulate, type SimOptions } from '../../src/sim/simulate.js';
import { PATH_PARTS } from '../../src/sim/store.js';
import { crossbarMachine } from './fixtures.js';

const us = 1e-6;

describe('phased execution', () => {
  // α = L = 1 µs, oSend 0.2, oRecv = r = 0.3, γ = c = 0.5 µs per element; 1 element.
  const m = crossbarMachine({ alphaInter: 1 * us, betaInter: 0, oSend: 0.2 * us, oRecv: 0.3 * us, gamma: 0.5 * us });
  const base: SimOptions = { collective: 'reduce', algorithm: 'fnomial', params: { f: 2 }, machine: m, procs: 3, bytes: 8, contention: false };

  it('3 ranks, f = 2: rank 2 (a child in phase 1) waits for phase 0 to end', () => {
    // DAG: both children send at once; the root takes recv 1, reduce, recv 2, reduce:
    //   oSend + α + 2·(r + c) = 0.2 + 1 + 1.6 = 2.8 µs.
    const dag = simulate(base);
    expect(dag.first.time / us).toBeCloseTo(2.8, 9);
    expect(dag.execution).toBe('dag');
    // Phased: phase 0 ends with the root's first reduce at 0.2 + 1 + 0.3 + 0.5 = 2.0 µs;
    // rank 2 then sends: 2.0 + 0.2 + 1 + 0.3 + 0.5 = 4.0 µs.
    const ph = simulate({ ...base, execution: 'phased' });
    expect(ph.first.time / us).toBeCloseTo(4.0, 9);
    expect(ph.execution).toBe('phased');
    // The critical path runs through the phase boundary and still sums to the time.
    const parts = ph.first.criticalPath.parts;
    expect(PATH_PARTS.reduce((s, k) => s + parts[k], 0) / us).toBeCloseTo(4.0, 9);
    expect(parts.alpha / us).toBeCloseTo(2, 9);
  });

  it("equals seed 000's refined f-nomial model at 31 ranks for f = 2..8 (the DAG is faster where phases are partial)", () => {
    const L = 1;
    const r = 0.3;
    const c = 0.5;
    const P = 31;
    for (let f = 2; f <= 8; f++) {
      const lo = Math.floor(Math.log(P) / Math.log(f) + 1e-12);
      const hi = Math.ceil(Math.log(P) / Math.log(f) - 1e-12);
      // T = L·⌈log_f P⌉ + (r + c)·((f − 1)·⌊log_f P⌋ + ⌈P / f^⌊log_f P⌋ − 1⌉) (C = 0, oSend = 0)
      const model = L * hi + (r + c) * ((f - 1) * lo + Math.ceil(P / f ** lo - 1));
      const o = { ...base, machine: crossbarMachine({ alphaInter: L * us, betaInter: 0, oRecv: r * us, gamma: c * us }), procs: P, params: { f } };
      const ph = simulate({ ...o, execution: 'phased' }).first.time / us;
      expect(ph, `f = ${f}`).toBeCloseTo(model, 9);
      expect(simulate(o).first.time / us, `f = ${f}`).toBeLessThanOrEqual(ph + 1e-9);
    }
    // f = 2: the DAG saves one oSend + L (rank 30, a leaf of the partial subtree of 28, sends at once).
    const o2 = { ...base, procs: P, params: { f: 2 } };
    expect((simulate({ ...o2, execution: 'phased' }).first.time - simulate(o2).first.time) / us).toBeCloseTo(0.2 + 1, 9);
  });

  it('full trees are unchanged (every child is ready when its phase starts)', () => {
    for (const [procs, f] of [[16, 4], [32, 2], [27, 3]] as const) {
      const o = { ...base, procs, params: { f } };
      expect(simulate({ ...o, execution: 'phased' }).first.time).toBeCloseTo(simulate(o).first.time, 15);
    }
  });

  it('with contention, noise and NIC modes it still completes', () => {
    const ph = simulate({ ...base, procs: 13, execution: 'phased', contention: true, runs: 3, noise: { components: [{ kind: 'periodic', period: 5 * us, duration: 0.5 * us }] } });
    expect(ph.distribution.mean).toBeGreaterThan(0);
  });

  it("seed 000's refined model and split sketch (the evidence of coll reproduce 000) give the extract's values", () => {
    // Extract §4: NIC Float64 Add, P = 31, f = 2..8, 1 element.
    const want = [29.3, 31.04, 28.94, 32.78, 32.6, 32.6, 32.6];
    want.forEach((t, i) => expect(refinedModel(31, i + 2, 1.5)).toBeCloseTo(t, 2));
    // Binomial int32 add, 1 element: P = 2 → 11.97 µs, P = 32 → 23.05 µs.
    expect(refinedModel(2, 2, 0.25)).toBeCloseTo(11.97, 2);
    expect(refinedModel(32, 2, 0.25)).toBeCloseTo(23.05, 2);
    // No split = the refined model; one split of 2 elements at 512 nodes: exchange, tree on 256, recombine.
    expect(splitModel(512, 2, 0, 4)).toBeCloseTo(refinedModel(512, 4, 2.95), 9);
    expect(splitModel(512, 2, 1, 4)).toBeCloseTo(9.2 + (2.1 + 0.42 + 1.5) + refinedModel(256, 4, 1.5) - 9.2 + (2.1 + 0.42), 9);
  });

  it('refuses an unknown execution', () => {
    expect(() => simulate({ ...base, execution: 'bsp' as never })).toThrow(ArgumentError);
  });
});
