/**
 * Rank program for `coll run --trace` (test/runtime/trace.test.ts): an allreduce with a
 * named schedule algorithm (recursive doubling), one with the automatic choice (the flat
 * path on one node), a nonblocking one, a ring of point-to-point messages (one from any
 * source), and, with the argument 'offload', one offloaded allreduce.
 */
import { init, ANY_SOURCE } from '../../../src/index.js';

const w = init({ timeoutMs: 60_000 });
const x = new Float64Array(64).fill(w.rank + 1);
w.allreduce(x, null, { algorithm: 'recursive_doubling' });
w.allreduce(new Float64Array(4));
await w.iallreduce(new Float64Array(16), null, { algorithm: 'ring' });
if (w.size > 1) {
  const right = (w.rank + 1) % w.size;
  const left = (w.rank + w.size - 1) % w.size;
  w.sendrecv(Float64Array.of(w.rank), right, new Float64Array(1), left, { sendTag: 7, recvTag: 7 });
  const r = w.irecv(new Float64Array(2), ANY_SOURCE, 8);
  w.send(new Float64Array(2), right, 8);
  await r;
}
if (process.argv[2] === 'offload') w.allreduce(new Float64Array(32), null, { mode: 'offload', algorithm: 'recursive_doubling' });
