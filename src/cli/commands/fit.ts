/**
 * `coll fit [--out machine.json] [--name N] [--quick] [--kernels-only]`: measure
 * this machine — reduce kernels per operator/datatype and memory copies in-process,
 * then ping-pong and LogGP (o_s, o_r, g, G) per link class, the seed 000 serial-reduction testjig and the
 * seed 004 NBL testjig as runtime jobs — with a progress display on stderr, print
 * the least-squares fits with their residuals, and write the machine description
 * (src/machine) that coll model, sim and tune load with --machine.
 */
import { SCALAR_TYPE_NAMES } from '../../core/index.js';
import { saveMachineFile } from '../../model/machines/load.js';
import type { LinearFit } from '../../tune/lsq.js';
import { runFit } from '../../tune/fit-machine.js';
import { fitReportDocument } from '../../tune/fit-report.js';
import { writeFileSync } from 'node:fs';
import { fitPlan } from '../../tune/fit-plan.js';
import { runtimeHooks } from '../../tune/runtime-hooks.js';
import { helpText, opt, parseArgs, type OptionSpec } from '../args.js';
import type { Command } from '../command.js';

const OPTIONS: OptionSpec[] = [
  { name: 'out', alias: 'o', type: 'string', description: 'write the machine JSON here (default machine.json)' },
  { name: 'name', type: 'string', description: 'machine name in the file (default local)' },
  { name: 'quick', type: 'boolean', description: 'fewer operators/datatypes, series and repetitions (under a minute)' },
  { name: 'kernels-only', type: 'boolean', description: 'skip the runtime jobs (link values written as marked assumptions)' },
  { name: 'report', type: 'string', description: "write every fitted series (samples, the model's prediction at each, fit statistics; format collectives-fit-report, docs/view-formats.md) as JSON to FILE" },
  { name: 'help', alias: 'h', type: 'boolean', description: 'show this help' },
];

const us = (s: number): string => `${(s * 1e6).toFixed(2)} µs`;
const resid = (f: LinearFit): string => `rms residual ${us(f.rms)}, largest ${(f.maxRelResidual * 100).toFixed(0)}%, R² ${f.r2.toFixed(3)}`;

