/** `coll`: the collectives command line (see bin.ts for the executable). */
import { CollectivesError } from '../core/errors.js';
import { algorithmsCommand } from './commands/algorithms.js';
import { benchCommand } from './commands/bench.js';
import { experimentCommand } from './commands/experiment.js';
import { runCommand } from './commands/run.js';
import { nodeCommand } from './commands/node.js';
import { ringCommand } from './commands/ring.js';
import { daemonCommand } from './commands/daemon.js';
import { ioServerCommand } from './commands/io-server.js';
import { scheduleCommand } from './commands/schedule.js';
import { fitCommand } from './commands/fit.js';
import { machineCommand } from './commands/machine.js';
import { modelCommand } from './commands/model.js';
import { reproduceCommand } from './commands/reproduce.js';
import { simCommand } from './commands/sim.js';
import { tuneCommand } from './commands/tune.js';
import { viewCommand } from './commands/view.js';
import type { Command } from './command.js';
import { closest } from './args.js';
import { readFileSync } from 'node:fs';

/** The package's version (package.json sits two levels above src/cli and dist/cli). */
export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

export const COMMANDS: readonly Command[] = [algorithmsCommand, scheduleCommand, modelCommand, tuneCommand, fitCommand, machineCommand, reproduceCommand, simCommand, runCommand, nodeCommand, ringCommand, daemonCommand, ioServerCommand, benchCommand, experimentCommand, viewCommand];

function usage(): string {
  const lines = ['usage: coll <command> [options]   (coll <command> --help for details; coll --version)', '', 'commands:'];
  for (const c of COMMANDS) lines.push(`  ${c.name.padEnd(12)} ${c.summary}`);
  return lines.join('\n');
}

export async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    console.log(usage());
    return name ? 0 : 2;
  }
  if (name === '--version' || name === '-V' || name === 'version') {
    console.log(`coll ${version()} (Node.js ${process.versions.node})`);
    return 0;
  }
  const cmd = COMMANDS.find((c) => c.name === name);
  if (!cmd) {
    const near = closest(name, COMMANDS.map((c) => c.name));
    console.error(`coll: unknown command '${name}'${near ? `; did you mean '${near}'?` : ''}\n\n${usage()}`);
    return 2;
  }
  try {
    return await cmd.run(rest);
  } catch (e) {
    if (e instanceof CollectivesError) {
      console.error(`coll ${name}: ${e.message}`);
      return 2;
    }
    throw e;
  }
}

