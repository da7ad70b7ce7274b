/**
 * `coll experiment startup`: job start-up time against the number of node processes
 * for each initiation (direct, agent, daemon ring) and exchange scheme, with the
 * seed's §2.7 model fitted (src/experiments/startup.ts; results in docs/runtime.md).
 */
import { writeFileSync } from 'node:fs';
import { ArgumentError, checkIntRange } from '../../core/errors.js';
import { INITIATIONS, runStartupExperiment, startupJson, startupModelPlot, startupPlot, startupTable, type Initiation } from '../../experiments/startup.js';
import { parseStartupScheme, STARTUP_SCHEMES } from '../../launch/startup/schemes.js';
import { helpText, opt, opts, parseArgs, type OptionSpec } from '../args.js';

const OPTIONS: OptionSpec[] = [
  { name: 'processes', alias: 'n', type: 'string', repeat: true, description: 'node process counts, comma-separated or repeated (default 2,4,8,12,16)' },
  { name: 'scheme', type: 'string', repeat: true, description: `exchange schemes (default all: ${STARTUP_SCHEMES.join(', ')})` },
  { name: 'initiation', type: 'string', repeat: true, description: `direct (spawned here), agent (through the launch agent, as coll run --hosts), ring (coll ring up, then coll run --ring); default all` },
  { name: 'repetitions', type: 'number', description: 'jobs per point, interleaved; medians reported (default 3)' },
  { name: 'hosts', type: 'string', description: 'hosts for agent and ring, one per node process: a,b,c,… (default h0,h1,… through a stand-in agent that runs here)' },
  { name: 'launch-agent', type: 'string', description: 'the agent for --hosts (called as ssh is), e.g. ssh -F FILE' },
  { name: 'bandwidth-mbs', type: 'number', description: 'the management network’s bandwidth for the model’s volume term, MB/s (default 100, the seed’s W_x as the extract reads it)' },
  { name: 'json', type: 'boolean', description: 'print JSON lines instead of a table' },
  { name: 'plot', type: 'string', description: 'write SVG plots: FILE (measured) and FILE-model.svg (the model extrapolated to 2048 beside the seed’s)' },
  { name: 'help', alias: 'h', type: 'boolean', description: 'show this help' },
];

export const STARTUP_USAGE = 'coll experiment startup [-n 2,4,8,…] [--scheme S]... [--initiation direct|agent|ring]... [--repetitions R] [--hosts a,b,… --launch-agent CMD] [--json] [--plot FILE]';

export async function startupExperimentCommand(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, OPTIONS);
  if (opt(args, 'help')) {
    console.log(helpText(STARTUP_USAGE, OPTIONS));
    return 0;
  }
  const processes = opts<string>(args, 'processes').flatMap((v) => v.split(',')).filter(Boolean).map(Number);
  for (const n of processes) checkIntRange('-n (node processes)', n, 2, 256);
  const initiations = opts<string>(args, 'initiation');
  for (const i of initiations) if (!(INITIATIONS as readonly string[]).includes(i)) throw new ArgumentError(`--initiation '${i}' is not one of ${INITIATIONS.join(', ')}`);
  const repetitions = opt<number>(args, 'repetitions') ?? 3;
  checkIntRange('--repetitions', repetitions, 1, 100);
  const hosts = opt<string>(args, 'hosts')?.split(',').filter(Boolean);
  const agent = opt<string>(args, 'launch-agent');
  if ((hosts === undefined) !== (agent === undefined)) throw new ArgumentError('--hosts and --launch-agent go together', 'without them, a stand-in agent runs every "host" on this machine');
  const mbs = opt<number>(args, 'bandwidth-mbs') ?? 100;
  if (!(mbs > 0)) throw new ArgumentError(`--bandwidth-mbs must be positive, got ${mbs}`);
  const tty = process.stderr.isTTY === true;
  const r = await runStartupExperiment(
    {
      processes: processes.length > 0 ? processes : [2, 4, 8, 12, 16],
      schemes: opts<string>(args, 'scheme').length > 0 ? opts<string>(args, 'scheme').map((s) => parseStartupScheme(s, '--scheme')) : STARTUP_SCHEMES,
      initiations: initiations.length > 0 ? (initiations as Initiation[]) : INITIATIONS,
      repetitions,
      bandwidth: mbs * 1e6,
      ...(hosts && agent ? { hosts, agent } : {}),
    },
    (done, total, what) => process.stderr.write(`${tty ? '\r\x1b[K' : ''}startup [${done}/${total}] ${what}${tty ? '' : '\n'}`),
  );
  if (tty) process.stderr.write('\r\x1b[K');
  if (opt<boolean>(args, 'json')) for (const o of startupJson(r)) console.log(JSON.stringify(o));
  else console.log(startupTable(r));
  const plot = opt<string>(args, 'plot');
  if (plot) {
    const model = plot.replace(/(\.svg)?$/, '-model.svg');
    writeFileSync(plot, startupPlot(r));
    writeFileSync(model, startupModelPlot(r));
    process.stderr.write(`wrote ${plot} and ${model}\n`);
  }
  return 0;
}
