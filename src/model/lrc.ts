/**
 * Seed 000's reduction model (Moody 2003, ch. 4), a LogP variant with
 * L = message latency, r = reception cost, c = c(op, n) reduction cost of one
 * message, C = one-time start-up constant, P = nodes:
 *
 *   serial:        T = C + L + (P − 1)·(r + c)
 *   full f-nomial: T = C + [L + (f − 1)·(r + c)]·log_f P
 *   refined:       T = C + L·⌈log_f P⌉ + (r + c)·(f − 1)·⌊log_f P⌋ + (r + c)·(⌈P / f^⌊log_f P⌋⌉ − 1)
 *
 * The optimal degree of the full formula solves f·(ln f − 1) = L/(r + c) − 1; the
 * refined formula is minimised by brute force over integers f ≥ 2 (the thesis picks
 * f this way; ties go to the smaller f). Integer logarithms are computed exactly.
 */
import { checkIntRange } from '../core/errors.js';
import { checkNonNegative } from './errors.js';

export interface LrcParams {
  readonly L: number;
  readonly r: number;
  /** Reduction cost of one incoming message, c(op, n). */
  readonly c: number;
  readonly C: number;
}

function check(p: LrcParams): void {
  for (const k of ['L', 'r', 'c', 'C'] as const) checkNonNegative(k, p[k], 'seed 000 model');
}

/** ⌊log_f P⌋: the largest k with f^k ≤ P. */
export function floorLog(P: number, f: number): number {
  let k = 0;
  for (let x = f; x <= P; x *= f) k++;
  return k;
}

/** ⌈log_f P⌉: the smallest k with f^k ≥ P. */
export function ceilLogF(P: number, f: number): number {
  let k = 0;
  for (let x = 1; x < P; x *= f) k++;
  return k;
}

export function serialReduction(P: number, p: LrcParams): number {
  check(p);
  checkIntRange('P', P, 1, 1 << 30);
  return p.C + p.L + (P - 1) * (p.r + p.c);
}

export function fnomialFull(P: number, f: number, p: LrcParams): number {
  check(p);
  checkIntRange('P', P, 1, 1 << 30);
  if (!(f > 1)) throw new RangeError(`degree f must be > 1, got ${f}`);
  return p.C + (p.L + (f - 1) * (p.r + p.c)) * (Math.log(P) / Math.log(f));
}

export function fnomialRefined(P: number, f: number, p: LrcParams): number {
  check(p);
  checkIntRange('P', P, 1, 1 << 30);
  checkIntRange('degree f', f, 2, 1 << 30);
  const lo = floorLog(P, f);
  const hi = ceilLogF(P, f);
  const lastPhase = Math.ceil(P / f ** lo) - 1;
  return p.C + p.L * hi + (p.r + p.c) * (f - 1) * lo + (p.r + p.c) * lastPhase;
}

/** Brute-force optimal integer degree in [2, fMax] under the refined (default) or full formula. */
export function optimalDegree(
  P: number,
  p: LrcParams,
  o: { fMax?: number; formula?: 'refined' | 'full' } = {},
): { f: number; time: number; table: { f: number; time: number }[] } {
  const fMax = Math.max(2, o.fMax ?? Math.max(2, P));
  const table: { f: number; time: number }[] = [];
  let best = { f: 2, time: Infinity };
  for (let f = 2; f <= fMax; f++) {
    const time = o.formula === 'full' ? fnomialFull(P, f, p) : fnomialRefined(P, f, p);
    table.push({ f, time });
    if (time < best.time - 1e-15) best = { f, time };
  }
  return { ...best, table };
}

/** Root f > 1 of f·(ln f − 1) = L/(r + c) − 1 (the full formula's continuous optimum). */
export function continuousOptimalDegree(L: number, r: number, c: number): number {
  checkNonNegative('L', L, 'seed 000 model');
  checkNonNegative('r', r, 'seed 000 model');
  checkNonNegative('c', c, 'seed 000 model');
  if (r + c <= 0) return Infinity;
  const rhs = L / (r + c) - 1;
  const g = (f: number): number => f * (Math.log(f) - 1) - rhs;
  // g is increasing on f > 1 (g' = ln f) with g(1) = −1 − rhs < 0.
  let lo = 1;
  let hi = 2;
  while (g(hi) < 0) hi *= 2;
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (g(mid) < 0) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/**
 * Seed 000 §5 rule: a binomial NIC-based reduction scales better than the host-based
 * one iff its per-phase cost is smaller, L_nic + r + c_nic < L_host + r + c_host, which
 * the thesis states as c < L_host − L_nic (0.80 µs) for the NIC computation.
 */
export function nicScalesBetter(host: { L: number; r: number; c: number }, nic: { L: number; r: number; c: number }): {
  better: boolean;
  slopeHost: number;
  slopeNic: number;
  ruleBetter: boolean;
} {
  const slopeHost = host.L + host.r + host.c;
  const slopeNic = nic.L + nic.r + nic.c;
  return { better: slopeNic < slopeHost, slopeHost, slopeNic, ruleBetter: nic.c < host.L - nic.L };
}
