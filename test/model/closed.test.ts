import { describe, expect, it } from 'vitest';
import { ArgumentError } from '../../src/core/errors.js';
import { napInterSteps, napTime, rdTime, smpTime, crossoverBytes } from '../../src/model/closed/bienz.js';
import {
  bestBlock,
  fenceOverSnakeAsymptote,
  fenceSoptPrinted,
  fenceTime,
  snakeSoptFormB,
  snakeSoptPrinted,
  snakeTime,
  stepCounts,
  treeTime,
  type LittlefieldParams,
} from '../../src/model/closed/littlefield.js';
import { nicBarrierTime, startupTime } from '../../src/model/closed/yu.js';
import { loggpBinomial, loggpLinearBcast, loggpMessage } from '../../src/model/loggp.js';
import { continuousOptimalDegree, fnomialFull, fnomialRefined, nicScalesBetter, optimalDegree, serialReduction } from '../../src/model/lrc.js';
import { ELAN3_C_HOST, ELAN3_C_NIC, ELAN3_LRC } from '../../src/model/machines/quadrics-elan3.js';
import { BARRIER_CONSTANTS } from '../../src/model/machines/barrier-nics.js';
import { resolveF, testjigTableF, fFromTable, FITTED_F } from '../../src/model/nbl.js';
import { ParameterRangeError } from '../../src/model/errors.js';

const near = (a: number, b: number, abs: number): void => expect(Math.abs(a - b)).toBeLessThanOrEqual(abs);

describe('seed 000 model (µs)', () => {
  const nic = (c: number) => ({ ...ELAN3_LRC.nic, c });
  const host = (c: number) => ({ ...ELAN3_LRC.host, c });

  it('serial NOP reduction: NIC 11.72 → 16.34, host 6.02 → 10.64 over P = 2..13', () => {
    near(serialReduction(2, nic(0)), 11.72, 1e-9);
    near(serialReduction(13, nic(0)), 16.34, 1e-9);
    near(serialReduction(2, host(0)), 6.02, 1e-9);
    near(serialReduction(13, host(0)), 10.64, 1e-9);
  });

  it('refined f-nomial at P = 31, NIC Float64 Add: the extract’s derived table and optimum 4, 2, 2, 2', () => {
    const want: Record<number, number[]> = {
      1: [29.3, 31.04, 28.94, 32.78, 32.6, 32.6, 32.6],
      2: [36.55, 41.19, 39.09, 45.83, 47.1],
      4: [50.8, 61.14, 59.04, 71.48, 75.6],
      8: [79.6, 101.46, 99.36, 123.32, 133.2],
    };
    const best: Record<number, number> = { 1: 4, 2: 2, 4: 2, 8: 2 };
    for (const [i, n] of [1, 2, 4, 8].entries()) {
      const p = nic(ELAN3_C_NIC['sum/float64'][i]);
      want[n].forEach((t, k) => near(fnomialRefined(31, k + 2, p), t, 0.005));
      expect(optimalDegree(31, p, { fMax: 8 }).f).toBe(best[n]);
    }
    // The full-tree formula would pick f = 3 for one element (so the refined form is needed).
    expect(optimalDegree(31, nic(1.5), { fMax: 8, formula: 'full' }).f).toBe(3);
  });

  it('refined formula: 16-node 3-nomial tree is 3L + 5(r+c) + C (Fig. 4.4)', () => {
    const p = { L: 10, r: 1, c: 2, C: 100 };
    expect(fnomialRefined(16, 3, p)).toBe(100 + 30 + 15);
    // power of f: refined = full
    near(fnomialRefined(64, 4, p), fnomialFull(64, 4, p), 1e-9);
  });

  it('continuous optimum f(ln f − 1) = L/(r+c) − 1 (NIC L = 2.10, r = 0.42)', () => {
    const want: [number, number][] = [[0, 5.57], [0.25, 4.41], [0.5, 3.81], [1, 3.16], [1.5, 2.81], [2, 2.58], [3, 2.3], [5, 2.0], [10, 1.7]];
    for (const [c, f] of want) near(continuousOptimalDegree(2.1, 0.42, c), f, 0.006 + (c === 10 ? 0.02 : 0));
    const f = continuousOptimalDegree(2.1, 0.42, 0.7);
    near(f * (Math.log(f) - 1), 2.1 / 1.12 - 1, 1e-9);
  });

  it('binomial Int32 Add, 1 element: P = 2 host 6.04 vs NIC 11.97; P = 32 host 19.40 vs NIC 23.05; 906 nodes f = 4', () => {
    near(fnomialRefined(2, 2, host(0.02)), 6.04, 1e-9);
    near(fnomialRefined(2, 2, nic(0.25)), 11.97, 1e-9);
    near(fnomialRefined(32, 2, host(0.02)), 19.4, 1e-9);
    near(fnomialRefined(32, 2, nic(0.25)), 23.05, 1e-9);
    near(fnomialRefined(906, 4, nic(0.25)), 29.75, 1e-9);
    near(fnomialRefined(906, 4, nic(1.5)), 48.5, 1e-9);
  });

  it('NIC scales better iff c < L_host − L_NIC (0.80 µs): NOP, Int32 Add, Float64 Max yes; Float64 Add no', () => {
    const h = ELAN3_LRC.host;
    const n = ELAN3_LRC.nic;
    const cases: [string, number, number, boolean][] = [
      ['noop', 0, 0, true],
      ['sum/int32', ELAN3_C_HOST['sum/int32'][0], ELAN3_C_NIC['sum/int32'][0], true],
      ['max/float64', ELAN3_C_HOST['max/float64'][0], ELAN3_C_NIC['max/float64'][0], true],
      ['sum/float64', ELAN3_C_HOST['sum/float64'][0], ELAN3_C_NIC['sum/float64'][0], false],
    ];
    for (const [, ch, cn, better] of cases) {
      const r = nicScalesBetter({ ...h, c: ch }, { ...n, c: cn });
      expect(r.better).toBe(better);
      expect(r.ruleBetter).toBe(better);
      near(r.slopeHost - r.slopeNic, 0.8 + ch - cn, 1e-9);
    }
  });

  it('rejects negative parameters', () => {
    expect(() => serialReduction(4, { L: -1, r: 0, c: 0, C: 0 })).toThrow(ParameterRangeError);
    expect(() => serialReduction(4, { L: -1, r: 0, c: 0, C: 0 })).toThrow(/'L' = -1.*≥ 0/);
  });
});

