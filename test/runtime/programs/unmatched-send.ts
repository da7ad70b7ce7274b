/**
 * A send nobody receives, to a rank of another node that has already returned (and
 * whose node process has therefore ended). Argument: how long rank 0 waits before
 * sending (ms), and the number of float64 elements.
 */
import { init } from '../../helpers/rank-api.js';

const comm = init();
if (comm.rank === 0) {
  await new Promise((r) => setTimeout(r, Number(process.argv[2] ?? 2000)));
  comm.send(new Float64Array(Number(process.argv[3] ?? 3)), comm.size - 1, 7);
  console.log('sent');
}
