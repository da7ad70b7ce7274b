/**
 * Seeded pseudo-random numbers (mulberry32): small, fast and reproducible, for
 * randomised delivery orders, synthetic measurements, simulated networks and the
 * simulator's noise. Never reads the clock. One generator for the whole project:
 * `Rng` (a seed, or a seed and a stream mixed into independent states), `prng` (the
 * same as a function), and `nextUniform` for hot loops that keep many states in one
 * typed array (the simulator's per-rank streams).
 */

/** Amount the mulberry32 state advances per draw. */
export const MULBERRY32_STEP = 0x6d2b79f5;

/** The uniform [0, 1) output of mulberry32 for an (already advanced) 32-bit state. */
export function mulberry32(state: number): number {
  let t = Math.imul(state ^ (state >>> 15), state | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/** Mix (seed, stream) into a 32-bit state (splitmix32 finaliser): independent streams from one seed. */
export function mixSeed(seed: number, stream: number): number {
  let z = (Math.imul(seed | 0, 0x9e3779b9) ^ Math.imul((stream | 0) + 0x7f4a7c15, 0x85ebca6b)) >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
  return (z ^ (z >>> 16)) >>> 0;
}

/** One draw from the state held in `state[i]` (advanced in place): uniform in [0, 1). */
export function nextUniform(state: Uint32Array, i: number): number {
  const s = (state[i] + MULBERRY32_STEP) >>> 0;
  state[i] = s;
  return mulberry32(s);
}

/** A seeded generator: from `seed` alone, or from `seed` and a `stream` mixed together (mixSeed). */
export class Rng {
  private readonly s = new Uint32Array(1);

  constructor(seed: number, stream?: number) {
    this.s[0] = stream === undefined ? seed >>> 0 : mixSeed(seed, stream);
  }

  /** Uniform in [0, 1). */
  next(): number {
    return nextUniform(this.s, 0);
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Uniform in [lo, hi]. */
  between(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next();
  }

  /** true with probability p. */
  chance(p: number): boolean {
    return p > 0 && this.next() < p;
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
}

/** A generator of uniform numbers in [0, 1) from a seed, as a function. */
export function prng(seed: number): () => number {
  const r = new Rng(seed);
  return () => r.next();
}
