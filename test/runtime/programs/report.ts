/** Rank program for the job report: `calls` allreduces of 1 KiB, offloaded when the second argument is 'offload'. */
import { init } from '../../helpers/rank-api.js';

const w = init({ timeoutMs: 60_000 });
const calls = Number(process.argv[2] ?? 10);
const mode = process.argv[3] === 'offload' ? 'offload' : 'host';
const x = new Float64Array(128);
for (let i = 0; i < calls; i++) w.allreduce(x, null, { mode });
