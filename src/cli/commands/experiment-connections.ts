/**
 * `coll experiment connections`: average connections per process for each NAS
 * kernel's communication pattern under the transport's static, on-demand and partial
 * policies as N grows (seed 003 Table 3.2; src/experiments/connections.ts, results in
 * docs/runtime.md). Pure computation: the table on stdout, --json FILE, --plot FILE.
 */
import { writeFileSync } from 'node:fs';
import { ArgumentError, checkIntRange } from '../../core/errors.js';
import { connectionsJson, connectionsPlot, connectionsTable, DEFAULT_NODES, runConnectionsExperiment } from '../../experiments/connections.js';
import { NAS_KERNELS, type NasKernel } from '../../experiments/nas-patterns.js';
import { DEFAULT_THRESHOLD } from '../../transport/connections.js';
import { helpText, opt, opts, parseArgs, type OptionSpec } from '../args.js';

const OPTIONS: OptionSpec[] = [
  { name: 'processes', alias: 'n', type: 'string', repeat: true, description: `process counts, comma-separated or repeated (default ${DEFAULT_NODES.join(',')})` },
  { name: 'kernel', type: 'string', repeat: true, description: `NAS kernels (default all: ${NAS_KERNELS.join(', ')})` },
  { name: 'threshold', type: 'number', description: `messages per pair before on-demand connects (default ${DEFAULT_THRESHOLD}, the seed's)` },
  { name: 'json', type: 'string', description: 'also write the points as JSON to FILE' },
  { name: 'plot', type: 'string', description: 'write an SVG plot (connections vs N, log axes) to FILE' },
  { name: 'help', alias: 'h', type: 'boolean', description: 'show this help' },
];

export const CONNECTIONS_USAGE = 'coll experiment connections [-n 4,8,…] [--kernel SP|BT|MG|LU|IS|EP|CG]... [--threshold T] [--json FILE] [--plot FILE]';

export function connectionsExperimentCommand(argv: readonly string[]): number {
  const args = parseArgs(argv, OPTIONS);
  if (opt(args, 'help')) {
    console.log(helpText(CONNECTIONS_USAGE, OPTIONS));
    return 0;
  }
  if (args.positionals.length > 0) throw new ArgumentError(`unexpected argument '${args.positionals[0]}'`);
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
