/**
 * The max-rate model (Gropp, Olson & Samfass 2016; seed 001 Eq. 3): when k processes
 * of a node inject s bytes each at the same time, the node can inject at most R_N
 * bytes/s and one process at most R_b, so the transfer takes
 *
 *   α + k·s / min(R_N, k·R_b)
 *
 * which is α + s/R_b (= α + sβ) while k·R_b ≤ R_N. Seed 001 writes k = ppn; the
 * schedule evaluators use the number of processes of the node actually injecting
 * inter-node messages in the round.
 */
import { checkNonNegative, checkPositive } from './errors.js';

export interface Injection {
  /** Node injection bandwidth (B/s). */
  readonly RN: number;
  /** Per-process bandwidth (B/s), 1/β. */
  readonly Rb: number;
}

/** Transfer time of one of k concurrent inter-node messages of s bytes (without α). */
export function maxRateTransfer(inj: Injection, k: number, s: number): number {
  checkPositive('R_N', inj.RN, 'max-rate model');
  checkPositive('R_b', inj.Rb, 'max-rate model');
  checkNonNegative('injectors', k, 'max-rate model');
  if (k <= 0 || s <= 0) return 0;
  return (k * s) / Math.min(inj.RN, k * inj.Rb);
}

/** Seed 001 Eq. 3's inter-node message term: α + k·s/min(R_N, k·R_b). */
export function maxRateMessage(alpha: number, inj: Injection, k: number, s: number): number {
  return alpha + maxRateTransfer(inj, k, s);
}

/** Injectors per node above which the node limit binds: R_N / R_b. */
export function injectionSaturation(inj: Injection): number {
  return inj.RN / inj.Rb;
}