describe('seed 004 appendix (DELTA α = 54 µs, β = 1.54 µs/double, c2 = .25, c3 = .37; µs)', () => {
  const P = (f: 'standard' | 'nominal' | 'fitted', literal = false): LittlefieldParams => ({ alpha: 54, beta: 1.54, c2: 0.25, c3: 0.37, f: resolveF(f).f, literal });

  it('Tree 4×4, N = 100: 4·(2(54 + 154) + 25) = 1764 µs under any f', () => {
    for (const f of ['standard', 'nominal', 'fitted'] as const) expect(treeTime(P(f), 4, 4, 100)).toBeCloseTo(1764, 9);
  });

  it('step counts: Tree 2 lg P, Snake 2P + B − 3, Fence 2H + 2W + B − 5', () => {
    expect(stepCounts(4, 4, 10)).toEqual({ tree: 8, snake: 39, fence: 21 });
  });

  it('nominal NBL sample times (extract §5.3): 4×4 N = 5·10^5 and 16×16 N = 10^5 with the integer optimum S in [20, 600]', () => {
    const nom = P('nominal');
    near(treeTime(nom, 4, 4, 5e5) / 1000, 6660.4, 0.05);
    const sn = bestBlock(5e5, (S) => snakeTime(nom, 16, 5e5, S));
    const fe = bestBlock(5e5, (S) => fenceTime(nom, 4, 4, 5e5, S));
    expect(sn?.S).toBe(596);
    expect(fe?.S).toBe(599);
    near((sn?.time ?? 0) / 1000, 3439.1, 0.05);
    near((fe?.time ?? 0) / 1000, 5093.6, 0.05);
    near(treeTime(nom, 16, 16, 1e5) / 1000, 2664.9, 0.05);
    const sn2 = bestBlock(1e5, (S) => snakeTime(nom, 256, 1e5, S));
    const fe2 = bestBlock(1e5, (S) => fenceTime(nom, 16, 16, 1e5, S));
    expect(sn2?.S).toBe(113);
    expect(fe2?.S).toBe(400);
    near((sn2?.time ?? 0) / 1000, 1070.1, 0.05);
    near((fe2?.time ?? 0) / 1000, 1136.6, 0.05);
  });

  it('optimum block: printed Fence S_opt is the stationary point of form B; printed Snake S_opt is ~2× too small', () => {
    const nom = P('nominal');
    const sf = fenceSoptPrinted(nom, 16, 16, 1e5);
    near(sf, 385.3, 0.05);
    // d/dS of the continuous form-B Fence time (B = N/S) vanishes at S_opt.
    const cont = (S: number): number => {
      const f = nom.f;
      const row = (L: number, c: number): number => L * 54 + f(L, S) * 1.54 * S + c * S;
      return row(1, 0.25) + 15 * row(2, 0.25) + 14 * row(3, 0.37) + row(4, 0.37) + (1e5 / S - 3) * row(6, 0.37) + row(4, 0.37) + 14 * row(3, 0) + 15 * row(2, 0) + row(1, 0);
    };
    near((cont(sf + 1e-3) - cont(sf - 1e-3)) / 2e-3, 0, 1e-3);
    near(snakeSoptPrinted(nom, 256, 1e5), 57.8, 0.05);
    near(snakeSoptFormB(nom, 256, 1e5), 115.4, 0.05);
  });

  it('Fence/Snake asymptotic ratio: standard 1.067, nominal 1.499, fitted 1.315', () => {
    near(fenceOverSnakeAsymptote(P('standard')), 1.067, 0.0005);
    near(fenceOverSnakeAsymptote(P('nominal')), 1.499, 0.0005);
    near(fenceOverSnakeAsymptote(P('fitted')), 1.315, 0.0005);
  });

  it('the literal appendix (form A) charges L·f(L)·β·S: under f = 1 it equals nominal form B', () => {
    const litStd = P('standard', true);
    near(snakeTime(litStd, 16, 1e4, 100), snakeTime(P('nominal'), 16, 1e4, 100), 1e-6);
    expect(snakeTime(P('nominal', true), 16, 1e4, 100)).toBeGreaterThan(snakeTime(P('nominal'), 16, 1e4, 100));
  });

  it('the timelines need B ≥ 3', () => {
    expect(() => snakeTime(P('nominal'), 16, 100, 50)).toThrow(ArgumentError);
    expect(() => snakeTime(P('nominal'), 16, 100, 50)).toThrow(/B ≥ 3.*B = 2/);
    expect(bestBlock(40, () => 1)).toBeUndefined();
    expect(bestBlock(60, () => 1)?.S).toBe(20);
  });

  it('Table 1 recomputed from its T column: 1.63/1.73/1.90, 2.14/2.82/3.88, 3.54 (printed 3.8)/4.20/5.84', () => {
    const t = testjigTableF();
    const got = t.map((r) => [r.f[2], r.f[4], r.f[6]]);
    const want = [[1.63, 2.14, 3.54], [1.73, 2.82, 4.2], [1.9, 3.88, 5.84]];
    got.forEach((row, i) => row.forEach((v, j) => near(v, want[i][j], 0.006)));
  });

  it('f tables: fitted f(5) interpolated to 4.5; beyond the table each link adds 1; testjig interpolates in S', () => {
    expect(fFromTable(FITTED_F, 5)).toBeCloseTo(4.5, 12);
    expect(fFromTable(FITTED_F, 8)).toBeCloseTo(7.1, 12);
    const tj = resolveF('testjig');
    expect(tj.f(2, 60)).toBe(1.6);
    expect(tj.f(2, 90)).toBeCloseTo(1.65, 12);
    expect(tj.f(3, 300)).toBeCloseTo(2.9, 12);
    expect(tj.f(6, 1000)).toBe(5.8);
    expect(() => resolveF({ table: { 2: -1 }, source: 'x' })).toThrow(ParameterRangeError);
  });
});

