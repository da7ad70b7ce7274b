/**
 * Rank program: several rank programs of this directory in one job, one after the other,
 * so that tests of the same layout share one job start-up (rank threads, node processes
 * and engines load hundreds of modules each). Arguments: the programs, each as its file
 * name with its own arguments after ':' (comma-separated), e.g. `check.ts:quick vector.ts`.
 *
 * Each program runs as if it were the job's program: process.argv holds its own path and
 * arguments, its REPORT line carries its name (cases.ts's Report), and init() returns the
 * world. Between two programs every rank waits for the others (a world barrier) and the
 * communicators the earlier program made (split, dup) are freed, in the order they were
 * made, so that the next one finds the node's arena as a fresh job has it. The last
 * program's communicators are left as they are (mismatch.ts leaves broken ones).
 */
import { fileURLToPath } from 'node:url';
import { Communicator, init } from '../../helpers/rank-api.js';

const world = init({ timeoutMs: 60_000 });
const made: Communicator[] = [];
const split = Communicator.prototype.split;
Communicator.prototype.split = function (this: Communicator, ...args: Parameters<typeof split>): ReturnType<typeof split> {
  const c = split.apply(this, args);
  if (c) made.push(c);
  return c;
};

const programs = process.argv.slice(2);
for (const [k, spec] of programs.entries()) {
  const [name, args] = spec.split(':');
  process.argv = [process.argv[0], fileURLToPath(new URL(`./${name}`, import.meta.url)), ...(args ? args.split(',') : [])];
  (globalThis as { reportProgram?: string }).reportProgram = name;
  await import(`./${name}`);
  if (k === programs.length - 1) break;
  world.barrier();
  // In creation order: a communicator's free() also frees the node communicator it made.
  for (const c of made) if (!c.isFreed) c.free();
  made.length = 0;
  world.barrier();
}
