/**
 * `coll experiment connections`: average connections per process for each NAS
 * kernel's communication pattern under the transport's static, on-demand and partial
 * policies as N grows (seed 003 Table 3.2; src/experiments/connections.ts, results in
 * docs/runtime.md). Pure computation: the table on stdout, --json FILE, --plot FILE.
 *
 * With --measure it runs real jobs instead (src/experiments/connections-measure.ts;
 * seed 003 claims 11–13, A3.11): start-up time and memory per policy and node count,
 * the round trip of the first 40 ping-pongs on 2 nodes (--latency-plot FILE) and a
 * fixed mix of collectives on 4 nodes; tables on stdout, --json FILE, progress on stderr.
 */
import { writeFileSync } from 'node:fs';
import { ArgumentError, checkIntRange } from '../../core/errors.js';
import { connectionsJson, connectionsPlot, connectionsTable, DEFAULT_NODES, runConnectionsExperiment } from '../../experiments/connections.js';
import { DEFAULT_MEASURE_NODES, latencyPlot, measureJson, measureTables, runConnectionsMeasure } from '../../experiments/connections-measure.js';
import { NAS_KERNELS, type NasKernel } from '../../experiments/nas-patterns.js';
import { DEFAULT_THRESHOLD } from '../../transport/connections.js';
import { helpText, opt, opts, parseArgs, type OptionSpec, type ParsedArgs } from '../args.js';

const OPTIONS: OptionSpec[] = [
  { name: 'processes', alias: 'n', type: 'string', repeat: true, description: `process counts, comma-separated or repeated (default ${DEFAULT_NODES.join(',')})` },
  { name: 'kernel', type: 'string', repeat: true, description: `NAS kernels (default all: ${NAS_KERNELS.join(', ')})` },
  { name: 'threshold', type: 'number', description: `messages per pair before on-demand connects (default ${DEFAULT_THRESHOLD}, the seed's; with --measure: the jobs')` },
  { name: 'json', type: 'string', description: 'also write the points (with --measure: the measurements) as JSON to FILE' },
  { name: 'plot', type: 'string', description: 'write an SVG plot (connections vs N, log axes) to FILE' },
  { name: 'measure', type: 'boolean', description: 'run real jobs instead: start-up time and memory, first-message latency, a collective mix, per policy (about 2 minutes)' },
  { name: 'nodes-list', type: 'string', repeat: true, description: `--measure: node counts of the start-up measurement, one rank each (default ${DEFAULT_MEASURE_NODES.join(',')})` },
  { name: 'reps', type: 'number', description: '--measure: jobs per policy and node count, medians reported (default 3)' },
  { name: 'latency-plot', type: 'string', description: '--measure: write the round trip of the first messages per policy as SVG to FILE' },
  { name: 'idle', type: 'number', description: '--measure: before each job wait (up to 30 s) until the CPUs are at most this busy, e.g. 0.25' },
  { name: 'help', alias: 'h', type: 'boolean', description: 'show this help' },
];

export const CONNECTIONS_USAGE =
  'coll experiment connections [-n 4,8,…] [--kernel SP|BT|MG|LU|IS|EP|CG]... [--threshold T] [--json FILE] [--plot FILE]\n' +
  '  coll experiment connections --measure [--nodes-list 2,4,8] [--reps R] [--threshold T] [--json FILE] [--latency-plot FILE] [--idle B]';

const MEASURE_ONLY = ['nodes-list', 'reps', 'latency-plot', 'idle'] as const;
const COUNT_ONLY = ['processes', 'kernel', 'plot'] as const;

