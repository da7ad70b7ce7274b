/**
 * Validation ladder, step 1: with contention and noise off the simulator is the DAG
 * evaluation of docs/cost-semantics.md. Hand-computed timelines, then (when
 * src/model's evaluator is present) an exact comparison for every registered
 * algorithm on small P.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateSchedule, listAlgorithms } from '../../src/algorithms/registry.js';
import type { Schedule } from '../../src/schedule/types.js';
import type { Topology } from '../../src/schedule/topology.js';
import { place } from '../../src/sim/placement.js';
import { simulate } from '../../src/sim/simulate.js';
import { crossbarMachine, type TestParams } from './fixtures.js';

const us = 1e-6;

type Extra = { ppn?: number; root?: number; datatype?: 'float64' | 'uint8' };

function sim(collective: Parameters<typeof simulate>[0]['collective'], algorithm: string, P: number, p: TestParams, bytes: number, extra: Extra = {}) {
  return simulate({ collective, algorithm, machine: crossbarMachine(p), procs: P, bytes, contention: false, ...extra });
}

describe('hand-computed DAG timelines', () => {
  // α = 10 µs, β = 1 µs/B (so 32 B cost 32 µs), oSend 2, oRecv 3, γ 0.5 per element
  // (of 8-byte elements: 4 elements → 2), copy 0.25 per byte.
  const p: TestParams = { alphaInter: 10 * us, betaInter: 1 * us, oSend: 2 * us, oRecv: 3 * us, gamma: 0.5 * us, copyPerByte: 0.25 * us };

  it('recursive doubling, P = 4: copy 8 + lg P × (oSend 2 + α 10 + nβ 32 + oRecv 3 + γ 2) = 106', () => {
    const r = sim('allreduce', 'recursive_doubling', 4, p, 32);
    expect(r.first.time / us).toBeCloseTo(106, 9);
    expect(sim('allreduce', 'recursive_doubling', 8, p, 32).first.time / us).toBeCloseTo(155, 9);
  });

  it('recursive doubling, P = 3: in-port serialisation at the folding rank gives 136', () => {
    // Rank 1 receives from 0 (fold) and from 2 (butterfly), both arriving at 52: the
    // in-port absorbs rank 0's first (arrivals tie by sender rank), rank 2's at 84.
    // Rank 1: recv 52–55, reduce –57, send 57–59, recv 84–87, reduce –89, send to 0
    // 89–91 (out-port free at 91), arrival 133; rank 0's recv 133–136.
    const r = sim('allreduce', 'recursive_doubling', 3, p, 32);
    expect(r.first.time / us).toBeCloseTo(136, 9);
    expect(r.first.criticalPath.rank).toBe(0);
  });

  it('binomial broadcast, P = 8: the root serialises its sends on its out-port', () => {
    // oSend 1, α 10, nβ 5: root sends to 4 (a 16), 2 (s 6, a 21), 1 (s 11, a 26);
    // 4 → 6 (a 32), 5 (a 37); 2 → 3 (a 37); 6 → 7 (a 48).
    const q: TestParams = { alphaInter: 10 * us, betaInter: 1 * us, oSend: 1 * us };
    const r = sim('bcast', 'binomial', 8, q, 5, { datatype: 'uint8' });
    expect(r.first.time / us).toBeCloseTo(48, 9);
    expect(r.first.criticalPath.rank).toBe(7);
    const parts = r.first.criticalPath.parts;
    expect(parts.cpu / us).toBeCloseTo(3, 9);
    expect(parts.alpha / us).toBeCloseTo(30, 9);
    expect((parts.beta + parts.queue) / us).toBeCloseTo(15, 9);
  });

  it('linear broadcast and gather: α + (P−1)·nβ through the out-port / in-port', () => {
    const q: TestParams = { alphaInter: 10 * us, betaInter: 1 * us };
    expect(sim('bcast', 'linear', 5, q, 8).first.time / us).toBeCloseTo(10 + 4 * 8, 9);
    expect(sim('gather', 'linear', 5, q, 8).first.time / us).toBeCloseTo(10 + 4 * 8, 9);
  });

  it('dissemination barrier under LogP: ⌈lg P⌉·(L + 2o), any P', () => {
    const q: TestParams = { alphaInter: 2.5 * us, betaInter: 0, oSend: 1.5 * us, oRecv: 1.5 * us };
    for (const P of [2, 5, 7, 8, 16, 33]) {
      const rounds = Math.ceil(Math.log2(P));
      expect(sim('barrier', 'dissemination', P, q, 0).first.time / us).toBeCloseTo(rounds * 5.5, 9);
    }
  });

  it('intra- and inter-node classes: RD over 2 nodes × 2 ranks pays α_intra then α_inter', () => {
    const q: TestParams = { alphaInter: 10 * us, betaInter: 0, alphaIntra: 1 * us, betaIntra: 0 };
    expect(sim('allreduce', 'recursive_doubling', 4, q, 8, { ppn: 2 }).first.time / us).toBeCloseTo(11, 9);
  });

  it('the critical-path breakdown sums to the time', () => {
    for (const [c, a, P] of [['allreduce', 'recursive_doubling', 6], ['bcast', 'binomial', 13], ['barrier', 'dissemination', 9]] as const) {
      const r = sim(c, a, P, p, c === 'barrier' ? 0 : 24);
      const sum = Object.values(r.first.criticalPath.parts).reduce((s, x) => s + x, 0);
      expect(sum).toBeCloseTo(r.first.time, 12);
    }
  });
});

/** The model's DAG evaluator, when the models issue has landed it. */
type Evaluate = (s: Schedule, m: object, o: { topology: Topology }) => { time: number; perRank: readonly number[] };

