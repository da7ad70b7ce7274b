/** Rank program for the start-up timeout: the last task waits `argv[2]` ms before it calls init(). */
import { init } from '../../helpers/rank-api.js';

const rank = Number(process.env.PMI_RANK ?? process.env.OMPI_COMM_WORLD_RANK ?? 0);
const size = Number(process.env.PMI_SIZE ?? process.env.OMPI_COMM_WORLD_SIZE ?? 1);
if (rank === size - 1) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(process.argv[2] ?? 0));
const w = init();
w.barrier();
console.log(`joined ${w.rank}`);
