/**
 * Rank program for the silent-hang checks. Argument:
 * - 'return' / 'exit0': the last rank returns (or calls process.exit(0)) at once,
 *   the others call an allreduce it never joins: they must fail within seconds with
 *   RankFailedError naming it (the job fails);
 * - 'late': the last rank joins the allreduce 2.5 s late: the others print one
 *   "still waiting" warning (COLL_WARN_AFTER_MS is set low by the test) and succeed;
 * - 'never': the last rank stays away for a minute (for job timeouts).
 */
import { init } from '../../helpers/rank-api.js';

const w = init();
const how = process.argv[2] ?? 'return';
const last = w.rank === w.size - 1;
if (last && how === 'exit0') process.exit(0);
if (!(last && how === 'return')) {
  if (last && (how === 'late' || how === 'never')) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, how === 'late' ? 2500 : 60_000);
  const x = w.allreduce(Float64Array.of(1), null, { timeoutMs: 120_000 });
  console.log(`allreduce ${x[0]}`);
}
