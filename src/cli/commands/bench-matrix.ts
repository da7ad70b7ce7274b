/**
 * `coll bench matrix`: the side-by-side benchmark matrix of src/bench/matrix.ts —
 * every collective × sizes × 2/4/8 ranks against Open MPI (and MPICH), ratios,
 * geometric means, spot checks, nonblocking and sub-communicator costs; markdown,
 * JSON and an SVG heat map, optionally written into docs/benchmarks.md.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { isCollective } from '../../algorithms/registry.js';
import { ArgumentError, checkIntRange } from '../../core/errors.js';
import { docsMarkers, MATRIX_FORMAT, matrixHeatMap, matrixMarkdown, replaceSection, runMatrix, summarize, taggedRun, type MatrixRun } from '../../bench/matrix.js';
import { PEER_MPIS, peerBinary, type PeerMpi } from '../../bench/peer.js';
import type { CollectiveKind } from '../../schedule/types.js';
import { helpText, opt, opts, parseArgs, type OptionSpec } from '../args.js';
import { findMpiLauncher } from '../../runtime/mpi-launch.js';
import { parseTransport } from '../../transport/mpi/binding.js';

const OPTIONS: OptionSpec[] = [
  { name: 'compare', type: 'string', repeat: true, description: 'MPI to run side by side: openmpi (default), mpich; repeatable' },
  { name: 'ranks', type: 'string', description: 'rank counts, comma-separated (default 2,4,8)' },
  { name: 'collectives', type: 'string', description: 'collectives, comma-separated (default all nine)' },
  { name: 'sizes', type: 'string', description: 'message sizes in bytes, comma-separated (default 8,64,1024,4096,65536,1048576,4194304)' },
  { name: 'nodes', type: 'number', description: 'node processes per job (default 1); above 1 the ranks talk over TCP and the peer MPI is held to TCP' },
  { name: 'transport', type: 'string', description: 'how our node processes talk with --nodes: tcp (default) | mpi (through the installed MPI, launched like the peer)' },
  { name: 'algorithm', type: 'string', description: "the algorithm our side runs (default: automatic selection); 'mpi' with --transport mpi: MPI's own collectives" },
  { name: 'reps', type: 'number', description: 'repetitions, alternating the two sides (default 3)' },
  { name: 'iterations', alias: 'i', type: 'number', description: 'timed calls up to 16 KiB (default 1000, OSU; fewer above)' },
  { name: 'no-extras', type: 'boolean', description: 'skip the spot checks and the nonblocking / sub-communicator variants' },
  { name: 'private', type: 'boolean', description: 'private buffers instead of comm.alloc' },
  { name: 'idle', type: 'number', description: 'before each repetition wait (≤ 60 s) until the CPUs are at most this busy (default 0.25; 1 = never)' },
  { name: 'json', type: 'string', description: 'write every sample as JSON to FILE (format collectives-bench-matrix, docs/view-formats.md)' },
  { name: 'plot', type: 'string', description: 'write the SVG heat map of the ratios to FILE (first MPI)' },
  { name: 'docs', type: 'string', description: 'replace the generated section of this markdown file (e.g. docs/benchmarks.md)' },
  { name: 'from', type: 'string', description: 'render a saved --json run instead of measuring' },
  { name: 'help', alias: 'h', type: 'boolean', description: 'show this help' },
];

const USAGE = 'coll bench matrix [--compare openmpi|mpich] [--ranks 2,4,8] [--collectives ...] [--sizes ...] [--reps 3] [--json FILE] [--plot FILE] [--docs FILE]';

function list(s: string | undefined, what: string): string[] | undefined {
  if (s === undefined) return undefined;
  const l = s.split(',').map((x) => x.trim()).filter((x) => x !== '');
  if (l.length === 0) throw new ArgumentError(`--${what} is empty`);
  return l;
}

function numbers(s: string | undefined, what: string, lo: number, hi: number): number[] | undefined {
  return list(s, what)?.map((x) => {
    const n = Number(x);
    checkIntRange(`--${what}`, n, lo, hi);
    return n;
  });
}

export async function benchMatrix(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, OPTIONS);
  if (opt(args, 'help')) {
    console.log(helpText(USAGE, OPTIONS));
    return 0;
  }
  let run: MatrixRun;
  const from = opt<string>(args, 'from');
  if (from !== undefined) {
    run = JSON.parse(readFileSync(from, 'utf8')) as MatrixRun;
    // Files written before the format tags have none; a tagged file must be this format.
    if (run.format !== undefined && run.format !== MATRIX_FORMAT) throw new ArgumentError(`${from} is a '${String(run.format)}' file, not a benchmark matrix run (${MATRIX_FORMAT})`);
  } else {
    const peers = (opts<string>(args, 'compare').length > 0 ? opts<string>(args, 'compare') : ['openmpi']) as PeerMpi[];
    for (const p of peers) {
      if (!(PEER_MPIS as readonly string[]).includes(p)) throw new ArgumentError(`unknown --compare '${p}'`, `use ${PEER_MPIS.join(' or ')}`);
      peerBinary(p); // fails early, naming the packages, when the MPI is not installed
    }
    const collectives = list(opt<string>(args, 'collectives'), 'collectives');
    for (const c of collectives ?? []) if (!isCollective(c)) throw new ArgumentError(`unknown collective '${c}'`);
    const reps = opt<number>(args, 'reps') ?? 3;
    checkIntRange('--reps', reps, 1, 100);
    const nodes = opt<number>(args, 'nodes') ?? 1;
    checkIntRange('--nodes', nodes, 1, 64);
    const transport = parseTransport(opt<string>(args, 'transport') ?? 'tcp', '--transport');
    if (transport === 'mpi') findMpiLauncher(); // fails early, naming the packages
    const tty = process.stderr.isTTY === true;
    const t0 = Date.now();
    run = await runMatrix(
      {
        peers,
        collectives: collectives as CollectiveKind[] | undefined,
        ranks: numbers(opt<string>(args, 'ranks'), 'ranks', 1, 64),
        sizes: numbers(opt<string>(args, 'sizes'), 'sizes', 1, 2 ** 30),
        reps,
        iterations: opt<number>(args, 'iterations'),
        shared: !opt<boolean>(args, 'private'),
        extras: !opt<boolean>(args, 'no-extras'),
        idle: opt<number>(args, 'idle'),
        nodes,
        ...(transport === 'mpi' ? { transport } : {}),
        ...(opt<string>(args, 'algorithm') !== undefined ? { algorithm: opt<string>(args, 'algorithm') } : {}),
      },
      (p) => {
        const eta = p.done > 0 ? Math.round((((Date.now() - t0) / p.done) * (p.total - p.done)) / 1000) : undefined;
        const msg = `[${p.done}/${p.total}${eta !== undefined ? `, ~${eta} s left` : ''}] ${p.what}`;
        if (tty) process.stderr.write(`\r\x1b[K${msg}`); // progress on a terminal only
      },
    );
    if (tty) process.stderr.write('\r\x1b[K');
  }
  const json = opt<string>(args, 'json');
  if (json) {
    writeFileSync(json, `${JSON.stringify(taggedRun(run), null, 1)}\n`);
    process.stderr.write(`wrote ${json}\n`);
  }
  const plot = opt<string>(args, 'plot');
  if (plot && run.options.peers.length > 0) {
    writeFileSync(plot, matrixHeatMap(run, run.options.peers[0]));
    process.stderr.write(`wrote ${plot}\n`);
  }
  const docs = opt<string>(args, 'docs');
  const md = matrixMarkdown(run, plot && docs ? relative(dirname(docs), plot) : undefined);
  console.log(md);
  if (docs) {
    writeFileSync(docs, replaceSection(existsSync(docs) ? readFileSync(docs, 'utf8') : '# Benchmarks\n', md, docsMarkers(run.options.nodes, run.options.transport, run.options.algorithm)));
    process.stderr.write(`updated ${docs}\n`);
  }
  for (const s of summarize(run)) process.stderr.write(`${s.ranks} ranks vs ${s.peer}: geometric mean ${s.geomean.toFixed(2)}×, max ${s.max.toFixed(2)}× over ${s.cells} cells\n`);
  return 0;
}
