/**
 * Rank program for the fit → tune → runtime loop test: prints, for each count in
 * argv[2] (comma-separated float64 counts), the algorithm automatic selection picks
 * for allreduce and bcast (COLL_DECISION_TABLE is set by the test), then runs one
 * allreduce of that size to show the choice executes.
 */
import { init } from '../../helpers/rank-api.js';

const comm = init();
for (const count of (process.argv[2] ?? '1').split(',').map(Number)) {
  const picks = { allreduce: comm.algorithmFor('allreduce', count), bcast: comm.algorithmFor('bcast', count) };
  const x = new Float64Array(count).fill(comm.rank + 1);
  comm.allreduce(x);
  if (comm.rank === 0) console.log(`PICK ${JSON.stringify({ count, ...picks, sum: x[0] })}`);
}
