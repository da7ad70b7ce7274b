/**
 * `coll sim <collective> --machine M --procs P [...]`: simulate one algorithm on a
 * simulated machine (discrete-event, src/sim) and show where the time goes:
 * completion time, per-rank spread, critical-path breakdown, resource use, the
 * closed form for comparison, and distributions over repeated runs.
 */
import { ArgumentError } from '../../core/errors.js';
import type { DatatypeName } from '../../core/datatypes.js';
import { isCollective, listAlgorithms } from '../../algorithms/registry.js';
import type { CollectiveKind } from '../../schedule/types.js';
import { HW_ALGORITHMS } from '../../sim/hardware.js';
import { simMachineFor } from '../../machine/resolve.js';
import { parseNoise, parseSkew } from '../../sim/noise.js';
import { PRESETS } from '../../sim/presets.js';
import { simulate, type SimMode, type SimOptions, type SimReport } from '../../sim/simulate.js';
import { PATH_PARTS } from '../../sim/store.js';
import { toChromeTrace, writeChromeTrace } from '../../sim/timeline.js';
import { helpText, opt, opts, parseArgs, parseSize, type OptionSpec } from '../args.js';
import type { Command } from '../command.js';
import { formatTime } from './format.js';
import { parseParams } from './schedule.js';

const OPTIONS: OptionSpec[] = [
  { name: 'machine', alias: 'm', type: 'string', description: `machine preset (${Object.keys(PRESETS).join(', ')}) or a machine description file` },
  { name: 'procs', alias: 'n', type: 'number', description: 'number of processes P' },
  { name: 'ppn', type: 'number', description: "processes per node (default: the machine's)" },
  { name: 'bytes', alias: 'b', type: 'string', description: 'bytes per rank, e.g. 8, 4k, 1M (default 8; 0 for barrier)' },
  { name: 'algorithm', alias: 'a', type: 'string', description: 'catalogue algorithm, or hw_multicast (bcast) / hw_barrier (barrier)' },
  { name: 'param', alias: 'p', type: 'string', repeat: true, description: 'algorithm parameter name=value (repeatable)' },
  { name: 'mode', type: 'string', description: 'host (default), offload (all steps on the NIC) or intermediate (interior ranks on the NIC)' },
  { name: 'execution', type: 'string', description: "dag (default: a step starts when its dependencies are met) or phased (rounds are global phases, seed 000's f-nomial)" },
  { name: 'noise', type: 'string', description: "OS noise: periodic:<period>/<detour>[+random:<gap>/<detour>[:exp|pareto]], a profile, or none (default: the machine file's noise)" },
  { name: 'noise-cosched', type: 'boolean', description: 'the same detours on every process (co-scheduled)' },
  { name: 'skew', type: 'string', description: 'arrival skew: uniform|exponential|normal|fixed:<time>' },
  { name: 'traffic', type: 'string', description: 'background traffic at full load: uniform or complement' },
  { name: 'traffic-bytes', type: 'string', description: 'background packet payload (default: the machine packet size)' },
  { name: 'traffic-window', type: 'number', description: 'background packets in flight per node (default 2)' },
  { name: 'flow', type: 'string', description: "flow control with contention: message (links reserved per message) or wormhole (packets, circuits held until the ack, VCs; default: the machine's)" },
  { name: 'no-contention', type: 'boolean', description: 'no link contention (each message α + hops·λ + b·β): the DAG evaluation' },
  { name: 'runs', alias: 'r', type: 'number', description: 'repeated runs (distribution over seeds; default 1)' },
  { name: 'seed', type: 'number', description: 'random seed (default 1)' },
  { name: 'root', type: 'number', description: 'root rank (default 0)' },
  { name: 'datatype', type: 'string', description: 'element datatype (default float64)' },
  { name: 'op', type: 'string', description: 'reduction operator (default sum)' },
  { name: 'mesh', type: 'string', description: 'place ranks on a WxH sub-mesh of a mesh machine' },
  { name: 'max-memory', type: 'string', description: 'refuse runs estimated above this (default 4G)' },
  { name: 'trace', type: 'string', description: 'write the first run as a Chrome trace (JSON: steps, messages paired by id, noise detours; docs/view-formats.md; coll view FILE shows it) to FILE' },
  { name: 'timeline', type: 'string', description: 'the same as --trace (its older name)' },
  { name: 'trace-limit', type: 'number', description: 'with --trace: intervals kept (default 1000000); later ones are counted as dropped' },
  { name: 'json', type: 'boolean', description: 'print the report as JSON' },
  { name: 'quiet', alias: 'q', type: 'boolean', description: 'no progress messages' },
  { name: 'help', alias: 'h', type: 'boolean', description: 'show this help' },
];

const DEFAULT_ALGORITHM: Readonly<Partial<Record<CollectiveKind, string>>> = {
  barrier: 'dissemination',
  bcast: 'binomial',
  reduce: 'binomial',
  allreduce: 'recursive_doubling',
  allgather: 'ring',
  gather: 'binomial',
  scatter: 'binomial',
};

