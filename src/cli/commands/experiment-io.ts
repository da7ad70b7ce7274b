/**
 * `coll experiment io`: the parallel I/O of seed 003 ch. 7 (issue 20) measured in real
 * jobs (src/experiments/io-measure.ts; results in docs/io-measurements.md): collective
 * bandwidth of pfs: files against the number of servers, ours (local file and pfs:)
 * against Open MPI's MPI-IO on tmpfs and disk, list I/O against one request per region,
 * eager against rendezvous latency, and the adaptive rendezvous, throttle and
 * completion under many clients. Tables on stdout, progress on stderr, --json FILE,
 * --plot DIR (io-<part>.svg), --docs FILE (the generated section between its markers).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { replaceSection } from '../../bench/matrix.js';
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
  type IoPart,
  type IoPlan,
} from '../../experiments/io-measure.js';
import { helpText, opt, opts, parseArgs, type OptionSpec } from '../args.js';

const OPTIONS: OptionSpec[] = [
  { name: 'reps', type: 'number', description: `rounds: every job runs once per round, variants rotated; medians over all (default ${FULL_PLAN.reps}, the Open MPI comparison at least ${FULL_PLAN.compareRounds}; --quick: 1)` },
  { name: 'per-job', type: 'number', description: `timed repetitions inside each job after one dropped warm-up (default ${FULL_PLAN.perJob}; --quick: ${QUICK_PLAN.perJob})` },
  { name: 'part', type: 'string', repeat: true, description: `only these parts, comma-separated or repeated: ${PARTS.join(', ')} (default all)` },
  { name: 'quick', type: 'boolean', description: 'small sizes, fewer points, one round (well under a minute): a smoke run, not the documented figures' },
  { name: 'no-peer', type: 'boolean', description: 'no Open MPI comparison even when it is installed' },
  { name: 'json', type: 'string', description: 'also write the jobs and the summaries as JSON to FILE' },
  { name: 'plot', type: 'string', description: 'write the SVG plots into DIR (io-scaling.svg, -compare, -listio, -eager, -throttle)' },
  { name: 'docs', type: 'string', description: 'replace the generated section of this markdown file (e.g. docs/io-measurements.md); with --plot, it links the plots' },
  { name: 'from', type: 'string', description: 'no jobs: the tables, plots and docs section again from the JSON of an earlier --json run' },
  { name: 'idle', type: 'number', description: 'before each job wait (up to 30 s) until the CPUs are at most this busy, e.g. 0.3 (shared machines)' },
  { name: 'help', alias: 'h', type: 'boolean', description: 'show this help' },
];

export const IO_USAGE = 'coll experiment io [--reps R] [--per-job N] [--part P]... [--quick] [--no-peer] [--json FILE] [--plot DIR] [--docs FILE] [--idle B] [--from FILE]';

const list = (values: readonly string[]): string[] => values.flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean);

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch (e) {
    throw new ArgumentError(`--from ${file}: ${e instanceof Error ? e.message : String(e)}`, 'give the file an earlier `coll experiment io --json FILE` wrote');
  }
}

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
  const parts = list(opts<string>(args, 'part'));
  for (const p of parts) if (!(PARTS as readonly string[]).includes(p)) throw new ArgumentError(`--part '${p}' is not one of ${PARTS.join(', ')}`);
  const idleBusy = opt<number>(args, 'idle');
  if (idleBusy !== undefined && !(idleBusy > 0 && idleBusy <= 1)) throw new ArgumentError(`--idle needs a busy fraction in (0, 1], got ${idleBusy}`);
  const plan: IoPlan = {
    ...base,
    reps,
    perJob,
    ...(parts.length > 0 ? { parts: PARTS.filter((p) => parts.includes(p)) as IoPart[] } : {}),
  };
  const from = opt<string>(args, 'from');
  if (from !== undefined) {
    for (const name of ['reps', 'per-job', 'part', 'quick', 'idle', 'no-peer']) if (args.values.has(name)) throw new ArgumentError(`--${name} chooses jobs; --from runs none`);
  }
  const tty = process.stderr.isTTY === true;
  const r = from
    ? resultFromJson(readJson(from))
    : await runIoMeasure(plan, {
        idleBusy,
        peer: !(opt<boolean>(args, 'no-peer') ?? false),
        onJob: (done, total, what) => process.stderr.write(`${tty ? '\r\x1b[K' : ''}io [${done}/${total}] ${what}${tty ? '' : '\n'}`),
        onOutput: (line) => process.stderr.write(`${tty ? '\r\x1b[K' : ''}${line}\n`),
      });
  if (tty && !from) process.stderr.write('\r\x1b[K');
  console.log(measureTables(r));
  const json = opt<string>(args, 'json');
  if (json) {
    writeFileSync(json, `${JSON.stringify(measureJson(r), null, 2)}\n`);
    process.stderr.write(`wrote ${json}\n`);
  }
  const dir = opt<string>(args, 'plot');
  const docs = opt<string>(args, 'docs');
  const links: Partial<Record<IoPart, string>> = {};
  if (dir) {
    mkdirSync(dir, { recursive: true });
    for (const p of measurePlots(r)) {
      const file = join(dir, p.name);
      writeFileSync(file, p.svg);
      process.stderr.write(`wrote ${file}\n`);
      if (docs) links[p.part] = relative(dirname(docs), file);
    }
  }
  if (docs) {
    const doc = existsSync(docs) ? readFileSync(docs, 'utf8') : '# Parallel I/O measured (seed 003 ch. 7)\n';
    writeFileSync(docs, replaceSection(doc, measureMarkdown(r, links), DOCS_MARKERS));
    process.stderr.write(`updated ${docs}\n`);
  }
  return 0;
}
