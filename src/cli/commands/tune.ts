/**
 * `coll tune --machine M [--out table.json] [--model NAME] [--ppn Q]
 * [--collectives a,b] [--procs 2,4,8] [--bytes 8,1k,64k] [--datatype T] [--op O]`:
 * rank algorithms and parameters by predicted time over a grid of process counts and
 * message sizes and write the decision table the runtime's automatic selection loads.
 * With --lookup collective,P,bytes it answers one query from an existing --table.
 *
 * The measured check (--verify; on by default for a machine measured on this host):
 * every choice at the measured process counts and sizes runs against the runtime's
 * default in the same job, alternating, medians of a few passes; a choice slower than
 * the default beyond noise is taken out of the table (the default kept there), and the
 * report lists predicted and measured times of both (src/tune/verify.ts).
 */
import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { ArgumentError } from '../../core/errors.js';
import { isCollective } from '../../algorithms/registry.js';
import { modelMachineFor } from '../../machine/resolve.js';
import { parseModel } from '../../model/models.js';
import { COLLECTIVES, type CollectiveKind } from '../../schedule/types.js';
import { buildDecisionTable, defaultGrid, loadDecisionTable, lookupDecision, saveDecisionTable } from '../../tune/decision.js';
import { verifyDecisionTable, verifyReport, type VerifyResult } from '../../tune/verify.js';
import { helpText, opt, parseArgs, parseSize, type OptionSpec } from '../args.js';
import type { Command } from '../command.js';
import { formatParams, formatTime, parseIntList } from './format.js';

const OPTIONS: OptionSpec[] = [
  { name: 'machine', alias: 'm', type: 'string', description: 'machine preset or machine description file, e.g. from coll fit (required)' },
  { name: 'out', alias: 'o', type: 'string', description: 'write the decision table JSON here' },
  { name: 'model', type: 'string', description: 'cost model (default dag)' },
  { name: 'ppn', type: 'number', description: 'ranks per node (default 1)' },
  { name: 'collectives', type: 'string', description: 'comma-separated collectives (default: barrier,bcast,reduce,allreduce,allgather)' },
  { name: 'procs', type: 'string', description: 'process counts of the grid (default 2,3,4,6,…,256)' },
  { name: 'bytes', type: 'string', description: 'message sizes of the grid (default 8,32,…,1M)' },
  { name: 'datatype', type: 'string', description: 'element datatype (default float64)' },
  { name: 'op', type: 'string', description: 'reduction operator (default sum)' },
  { name: 'table', type: 'string', description: 'with --lookup: the decision table to read' },
  { name: 'lookup', type: 'string', description: 'answer one query collective,P,bytes from --table' },
  { name: 'verify', type: 'boolean', description: 'check the choices against the default by running both (default: on for a machine measured on this host)' },
  { name: 'no-verify', type: 'boolean', description: 'write the predicted table without the measured check' },
  { name: 'verify-procs', type: 'string', description: 'process counts the check runs (default: those of the grid up to 4)' },
  { name: 'verify-bytes', type: 'string', description: 'message sizes the check runs (default: the grid sizes)' },
  { name: 'verify-reps', type: 'number', description: 'alternating passes per point, median kept (default 3)' },
  { name: 'verify-iterations', type: 'number', description: 'timed calls per pass for messages ≤ 16 KiB (default 50)' },
  { name: 'report', type: 'string', description: 'write the tuning report (predicted and measured seconds, per point; format collectives-tune-report, docs/view-formats.md) as JSON' },
  { name: 'quiet', alias: 'q', type: 'boolean', description: 'no progress display' },
  { name: 'help', alias: 'h', type: 'boolean', description: 'show this help' },
];

/** `coll tune --report`'s document (docs/view-formats.md#tune-report): the report with its format tags first. */
export const TUNE_REPORT_FORMAT = 'collectives-tune-report';

export function tuneReportDocument<T extends object>(report: T): { format: typeof TUNE_REPORT_FORMAT; version: 1 } & T {
  return { format: TUNE_REPORT_FORMAT, version: 1, ...report };
}