function defaultAlgorithm(c: CollectiveKind): string {
  const d = DEFAULT_ALGORITHM[c];
  const list = listAlgorithms(c);
  if (d && list.some((a) => a.name === d)) return d;
  if (list.length === 0) throw new ArgumentError(`no algorithm is registered for ${c}`);
  return list[0].name;
}

function us(s: number): string {
  return formatTime(s);
}

function histogramLines(r: SimReport): string[] {
  const h = r.distribution.histogram;
  const max = Math.max(...h.counts, 1);
  return h.counts.map((c, i) => `  ${us(h.edges[i]).padStart(10)} ${'#'.repeat(Math.round((40 * c) / max)).padEnd(40)} ${c}`);
}

export function formatReport(r: SimReport): string {
  const lines: string[] = [];
  const f = r.first;
  lines.push(
    `${r.collective}/${r.algorithm} on ${r.machine}: ${r.procs} processes (${r.nodes} nodes × ${r.ppn}), ${r.bytes} B ${r.datatype} ${r.op}, ${r.mode} mode${r.execution === 'phased' ? ', phased execution' : ''}, contention ${r.contention ? `on (${r.flowControl})` : 'off'}`,
  );
  lines.push(`time           ${us(f.time)}${r.closedForm ? `   (closed form ${r.closedForm.formula} = ${us(r.closedForm.estimate)} with network α, β and host γ)` : ''}`);
  lines.push(`per rank       min ${us(f.rankTime.min)}  avg ${us(f.rankTime.avg)}  max ${us(f.rankTime.max)} (completion − own start)`);
  const parts = PATH_PARTS.filter((k) => Math.abs(f.criticalPath.parts[k]) > 1e-15).map((k) => `${k} ${us(f.criticalPath.parts[k])}`);
  lines.push(`critical path  ends at rank ${f.criticalPath.rank}: ${parts.join(', ') || '0'}`);
  lines.push(
    `resources      host CPU busy ${us(f.busy.host)}, NIC busy ${us(f.busy.nic)}, link busy ${us(f.busy.links)}, noise ${us(f.busy.noise)} (summed)` +
      (f.busy.trafficPackets > 0 ? `; ${f.busy.trafficPackets} background packets` : ''),
  );
  if (r.runs > 1) {
    const d = r.distribution;
    lines.push(
      `runs           ${d.n}: mean ${us(d.mean)}  std ${us(d.std)}  min ${us(d.min)}  p50 ${us(d.p50)}  p99 ${us(d.p99)}  max ${us(d.max)}`,
    );
    lines.push(`               without the top 1%: mean ${us(d.trimmedMean)}  std ${us(d.trimmedStd)}`);
    lines.push(...histogramLines(r));
  }
  lines.push(
    `simulated      ${f.events} events, ${f.messages} messages, ${f.steps} steps per run; ${r.totalEvents} events in ${(r.wallSeconds * 1e3).toFixed(1)} ms (${(r.eventsPerSecond / 1e6).toFixed(2)} M events/s)`,
  );
  return lines.join('\n');
}