describe('seed 001 Eqs. 4–6', () => {
  const p = { alphaL: 1e-6, betaL: 1e-9, alpha: 4e-6, Rb: 1e9, RN: 4e9, gamma: 0.5e-9 };

  it('NAP inter-node steps ⌈log_ppn n⌉: 16×16 → 1, 256 → 2, 2048 → 3, 4096 → 3, 12 nodes × 4 → 2', () => {
    expect(napInterSteps(16, 16)).toBe(1);
    expect(napInterSteps(256, 16)).toBe(2);
    expect(napInterSteps(2048, 16)).toBe(3);
    expect(napInterSteps(4096, 16)).toBe(3);
    expect(napInterSteps(12, 4)).toBe(2);
    expect(napInterSteps(1, 16)).toBe(0);
  });

  it('Eq. 4 by hand (P = 64, ppn = 8, s = 1000 B): injection-limited 8·1000/4e9', () => {
    const t = rdTime(p, 64, 8, 1000);
    const want = (1e-6 + 1e-6) * 3 + (4e-6 + 8000 / 4e9) * 3 + 0.5e-9 * 1000 * 6;
    near(t, want, 1e-18);
    // ppn·R_b ≤ R_N: Eq. 3 reduces to Eq. 2 (α + s/R_b)
    near(rdTime(p, 64, 4, 1000), (2e-6) * 2 + (4e-6 + 1e-6) * 4 + 0.5e-6 * 6, 1e-18);
  });

  it('Eq. 5 printed vs corrected (2 lg ppn intra-node steps); Eq. 6 printed vs ⌈⌉ steps', () => {
    const lit = smpTime(p, 256, 16, 8);
    const cor = smpTime(p, 256, 16, 8, { smpIntraSteps: 2 });
    near(cor - lit, (1e-6 + 8e-9) * 4, 1e-18);
    // 16 nodes × 16: log_16 16 = 1 either way
    near(napTime(p, 256, 16, 8), napTime(p, 256, 16, 8, { napSteps: 'ceil' }), 1e-18);
    // 2048 nodes: printed 2.75 steps, ceil 3 steps and 16 intra steps (vs 15)
    expect(napTime(p, 32768, 16, 8, { napSteps: 'ceil' })).toBeGreaterThan(napTime(p, 32768, 16, 8));
  });

  it('NAP beats RD and SMP for small messages at 32,768 processes iff α(lg n − log_ppn n) > α_ℓ lg n (s → 0)', () => {
    const small = 8;
    expect(napTime(p, 32768, 16, small)).toBeLessThan(smpTime(p, 32768, 16, small));
    expect(napTime(p, 32768, 16, small)).toBeLessThan(rdTime(p, 32768, 16, small));
    const slowIntra = { ...p, alphaL: 4e-6 };
    expect(napTime(slowIntra, 32768, 16, small)).toBeGreaterThan(smpTime(slowIntra, 32768, 16, small));
    const x = crossoverBytes((s) => napTime(p, 32768, 16, s), (s) => smpTime(p, 32768, 16, s));
    expect(x).toBeGreaterThan(small);
    expect(smpTime(p, 32768, 16, x ?? 0)).toBeLessThanOrEqual(napTime(p, 32768, 16, x ?? 0));
    expect(smpTime(p, 32768, 16, (x ?? 0) - 1)).toBeGreaterThan(napTime(p, 32768, 16, (x ?? 0) - 1));
  });

  it('P not divisible by ppn is rejected with the accepted range', () => {
    expect(() => rdTime(p, 100, 16, 8)).toThrow(/P = 100 is not divisible by ppn = 16/);
  });
});