export const tuneCommand: Command = {
  name: 'tune',
  summary: 'rank algorithms/parameters by predicted time over P × size and write a decision table',
  async run(argv) {
    const args = parseArgs(argv, OPTIONS);
    const usage = 'coll tune --machine M [--out table.json] [--model NAME] [--ppn Q] [--collectives a,b] [--procs list] [--bytes list]\n       coll tune --table table.json --lookup allreduce,64,4k';
    if (opt(args, 'help')) {
      console.log(helpText(usage, OPTIONS));
      return 0;
    }
    const lookup = opt<string>(args, 'lookup');
    if (lookup !== undefined) {
      const path = opt<string>(args, 'table');
      if (!path) throw new ArgumentError('--lookup needs --table <file>');
      const [c, p, b] = lookup.split(',');
      if (!isCollective(c) || p === undefined || b === undefined) throw new ArgumentError(`--lookup needs collective,P,bytes, got '${lookup}'`);
      const rule = lookupDecision(loadDecisionTable(path), { collective: c, P: parseSize('lookup', p), bytes: parseSize('lookup', b), ppn: opt<number>(args, 'ppn') });
      console.log(rule ? `${rule.collective}/${rule.algorithm} ${formatParams(rule.params)}  (P ${rule.pMin}..${rule.pMax ?? '∞'}, ${rule.bytesMin}..${rule.bytesMax ?? '∞'} B, predicted ${formatTime(rule.predicted)})` : 'no rule for this call');
      return rule ? 0 : 1;
    }
    const mname = opt<string>(args, 'machine');
    if (!mname) {
      console.log(helpText(usage, OPTIONS));
      return 2;
    }
    const machine = modelMachineFor(mname);
    const model = opt<string>(args, 'model') ?? 'dag';
    parseModel(model);
    const list = (opt<string>(args, 'collectives') ?? 'barrier,bcast,reduce,allreduce,allgather').split(',');
    for (const c of list) if (!isCollective(c)) throw new ArgumentError(`unknown collective '${c}'`, `use ${COLLECTIVES.join(', ')}`);
    const grid = defaultGrid();
    const procs = opt<string>(args, 'procs') ? parseIntList('procs', opt<string>(args, 'procs') ?? '') : grid.procs;
    const bytes = opt<string>(args, 'bytes') ? parseIntList('bytes', opt<string>(args, 'bytes') ?? '') : grid.bytes;
    const quiet = opt<boolean>(args, 'quiet') ?? false;
    const tty = process.stderr.isTTY;
    let table = buildDecisionTable(machine, {
      collectives: list as CollectiveKind[],
      procs,
      bytes,
      ppn: opt<number>(args, 'ppn') ?? 1,
      datatype: opt<string>(args, 'datatype'),
      op: opt<string>(args, 'op'),
      model,
      progress: quiet
        ? undefined
        : (done, total, what) => {
            const msg = `[${String(done).padStart(String(total).length)}/${total}] ${what}`;
            // Progress on a terminal only: none when piped.
            if (tty) process.stderr.write(`\r${msg.padEnd(78).slice(0, 78)}${done === total ? '\n' : ''}`);
          },
    });
    const ppn = table.grid.ppn;
    const measuredHere = machine.source.includes(`measured on ${hostname()} `);
    const verify = opt<boolean>(args, 'no-verify') ? false : (opt<boolean>(args, 'verify') ?? measuredHere);
    let check: VerifyResult | undefined;
    if (verify) {
      const vp = opt<string>(args, 'verify-procs');
      const vb = opt<string>(args, 'verify-bytes');
      const vprocs = vp ? parseIntList('verify-procs', vp) : table.grid.procs.filter((p) => p <= Math.max(4, ppn) && p % ppn === 0);
      check = await verifyDecisionTable(table, {
        procs: vprocs.length > 0 ? vprocs : [table.grid.procs[0]],
        bytes: vb ? parseIntList('verify-bytes', vb) : undefined,
        repetitions: opt<number>(args, 'verify-reps'),
        iterations: opt<number>(args, 'verify-iterations'),
        machine,
        model,
        progress: quiet
          ? undefined
          : (done, total, what) => {
              if (tty) process.stderr.write(`\r${`measured check [${done}/${total}] ${what}`.padEnd(78).slice(0, 78)}${done === total ? '\n' : ''}`);
            },
      });
      table = check.table;
    }
    console.log(`decision table for ${machine.name}, model ${model}, ppn ${ppn}: ${table.rules.length} rules`);
    for (const r of table.rules) {
      console.log(`  ${r.collective.padEnd(10)} P ${String(r.pMin).padStart(4)}..${String(r.pMax ?? '∞').padEnd(4)} bytes ${String(r.bytesMin).padStart(7)}..${String(r.bytesMax ?? '∞').padEnd(8)} ${r.algorithm} ${formatParams(r.params)}  (predicted ${formatTime(r.predicted)})`);
    }
    if (check) console.log(verifyReport(check));
    else {
      console.log(
        opt<boolean>(args, 'no-verify')
          ? 'not checked by measuring (--no-verify): the choices are predictions only'
          : `not checked by measuring: machine '${machine.name}' was not measured on this host (${hostname()}); --verify runs each choice against the default here`,
      );
    }
    const report = opt<string>(args, 'report');
    if (report) {
      writeFileSync(report, `${JSON.stringify(tuneReportDocument({ machine: machine.name, model, ppn, rules: table.rules, verified: check ? { options: check.options, points: check.points, skipped: check.skipped } : null }), null, 1)}\n`);
      console.log(`wrote the tuning report ${report}`);
    }
    const out = opt<string>(args, 'out');
    if (out) {
      saveDecisionTable(out, table);
      console.log(`wrote ${out}`);
    }
    return 0;
  },
};
