/**
 * `coll bench <collective> [-n N] [--nodes K] [--algorithm A | --all-algorithms] ...`:
 * OSU-style latency of a collective through the real runtime (see
 * src/bench/bench-program.ts), as a table, JSON lines and an SVG plot.
 */
import { writeFileSync } from 'node:fs';
import { isCollective } from '../../algorithms/registry.js';
import { datatype as lookupDatatype, type DatatypeName } from '../../core/datatypes.js';
import { ArgumentError, checkIntRange } from '../../core/errors.js';
import { formatTable } from '../../core/table.js';
import { benchPlot, benchTable, runBenchJob } from '../../bench/bench.js';
import { EXECUTION_MODES, type ExecutionMode } from '../../runtime/communicator.js';
import { parseTransport } from '../../transport/mpi/binding.js';
import { helpText, opt, opts, parseArgs, type OptionSpec } from '../args.js';
import type { Command } from '../command.js';
import { benchMatrix } from './bench-matrix.js';
import { PEER_MPIS, runPeer, type PeerMpi, type PeerRecord } from '../../bench/peer.js';
import type { BenchRecord } from '../../bench/bench-program.js';

const OPTIONS: OptionSpec[] = [
  { name: 'np', alias: 'n', type: 'number', description: 'number of ranks (default 2)' },
  { name: 'nodes', type: 'number', description: 'node processes (default 1)' },
  { name: 'transport', type: 'string', description: 'how node processes talk: tcp (default) | mpi (through the installed MPI, started by its mpirun; or COLL_TRANSPORT)' },
  { name: 'algorithm', alias: 'a', type: 'string', repeat: true, description: "algorithm to time (repeatable; 'auto' = automatic selection, the default)" },
  { name: 'all-algorithms', type: 'boolean', description: 'time every catalogue algorithm (and auto)' },
  { name: 'mode', type: 'string', repeat: true, description: "execution mode: host (default), offload, intermediate (repeatable; with offload modes --algorithm names the inter-node schedule)" },
  { name: 'min-bytes', type: 'bytes', description: 'smallest message per rank (default 8)' },
  { name: 'max-bytes', type: 'bytes', description: 'largest message per rank (default 1 MiB)' },
  { name: 'iterations', alias: 'i', type: 'number', description: 'timed calls per size for messages up to 16 KiB (default 1000; fewer above)' },
  { name: 'warmup', type: 'number', description: 'warm-up calls per size (default iterations/10 + 1)' },
  { name: 'datatype', type: 'string', description: 'element type (default float64)' },
  { name: 'op', type: 'string', description: 'reduction operator (default sum)' },
  { name: 'private', type: 'boolean', description: 'use private buffers instead of the shared arena (no zero-copy)' },
  { name: 'json', type: 'boolean', description: 'print JSON lines instead of a table' },
  { name: 'plot', type: 'string', description: 'write an SVG plot of latency vs size per algorithm to FILE' },
  { name: 'compare', type: 'string', repeat: true, description: 'also run the same measurement with an installed MPI (openmpi, mpich) and print the ratios' },
  { name: 'help', alias: 'h', type: 'boolean', description: 'show this help' },
];

const USAGE = 'coll bench matrix [options] (coll bench matrix --help)\n       coll bench <collective> [-n N] [--nodes K] [--algorithm A | --all-algorithms] [--mode M] [--min-bytes B] [--max-bytes B] [--iterations I] [--json] [--plot FILE]';

