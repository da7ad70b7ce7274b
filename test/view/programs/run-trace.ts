/**
 * The rank program behind the `coll run --trace` fixture (scripts/view-fixtures.ts):
 * from the sources (the 'collectives' package would be the built dist/), a few calls
 * of each kind a real timeline shows — allreduce by a named schedule and by the
 * automatic choice, a broadcast, a nonblocking allreduce, a ring of point-to-point
 * messages, and an allreduce offloaded to the node's engine (its NIC lane).
 */
import { init } from '../../../src/index.js';

const w = init({ timeoutMs: 60_000 });
const x = new Float64Array(1024).fill(w.rank + 1);
for (let i = 0; i < 3; i++) w.allreduce(x, null, { algorithm: 'recursive_doubling' });
w.allreduce(new Float64Array(8));
w.bcast(new Float64Array(4096), { root: 0 });
await w.iallreduce(new Float64Array(256), null, { algorithm: 'ring' });
const right = (w.rank + 1) % w.size;
const left = (w.rank + w.size - 1) % w.size;
w.sendrecv(Float64Array.of(w.rank), right, new Float64Array(1), left, { sendTag: 7, recvTag: 7 });
w.allreduce(new Float64Array(512), null, { mode: 'offload', algorithm: 'recursive_doubling' });
w.barrier();
