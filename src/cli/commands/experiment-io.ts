/**
 * `coll experiment io`: the parallel I/O of seed 003 ch. 7 (issue 20) measured in real
 * jobs (src/experiments/io-measure.ts; results in docs/io-measurements.md): collective
 * bandwidth of pfs: files against the number of servers, ours (local file and pfs:)
 * against Open MPI's MPI-IO on tmpfs and disk, list I/O against one request per region,
 * eager against rendezvous latency, and the adaptive rendezvous, throttle and
 * completion under many clients. Tables on stdout, progress on stderr, --json FILE,
 * --plot DIR (io-<part>.svg), --docs FILE (the generated section between its markers).
 */
import { ArgumentError, checkIntRange } from '../../core/errors.js';
import {
  DOCS_MARKERS,
  FULL_PLAN,
  measureJson,
  measureMarkdown,
  measurePlots,
  measureTables,
  PARTS,
  QUICK_PLAN,
  resultFromJson,
  runIoMeasure,
  type IoPlan,
} from '../../experiments/io-measure.js';
import { helpText, opt, parseArgs, type OptionSpec } from '../args.js';
import { chosenParts, commonOptions, fromJson, idleBusy, progress, writeOutputs } from './experiment-common.js';

const OPTIONS: OptionSpec[] = [
  { name: 'reps', type: 'number', description: `rounds: every job runs once per round, variants rotated; medians over all (default ${FULL_PLAN.reps}, the Open MPI comparison at least ${FULL_PLAN.compareRounds}; --quick: 1)` },
  { name: 'per-job', type: 'number', description: `timed repetitions inside each job after one dropped warm-up (default ${FULL_PLAN.perJob}; --quick: ${QUICK_PLAN.perJob})` },
  { name: 'quick', type: 'boolean', description: 'small sizes, fewer points, one round (well under a minute): a smoke run, not the documented figures' },
  { name: 'no-peer', type: 'boolean', description: 'no Open MPI comparison even when it is installed' },
  ...commonOptions(PARTS, 'io-scaling.svg, -compare, -listio, -eager, -throttle', 'docs/io-measurements.md'),
];

export const IO_USAGE = 'coll experiment io [--reps R] [--per-job N] [--part P]... [--quick] [--no-peer] [--json FILE] [--plot DIR] [--docs FILE] [--idle B] [--from FILE]';

export async function ioExperimentCommand(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, OPTIONS);
  if (opt(args, 'help')) {
    console.log(helpText(IO_USAGE, OPTIONS));
    return 0;
  }
  if (args.positionals.length > 0) throw new ArgumentError(`unexpected argument '${args.positionals[0]}'`);
  const base = opt<boolean>(args, 'quick') ? QUICK_PLAN : FULL_PLAN;
  const reps = opt<number>(args, 'reps') ?? base.reps;
  checkIntRange('--reps', reps, 1, 100);
  const perJob = opt<number>(args, 'per-job') ?? base.perJob;
  checkIntRange('--per-job', perJob, 1, 100);
  const parts = chosenParts(args, PARTS);
  const idle = idleBusy(args);
  const plan: IoPlan = { ...base, reps, perJob, ...(parts ? { parts } : {}) };
  const from = fromJson(args, 'io', ['reps', 'per-job', 'part', 'quick', 'idle', 'no-peer']);
  const line = progress('io');
  const r = from !== undefined ? resultFromJson(from) : await runIoMeasure(plan, { idleBusy: idle, peer: !(opt<boolean>(args, 'no-peer') ?? false), onJob: line.onJob, onOutput: line.onOutput });
  if (from === undefined) line.end();
  writeOutputs(args, {
    tables: measureTables(r),
    json: () => measureJson(r),
    plots: () => measurePlots(r),
    markdown: (links) => measureMarkdown(r, links),
    markers: DOCS_MARKERS,
    title: '# Parallel I/O measured (seed 003 ch. 7)',
  });
  return 0;
}