export const benchCommand: Command = {
  name: 'bench',
  summary: 'measure a collective through the runtime (OSU-style; table, JSON, SVG plot)',
  async run(argv) {
    if (argv[0] === 'matrix') return benchMatrix(argv.slice(1));
    const args = parseArgs(argv, OPTIONS);
    if (opt(args, 'help')) {
      console.log(helpText(USAGE, OPTIONS));
      return 0;
    }
    const collective = args.positionals[0];
    if (collective === undefined) {
      console.error(helpText(USAGE, OPTIONS));
      return 2;
    }
    if (!isCollective(collective)) {
      throw new ArgumentError(`unknown collective '${collective}'`, 'use barrier, bcast, reduce, allreduce, allgather, reduce_scatter, gather, scatter or alltoall');
    }
    const ranks = opt<number>(args, 'np') ?? 2;
    const nodes = opt<number>(args, 'nodes') ?? 1;
    const transport = parseTransport(opt<string>(args, 'transport') ?? process.env.COLL_TRANSPORT ?? 'tcp', '--transport');
    const minBytes = opt<number>(args, 'min-bytes') ?? 8;
    const maxBytes = opt<number>(args, 'max-bytes') ?? 1 << 20;
    const iterations = opt<number>(args, 'iterations') ?? 1000;
    checkIntRange('--min-bytes', minBytes, 1, 2 ** 31);
    checkIntRange('--max-bytes', maxBytes, minBytes, 2 ** 31);
    checkIntRange('--iterations', iterations, 1, 1e9);
    const named = opts<string>(args, 'algorithm');
    if (named.length > 0 && opt(args, 'all-algorithms')) throw new ArgumentError('--algorithm and --all-algorithms exclude each other');
    const datatype = (opt<string>(args, 'datatype') ?? 'float64') as DatatypeName;
    lookupDatatype(datatype);
    const algorithms: (string | null)[] | 'all' = opt(args, 'all-algorithms') ? 'all' : named.length > 0 ? named.map((a) => (a === 'auto' ? null : a)) : [null];
    const modes = opts<string>(args, 'mode');
    for (const m of modes) if (!(EXECUTION_MODES as readonly string[]).includes(m)) throw new ArgumentError(`unknown --mode '${m}'`, `use ${EXECUTION_MODES.join(', ')}`);
    const json = opt<boolean>(args, 'json') ?? false;
    const compare = opts<string>(args, 'compare') as PeerMpi[];
    for (const p of compare) if (!(PEER_MPIS as readonly string[]).includes(p)) throw new ArgumentError(`unknown --compare '${p}'`, `use ${PEER_MPIS.join(' or ')}`);
    if (compare.length > 0 && (nodes !== 1 || (modes.length > 0 && modes.some((m) => m !== 'host')))) {
      throw new ArgumentError('--compare runs the MPI on one node in host mode only', 'drop --nodes/--mode, or compare with `coll bench matrix`');
    }
    // Progress on a terminal only: none when piped or with --json.
    const tty = process.stderr.isTTY === true && !json;
    const result = await runBenchJob(
      {
        collective,
        algorithms,
        minBytes,
        maxBytes,
        iterations,
        warmup: opt<number>(args, 'warmup'),
        shared: !opt<boolean>(args, 'private'),
        datatype,
        op: opt<string>(args, 'op') ?? 'sum',
        ranks,
        nodes,
        modes: modes.length > 0 ? (modes as ExecutionMode[]) : undefined,
        ...(transport === 'mpi' ? { transport } : {}),
      },
      (p) => {
        const msg = `[${p.done}/${p.total}] ${collective} ${p.last}`;
        if (tty) process.stderr.write(`\r\x1b[K${msg}`);
      },
      (line) => process.stderr.write(`${line}\n`),
    );
    if (tty) process.stderr.write('\r\x1b[K');
    // One line per algorithm and reason, with the sizes it applies to (not one per size).
    const skips = new Map<string, { requested: string; reason: string; sizes: number[] }>();
    for (const s of result.skipped) {
      const key = `${s.requested}\n${s.reason}`;
      const k = skips.get(key) ?? { requested: s.requested, reason: s.reason, sizes: [] };
      k.sizes.push(s.bytes);
      skips.set(key, k);
    }
    for (const k of skips.values()) process.stderr.write(`skipped ${k.requested} at ${k.sizes.length === 1 ? `${k.sizes[0]} B` : `${k.sizes.length} sizes (${k.sizes[0]}–${k.sizes[k.sizes.length - 1]} B)`}: ${k.reason}\n`);
    if (json) for (const r of result.records) console.log(JSON.stringify(r));
    else {
      console.log(`${collective}, ${ranks} rank(s) on ${nodes} node(s)${transport === 'mpi' ? ' (MPI transport)' : ''}, ${datatype}${collective.includes('reduce') ? ` ${opt<string>(args, 'op') ?? 'sum'}` : ''}, ${opt(args, 'private') ? 'private' : 'shared'} buffers`);
      console.log(benchTable(result.records));
    }
    for (const p of compare) {
      const theirs = await runPeer(p, { collective, ranks, minBytes, maxBytes, iterations, datatype, op: opt<string>(args, 'op') ?? 'sum' });
      if (json) for (const r of theirs) console.log(JSON.stringify({ ...r, impl: p }));
      else console.log(`\nside by side with ${p} (same sizes and iteration counts)\n${compareTable(result.records, theirs, p)}`);
    }
    const plot = opt<string>(args, 'plot');
    if (plot) {
      writeFileSync(plot, benchPlot(result.records, `${collective}: ${ranks} rank(s), ${nodes} node(s)`));
      process.stderr.write(`wrote ${plot}\n`);
    }
    return 0;
  },
};

/** Ours next to the MPI's, with the ratio, per algorithm and size. */
function compareTable(ours: readonly BenchRecord[], theirs: readonly PeerRecord[], peer: string): string {
  const head = ['algorithm', 'bytes', 'ours avg us', `${peer} avg us`, 'ratio'];
  const rows = ours.map((r) => {
    const t = theirs.find((x) => x.bytes === r.bytes);
    return [r.algorithm, String(r.bytes), r.avg_us.toFixed(2), t ? t.avg_us.toFixed(2) : '-', t ? `${(r.avg_us / t.avg_us).toFixed(2)}x` : '-'];
  });
  return formatTable([head, ...rows], { align: ['l'], others: 'r', rule: true }).join('\n');
}
