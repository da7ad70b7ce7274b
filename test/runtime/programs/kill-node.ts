/**
 * Rank program: after a few collectives, the last rank kills its own node process
 * with SIGKILL (a node crash); the other ranks keep calling collectives. The job must
 * end with a failure naming the dead node and its ranks.
 */
import { init } from '../../helpers/rank-api.js';

const w = init({ timeoutMs: 60_000 });
const buf = new Float64Array(1 << 14);
for (let i = 0; i < 5; i++) w.allreduce(buf);
if (w.rank === w.size - 1) process.kill(process.pid, 'SIGKILL');
for (let i = 0; i < 1000; i++) w.allreduce(buf);
