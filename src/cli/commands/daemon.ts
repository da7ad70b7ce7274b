/**
 * `coll daemon --member I --ring ID --control HOST:PORT,…`: a member of a daemon ring
 * (launch/daemon), started by `coll ring up` on each host, not by hand. The ring's
 * secret comes on standard input. Without `--foreground` it starts itself detached
 * (output to a log file in the temporary directory) and returns, so that the ssh that
 * started it returns too.
 */
import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArgumentError } from '../../core/errors.js';
import { runDaemon } from '../../launch/daemon/daemon.js';
import { firstLine } from '../../launch/lines.js';
import { helpText, opt, parseArgs, type OptionSpec } from '../args.js';
import type { Command } from '../command.js';

const OPTIONS: OptionSpec[] = [
  { name: 'member', type: 'number', description: 'this daemon’s place in the ring' },
  { name: 'ring', type: 'string', description: 'the ring’s id' },
  { name: 'control', type: 'string', description: 'where coll ring up waits, host:port candidates' },
  { name: 'foreground', type: 'boolean', description: 'run in this process (default: detach and return)' },
  { name: 'help', alias: 'h', type: 'boolean', description: 'show this help' },
];

const USAGE = 'coll daemon --member I --ring ID --control HOST:PORT[,…]   (started by coll ring up; the secret on standard input)';

export const daemonCommand: Command = {
  name: 'daemon',
  summary: 'a member of a daemon ring (started by coll ring up)',
  async run(argv) {
    const args = parseArgs(argv, OPTIONS);
    if (opt(args, 'help')) {
      console.log(helpText(USAGE, OPTIONS));
      return 0;
    }
    const member = opt<number>(args, 'member');
    const ring = opt<string>(args, 'ring');
    const control = opt<string>(args, 'control');
    if (member === undefined || ring === undefined || control === undefined) throw new ArgumentError('--member, --ring and --control are required', `usage: ${USAGE}`);
    const secret = await firstLine(process.stdin, 'the ring secret (coll daemon is started by coll ring up)');
    if (!opt<boolean>(args, 'foreground')) {
      const log = join(tmpdir(), `coll-daemon-${ring}-${member}.log`);
      const fd = openSync(log, 'a', 0o600);
      const child = spawn(process.execPath, [...process.execArgv, process.argv[1], 'daemon', ...argv, '--foreground'], { detached: true, stdio: ['pipe', fd, fd] });
      child.stdin?.end(`${secret}\n`);
      child.unref();
      console.log(`coll daemon ${member} of ring ${ring}: pid ${child.pid}, log ${log}`);
      return 0;
    }
    await runDaemon({ member, ringId: ring, secret, control: control.split(','), log: (l) => console.error(`${new Date().toISOString()} ${l}`) });
    // Serves until coll ring down (or its ring breaks): both end the process.
    return new Promise<number>(() => undefined);
  },
};
