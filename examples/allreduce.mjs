// The JavaScript version of allreduce.ts, for a project that installed the package:
//   npm install collectives && npx coll run -n 4 --nodes 2 allreduce.mjs
import { init } from 'collectives';

const comm = init();

// A buffer in the node's shared arena: zero-copy between ranks of one node.
const x = comm.alloc('float64', 1 << 16);
x.fill(comm.rank + 1);
comm.allreduce(x); // in place, sum over all ranks

// Nonblocking: returns a request to await.
const ranks = new Float64Array(comm.size);
await comm.iallgather(Float64Array.of(comm.rank), ranks);

const expected = (comm.size * (comm.size + 1)) / 2;
console.log(`rank ${comm.rank}/${comm.size} on node ${comm.nodeRank}/${comm.nodeCount}: sum ${x[0]} (expected ${expected}), allgather [${[...ranks]}]`);
