import { describe, expect, it } from 'vitest';
import { generateSchedule, listAlgorithms } from '../../src/algorithms/registry.js';
import { napInterSteps, napTime, rdTime, smpTime } from '../../src/model/closed/bienz.js';
import { fenceTime, snakeTime, treeTime, type LittlefieldParams } from '../../src/model/closed/littlefield.js';
import { DELTA } from '../../src/model/machines/index.js';
import { costSchedule, parseModel } from '../../src/model/models.js';
import { resolveF, type FPresetName } from '../../src/model/nbl.js';
import { evaluateRounds } from '../../src/model/rounds.js';
import { loggpBinomial } from '../../src/model/loggp.js';
import { postalTime, splitTime } from '../../src/model/hockney.js';
import { computeStats } from '../../src/schedule/stats.js';
import { meshTopology, nodeTopology } from '../../src/schedule/topology.js';
import type { RankSchedule, Step } from '../../src/schedule/types.js';
import { rankSchedule, recv, reduce, send, testMachine } from './helpers.js';

const rel = (a: number, b: number, tol = 1e-9): void => expect(Math.abs(a - b)).toBeLessThanOrEqual(tol * Math.abs(b) + 1e-15);
const registered = (c: 'allreduce', name: string): boolean => listAlgorithms(c).some((a) => a.name === name);

/** Seed 004's Snake as a hand-built chain of P nodes, B blocks of S elements (the timeline of Appendix 7.1). */
function handSnake(P: number, B: number, S: number): RankSchedule[] {
  const out: RankSchedule[] = [];
  for (let i = 0; i < P; i++) {
    const steps: Step[] = [];
    for (let k = 0; k < B; k++) {
      if (i < P - 1) {
        steps.push(recv(i + 1, S, k + P - 2 - i, [], k * S));
        steps.push(reduce(S, k + P - 2 - i, [steps.length - 1]));
      }
      if (i > 0) steps.push(send(i - 1, S, k + P - 1 - i, steps.length ? [steps.length - 1] : [], k * S));
    }
    for (let k = 0; k < B; k++) {
      if (i > 0) steps.push(recv(i - 1, S, k + P - 2 + i, [], k * S));
      if (i < P - 1) steps.push(send(i + 1, S, k + P - 1 + i, [], k * S));
    }
    out.push(rankSchedule(i, P, steps, B * S));
  }
  return out;
}

const deltaParams = (f: FPresetName, literal = false): LittlefieldParams => ({
  alpha: DELTA.inter.alpha,
  beta: DELTA.inter.beta * 8,
  c2: DELTA.combine?.[2] ?? NaN,
  c3: DELTA.combine?.[3] ?? NaN,
  f: resolveF(f).f,
  literal,
});

