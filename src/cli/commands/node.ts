/**
 * `coll node -r K <program> [args]`: one task of a cluster launcher as a node process
 * with K rank threads (the efficient form: `srun --ntasks-per-node=1 coll node -r 8
 * prog.js`, `mpirun --map-by ppr:1:node coll node -r 8 prog.js`). Task t holds ranks
 * t·K … t·K+K−1; ranks of a task share memory, tasks talk through the launcher's MPI
 * (`--transport mpi`, where its binding is built: the default) or over TCP after finding
 * each other through the launcher's key-value store (PMI-1 or PMIx).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ArgumentError } from '../../core/errors.js';
import { detectLaunch } from '../../launch/external.js';
import { TASK_NODE, taskNodeSpec } from '../../runtime/task.js';
import { parseTransport, prepareMpiEnvironment } from '../../transport/mpi/binding.js';
import { helpText, opt, parseArgs, type OptionSpec } from '../args.js';
import type { Command } from '../command.js';

const OPTIONS: OptionSpec[] = [
  { name: 'ranks-per-node', alias: 'r', type: 'number', description: 'rank threads in this task (default 1)' },
  { name: 'transport', type: 'string', description: "how tasks talk: mpi (the launcher's MPI library) | tcp | auto (default: mpi where its binding is built; or COLL_TRANSPORT)" },
  { name: 'help', alias: 'h', type: 'boolean', description: 'show this help' },
];

const USAGE = 'mpirun|mpiexec|srun … coll node [-r K] <program.(js|ts)> [program args...]';

export const nodeCommand: Command = {
  name: 'node',
  summary: 'run as one task of mpirun, mpiexec or srun, with K rank threads',
  async run(argv) {
    const args = parseArgs(argv, OPTIONS, 1);
    if (opt(args, 'help')) {
      console.log(
        `${helpText(USAGE, OPTIONS)}\n\nEach launcher task becomes one node process of K ranks (task t: ranks t*K … t*K+K-1).\n` +
          'Plain `mpirun -np N node prog.js` works too: then every task is one rank.',
      );
      return 0;
    }
    const k = opt<number>(args, 'ranks-per-node') ?? 1;
    if (!Number.isInteger(k) || k < 1 || k > 1024) throw new ArgumentError(`--ranks-per-node must be an integer from 1 to 1024, got ${k}`);
    const program = args.positionals[0];
    if (program === undefined) throw new ArgumentError('no program given', `usage: ${USAGE}`);
    if (!existsSync(program)) throw new ArgumentError(`program '${program}' does not exist`);
    const launch = detectLaunch(process.env, { single: true });
    if (!launch) {
      throw new ArgumentError(
        'coll node runs as a task of a cluster launcher (mpirun, mpiexec, srun --mpi=pmi2|pmix), and none started it',
        'on this machine or over ssh, use coll run -n N [--hosts …] instead',
      );
    }
    const transport = opt<string>(args, 'transport');
    const spec = taskNodeSpec(launch, k, resolve(program), args.rest, process.env, transport === undefined ? undefined : parseTransport(transport, '--transport'));
    if (spec.transport === 'mpi') prepareMpiEnvironment();
    (globalThis as Record<symbol, unknown>)[TASK_NODE] = { launch, spec };
    const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
    // node-main runs the node to the end of the job and exits the process.
    await import(new URL(`../../runtime/node-main.${ext}`, import.meta.url).href);
    return 0;
  },
};