export async function connectionsExperimentCommand(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, OPTIONS);
  if (opt(args, 'help')) {
    console.log(helpText(CONNECTIONS_USAGE, OPTIONS));
    return 0;
  }
  if (args.positionals.length > 0) throw new ArgumentError(`unexpected argument '${args.positionals[0]}'`);
  const given = (name: string): boolean => args.values.has(name);
  if (opt<boolean>(args, 'measure')) {
    for (const name of COUNT_ONLY) if (given(name)) throw new ArgumentError(`--${name} counts connections without jobs; it does not go with --measure`, name === 'plot' ? 'the measured figure is --latency-plot FILE' : undefined);
    return measureCommand(args);
  }
  for (const name of MEASURE_ONLY) if (given(name)) throw new ArgumentError(`--${name} needs --measure`);
  const nodes = opts<string>(args, 'processes').flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean).map(Number);
  for (const n of nodes) checkIntRange('-n (processes)', n, 2, 4096);
  const kernels = opts<string>(args, 'kernel').map((k) => k.toUpperCase());
  for (const k of kernels) if (!(NAS_KERNELS as readonly string[]).includes(k)) throw new ArgumentError(`--kernel '${k}' is not one of ${NAS_KERNELS.join(', ')}`);
  const threshold = opt<number>(args, 'threshold') ?? DEFAULT_THRESHOLD;
  checkIntRange('--threshold', threshold, 0, 1e6);
  const tty = process.stderr.isTTY === true;
  const r = runConnectionsExperiment({
    nodes: nodes.length > 0 ? [...new Set(nodes)].sort((a, b) => a - b) : DEFAULT_NODES,
    kernels: kernels.length > 0 ? [...new Set(kernels as NasKernel[])] : NAS_KERNELS,
    threshold,
    onPoint: (k, n) => {
      if (tty) process.stderr.write(`\r\x1b[Kconnections: ${k} at N = ${n}`);
    },
  });
  if (tty) process.stderr.write('\r\x1b[K');
  console.log(connectionsTable(r));
  const json = opt<string>(args, 'json');
  if (json) {
    writeFileSync(json, `${JSON.stringify({ threshold: r.threshold, algorithms: r.algorithms, points: connectionsJson(r) }, null, 2)}\n`);
    process.stderr.write(`wrote ${json}\n`);
  }
  const plot = opt<string>(args, 'plot');
  if (plot) {
    writeFileSync(plot, connectionsPlot(r));
    process.stderr.write(`wrote ${plot}\n`);
  }
  return 0;
}

async function measureCommand(args: ParsedArgs): Promise<number> {
  const nodes = opts<string>(args, 'nodes-list').flatMap((v) => v.split(',')).map((x) => x.trim()).filter(Boolean).map(Number);
  for (const n of nodes) checkIntRange('--nodes-list', n, 2, 64);
  const reps = opt<number>(args, 'reps') ?? 3;
  checkIntRange('--reps', reps, 1, 100);
  const threshold = opt<number>(args, 'threshold') ?? DEFAULT_THRESHOLD;
  checkIntRange('--threshold', threshold, 0, 1e6);
  const idleBusy = opt<number>(args, 'idle');
  if (idleBusy !== undefined && !(idleBusy > 0 && idleBusy <= 1)) throw new ArgumentError(`--idle needs a busy fraction in (0, 1], got ${idleBusy}`);
  const tty = process.stderr.isTTY === true;
  const r = await runConnectionsMeasure({
    nodes: nodes.length > 0 ? [...new Set(nodes)].sort((a, b) => a - b) : DEFAULT_MEASURE_NODES,
    reps,
    threshold,
    idleBusy,
    onJob: (done, total, what) => process.stderr.write(`${tty ? '\r\x1b[K' : ''}connections --measure [${done}/${total}] ${what}${tty ? '' : '\n'}`),
    onOutput: (line) => process.stderr.write(`${tty ? '\r\x1b[K' : ''}${line}\n`),
  });
  if (tty) process.stderr.write('\r\x1b[K');
  console.log(measureTables(r));
  const json = opt<string>(args, 'json');
  if (json) {
    writeFileSync(json, `${JSON.stringify(measureJson(r), null, 2)}\n`);
    process.stderr.write(`wrote ${json}\n`);
  }
  const plot = opt<string>(args, 'latency-plot');
  if (plot) {
    writeFileSync(plot, latencyPlot(r));
    process.stderr.write(`wrote ${plot}\n`);
  }
  return 0;
}
