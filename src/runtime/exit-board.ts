/**
 * The job's exit board: one word per world rank in every node's control memory, set
 * when that rank's program has returned (its thread exited normally). Node processes
 * set it for their own ranks and, relayed by the launcher, for the other nodes'
 * ranks. A rank about to park in a wait looks at it: a peer it still waits for that
 * has returned will never arrive, so the wait fails at once with RankFailedError
 * naming that peer, instead of sleeping until the timeout (issue 12: silent hangs).
 *
 * Layout (int32 words from `base`): the number of ranks marked, then one word per
 * world rank (0 = running, 1 = returned).
 */
export class ExitBoard {
  constructor(
    private readonly i32: Int32Array,
    private readonly base: number,
  ) {}

  /** Record that world rank r's program returned; false if it already was. */
  mark(r: number): boolean {
    if (Atomics.compareExchange(this.i32, this.base + 1 + r, 0, 1) !== 0) return false;
    Atomics.add(this.i32, this.base, 1);
    return true;
  }

  /** Whether any rank has returned (one load: the common answer is no). */
  any(): boolean {
    return Atomics.load(this.i32, this.base) !== 0;
  }

  exited(r: number): boolean {
    return Atomics.load(this.i32, this.base + 1 + r) !== 0;
  }
}
