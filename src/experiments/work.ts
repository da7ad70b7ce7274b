/**
 * Synthetic computation for the experiments' rank programs, never calling the library:
 *
 * - busyFor(us): busy-wait until `us` µs of wall-clock time have passed (the skew
 *   experiment's "computes for that long", seed 003 A19);
 * - work(n) / calibrateWork(us): a fixed amount of arithmetic, `n` rounds of an
 *   xorshift loop, calibrated once so that it takes about `us` µs alone. The overlap
 *   experiment uses a fixed amount of work rather than a wall-clock wait, so that
 *   CPU taken from the computing thread (by the offload engine or the OS) shows up
 *   as a longer compute phase instead of being hidden.
 */

let sink = 0;

/** Busy-wait for `us` microseconds of wall-clock time. */
export function busyFor(us: number): void {
  if (us <= 0) return;
  const until = performance.now() + us / 1000;
  while (performance.now() < until) {
    // computing
  }
}

/** `rounds` × 64 xorshift steps; returns a value that depends on every step. */
export function work(rounds: number): number {
  let x = (sink | 1) >>> 0;
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < 64; k++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
    }
  }
  sink = x | 0;
  return x;
}

/**
 * Rounds of work() that take about `us` µs on this thread when it has its core: the
 * fastest of 9 timings after a warm-up (a slower timing was disturbed, not the work).
 */
export function calibrateWork(us: number): number {
  if (us <= 0) return 0;
  // Warm up (≥ 50 ms) so that the timings are of optimised code, and find a run of ≥ 1 ms.
  let rounds = 64;
  const warmUntil = performance.now() + 50;
  for (;;) {
    const t0 = performance.now();
    work(rounds);
    const t1 = performance.now();
    if ((t1 - t0) * 1000 < 1000 && rounds < 1 << 28) rounds *= 2;
    else if (t1 >= warmUntil) break;
  }
  const per: number[] = [];
  for (let i = 0; i < 9; i++) {
    const t0 = performance.now();
    work(rounds);
    per.push(((performance.now() - t0) * 1000) / rounds);
  }
  return Math.max(1, Math.round(us / Math.min(...per)));
}

/** The accumulated result of work() (so the loop cannot be optimised away). */
export function workSink(): number {
  return sink;
}
