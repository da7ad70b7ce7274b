/**
 * Rank program: prints this rank thread's nice value and how many threads of the node
 * process run at nice 19 (Linux /proc), for helper-priority.test.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { init } from '../../helpers/rank-api.js';

/** Field 19 of /proc/…/stat (the nice value); the command name in field 2 may hold spaces. */
const niceOf = (stat: string): number => Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);

const comm = init();
comm.barrier();
const mine = niceOf(readFileSync('/proc/thread-self/stat', 'utf8'));
const low = readdirSync('/proc/self/task').filter((t) => {
  try {
    return niceOf(readFileSync(`/proc/self/task/${t}/stat`, 'utf8')) === 19;
  } catch {
    return false;
  }
}).length;
console.log(`NICE ${JSON.stringify({ rank: comm.rank, mine, low })}`);
