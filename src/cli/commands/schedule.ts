/**
 * `coll schedule <collective> <algorithm> -n P [...]`: generate, validate and render
 * one schedule, with its statistics.
 */
import { ArgumentError } from '../../core/errors.js';
import { generateSchedule, getAlgorithm, isCollective } from '../../algorithms/registry.js';
import type { ParamValue } from '../../schedule/context.js';
import { renderSchedule } from '../../schedule/render.js';
import { computeStats } from '../../schedule/stats.js';
import { flatTopology, meshTopology, nodeTopology, type Topology } from '../../schedule/topology.js';
import { helpText, opt, opts, parseArgs, type OptionSpec } from '../args.js';
import type { Command } from '../command.js';

const OPTIONS: OptionSpec[] = [
  { name: 'procs', alias: 'n', type: 'number', description: 'number of ranks P (default 8)' },
  { name: 'count', type: 'number', description: 'elements per rank (default 4; 0 for barrier)' },
  { name: 'root', type: 'number', description: 'root rank for rooted collectives (default 0)' },
  { name: 'ppn', type: 'number', description: 'ranks per node, block mapping (default: one rank per node)' },
  { name: 'cyclic', type: 'boolean', description: 'with --ppn: deal ranks round-robin over nodes' },
  { name: 'mesh', type: 'string', description: 'place ranks on a WxH mesh, e.g. 4x4' },
  { name: 'param', alias: 'p', type: 'string', repeat: true, description: 'algorithm parameter name=value (repeatable)' },
  { name: 'noncommutative', type: 'boolean', description: 'the operator is not commutative' },
  { name: 'by', type: 'string', description: "'rounds' (default) or 'ranks'" },
  { name: 'ranks', type: 'string', description: "with --by ranks: only these ranks, e.g. 0,3" },
  { name: 'stats', type: 'boolean', description: 'also print statistics' },
  { name: 'json', type: 'boolean', description: 'print the schedule and statistics as JSON (format collectives-schedule, docs/view-formats.md; coll view shows it)' },
  { name: 'help', alias: 'h', type: 'boolean', description: 'show this help' },
];

export function parseParams(items: readonly string[]): Record<string, ParamValue> {
  const out: Record<string, ParamValue> = {};
  for (const it of items) {
    const eq = it.indexOf('=');
    if (eq <= 0) throw new ArgumentError(`--param needs name=value, got '${it}'`);
    const k = it.slice(0, eq);
    const v = it.slice(eq + 1);
    out[k] = v === 'true' ? true : v === 'false' ? false : /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v;
  }
  return out;
}

export function parseTopology(P: number, ppn: number | undefined, cyclic: boolean, mesh: string | undefined): Topology {
  if (mesh !== undefined) {
    const m = /^(\d+)x(\d+)$/.exec(mesh);
    if (!m) throw new ArgumentError(`--mesh needs WxH, got '${mesh}'`);
    const t = meshTopology(Number(m[1]), Number(m[2]));
    if (t.size !== P) throw new ArgumentError(`a ${mesh} mesh holds ${t.size} ranks, but -n is ${P}`, `use -n ${t.size}`);
    return t;
  }
  return ppn !== undefined ? nodeTopology(P, ppn, cyclic ? 'cyclic' : 'block') : flatTopology(P);
}

/** `coll schedule --json`'s document (docs/view-formats.md#schedule). */
export const SCHEDULE_FORMAT = 'collectives-schedule';
/** Bytes per element the schedule's counts are measured in (the statistics' "8 B/element"; there is no datatype option). */
export const SCHEDULE_ELEMENT_BYTES = 8;

export function scheduleDocument<S, T>(schedule: S, stats: T): { format: typeof SCHEDULE_FORMAT; version: 1; elementBytes: number; schedule: S; stats: T } {
  return { format: SCHEDULE_FORMAT, version: 1, elementBytes: SCHEDULE_ELEMENT_BYTES, schedule, stats };
}

export const scheduleCommand: Command = {
  name: 'schedule',
  summary: 'render one algorithm\'s schedule (who talks to whom, per round) and its statistics',
  async run(argv) {
    const args = parseArgs(argv, OPTIONS);
    const usage = 'coll schedule <collective> <algorithm> [-n P] [--count N] [--root R] [--ppn Q | --mesh WxH] [-p k=v] [--by rounds|ranks] [--stats] [--json]';
    if (opt(args, 'help') || args.positionals.length < 2) {
      console.log(helpText(usage, OPTIONS));
      return opt(args, 'help') ? 0 : 2;
    }
    const [collective, name] = args.positionals;
    if (!isCollective(collective)) throw new ArgumentError(`unknown collective '${collective}'`);
    const spec = getAlgorithm(collective, name);
    const P = opt<number>(args, 'procs') ?? (opt<string>(args, 'mesh') ? NaN : 8);
    const mesh = opt<string>(args, 'mesh');
    const size = Number.isNaN(P) && mesh ? (mesh.split('x').map(Number).reduce((a, b) => a * b, 1)) : P;
    const topology = parseTopology(size, opt<number>(args, 'ppn'), opt<boolean>(args, 'cyclic') ?? false, mesh);
    const count = opt<number>(args, 'count') ?? (collective === 'barrier' ? 0 : 4);
    const schedule = generateSchedule(collective, spec.name, {
      size,
      count,
      root: opt<number>(args, 'root') ?? 0,
      commutative: !opt<boolean>(args, 'noncommutative'),
      topology,
      params: parseParams(opts<string>(args, 'param')),
    });
    const stats = computeStats(schedule, { topology });
    if (opt(args, 'json')) {
      console.log(JSON.stringify(scheduleDocument(schedule, stats), null, 1));
      return 0;
    }
    const ranks = opt<string>(args, 'ranks')?.split(',').map(Number);
    process.stdout.write(renderSchedule(schedule, { by: opt<string>(args, 'by') === 'ranks' ? 'ranks' : 'rounds', ranks }));
    if (opt(args, 'stats')) {
      console.log(`messages: ${stats.totalMessages} (${stats.totalBytes} bytes at 8 B/element), max sent by one rank: ${stats.maxMessagesSentPerRank}`);
      console.log(`inter-node: ${stats.interNodeMessages} messages, max per rank ${stats.maxInterNodeMessagesPerRank}, max concurrent injectors per node ${stats.maxConcurrentInjectorsPerNode}`);
      console.log(`max active links (messages in+out) per node per round: ${stats.maxActiveLinksPerNode}`);
      if (stats.mesh) {
        console.log(`mesh ${stats.mesh.width}x${stats.mesh.height}: max link load ${stats.mesh.maxLinkLoad}, conflicts ${stats.mesh.conflicts.length}, max hops ${stats.mesh.maxHops}`);
      }
    }
    return 0;
  },
};
