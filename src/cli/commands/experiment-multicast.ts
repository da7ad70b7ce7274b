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
import { ArgumentError, checkIntRange } from '../../core/errors.js';
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
  type McastPlan,
} from '../../experiments/multicast-measure.js';
import { helpText, opt, opts, parseArgs, type OptionSpec } from '../args.js';
import { chosenParts, commaList, commonOptions, fromJson, idleBusy, progress, writeOutputs } from './experiment-common.js';

const OPTIONS: OptionSpec[] = [
  { name: 'nodes', type: 'string', repeat: true, description: `claim 1's node process counts, comma-separated or repeated (default ${FULL_PLAN.nodes.join(',')})` },
  { name: 'reps', type: 'number', description: `jobs per point, interleaved; medians reported (default ${FULL_PLAN.reps}; --quick: ${QUICK_PLAN.reps})` },
  { name: 'quick', type: 'boolean', description: 'fewer points and calls, one repetition (about a minute): a smoke run, not the documented figures' },
  ...commonOptions(PARTS, 'multicast-nodes.svg, -channels, -sets, -reliability, -bandwidth', 'docs/multicast.md', ' (CRC-32/HMAC costs measured anew)'),
];

export const MULTICAST_USAGE = 'coll experiment multicast [--nodes 2,4,8,16] [--reps R] [--part P]... [--quick] [--json FILE] [--plot DIR] [--docs FILE] [--idle B] [--from FILE]';

export async function multicastExperimentCommand(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, OPTIONS);
  if (opt(args, 'help')) {
    console.log(helpText(MULTICAST_USAGE, OPTIONS));
    return 0;
  }
  if (args.positionals.length > 0) throw new ArgumentError(`unexpected argument '${args.positionals[0]}'`);
  const base = opt<boolean>(args, 'quick') ? QUICK_PLAN : FULL_PLAN;
  const nodes = commaList(opts<string>(args, 'nodes')).map(Number);
  for (const n of nodes) checkIntRange('--nodes', n, 2, MAX_NODES);
  const reps = opt<number>(args, 'reps') ?? base.reps;
  checkIntRange('--reps', reps, 1, 100);
  const parts = chosenParts(args, PARTS);
  const idle = idleBusy(args);
  const plan: McastPlan = {
    ...base,
    reps,
    ...(nodes.length > 0 ? { nodes: [...new Set(nodes)].sort((a, b) => a - b) } : {}),
    ...(parts ? { parts } : {}),
  };
  const from = fromJson(args, 'multicast', ['nodes', 'reps', 'part', 'quick', 'idle']);
  const line = progress('multicast');
  const r = from !== undefined ? resultFromJson(from) : await runMulticastMeasure(plan, { idleBusy: idle, onJob: line.onJob, onOutput: line.onOutput });
  if (from === undefined) line.end();
  writeOutputs(args, {
    tables: measureTables(r),
    json: () => measureJson(r),
    plots: () => measurePlots(r),
    markdown: (links) => measureMarkdown(r, links),
    markers: DOCS_MARKERS,
    title: '# Multicast broadcast (seed 003 ch. 5)',
  });
  return 0;
}
