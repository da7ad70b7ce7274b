/**
 * `coll ring up|status|down`: a daemon ring over hosts (seed 003 S2.5, MPD's mpdboot /
 * mpdtrace / mpdallexit): started once, then `coll run --ring` starts a job's node
 * processes through it, every host in parallel (launch/daemon).
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { ArgumentError } from '../../core/errors.js';
import { parseHostfile, parseHostList } from '../../launch/hosts.js';
import { ringRequest, ringUp } from '../../launch/daemon/ring.js';
import { defaultRingFile, readRingFile, writeRingFile } from '../../launch/daemon/protocol.js';
import { DEFAULT_LAUNCH_AGENT } from '../../runtime/launcher.js';
import { helpText, opt, parseArgs, type OptionSpec } from '../args.js';
import type { Command } from '../command.js';

const OPTIONS: OptionSpec[] = [
  { name: 'hosts', alias: 'H', type: 'string', description: 'up: the hosts, with slots: a:4,b:4 (the ring runs in this order)' },
  { name: 'hostfile', type: 'string', description: "up: read the hosts from FILE (Open MPI syntax: 'host slots=K')" },
  { name: 'launch-agent', type: 'string', description: "up: command that starts daemons on other hosts, called as ssh is (default COLL_LAUNCH_AGENT or 'ssh -x -o BatchMode=yes')" },
  { name: 'ring-file', type: 'string', description: 'where the ring is recorded (default COLL_RING_FILE or ~/.coll-ring.json; mode 0600: it holds the ring secret)' },
  { name: 'timeout', type: 'number', description: 'up: seconds the hosts may take to join (default 60)' },
  { name: 'json', type: 'boolean', description: 'status: print JSON' },
  { name: 'help', alias: 'h', type: 'boolean', description: 'show this help' },
];

const USAGE = 'coll ring up --hosts a:4,b:4 [--launch-agent CMD] | coll ring status | coll ring down   [--ring-file F]';

export const ringCommand: Command = {
  name: 'ring',
  summary: 'start, inspect or stop a daemon ring for parallel launch (coll run --ring)',
  async run(argv) {
    const args = parseArgs(argv, OPTIONS);
    const action = args.positionals[0];
    if (opt(args, 'help') || action === undefined) {
      console.log(
        `${helpText(USAGE, OPTIONS)}\n\nup starts one daemon per host and joins them in a ring; coll run --ring then sends one launch\n` +
          'request around it and every host starts its node processes in parallel. down ends every daemon.',
      );
      return action === undefined && !opt(args, 'help') ? 2 : 0;
    }
    const file = opt<string>(args, 'ring-file') ?? defaultRingFile();
    if (action === 'up') {
      const list = opt<string>(args, 'hosts');
      const hostfile = opt<string>(args, 'hostfile');
      if ((list === undefined) === (hostfile === undefined)) throw new ArgumentError('coll ring up needs --hosts or --hostfile (one of them)', `usage: ${USAGE}`);
      const hosts = list !== undefined ? parseHostList(list) : parseHostfile(readFileSync(hostfile as string, 'utf8'), hostfile);
      if (existsSync(file)) throw new ArgumentError(`a ring is already recorded in '${file}'`, "stop it with 'coll ring down' first (or choose another --ring-file)");
      const timeout = opt<number>(args, 'timeout');
      const t0 = performance.now();
      const agent = opt<string>(args, 'launch-agent') ?? (process.env.COLL_LAUNCH_AGENT || DEFAULT_LAUNCH_AGENT);
      const ring = await ringUp({ hosts, agent, timeoutMs: timeout !== undefined ? timeout * 1000 : undefined }).catch((e: Error) => {
        // A host that failed is not a usage error: exit code 1, as a failed job.
        console.error(`coll ring up: ${e.message}`);
        return undefined;
      });
      if (!ring) return 1;
      writeRingFile(file, ring);
      console.log(`coll ring ${ring.id}: ${ring.members.length} daemon(s) up in ${Math.round(performance.now() - t0)} ms (${ring.members.map((m) => `${m.host}:${m.slots}`).join(', ')}); recorded in ${file}`);
      return 0;
    }
    if (action === 'status') {
      const ring = readRingFile(file);
      const r = await ringRequest(ring, { type: 'status' });
      if (r.type !== 'status') throw new Error(`unexpected answer '${r.type}'`);
      if (opt(args, 'json')) console.log(JSON.stringify({ id: ring.id, members: r.members }, null, 2));
      else for (const m of r.members ?? []) console.log(`${String(m.member).padStart(3)}  ${ring.members[m.member]?.host ?? '?'} (${m.host})  pid ${m.pid}  up ${m.upS} s  ${m.jobs} node process(es)`);
      return 0;
    }
    if (action === 'down') {
      const ring = readRingFile(file);
      await ringRequest(ring, { type: 'exit' }).catch((e: Error) => console.error(`coll ring down: ${e.message}`));
      rmSync(file, { force: true });
      console.log(`coll ring ${ring.id}: down`);
      return 0;
    }
    throw new ArgumentError(`unknown action '${action}'`, 'use up, status or down');
  },
};
