/**
 * Closed forms of seed 001 (Bienz, Olson & Gropp, "Node-Aware Improvements to
 * Allreduce"), p processes, ppn per node, n = p/ppn nodes, s bytes per process:
 *
 *   Eq. 4 RD:  (α_ℓ + β_ℓ s)·lg ppn + (α + ppn·s/min(R_N, ppn·R_b))·lg n + γ s·lg p
 *   Eq. 5 SMP: (α_ℓ + β_ℓ s)·lg ppn + (α + s/R_b)·lg n + γ s·lg p
 *   Eq. 6 NAP: (α_ℓ + β_ℓ s)·lg p + (α + ppn·s/min(R_N, ppn·R_b))·log_ppn n + γ s·(lg p + log_ppn n)
 *
 * γ is per byte here (seed 001 counts flops on s values; callers pass γ/element size).
 * Variants, all documented in the extract: Eq. 5 as printed counts lg ppn intra-node
 * steps although a binomial reduce plus broadcast takes 2·lg ppn (`smpIntraSteps: 2`
 * gives the corrected form); Eq. 6 with real log_ppn n (printed) or ⌈log_ppn n⌉ steps
 * and lg ppn·(1 + steps) intra-node steps (`napSteps: 'ceil'`, what a schedule does
 * when n is not a power of ppn); and the number of concurrent injectors per node in
 * NAP's inter-node steps (printed ppn; a NAP schedule has ppn − 1, one rank idle).
 */
import { ArgumentError, checkIntRange } from '../../core/errors.js';
import { checkNonNegative, checkPositive } from '../errors.js';
import { maxRateTransfer } from '../maxrate.js';

export interface BienzParams {
  /** Intra-node latency and per-byte time. */
  readonly alphaL: number;
  readonly betaL: number;
  /** Inter-node latency. */
  readonly alpha: number;
  /** Per-process and node injection bandwidths (B/s); β = 1/R_b. */
  readonly Rb: number;
  readonly RN: number;
  /** Seconds per byte of combined data. */
  readonly gamma: number;
}

function check(p: BienzParams, P: number, ppn: number): number {
  for (const k of ['alphaL', 'betaL', 'alpha', 'gamma'] as const) checkNonNegative(k, p[k], 'seed 001 model');
  checkPositive('R_b', p.Rb, 'seed 001 model');
  checkPositive('R_N', p.RN, 'seed 001 model');
  checkIntRange('P', P, 1, 1 << 30);
  checkIntRange('ppn', ppn, 1, P);
  if (P % ppn !== 0) {
    throw new ArgumentError(`P = ${P} is not divisible by ppn = ${ppn}; seed 001's closed forms need full nodes`, `use P a multiple of ${ppn}`);
  }
  return P / ppn;
}

/** ⌈log_q n⌉ computed exactly: NAP's inter-node steps (0 for one node). */
export function napInterSteps(nodes: number, ppn: number): number {
  if (nodes <= 1) return 0;
  if (ppn <= 1) return Math.ceil(Math.log2(nodes) - 1e-12);
  let k = 0;
  for (let x = 1; x < nodes; x *= ppn) k++;
  return k;
}

const lg = Math.log2;

export function rdTime(p: BienzParams, P: number, ppn: number, s: number): number {
  const n = check(p, P, ppn);
  const inj = { RN: p.RN, Rb: p.Rb };
  return (p.alphaL + p.betaL * s) * lg(ppn) + (p.alpha + maxRateTransfer(inj, ppn, s)) * lg(n) + p.gamma * s * lg(P);
}

export function smpTime(p: BienzParams, P: number, ppn: number, s: number, o: { smpIntraSteps?: 1 | 2 } = {}): number {
  const n = check(p, P, ppn);
  const k = o.smpIntraSteps ?? 1;
  return k * (p.alphaL + p.betaL * s) * lg(ppn) + (p.alpha + s / p.Rb) * lg(n) + p.gamma * s * lg(P);
}

export function napTime(
  p: BienzParams,
  P: number,
  ppn: number,
  s: number,
  o: { napSteps?: 'printed' | 'ceil'; injectors?: number } = {},
): number {
  const n = check(p, P, ppn);
  const steps = o.napSteps === 'ceil' ? napInterSteps(n, ppn) : ppn > 1 ? Math.log(n) / Math.log(ppn) : lg(n);
  const intra = o.napSteps === 'ceil' ? lg(ppn) * (1 + steps) : lg(P);
  const k = o.injectors ?? ppn;
  return (p.alphaL + p.betaL * s) * intra + (p.alpha + maxRateTransfer({ RN: p.RN, Rb: p.Rb }, k, s)) * steps + p.gamma * s * (lg(P) + steps);
}

/**
 * Smallest size s (bytes, searched on [lo, hi]) from which `b` is at least as fast as
 * `a`, assuming a single crossing; undefined if a stays faster on the whole range.
 */
export function crossoverBytes(a: (s: number) => number, b: (s: number) => number, lo = 1, hi = 1 << 26): number | undefined {
  if (b(lo) <= a(lo)) return lo;
  if (b(hi) > a(hi)) return undefined;
  let l = lo;
  let h = hi;
  while (h - l > 1) {
    const m = Math.floor((l + h) / 2);
    if (b(m) <= a(m)) h = m;
    else l = m;
  }
  return h;
}
