/**
 * `coll model <collective> --procs P --ppn Q --bytes B [--machine M] [--model NAME]
 * [--mesh WxH] [--datatype T] [--op O] [--tune] [--json]`: the predicted time of
 * every applicable algorithm, best first, with the terms that dominate it.
 */
import { ArgumentError } from '../../core/errors.js';
import { formatTable } from '../../core/table.js';
import { isCollective } from '../../algorithms/registry.js';
import { modelMachineFor } from '../../machine/resolve.js';
import { MODELS, modelNames } from '../../model/models.js';
import { predictAll, type AlgorithmPrediction, type NotApplicable } from '../../model/predict.js';
import { tune } from '../../tune/tuner.js';
import { helpText, opt, parseArgs, parseSize, type OptionSpec } from '../args.js';
import type { Command } from '../command.js';
import { formatDominant, formatParams, formatTime } from './format.js';

const OPTIONS: OptionSpec[] = [
  { name: 'procs', alias: 'n', type: 'number', description: 'number of ranks P (default 16)' },
  { name: 'ppn', type: 'number', description: 'ranks per node, block mapping (default 1)' },
  { name: 'bytes', alias: 'b', type: 'string', description: 'bytes per rank, e.g. 8, 4k, 1M (default 8)' },
  { name: 'machine', alias: 'm', type: 'string', description: 'machine preset or machine description file (default bluewaters; see --list)' },
  { name: 'model', type: 'string', description: `cost model (default dag): ${MODELS.map((m) => m.name).join(', ')}; nbl:standard|nominal|fitted|testjig` },
  { name: 'mesh', type: 'string', description: 'mesh shape WxH for mesh algorithms (default: most nearly square)' },
  { name: 'datatype', type: 'string', description: 'element datatype (default float64)' },
  { name: 'op', type: 'string', description: 'reduction operator (default sum)' },
  { name: 'root', type: 'number', description: 'root of rooted collectives (default 0)' },
  { name: 'tune', type: 'boolean', description: 'search each algorithm’s parameters (degree, splits, segment/block) instead of defaults' },
  { name: 'list', type: 'boolean', description: 'list machines and models' },
  { name: 'json', type: 'boolean', description: 'print JSON' },
  { name: 'help', alias: 'h', type: 'boolean', description: 'show this help' },
];

export function parseMesh(s: string | undefined): { W: number; H: number } | undefined {
  if (s === undefined) return undefined;
  const m = /^(\d+)x(\d+)$/.exec(s);
  if (!m) throw new ArgumentError(`--mesh needs WxH (e.g. 16x8), got '${s}'`);
  return { W: Number(m[1]), H: Number(m[2]) };
}

export const modelCommand: Command = {
  name: 'model',
  summary: 'predicted time of every applicable algorithm under a cost model, best first, with dominant terms',
  async run(argv) {
    const args = parseArgs(argv, OPTIONS);
    const usage = 'coll model <collective> --procs P --ppn Q --bytes B [--machine M] [--model NAME] [--mesh WxH] [--tune] [--json]';
    if (opt(args, 'list')) {
      const { MACHINES } = await import('../../model/machines/index.js');
      console.log('machines:');
      for (const m of MACHINES) console.log(`  ${m.name.padEnd(18)} ${m.description}\n  ${''.padEnd(18)} source: ${m.source}`);
      const { PRESETS } = await import('../../sim/presets.js');
      console.log(`\nthe simulator's presets, also accepted: ${Object.keys(PRESETS).join(', ')}; or a machine description file (docs/machines.md)`);
      console.log('\nmodels:');
      for (const m of MODELS) console.log(`  ${m.name.padEnd(12)} ${m.description}`);
      console.log(`\n(all names: ${modelNames().join(', ')})`);
      return 0;
    }
    if (opt(args, 'help') || args.positionals.length < 1) {
      console.log(helpText(usage, OPTIONS));
      return opt(args, 'help') ? 0 : 2;
    }
    const [collective] = args.positionals;
    if (!isCollective(collective)) {
      throw new ArgumentError(`unknown collective '${collective}'`, 'use barrier, bcast, reduce, allreduce, allgather, reduce_scatter, gather, scatter or alltoall');
    }
    const machine = modelMachineFor(opt<string>(args, 'machine') ?? 'bluewaters');
    const model = opt<string>(args, 'model') ?? 'dag';
    const scenario = {
      collective,
      P: opt<number>(args, 'procs') ?? 16,
      ppn: opt<number>(args, 'ppn') ?? 1,
      bytes: collective === 'barrier' ? 0 : parseSize('bytes', opt<string>(args, 'bytes') ?? '8'),
      datatype: opt<string>(args, 'datatype'),
      op: opt<string>(args, 'op'),
      root: opt<number>(args, 'root'),
      mesh: parseMesh(opt<string>(args, 'mesh')),
    };
    let predictions: readonly AlgorithmPrediction[];
    let notApplicable: readonly NotApplicable[];
    let resolved;
    if (opt(args, 'tune')) {
      const r = tune(scenario, machine, { model });
      predictions = r.bestPerAlgorithm;
      notApplicable = r.notApplicable;
      resolved = r.scenario;
    } else {
      const r = predictAll(scenario, machine, model);
      predictions = r.predictions;
      notApplicable = r.notApplicable;
      resolved = r.scenario;
    }
    if (opt(args, 'json')) {
      console.log(
        JSON.stringify(
          {
            scenario: resolved,
            machine: { name: machine.name, source: machine.source },
            model,
            predictions: predictions.map((p) => ({ algorithm: p.algorithm, params: p.params, time: p.time, terms: p.terms, dominant: p.dominant })),
            notApplicable,
          },
          null,
          2,
        ),
      );
      return 0;
    }
    const s = resolved;
    console.log(
      `${s.collective}: P = ${s.P} (${Math.ceil(s.P / s.ppn)} nodes × ${s.ppn}), ${s.bytes} B per rank (${s.count} × ${s.datatype}${s.collective === 'allreduce' || s.collective === 'reduce' || s.collective === 'reduce_scatter' ? `, op ${s.op}` : ''})`,
    );
    console.log(`machine ${machine.name} (${machine.source}); model ${model}${opt(args, 'tune') ? '; parameters tuned' : '; default parameters'}\n`);
    const rows = predictions.map((p, i) => [String(i + 1), p.algorithm, formatParams(p.params), formatTime(p.time), i === 0 ? '' : `+${((p.time / predictions[0].time - 1) * 100).toFixed(0)}%`, formatDominant(p.dominant)]);
    const head = ['#', 'algorithm', 'params', 'predicted', 'vs best', 'dominant terms'];
    for (const line of formatTable([head, ...rows], { align: ['l', 'l', 'l', 'r'] })) console.log(line);
    if (notApplicable.length) {
      console.log('\nnot applicable:');
      for (const n of notApplicable) console.log(`  ${n.algorithm}: ${n.reason}`);
    }
    return 0;
  },
};
