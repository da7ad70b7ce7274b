/**
 * `coll experiment multicast`: the multicast broadcast of seed 003 ch. 5 measured in
 * real jobs (src/experiments/multicast-measure.ts; results in docs/multicast.md):
 * latency against the number of node processes (multicast vs the binomial tree over
 * TCP), latency against channels with split-phase off and the L0 + S/C fit, the
 * sender's stalls against the channel set size, the cost of the reliable mode, fault
 * runs with their NACK / resync / fail-over counters, and bandwidth. Tables on stdout,
 * progress on stderr, --json FILE, --plot DIR (multicast-<part>.svg), --docs FILE (the
 * generated section between its markers).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { ArgumentError, checkIntRange } from '../../core/errors.js';
import { replaceSection } from '../../bench/matrix.js';
import {
  DOCS_MARKERS,
  FULL_PLAN,
  MAX_NODES,
  measureJson,
  measureMarkdown,
  measurePlots,
  measureTables,
  PARTS,
  QUICK_PLAN,
  resultFromJson,
  runMulticastMeasure,
  type McastPart,
  type McastPlan,
} from '../../experiments/multicast-measure.js';
import { helpText, opt, opts, parseArgs, type OptionSpec } from '../args.js';

const OPTIONS: OptionSpec[] = [
  { name: 'nodes', type: 'string', repeat: true, description: `claim 1's node process counts, comma-separated or repeated (default ${FULL_PLAN.nodes.join(',')})` },
  { name: 'reps', type: 'number', description: `jobs per point, interleaved; medians reported (default ${FULL_PLAN.reps}; --quick: ${QUICK_PLAN.reps})` },
  { name: 'part', type: 'string', repeat: true, description: `only these parts, comma-separated or repeated: ${PARTS.join(', ')} (default all)` },
  { name: 'quick', type: 'boolean', description: 'fewer points and calls, one repetition (about a minute): a smoke run, not the documented figures' },
  { name: 'json', type: 'string', description: 'also write the jobs and the summaries as JSON to FILE' },
  { name: 'plot', type: 'string', description: 'write the SVG plots into DIR (multicast-nodes.svg, -channels, -sets, -reliability, -bandwidth)' },
  { name: 'docs', type: 'string', description: 'replace the generated section of this markdown file (e.g. docs/multicast.md); with --plot, it links the plots' },
  { name: 'from', type: 'string', description: 'no jobs: the tables, plots and docs section again from the JSON of an earlier --json run (CRC-32/HMAC costs measured anew)' },
  { name: 'idle', type: 'number', description: 'before each job wait (up to 30 s) until the CPUs are at most this busy, e.g. 0.3 (shared machines)' },
  { name: 'help', alias: 'h', type: 'boolean', description: 'show this help' },
];

export const MULTICAST_USAGE = 'coll experiment multicast [--nodes 2,4,8,16] [--reps R] [--part P]... [--quick] [--json FILE] [--plot DIR] [--docs FILE] [--idle B] [--from FILE]';

const list = (values: readonly string[]): string[] => values.flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean);

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch (e) {
    throw new ArgumentError(`--from ${file}: ${e instanceof Error ? e.message : String(e)}`, 'give the file an earlier `coll experiment multicast --json FILE` wrote');
  }
}

export async function multicastExperimentCommand(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, OPTIONS);
  if (opt(args, 'help')) {
    console.log(helpText(MULTICAST_USAGE, OPTIONS));
    return 0;
  }
  if (args.positionals.length > 0) throw new ArgumentError(`unexpected argument '${args.positionals[0]}'`);
  const base = opt<boolean>(args, 'quick') ? QUICK_PLAN : FULL_PLAN;
  const nodes = list(opts<string>(args, 'nodes')).map(Number);
  for (const n of nodes) checkIntRange('--nodes', n, 2, MAX_NODES);
  const reps = opt<number>(args, 'reps') ?? base.reps;
  checkIntRange('--reps', reps, 1, 100);
  const parts = list(opts<string>(args, 'part'));
  for (const p of parts) if (!(PARTS as readonly string[]).includes(p)) throw new ArgumentError(`--part '${p}' is not one of ${PARTS.join(', ')}`);
  const idleBusy = opt<number>(args, 'idle');
  if (idleBusy !== undefined && !(idleBusy > 0 && idleBusy <= 1)) throw new ArgumentError(`--idle needs a busy fraction in (0, 1], got ${idleBusy}`);
  const plan: McastPlan = {
    ...base,
    reps,
    ...(nodes.length > 0 ? { nodes: [...new Set(nodes)].sort((a, b) => a - b) } : {}),
    ...(parts.length > 0 ? { parts: PARTS.filter((p) => parts.includes(p)) as McastPart[] } : {}),
  };
  const from = opt<string>(args, 'from');
  if (from !== undefined) {
    for (const name of ['nodes', 'reps', 'part', 'quick', 'idle']) if (args.values.has(name)) throw new ArgumentError(`--${name} chooses jobs; --from runs none`);
  }
  const tty = process.stderr.isTTY === true;
  const r = from
    ? resultFromJson(readJson(from))
    : await runMulticastMeasure(plan, {
        idleBusy,
        onJob: (done, total, what) => process.stderr.write(`${tty ? '\r\x1b[K' : ''}multicast [${done}/${total}] ${what}${tty ? '' : '\n'}`),
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
  const links: Partial<Record<McastPart, string>> = {};
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
    const doc = existsSync(docs) ? readFileSync(docs, 'utf8') : '# Multicast broadcast (seed 003 ch. 5)\n';
    writeFileSync(docs, replaceSection(doc, measureMarkdown(r, links), DOCS_MARKERS));
    process.stderr.write(`updated ${docs}\n`);
  }
  return 0;
}
