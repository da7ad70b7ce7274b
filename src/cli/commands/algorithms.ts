/** `coll algorithms [--collective C] [--json]`: the algorithm catalogue. */
import { ArgumentError } from '../../core/errors.js';
import { isCollective, listAlgorithms } from '../../algorithms/registry.js';
import { COLLECTIVES, type CollectiveKind } from '../../schedule/types.js';
import { hasDirect, hasFlat, MPI_ALGORITHM, MPI_ALGORITHM_DESCRIPTION, SHM_DIRECT, SHM_DIRECT_DESCRIPTION, SHM_FLAT, SHM_FLAT_DESCRIPTION } from '../../exec/plan.js';
import { algorithmId, type AlgorithmSpec } from '../../algorithms/types.js';
import { helpText, opt, parseArgs, type OptionSpec } from '../args.js';
import type { Command } from '../command.js';

const OPTIONS: OptionSpec[] = [
  { name: 'collective', alias: 'c', type: 'string', description: 'only this collective (barrier, bcast, reduce, allreduce, ...)' },
  { name: 'json', type: 'boolean', description: 'print JSON' },
  { name: 'help', alias: 'h', type: 'boolean', description: 'show this help' },
];

export function describeAlgorithm(a: AlgorithmSpec) {
  return {
    id: algorithmId(a),
    collective: a.collective,
    name: a.name,
    description: a.description,
    source: a.source,
    restrictions: a.restrictions.map((r) => ({ id: r.id, description: r.description })),
    params: a.params.map((p) => ({
      name: p.name,
      type: p.type,
      default: typeof p.default === 'function' ? (p.defaultText ?? 'computed') : p.default,
      ...(p.min !== undefined ? { min: p.min } : {}),
      ...(p.max !== undefined ? { max: p.max } : {}),
      ...(p.values ? { values: p.values } : {}),
      description: p.description,
    })),
    cost: a.cost.formula,
    orderPreserving: a.orderPreserving,
    ...(a.topology ? { topology: a.topology } : {}),
    ...(a.fallback ? { fallback: a.fallback } : {}),
  };
}

type RuntimePath = ReturnType<typeof describeAlgorithm> & { runtimePath: true };

/** The runtime's flat shared-memory path of a collective and its direct mode, listed beside the catalogue (they are not schedules). */
function runtimePaths(collective: CollectiveKind): RuntimePath[] {
  const path = (name: string, description: string, file: string, restriction: { id: string; description: string }, cost: string): RuntimePath => ({
    id: `${collective}/${name}`,
    collective,
    name,
    description,
    source: `runtime (src/runtime/${file})`,
    restrictions: [restriction],
    params: [],
    cost,
    orderPreserving: true,
    runtimePath: true,
  });
  const out: RuntimePath[] = [];
  if (hasFlat(collective)) {
    out.push(
      path(SHM_FLAT, SHM_FLAT_DESCRIPTION, 'shm-collectives.ts', { id: 'one-node-slots', description: 'a communicator on one node whose shared slots hold the call (blocks of at most 64 KiB)' }, 'one write into the slot and one read per block the rank needs, through shared memory'),
    );
  }
  if (hasDirect(collective)) {
    out.push(
      path(
        SHM_DIRECT,
        SHM_DIRECT_DESCRIPTION,
        'shm-direct.ts',
        { id: 'one-node', description: 'a communicator on one node (with more than one rank)' },
        "one copy of what each rank receives, straight between the users' buffers (reductions: P chunks folded in parallel); two synchronisations",
      ),
    );
  }
  const mpi = path(
    MPI_ALGORITHM,
    MPI_ALGORITHM_DESCRIPTION,
    'mpi-task.ts',
    { id: 'mpi-transport', description: 'the MPI transport with one rank per MPI process; a scalar datatype and a predefined MPI operator' },
    "the MPI library's own algorithm and cost model",
  );
  out.push({ ...mpi, source: 'the MPI library (src/transport/mpi/collectives.ts)' });
  return out;
}

export const algorithmsCommand: Command = {
  name: 'algorithms',
  summary: 'list the algorithms { algorithm } accepts: the catalogue and the runtime path (id, restrictions, parameters, cost)',
  async run(argv) {
    const args = parseArgs(argv, OPTIONS);
    if (opt(args, 'help')) {
      console.log(helpText('coll algorithms [--collective C] [--json]', OPTIONS));
      return 0;
    }
    const c = opt<string>(args, 'collective');
    if (c !== undefined && !isCollective(c)) {
      throw new ArgumentError(`unknown collective '${c}'`, 'use barrier, bcast, reduce, allreduce, allgather, reduce_scatter, gather, scatter or alltoall');
    }
    const kinds = c !== undefined ? [c] : COLLECTIVES;
    const list = kinds.flatMap((k) => [...listAlgorithms(k).map(describeAlgorithm), ...runtimePaths(k)]);
    if (opt(args, 'json')) {
      console.log(JSON.stringify(list, null, 2));
      return 0;
    }
    let current = '';
    for (const a of list) {
      if (a.collective !== current) {
        current = a.collective;
        console.log(`\n${current}`);
      }
      console.log(`  ${a.id.padEnd(32)} ${a.cost}`);
      console.log(`      ${a.description}`);
      const restr = a.restrictions.length ? a.restrictions.map((r) => r.description).join('; ') : 'none';
      const params = a.params.length ? a.params.map((p) => `${p.name}=${String(p.default)}`).join(' ') : 'none';
      console.log(`      restrictions: ${restr}${a.fallback ? ` (fallback: ${a.fallback})` : ''}`);
      console.log(`      params: ${params}   order-preserving: ${a.orderPreserving ? 'yes' : 'no'}   source: ${a.source}`);
    }
    const runtime = list.filter((a) => 'runtimePath' in a).length;
    console.log(`\n${list.length} algorithms (${runtime} of them runtime paths: the shm_flat path and its shm_direct mode, and MPI's own collectives on the MPI transport, named as { algorithm: 'shm_flat' }, { algorithm: 'shm_direct' } and { algorithm: 'mpi' })`);
    return 0;
  },
};
