/**
 * `coll machine validate|convert|show`: the machine description every command reads
 * (src/machine, docs/machines.md).
 *
 * - `validate FILE…`: check files (each problem named with its field path and the
 *   allowed range) and say which commands they run in;
 * - `convert FILE|PRESET --out NEW.json`: write an older file (`coll fit`'s
 *   "collectives-machine/1", `coll sim`'s MachineSpec JSON) or a built-in preset as a
 *   machine description;
 * - `show FILE|PRESET`: print it as a machine description.
 */
import { ArgumentError } from '../../core/errors.js';
import { toModelMachine, toSimMachine } from '../../machine/convert.js';
import { machineDescriptionToJson, writeMachineFile } from '../../machine/read.js';
import { allMachineNames, resolveDescription } from '../../machine/resolve.js';
import { helpText, opt, parseArgs, type OptionSpec } from '../args.js';
import type { Command } from '../command.js';

const OPTIONS: OptionSpec[] = [
  { name: 'out', alias: 'o', type: 'string', description: 'convert: the file to write' },
  { name: 'help', alias: 'h', type: 'boolean', description: 'show this help' },
];

const USAGE = 'coll machine validate FILE...\n       coll machine convert FILE|PRESET --out NEW.json\n       coll machine show FILE|PRESET';

export const machineCommand: Command = {
  name: 'machine',
  summary: 'validate, convert or show a machine description (the one file model, sim, fit and tune read)',
  async run(argv) {
    const args = parseArgs(argv, OPTIONS);
    const [action, ...targets] = args.positionals;
    if (opt(args, 'help') || !action) {
      console.log(helpText(USAGE, OPTIONS));
      console.log(`\npresets: ${allMachineNames().join(', ')}`);
      return opt(args, 'help') ? 0 : 2;
    }
    if (targets.length === 0) throw new ArgumentError(`coll machine ${action} needs a file or preset`, USAGE);
    switch (action) {
      case 'validate':
        for (const t of targets) {
          const d = resolveDescription(t);
          const sim = toSimMachine(d);
          toModelMachine(d, t);
          console.log(
            `${t}: valid machine description '${d.name}' (${sim.nodes >= 1 << 20 ? 'nodes as a job needs' : `${sim.nodes} nodes`} × ${sim.coresPerNode} cores, ${sim.network.topology}${d.loggp ? ', LogGP' : ''}${d.noise ? `, noise ${d.noise}` : ''}); runs in coll model, sim and tune`,
          );
        }
        return 0;
      case 'convert': {
        const out = opt<string>(args, 'out');
        if (!out) throw new ArgumentError('coll machine convert needs --out NEW.json');
        if (targets.length !== 1) throw new ArgumentError('coll machine convert takes one file or preset');
        const d = resolveDescription(targets[0]);
        writeMachineFile(out, d);
        console.log(`wrote ${out}: machine description '${d.name}' (schema ${d.schema} v${d.version})`);
        return 0;
      }
      case 'show':
        for (const t of targets) process.stdout.write(machineDescriptionToJson(resolveDescription(t)));
        return 0;
      default:
        throw new ArgumentError(`unknown action '${action}'`, USAGE);
    }
  },
};
