/**
 * Seeded pseudo-random numbers for the simulator: a 32-bit splitmix hash to derive
 * independent streams (per rank, per node, per run) from one seed, and a small
 * xorshift-multiply generator (mulberry32) for each stream. Never reads the clock.
 */
import { mulberry32, MULBERRY32_STEP } from '../core/random.js';

/** Mix (seed, stream) into a 32-bit state (splitmix32 finaliser). */
export function mixSeed(seed: number, stream: number): number {
  let z = (Math.imul(seed | 0, 0x9e3779b9) ^ Math.imul((stream | 0) + 0x7f4a7c15, 0x85ebca6b)) >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
  return (z ^ (z >>> 16)) >>> 0;
}

/** One step of mulberry32 on a state held by the caller: returns [0, 1) and the next state via `out`. */
export function nextUniform(state: Uint32Array, i: number): number {
  const s = (state[i] + MULBERRY32_STEP) >>> 0;
  state[i] = s;
  return mulberry32(s);
}

/** A stand-alone generator (for code that is not per-rank hot). */
export class Rng {
  private readonly s = new Uint32Array(1);
  constructor(seed: number, stream = 0) {
    this.s[0] = mixSeed(seed, stream);
  }
  /** Uniform in [0, 1). */
  next(): number {
    return nextUniform(this.s, 0);
  }
  /** Exponential with the given mean. */
  exp(mean: number): number {
    return -mean * Math.log(1 - this.next());
  }
  /** Standard normal (Box–Muller). */
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
}
