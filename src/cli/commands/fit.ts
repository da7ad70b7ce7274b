/**
 * `coll fit [--out machine.json] [--name N] [--quick]`: measure this machine (reduce
 * kernels per operator/datatype, memory copies; the runtime ping-pong and testjig
 * hooks when they exist) with a progress display, print the fits with their
 * residuals, and write the machine parameter file the models load with --machine.
 */
import { SCALAR_TYPE_NAMES } from '../../core/index.js';
import { saveMachineFile } from '../../model/machines/load.js';
import { runFit } from '../../tune/fit-machine.js';
import { helpText, opt, parseArgs, type OptionSpec } from '../args.js';
import type { Command } from '../command.js';

const OPTIONS: OptionSpec[] = [
  { name: 'out', alias: 'o', type: 'string', description: 'write the machine JSON here (default machine.json)' },
  { name: 'name', type: 'string', description: 'machine name in the file (default local)' },
  { name: 'quick', type: 'boolean', description: 'fewer operators/datatypes and shorter samples (a few seconds)' },
  { name: 'help', alias: 'h', type: 'boolean', description: 'show this help' },
];

export const fitCommand: Command = {
  name: 'fit',
  summary: 'measure this machine (reduce kernels, memcpy; runtime ping-pong when available) and write a machine file',
  async run(argv) {
    const args = parseArgs(argv, OPTIONS);
    if (opt(args, 'help')) {
      console.log(helpText('coll fit [--out machine.json] [--name N] [--quick]', OPTIONS));
      return 0;
    }
    const quick = opt<boolean>(args, 'quick') ?? false;
    const tty = process.stderr.isTTY;
    const report = await runFit({
      name: opt<string>(args, 'name'),
      ...(quick ? { ops: ['sum', 'max', 'noop'], dtypes: ['float64', 'float32', 'int32', 'int64'], timing: { minSeconds: 5e-4, trials: 2 } } : { dtypes: SCALAR_TYPE_NAMES }),
      progress: (i, n, what) => {
        const msg = `[${String(i).padStart(String(n).length)}/${n}] ${what}`;
        if (tty) process.stderr.write(`\r${msg.padEnd(78).slice(0, 78)}${i === n ? '\n' : ''}`);
        else process.stderr.write(`${msg}\n`);
      },
    });
    const m = report.machine;
    console.log(`machine '${m.name}': ${m.description}`);
    console.log(`  copy: ${(1 / m.copyPerByte / 1e9).toFixed(2)} GB/s (fit rms residual ${report.copy.fit.rms.toExponential(2)} s, R² ${report.copy.fit.r2.toFixed(4)})`);
    console.log('  reduce (γ per element, per-call overhead, fit R², largest relative residual):');
    for (const [k, f] of Object.entries(report.reduce)) {
      console.log(`    ${k.padEnd(16)} ${(f.gamma * 1e9).toFixed(3).padStart(8)} ns  ${(f.overhead * 1e9).toFixed(0).padStart(6)} ns  R² ${f.fit.r2.toFixed(4)}  ${(f.fit.maxRelResidual * 100).toFixed(0)}%`);
    }
    if (report.missing.length) {
      console.log('  not measured (written as marked assumptions):');
      for (const x of report.missing) console.log(`    - ${x}`);
    }
    const out = opt<string>(args, 'out') ?? 'machine.json';
    saveMachineFile(out, m);
    console.log(`wrote ${out} (use: coll model allreduce --machine ${out} ...)`);
    return 0;
  },
};
