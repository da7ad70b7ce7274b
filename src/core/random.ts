/**
 * Seeded pseudo-random numbers (mulberry32): small, fast and reproducible, for
 * randomised delivery orders, synthetic measurements, simulated networks and the
 * simulator's noise. Never reads the clock.
 */

/** Amount the mulberry32 state advances per draw. */
export const MULBERRY32_STEP = 0x6d2b79f5;

/** The uniform [0, 1) output of mulberry32 for an (already advanced) 32-bit state. */
export function mulberry32(state: number): number {
  let t = Math.imul(state ^ (state >>> 15), state | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/** A generator of uniform numbers in [0, 1) from a seed. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + MULBERRY32_STEP) >>> 0;
    return mulberry32(state);
  };
}
