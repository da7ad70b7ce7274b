/** Rank program: the rank named by argv[2] throws while the others wait in a collective. */
import { init } from '../../helpers/rank-api.js';

const comm = init();
const failing = Number(process.argv[2] ?? 1);
comm.barrier();
console.log(`rank ${comm.rank} passed the barrier`);
if (comm.rank === failing) throw new Error(`boom from rank ${comm.rank}`);
comm.allreduce(new Float64Array(1000));
console.log('unreachable');