async function modelEvaluator(): Promise<Evaluate | undefined> {
  if (!existsSync(new URL('../../src/model/dag.ts', import.meta.url))) return undefined;
  const mod = (await import('../../src/model/dag.js')) as Record<string, unknown>;
  return typeof mod.evaluateDag === 'function' ? (mod.evaluateDag as Evaluate) : undefined;
}

describe('simulator == src/model DAG evaluation, every registered algorithm', async () => {
  const evaluate = await modelEvaluator();
  const p = { alphaInter: 10 * us, betaInter: 1e-9, alphaIntra: 3 * us, betaIntra: 0.3e-9, oSend: 2 * us, oRecv: 3 * us, gamma: 0.5 * us, copyPerByte: 0.25e-9 };
  const model = {
    name: 'test',
    description: 'test',
    source: 'test',
    sources: {},
    intra: { alpha: p.alphaIntra, beta: p.betaIntra },
    inter: { alpha: p.alphaInter, beta: p.betaInter },
    oSend: p.oSend,
    oRecv: p.oRecv,
    gamma: p.gamma,
    copyPerByte: p.copyPerByte,
  };
  const machine = crossbarMachine(p);
  it.skipIf(!evaluate)('matches exactly (relative 1e-12), P = 1…16, 1 and 2 ranks per node', () => {
    let compared = 0;
    for (const a of listAlgorithms()) {
      for (const P of [1, 2, 3, 4, 5, 7, 8, 12, 16]) {
        for (const ppn of [1, 2]) {
          const count = a.collective === 'barrier' ? 0 : 24;
          const root = P > 2 ? 1 : 0;
          const pl = place(machine, P, { ppn });
          let schedule: Schedule;
          try {
            schedule = generateSchedule(a.collective, a.name, { size: P, count, root, topology: pl.topology });
          } catch {
            continue; // restriction (power of two, mesh, …)
          }
          const m = evaluate!(schedule, model, { topology: pl.topology });
          const s = simulate({ collective: a.collective, algorithm: a.name, machine, procs: P, ppn, bytes: count * 8, root, contention: false });
          const scale = Math.max(m.time, 1e-30);
          expect(Math.abs(m.time - s.first.time) / scale, `${a.collective}/${a.name} P=${P} ppn=${ppn}`).toBeLessThan(1e-12);
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(100);
  });
});
