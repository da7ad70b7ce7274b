/**
 * A small seeded pseudo-random generator (mulberry32) for the simulated network and
 * the tests: the same seed gives the same packet fates, so every run is replayable.
 */
import { mulberry32, MULBERRY32_STEP } from '../../core/random.js';
export class Prng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + MULBERRY32_STEP) >>> 0;
    return mulberry32(this.state);
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
}
