import { init } from '../../helpers/rank-api.js';
const comm = init();
const x = new Float64Array([comm.rank + 1]);
comm.allreduce(x);
console.log(`rank ${comm.rank}/${comm.size} node ${comm.nodeRank}/${comm.nodeCount} sum ${x[0]}`);
