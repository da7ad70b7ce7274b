/**
 * A small seeded pseudo-random generator (mulberry32) for the simulated network and
 * the tests: the same seed gives the same packet fates, so every run is replayable.
 */
export class Prng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
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