export const simCommand: Command = {
  name: 'sim',
  summary: 'simulate an algorithm on a machine (fat tree, mesh, torus, NIC offload, noise, traffic); time breakdown',
  async run(argv) {
    const args = parseArgs(argv, OPTIONS);
    const usage =
      'coll sim <collective> --machine M --procs P [--ppn Q] [--bytes B] [--algorithm A] [--mode host|offload|intermediate] [--noise …] [--skew …] [--traffic uniform|complement] [--runs R] [--seed S] [--json] [--trace FILE]';
    if (opt(args, 'help') || args.positionals.length < 1) {
      console.log(helpText(usage, OPTIONS));
      console.log('\nmachines:');
      for (const m of Object.values(PRESETS)) console.log(`  ${m.name.padEnd(16)} ${m.description}`);
      console.log(`\nhardware algorithms: ${HW_ALGORITHMS.map((h) => `${h.collective}/${h.name}`).join(', ')}`);
      return opt(args, 'help') ? 0 : 2;
    }
    const [collective] = args.positionals;
    if (!isCollective(collective)) {
      throw new ArgumentError(`unknown collective '${collective}'`, 'use barrier, bcast, reduce, allreduce, allgather, reduce_scatter, gather, scatter or alltoall');
    }
    const machineName = opt<string>(args, 'machine');
    if (!machineName) throw new ArgumentError('--machine is required', `presets: ${Object.keys(PRESETS).join(', ')}; or a JSON file`);
    const { machine, noise: machineNoise } = simMachineFor(machineName);
    const procs = opt<number>(args, 'procs');
    if (procs === undefined) throw new ArgumentError('--procs is required');
    const mode = (opt<string>(args, 'mode') ?? 'host') as SimMode;
    if (!['host', 'offload', 'intermediate'].includes(mode)) throw new ArgumentError(`--mode must be host, offload or intermediate, got '${mode}'`);
    const traffic = opt<string>(args, 'traffic');
    if (traffic !== undefined && traffic !== 'uniform' && traffic !== 'complement') {
      throw new ArgumentError(`--traffic must be uniform or complement, got '${traffic}'`);
    }
    const mesh = opt<string>(args, 'mesh');
    let meshShape: { width: number; height: number } | undefined;
    if (mesh !== undefined) {
      const m = /^(\d+)x(\d+)$/.exec(mesh);
      if (!m) throw new ArgumentError(`--mesh needs WxH, got '${mesh}'`);
      meshShape = { width: Number(m[1]), height: Number(m[2]) };
    }
    const bytesText = opt<string>(args, 'bytes');
    const noiseOpt = opt<string>(args, 'noise') ?? machineNoise;
    const noise = noiseOpt === 'none' ? undefined : noiseOpt;
    const skew = opt<string>(args, 'skew');
    const tb = opt<string>(args, 'traffic-bytes');
    const tw = opt<number>(args, 'traffic-window');
    const flow = opt<string>(args, 'flow');
    if (flow !== undefined && flow !== 'message' && flow !== 'wormhole') throw new ArgumentError(`--flow must be message or wormhole, got '${flow}'`);
    const maxMem = opt<string>(args, 'max-memory');
    const algorithm = opt<string>(args, 'algorithm') ?? defaultAlgorithm(collective);
    const quiet = opt<boolean>(args, 'quiet') ?? false;
    const traceAs = opt<string>(args, 'trace');
    const timelineAs = opt<string>(args, 'timeline');
    if (traceAs !== undefined && timelineAs !== undefined && traceAs !== timelineAs) throw new ArgumentError('--timeline is another name for --trace: give one of them');
    const tl = traceAs ?? timelineAs;
    const traceLimit = opt<number>(args, 'trace-limit');
    if (traceLimit !== undefined) {
      if (tl === undefined) throw new ArgumentError('--trace-limit needs --trace FILE');
      if (!Number.isInteger(traceLimit) || traceLimit < 1) throw new ArgumentError(`--trace-limit must be a positive integer, got ${traceLimit}`);
    }
    let lastProgress = performance.now();
    const report = simulate({
      collective,
      algorithm,
      machine,
      procs,
      ppn: opt<number>(args, 'ppn'),
      bytes: bytesText !== undefined ? parseSize('bytes', String(bytesText)) : undefined,
      datatype: opt<string>(args, 'datatype') as DatatypeName | undefined,
      op: opt<string>(args, 'op'),
      root: opt<number>(args, 'root'),
      params: parseParams(opts<string>(args, 'param')),
      mode,
      execution: opt<string>(args, 'execution') as SimOptions['execution'],
      contention: !(opt<boolean>(args, 'no-contention') ?? false),
      noise: noise !== undefined ? parseNoise(noise, opt<boolean>(args, 'noise-cosched') ?? false) : undefined,
      skew: skew !== undefined ? parseSkew(skew) : undefined,
      traffic:
        traffic !== undefined
          ? { pattern: traffic, ...(tb !== undefined ? { bytes: parseSize('--traffic-bytes', tb) } : {}), ...(tw !== undefined ? { window: tw } : {}) }
          : undefined,
      flowControl: flow,
      runs: opt<number>(args, 'runs'),
      seed: opt<number>(args, 'seed'),
      mesh: meshShape,
      maxMemory: maxMem !== undefined ? parseSize('--max-memory', maxMem) : undefined,
      timeline: tl !== undefined,
      timelineLimit: traceLimit,
      onProgress: quiet
        ? undefined
        : (p) => {
            const now = performance.now();
            if (now - lastProgress < 1000) return;
            lastProgress = now;
            process.stderr.write(`coll sim: run ${Math.min(p.run + 1, p.runs)}/${p.runs}, ${p.events} events, simulated ${us(p.simTime)}\n`);
          },
    });
    if (tl !== undefined && report.timeline) {
      const meta = {
        collective,
        algorithm,
        machine: machine.name,
        procs: report.procs,
        ppn: report.ppn,
        nodes: report.nodes,
        bytes: report.bytes,
        datatype: report.datatype,
        op: report.op,
        mode: report.mode,
        execution: report.execution,
        seed: report.seed,
        ...(noise !== undefined ? { noise } : {}),
        ...(skew !== undefined ? { skew } : {}),
        ...(traffic !== undefined ? { traffic } : {}),
        timeUs: report.first.time * 1e6,
        intervals: report.timeline.length,
        dropped: report.timelineDropped ?? 0,
      };
      writeChromeTrace(tl, toChromeTrace(report.timeline, meta));
    }
    if (opt(args, 'json')) {
      const { timeline: _t, ...rest } = report;
      console.log(JSON.stringify(rest, null, 2));
      return 0;
    }
    console.log(formatReport(report));
    if (noise !== undefined && opt<string>(args, 'noise') === undefined) console.log(`noise          ${noise} (the machine file's; --noise none turns it off)`);
    if (tl !== undefined) {
      const dropped = report.timelineDropped ?? 0;
      console.log(`timeline       ${report.timeline?.length ?? 0} intervals written to ${tl} (Chrome trace format)${dropped > 0 ? `; ${dropped} more dropped (--trace-limit)` : ''}`);
    }
    return 0;
  },
};