describe('round-synchronous evaluation', () => {
  it('NBL counts the active links of the busiest node: form B vs literal vs standard (hand computed)', () => {
    const m = testMachine({ inter: { alpha: 10, beta: 1 } });
    // Rank 0 sends 2 elements (16 B) to 1 and 2 in round 0: L = 2 at node 0.
    const s = [rankSchedule(0, 3, [send(1, 2, 0), send(2, 2, 0)]), rankSchedule(1, 3, [recv(0, 2, 0)]), rankSchedule(2, 3, [recv(0, 2, 0)])];
    expect(evaluateRounds(s, m, { law: 'nbl', f: resolveF('nominal') }).time).toBe(2 * 10 + 2 * 16);
    expect(evaluateRounds(s, m, { law: 'nbl', f: resolveF('standard') }).time).toBe(2 * 10 + 16);
    expect(evaluateRounds(s, m, { law: 'nbl-literal', f: resolveF('nominal') }).time).toBe(2 * (10 + 2 * 16));
    // Per-rank laws: the two sends serialise on rank 0's port.
    expect(evaluateRounds(s, m, { law: 'hockney' }).time).toBe(2 * (10 + 16));
    const r = evaluateRounds(s, m, { law: 'nbl', f: resolveF('nominal') });
    expect(r.terms.alpha).toBe(20);
    expect(r.terms.beta).toBe(16);
    expect(r.terms.injection).toBe(16);
  });

  it('max-rate: k injectors of a node share R_N (hand computed), receives are not limited', () => {
    const m = testMachine({ inter: { alpha: 1, beta: 0.5 }, injection: { RN: 3, Rb: 2 } });
    // Ranks 0, 1 (node 0) each send 6 elements (48 B) to ranks 2, 3 (node 1).
    const s = [rankSchedule(0, 4, [send(2, 6, 0)]), rankSchedule(1, 4, [send(3, 6, 0)]), rankSchedule(2, 4, [recv(0, 6, 0)]), rankSchedule(3, 4, [recv(1, 6, 0)])];
    const topo = nodeTopology(4, 2);
    const r = evaluateRounds(s, m, { law: 'maxrate', topology: topo });
    expect(r.time).toBeCloseTo(1 + (2 * 48) / 3, 12);
    expect(r.terms.beta).toBeCloseTo(24, 12);
    expect(r.terms.injection).toBeCloseTo(32 - 24, 12);
    expect(() => evaluateRounds(s, testMachine(), { law: 'maxrate', topology: topo })).toThrow(/maxrate model needs injection/);
  });

  it('hand-built Snake chain: round-synchronous NBL (form B and literal) = the seed 004 closed form', () => {
    for (const [P, B, S] of [[4, 5, 30], [9, 3, 10], [16, 12, 25]]) {
      const sched = handSnake(P, B, S);
      for (const f of ['standard', 'nominal', 'fitted', 'testjig'] as const) {
        rel(costSchedule(sched, DELTA, `nbl:${f}`).time, snakeTime(deltaParams(f), P, B * S, S));
        rel(costSchedule(sched, DELTA, `nbl-literal:${f}`).time, snakeTime(deltaParams(f, true), P, B * S, S));
      }
    }
  });

  const meshes: [number, number][] = [[4, 4], [4, 2], [8, 4]];
  it.runIf(registered('allreduce', 'snake'))('registry snake on W×H meshes: NBL costing = the closed form', () => {
    for (const [W, H] of meshes) {
      const topo = meshTopology(W, H);
      for (const [N, S] of [[600, 60], [1000, 250]]) {
        const sched = generateSchedule('allreduce', 'snake', { size: W * H, count: N, topology: topo, params: { block: S } });
        for (const f of ['standard', 'nominal', 'fitted'] as const) {
          rel(costSchedule(sched, DELTA, `nbl:${f}`, { topology: topo }).time, snakeTime(deltaParams(f), W * H, N, S));
          rel(costSchedule(sched, DELTA, `nbl-literal:${f}`, { topology: topo }).time, snakeTime(deltaParams(f, true), W * H, N, S));
        }
      }
    }
  });

  // The appendix's Fence timeline charges c2 in the step where the first block turns the corner,
  // but in that step node (W−2, 0) already receives from above and from the right and combines
  // 3 ways (column W−2 starts one step after column W−1): the schedule has one c3 step more and
  // one c2 step fewer than the printed timeline, so it costs exactly (c3 − c2)·S more.
  it.runIf(registered('allreduce', 'fence'))('registry fence on W×H meshes: NBL costing = the closed form + (c3 − c2)·S', () => {
    const extra = (S: number): number => ((DELTA.combine?.[3] ?? NaN) - (DELTA.combine?.[2] ?? NaN)) * S;
    for (const [W, H] of meshes) {
      const topo = meshTopology(W, H);
      for (const [N, S] of [[600, 60], [1000, 250]]) {
        const sched = generateSchedule('allreduce', 'fence', { size: W * H, count: N, topology: topo, params: { block: S } });
        for (const f of ['standard', 'nominal', 'fitted'] as const) {
          rel(costSchedule(sched, DELTA, `nbl:${f}`, { topology: topo }).time, fenceTime(deltaParams(f), W, H, N, S) + extra(S));
          rel(costSchedule(sched, DELTA, `nbl-literal:${f}`, { topology: topo }).time, fenceTime(deltaParams(f, true), W, H, N, S) + extra(S));
        }
      }
    }
  });

  it.runIf(registered('allreduce', 'mesh_tree'))('registry mesh_tree: NBL costing = the Tree closed form', () => {
    for (const [W, H] of meshes) {
      const topo = meshTopology(W, H);
      const sched = generateSchedule('allreduce', 'mesh_tree', { size: W * H, count: 100, topology: topo });
      rel(costSchedule(sched, DELTA, 'nbl:nominal', { topology: topo }).time, treeTime(deltaParams('nominal'), W, H, 100));
    }
  });

  const bw = testMachine({
    intra: { alpha: 0.5e-6, beta: 0.25e-9 },
    inter: { alpha: 2e-6, beta: 0.4e-9 },
    injection: { RN: 6e9, Rb: 2.5e9 },
    gamma: 1e-9,
  });
  const bp = { alphaL: 0.5e-6, betaL: 0.25e-9, alpha: 2e-6, Rb: 2.5e9, RN: 6e9, gamma: 1e-9 / 8 };

  it('recursive doubling under max-rate = seed 001 Eq. 4 (P = 256, ppn = 16 and P = 64, ppn = 4)', () => {
    for (const [P, ppn] of [[256, 16], [64, 4]]) {
      const topo = nodeTopology(P, ppn);
      for (const count of [1, 512]) {
        const s = generateSchedule('allreduce', 'recursive_doubling', { size: P, count, topology: topo });
        rel(costSchedule(s, bw, 'maxrate', { topology: topo }).time, rdTime(bp, P, ppn, count * 8));
      }
    }
  });

  it.runIf(registered('allreduce', 'smp'))('SMP under max-rate = seed 001 Eq. 5 with 2·lg ppn intra-node steps (the corrected form)', () => {
    const P = 256;
    const ppn = 16;
    const topo = nodeTopology(P, ppn);
    for (const count of [1, 512]) {
      const s = generateSchedule('allreduce', 'smp', { size: P, count, topology: topo });
      rel(costSchedule(s, bw, 'maxrate', { topology: topo }).time, smpTime(bp, P, ppn, count * 8, { smpIntraSteps: 2 }));
    }
  });

  it.runIf(registered('allreduce', 'nap'))('NAP schedules: ⌈log_ppn n⌉ inter-node steps and messages per rank, ppn − 1 injectors', () => {
    for (const [P, ppn] of [[256, 16], [1024, 16], [48, 4]]) {
      const topo = nodeTopology(P, ppn);
      const s = generateSchedule('allreduce', 'nap', { size: P, count: 1, topology: topo });
      const st = computeStats(s, { topology: topo });
      expect(st.maxInterNodeMessagesPerRank).toBe(napInterSteps(P / ppn, ppn));
      expect(st.perRound.filter((r) => r.interNodeMessages > 0).length).toBe(napInterSteps(P / ppn, ppn));
      expect(st.maxConcurrentInjectorsPerNode).toBe(ppn - 1);
    }
    // One inter-node step, 16 × 16: the max-rate cost's inter-node part is Eq. 6's with ppn − 1 injectors.
    const topo = nodeTopology(256, 16);
    const s = generateSchedule('allreduce', 'nap', { size: 256, count: 4096, topology: topo });
    const r = costSchedule(s, bw, 'maxrate', { topology: topo });
    const interRound = r.rounds?.find((x) => x.terms.injection > 0);
    rel((interRound?.terms.alpha ?? 0) + (interRound?.terms.beta ?? 0) + (interRound?.terms.injection ?? 0), 2e-6 + (15 * 4096 * 8) / 6e9);
    expect(napTime(bp, 256, 16, 4096 * 8, { injectors: 15 })).toBeLessThan(napTime(bp, 256, 16, 4096 * 8));
  });

  it('LogGP model: the DAG of a dissemination barrier is ⌈lg P⌉·(L + 2o), the LogGP binomial form', () => {
    const m = testMachine({ loggp: { L: 5e-6, o: 1e-6, g: 2e-6, G: 1e-9 } });
    for (const P of [8, 12]) {
      const s = generateSchedule('barrier', 'dissemination', { size: P });
      rel(costSchedule(s, m, 'loggp').time, loggpBinomial({ L: 5e-6, o: 1e-6, g: 2e-6, G: 1e-9 }, P, 1));
    }
  });

  it('hockney and split laws on recursive doubling: Eq. 1 node-unaware, Eq. 2 with intra-node steps', () => {
    const m = testMachine({ intra: { alpha: 1, beta: 0.01 }, inter: { alpha: 5, beta: 0.1 }, gamma: 0.5 });
    const topo = nodeTopology(16, 4);
    const s = generateSchedule('allreduce', 'recursive_doubling', { size: 16, count: 4, topology: topo });
    // Eq. 1: t = 4 messages, s = 4·32 bytes, c = 4·4 combinations.
    rel(costSchedule(s, m, 'hockney', { topology: topo }).time, postalTime({ alpha: 5, beta: 0.1, gamma: 0.5 }, 4, 128, 16));
    rel(costSchedule(s, m, 'split', { topology: topo }).time, splitTime({ intra: { alpha: 1, beta: 0.01 }, inter: { alpha: 5, beta: 0.1 }, gamma: 0.5 }, { tIntra: 2, sIntra: 64, tInter: 2, sInter: 64, c: 16 }));
  });

  it('model names parse, with NBL presets', () => {
    expect(parseModel('nbl:fitted')).toEqual({ base: 'nbl', preset: 'fitted', label: 'nbl:fitted' });
    expect(() => parseModel('maxrate:fitted')).toThrow(/unknown model 'maxrate:fitted'/);
    expect(() => parseModel('logp')).toThrow(/known models: dag, loggp/);
  });
});
