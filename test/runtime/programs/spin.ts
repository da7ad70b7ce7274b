/** Rank program that runs collectives until it is killed; prints "ready" once every rank is in. */
import { init } from '../../helpers/rank-api.js';

const w = init({ timeoutMs: 0 });
const buf = new Float64Array(1024);
w.allreduce(buf);
console.log('ready');
for (;;) {
  w.allreduce(buf);
  if (w.rank === 0) await new Promise((r) => setImmediate(r));
}
