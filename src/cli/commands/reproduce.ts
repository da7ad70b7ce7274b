/**
 * `coll reproduce <subject> [--json] [--plot DIR] [--quick]`: recompute the seeds'
 * published results. Subject `models`: the modelling claims of seeds 000, 001, 003
 * and 004 (published value, ours, relative error, tolerance, pass/fail, or
 * "not-matchable" with the reason) and, with --plot, the regime maps as SVG files.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ArgumentError } from '../../core/errors.js';
import { BLUE_WATERS } from '../../model/machines/index.js';
import { bienzCharts, regimeSvg } from '../../model/regime.js';
import { reproduceModels } from '../../model/reproduce.js';
import { helpText, opt, parseArgs, type OptionSpec } from '../args.js';
import type { Command } from '../command.js';

const OPTIONS: OptionSpec[] = [
  { name: 'json', type: 'boolean', description: 'print JSON' },
  { name: 'plot', type: 'string', description: 'write regime maps (SVG) into this directory' },
  { name: 'quick', type: 'boolean', description: 'skip the 32,768-rank schedules (seed 001 uses 4096 ranks for the schedule checks)' },
  { name: 'help', alias: 'h', type: 'boolean', description: 'show this help' },
];

const SUBJECTS = ['models'];

export const reproduceCommand: Command = {
  name: 'reproduce',
  summary: 'recompute the seeds’ published results (models: seeds 000/001/003/004) with errors and pass/fail',
  async run(argv) {
    const args = parseArgs(argv, OPTIONS);
    const usage = 'coll reproduce models [--json] [--plot DIR] [--quick]';
    if (opt(args, 'help') || args.positionals.length < 1) {
      console.log(helpText(usage, OPTIONS));
      return opt(args, 'help') ? 0 : 2;
    }
    const subject = args.positionals[0];
    if (!SUBJECTS.includes(subject)) throw new ArgumentError(`unknown subject '${subject}'`, `subjects: ${SUBJECTS.join(', ')}`);
    const r = reproduceModels({ largeSchedules: !opt<boolean>(args, 'quick') });
    const dir = opt<string>(args, 'plot');
    const written: string[] = [];
    if (dir) {
      mkdirSync(dir, { recursive: true });
      for (const m of r.maps) {
        const f = join(dir, `${m.name}.svg`);
        writeFileSync(f, regimeSvg(m.map));
        written.push(f);
      }
      const charts = bienzCharts(BLUE_WATERS);
      for (const [name, svg] of [['seed001-fig10-time-vs-procs', charts.fig10], ['seed001-fig11-time-vs-bytes', charts.fig11]]) {
        const f = join(dir, `${name}.svg`);
        writeFileSync(f, svg);
        written.push(f);
      }
    }
    if (opt(args, 'json')) {
      console.log(JSON.stringify({ checks: r.checks, maps: written }, null, 2));
    } else {
      let seed = '';
      for (const c of r.checks) {
        if (c.seed !== seed) {
          seed = c.seed;
          console.log(`\n${seed}`);
        }
        const err = c.relError === undefined ? '' : `  err ${(c.relError * 100).toFixed(c.relError < 0.001 ? 3 : 1)}%`;
        console.log(`  [${c.status.toUpperCase()}] ${c.claim}`);
        console.log(`      published ${c.published} | ours ${c.ours}${err} | tolerance ${c.tolerance}`);
        if (c.note) console.log(`      note: ${c.note}`);
      }
      const count = (s: string): number => r.checks.filter((c) => c.status === s).length;
      console.log(`\n${count('pass')} pass, ${count('fail')} fail, ${count('not-matchable')} not matchable without invented parameters, ${count('info')} info`);
      for (const f of written) console.log(`wrote ${f}`);
    }
    return r.checks.some((c) => c.status === 'fail') ? 1 : 0;
  },
};
