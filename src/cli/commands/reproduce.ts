/**
 * `coll reproduce <subject> [--json] [--plot DIR] [--quick]`: recompute the seeds'
 * published results and print, per claim, the published value, ours, the relative
 * error, the tolerance and pass / fail / not-matchable (with the reason) / info.
 *
 * Subjects: `models` (the modelling claims of seeds 000, 001, 003, 004, and seed 003's
 * start-up claims run on the runtime's own start-up code and its Table 3.2 connection
 * counts on the transport's connection rules), `sim` (the
 * claims checked by simulation, every seed), a seed id `000` … `004` (both kinds for
 * that seed) or `all`. Simulator checks also say their basis: calibrated (a parameter
 * was fitted to it), validation, input or derived. --plot writes the regime maps and
 * the simulated figures (latency vs nodes, distributions, regime map) as SVG.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ArgumentError } from '../../core/errors.js';
import { BLUE_WATERS } from '../../model/machines/index.js';
import { bienzCharts, regimeSvg } from '../../model/regime.js';
import { reproduceModels, type Check } from '../../model/reproduce.js';
import { reproduceCheckpointMeasured } from '../../experiments/checkpoint-reproduce.js';
import { reproduceConnections, reproduceConnectionsMeasured } from '../../experiments/connections-reproduce.js';
import { reproduceIoMeasured } from '../../experiments/io-reproduce.js';
import { reproduceMulticastMeasured } from '../../experiments/multicast-reproduce.js';
import { reproduceStartup } from '../../experiments/startup-reproduce.js';
import { reproduceSim, SIM_SEEDS, simSeeds, type SimCheck, type SimSeedId } from '../../sim/reproduce/index.js';
import { helpText, opt, parseArgs, type OptionSpec } from '../args.js';
import type { Command } from '../command.js';

const OPTIONS: OptionSpec[] = [
  { name: 'json', type: 'boolean', description: 'print JSON' },
  { name: 'plot', type: 'string', description: 'write regime maps and simulated figures (SVG) into this directory' },
  { name: 'quick', type: 'boolean', description: 'models: skip the 32,768-rank schedules and the rows that run real jobs (start-up, connections, multicast, checkpoints, parallel I/O); sim: about 10× fewer runs' },
  { name: 'help', alias: 'h', type: 'boolean', description: 'show this help' },
];

const SUBJECTS = ['models', 'sim', 'all', ...SIM_SEEDS];

type Row = (Check & { readonly source: 'model' | 'runtime' }) | (SimCheck & { readonly source: 'sim' });

export const reproduceCommand: Command = {
  name: 'reproduce',
  summary: 'recompute the seeds’ published results (models and simulation) with errors and pass/fail',
  async run(argv) {
    const args = parseArgs(argv, OPTIONS);
    const usage = `coll reproduce <${SUBJECTS.join('|')}> [--json] [--plot DIR] [--quick]`;
    if (opt(args, 'help') || args.positionals.length < 1) {
      console.log(helpText(usage, OPTIONS));
      return opt(args, 'help') ? 0 : 2;
    }
    const subject = args.positionals[0];
    if (!SUBJECTS.includes(subject)) throw new ArgumentError(`unknown subject '${subject}'`, `subjects: ${SUBJECTS.join(', ')}`);
    const quick = opt<boolean>(args, 'quick') ?? false;
    const dir = opt<string>(args, 'plot');
    const json = opt<boolean>(args, 'json') ?? false;
    const seedId = (SIM_SEEDS as readonly string[]).includes(subject) ? (subject as SimSeedId) : undefined;
    const wantModels = subject === 'models' || subject === 'all' || seedId !== undefined;
    const simList: SimSeedId[] = subject === 'sim' || subject === 'all' ? simSeeds() : seedId && simSeeds().includes(seedId) ? [seedId] : [];

    const rows: Row[] = [];
    const written: string[] = [];
    const write = (name: string, svg: string): void => {
      if (!dir) return;
      mkdirSync(dir, { recursive: true });
      const f = join(dir, `${name}.svg`);
      writeFileSync(f, svg);
      written.push(f);
    };
    if (wantModels) {
      const r = reproduceModels({ largeSchedules: !quick });
      const keep = (c: Check) => seedId === undefined || c.seed === `seed ${seedId}`;
      rows.push(...r.checks.filter(keep).map((c) => ({ ...c, source: 'model' as const })));
      for (const m of r.maps) if (seedId === undefined || m.name.startsWith(`seed${seedId}`)) write(m.name, regimeSvg(m.map));
      // Seed 003's start-up claims run the runtime's own start-up code (and, without --quick, real jobs).
      if (seedId === undefined || seedId === '003') {
        if (!json && process.stderr.isTTY) process.stderr.write('\rcoll reproduce: start-up exchange and daemon ring…\x1b[K');
        rows.push(...(await reproduceStartup({ quick })).map((c) => ({ ...c, source: 'runtime' as const })));
        // Seed 003 ch. 3: Table 3.2's connection counts on the transport's connection rules (pure computation).
        rows.push(...reproduceConnections().map((c) => ({ ...c, source: 'runtime' as const })));
        // … and, without --quick, the policies measured in a few real jobs (connections-measure.ts).
        if (!json && process.stderr.isTTY && !quick) process.stderr.write('\rcoll reproduce: connection policies in real jobs…\x1b[K');
        rows.push(...(await reproduceConnectionsMeasured({ quick })).map((c) => ({ ...c, source: 'runtime' as const })));
        // Seed 003 ch. 5: the multicast broadcast in real jobs (multicast-measure.ts), without --quick.
        if (!json && process.stderr.isTTY && !quick) process.stderr.write('\rcoll reproduce: multicast broadcast in real jobs…\x1b[K');
        rows.push(...(await reproduceMulticastMeasured({ quick })).map((c) => ({ ...c, source: 'runtime' as const })));
        // Seed 003 ch. 4: coordinated checkpoint/restart in real jobs (checkpoint-reproduce.ts), without --quick.
        if (!json && process.stderr.isTTY && !quick) process.stderr.write('\rcoll reproduce: checkpoint and restart in real jobs…\x1b[K');
        rows.push(...(await reproduceCheckpointMeasured({ quick })).map((c) => ({ ...c, source: 'runtime' as const })));
        // Seed 003 ch. 7: the pfs: parallel file system in real jobs (io-reproduce.ts), without --quick.
        if (!json && process.stderr.isTTY && !quick) process.stderr.write('\rcoll reproduce: parallel I/O in real jobs…\x1b[K');
        rows.push(...(await reproduceIoMeasured({ quick })).map((c) => ({ ...c, source: 'runtime' as const })));
      }
      if (seedId === undefined || seedId === '001') {
        const charts = bienzCharts(BLUE_WATERS);
        write('seed001-fig10-time-vs-procs', charts.fig10);
        write('seed001-fig11-time-vs-bytes', charts.fig11);
      }
    }
    const efforts: { seed: string; effort: string; seconds: number }[] = [];
    const sims = reproduceSim(simList, {
      quick,
      plots: dir !== undefined,
      onSeed: (s) => {
        if (!json && process.stderr.isTTY) process.stderr.write(`\rcoll reproduce: simulating seed ${s}…\x1b[K`);
      },
    });
    for (const s of sims) {
      rows.push(...s.checks.map((c) => ({ ...c, source: 'sim' as const })));
      for (const p of s.plots) write(p.name, p.svg);
      efforts.push({ seed: s.seed, effort: s.effort, seconds: s.seconds });
    }
    rows.sort((a, b) => a.seed.localeCompare(b.seed));
    if (json) {
      console.log(JSON.stringify({ checks: rows, maps: written, effort: efforts }, null, 2));
    } else {
      let seed = '';
      for (const c of rows) {
        if (c.seed !== seed) {
          seed = c.seed;
          console.log(`\n${seed}`);
        }
        const err = c.relError === undefined ? '' : `  err ${(c.relError * 100).toFixed(c.relError < 0.001 ? 3 : 1)}%`;
        const tag = c.source === 'sim' ? `sim, ${c.basis}` : c.source;
        console.log(`  [${c.status.toUpperCase()}] (${tag}) ${c.claim}`);
        console.log(`      published ${c.published} | ours ${c.ours}${err} | tolerance ${c.tolerance}`);
        if (c.note) console.log(`      note: ${c.note}`);
      }
      const count = (s: string): number => rows.filter((c) => c.status === s).length;
      const fitted = rows.filter((c) => c.source === 'sim' && c.basis === 'calibrated');
      const calibrated = fitted.length;
      if (calibrated > 0) {
        // Which parameter was fitted to which row (the row's note names it): these rows check a fit, they validate nothing.
        console.log('\nfitted parameters, and the rows they were fitted to (calibration, not validation):');
        for (const c of fitted) console.log(`  ${c.seed}: ${c.claim}\n      ${c.note ?? 'the seed module’s header names the parameter fitted to it'}`);
      }
      console.log(
        `\n${count('pass')} pass, ${count('fail')} fail, ${count('not-matchable')} not matchable without invented parameters, ${count('info')} info` +
          (calibrated > 0 ? ` (${calibrated} simulator rows are calibration targets, not validation)` : ''),
      );
      for (const e of efforts) console.log(`${e.seed} simulated in ${e.seconds.toFixed(1)} s: ${e.effort}`);
      for (const f of written) console.log(`wrote ${f}`);
    }
    return rows.some((c) => c.status === 'fail') ? 1 : 0;
  },
};