describe('seed 003', () => {
  it('NIC barrier projections at 1024 nodes: Quadrics 22.13 µs, Myrinet 38.94 µs; Myrinet at 8 nodes 14.44', () => {
    near(nicBarrierTime(BARRIER_CONSTANTS.quadrics, 1024), 22.13, 1e-9);
    near(nicBarrierTime(BARRIER_CONSTANTS.myrinet, 1024), 38.94, 1e-9);
    near(nicBarrierTime(BARRIER_CONSTANTS.myrinet, 8), 14.44, 1e-9);
    near(nicBarrierTime(BARRIER_CONSTANTS.quadrics, 16), 8.21, 1e-9);
  });

  it('start-up models with the inferred W_x: 128 → 13.81 / 12.94 / 2.93 s; 2048 → 3814 / 279.7 / 39.8 s', () => {
    near(startupTime('original', 128), 13.81, 0.005);
    near(startupTime('ssh-dr', 128), 12.94, 0.005);
    near(startupTime('mpd-bc', 128), 2.93, 0.005);
    near(startupTime('original', 2048), 3814, 0.5);
    near(startupTime('ssh-dr', 2048), 279.7, 0.05);
    near(startupTime('mpd-bc', 2048), 39.8, 0.05);
  });
});

describe('LogGP', () => {
  const p = { L: 5, o: 1, g: 4, G: 0.1 };
  it('message o + (k−1)G + L + o; binomial ⌈lg P⌉ of them; linear bcast spaced by max(g, o + (k−1)G)', () => {
    expect(loggpMessage(p, 11)).toBeCloseTo(1 + 1 + 5 + 1, 12);
    expect(loggpBinomial(p, 9, 1)).toBeCloseTo(4 * 7, 12);
    expect(loggpLinearBcast(p, 5, 1)).toBeCloseTo(3 * 4 + 7, 12);
    expect(loggpLinearBcast(p, 5, 101)).toBeCloseTo(3 * 11 + 17, 12);
  });
});
