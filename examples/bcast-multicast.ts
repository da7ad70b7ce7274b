// Run with: npx coll run -n 8 --nodes 4 --report - examples/bcast-multicast.ts
// (in your own project: import { init } from 'collectives').
// Broadcasts over the node processes' UDP multicast (seed 003 ch. 5): the root's node
// sends each fragment once; every other node's leader shares it in shared memory.
import { init } from '../src/index.js';

const comm = init();
const n = 100_000;
const x = comm.alloc('float64', n);
let ok = true;
for (let i = 0; i < 20; i++) {
  const root = i % comm.size;
  if (comm.rank === root) for (let j = 0; j < n; j++) x[j] = root * 1e6 + j + i;
  comm.bcast(x, { root, algorithm: 'multicast' });
  for (let j = 0; j < n; j += 997) ok &&= x[j] === root * 1e6 + j + i;
}
// Nonblocking, several in flight from different roots.
const bufs = [0, 1, 2].map((k) => Float64Array.of(comm.rank === k % comm.size ? k + 0.5 : 0));
await Promise.all(bufs.map((b, k) => comm.ibcast(b, { root: k % comm.size, algorithm: 'multicast' })));
ok &&= bufs.every((b, k) => b[0] === k + 0.5);
console.log(`rank ${comm.rank}/${comm.size} on node ${comm.nodeRank}/${comm.nodeCount}: ${ok ? 'every broadcast right' : 'WRONG'}`);
if (!ok) process.exitCode = 1;
