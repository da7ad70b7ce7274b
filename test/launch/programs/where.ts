/**
 * Rank program for launch tests: prints where it runs and checks collectives across
 * nodes (an alltoall connects every pair of nodes: each pair's endpoint ids are used).
 */
import { init } from '../../helpers/rank-api.js';

const w = init();
const small = new Float64Array([w.rank + 1]);
w.allreduce(small);
const big = new Float64Array(128 * 1024).fill(w.rank);
w.allreduce(big);
const bytes = new Int32Array(w.size);
bytes[w.rank] = w.nodeRank;
w.allreduce(bytes);
const out = Int32Array.from({ length: w.size }, (_, j) => w.rank * 1000 + j);
const into = new Int32Array(w.size);
w.alltoall(out, into);
const expected = (w.size * (w.size - 1)) / 2;
const ok = small[0] === (w.size * (w.size + 1)) / 2 && big.every((v) => v === expected) && into.every((v, i) => v === i * 1000 + w.rank);
console.log(`WHERE ${JSON.stringify({ rank: w.rank, size: w.size, node: w.nodeRank, nodes: w.nodeCount, nodeOf: [...bytes], ok })}`);
if (process.argv[2] === 'fail' && w.rank === w.size - 1) throw new Error('rank program failed on purpose');
if (process.argv[2] === 'spin') {
  console.log('ready');
  for (;;) {
    w.allreduce(small);
    await new Promise((r) => setImmediate(r));
  }
}