export const fitCommand: Command = {
  name: 'fit',
  summary: 'measure this machine (kernels, memcpy, ping-pong per link class, the [Moody-2003] and [Littlefield-1992] testjigs) and write a machine file',
  async run(argv) {
    const args = parseArgs(argv, OPTIONS);
    if (opt(args, 'help')) {
      console.log(helpText('coll fit [--out machine.json] [--name N] [--quick] [--kernels-only] [--report FILE]', OPTIONS));
      return 0;
    }
    const quick = opt<boolean>(args, 'quick') ?? false;
    const tty = process.stderr.isTTY;
    const started = Date.now();
    const stamp = (): string => `${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s`;
    const plan = fitPlan(quick);
    const hooks = opt<boolean>(args, 'kernels-only') ? undefined : runtimeHooks(plan, { onJob: (what) => tty && process.stderr.write(`${'\r'.padEnd(80)}\r${stamp()} job: ${what}\n`) });
    const report = await runFit({
      name: opt<string>(args, 'name'),
      ...(quick ? { ops: ['sum', 'max', 'noop'], dtypes: ['float64', 'float32', 'int32', 'int64'], timing: { minSeconds: 5e-4, trials: 2 } } : { dtypes: SCALAR_TYPE_NAMES }),
      plan,
      hooks,
      progress: (i, n, what) => {
        const msg = `${stamp()} [${String(i).padStart(String(n).length)}/${n}] ${what}`;
        // Progress on a terminal only: none when piped.
        if (tty) process.stderr.write(`\r${msg.padEnd(79).slice(0, 79)}${i === n ? '\n' : ''}`);
      },
    });
    const m = report.machine;
    console.log(`machine '${m.name}': ${m.description}`);
    console.log(`  copy: ${(1 / m.copyPerByte / 1e9).toFixed(2)} GB/s (fit rms residual ${report.copy.fit.rms.toExponential(2)} s, R² ${report.copy.fit.r2.toFixed(4)})`);
    console.log('  reduce (γ per element, per-call overhead, fit R², largest relative residual):');
    for (const [k, f] of Object.entries(report.reduce)) {
      console.log(`    ${k.padEnd(16)} ${(f.gamma * 1e9).toFixed(3).padStart(8)} ns  ${(f.overhead * 1e9).toFixed(0).padStart(6)} ns  R² ${f.fit.r2.toFixed(4)}  ${(f.fit.maxRelResidual * 100).toFixed(0)}%`);
    }
    for (const [label, pp] of [['intra (thread↔thread)', report.intra], ['inter (process↔process, TCP)', report.inter]] as const) {
      if (!pp) continue;
      console.log(`  ${label}: α ${us(pp.alpha)}, β ${(pp.beta * 1e9).toFixed(4)} ns/B (${(1 / pp.beta / 1e9).toFixed(2)} GB/s); ${resid(pp.fit)}`);
      console.log(`    one-way: ${pp.samples.map((s, i) => `${s.x} B ${us(s.seconds)} (${pp.fit.residuals[i] >= 0 ? '+' : ''}${us(pp.fit.residuals[i])})`).join(', ')}`);
    }
    for (const [label, lg] of [['LogGP (written: host.oSend/oRecv, loggp)', report.loggp], ['LogGP within a node (reported)', report.loggpIntra]] as const) {
      if (!lg) continue;
      console.log(`  ${label}: o_s ${us(lg.oSend)}, o_r ${us(lg.oRecv)}, g ${us(lg.g)}, G ${(lg.G * 1e9).toFixed(4)} ns/B; gap ${resid(lg.fit)}`);
      console.log(`    per size (gap, o_s, o_r): ${lg.samples.map((s) => `${s.bytes} B ${us(s.gap)} ${us(s.oSend)} ${us(s.oRecv)}`).join('; ')}`);
    }
    if (m.loggp) console.log(`  link α less o_s + o_r: intra ${us(m.intra.alpha)}, inter ${us(m.inter.alpha)}; LogGP L ${us(m.loggp.L)}`);
    if (report.serial) {
      const s = report.serial;
      console.log(`  serial reduction ([Moody-2003] §3.2.1): r ${us(s.r)}${m.lrc ? `, L ${us(m.lrc.L)}, C ${us(m.lrc.C)}` : ''}`);
      for (const [k, f] of Object.entries(s.fits)) {
        console.log(`    ${k.padEnd(18)} slope ${us(s.r + s.c[k]).padStart(11)}  c ${us(s.c[k]).padStart(11)}  C+L ${us(s.CplusL[k]).padStart(11)}  ${resid(f)}`);
      }
    }
    for (const [label, tj] of [['between nodes', report.testjig], ['within a node', report.testjigIntra]] as const) {
      if (!tj) continue;
      console.log(`  NBL testjig ${label}: ${Object.entries(tj.fit.f).map(([L, f]) => `f(${L}) ${f.toFixed(2)}`).join(', ')}`);
      for (const [L, f] of Object.entries(tj.fit.fits)) console.log(`    L = ${L}: T = ${us(f.intercept)} + ${(f.slope * 1e9).toFixed(2)} ns·S; ${resid(f)}`);
      for (const d of tj.fit.differences) console.log(`    dT(L)/dT(1) from S = ${d.S}: ${Object.entries(d.f).map(([L, f]) => `${L}: ${f.toFixed(2)}`).join(', ')}`);
    }
    if (report.missing.length) {
      console.log('  not measured (written as marked assumptions or left out):');
      for (const x of report.missing) console.log(`    - ${x}`);
    }
    const out = opt<string>(args, 'out') ?? 'machine.json';
    saveMachineFile(out, m);
    const reportFile = opt<string>(args, 'report');
    if (reportFile !== undefined) {
      const doc = fitReportDocument(report);
      writeFileSync(reportFile, `${JSON.stringify(doc, null, 1)}\n`);
      console.log(`wrote the fit report ${reportFile} (${doc.series.length} series)`);
    }
    console.log(`wrote ${out} in ${((Date.now() - started) / 1000).toFixed(1)} s, a machine description (use: coll model allreduce --machine ${out} ...; coll sim allreduce --machine ${out} --procs 8; coll tune --machine ${out})`);
    return 0;
  },
};
