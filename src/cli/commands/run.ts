/** `coll run -n <ranks> [--nodes K] <program> [args]`: start a job on this machine. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parseHostfile, parseHostList } from '../../launch/hosts.js';
import { ArgumentError } from '../../core/errors.js';
import { launch } from '../../runtime/launcher.js';
import type { JobIoOptions } from '../../runtime/io-servers.js';
import { IO_SERVER_OPTIONS, ioServerSettings } from './io-server.js';
import { parseStartupScheme } from '../../launch/startup/schemes.js';
import { parseConnectionPolicy } from '../../transport/connections.js';
import { parseTransport } from '../../transport/mpi/binding.js';
import { defaultRingFile, readRingFile } from '../../launch/daemon/protocol.js';
import { helpText, opt, parseArgs, type OptionSpec } from '../args.js';
import type { Command } from '../command.js';

const OPTIONS: OptionSpec[] = [
  { name: 'np', alias: 'n', type: 'number', description: 'number of ranks (required)' },
  { name: 'nodes', type: 'number', description: 'node processes to spread the ranks over (default 1; uneven splits allowed)' },
  { name: 'debug', type: 'boolean', description: 'check every collective call across ranks (COLL_DEBUG=1)' },
  { name: 'timeout-ms', type: 'number', description: 'default timeout of each collective and receive in the ranks, ms (default 600000 = 10 minutes, or COLL_TIMEOUT_MS; 0 = none)' },
  { name: 'report', type: 'string', description: "write the job report (JSON: timing, connections, frames, engine counters; docs/runtime.md) to FILE at the end, or to stderr with '-'" },
  { name: 'trace', type: 'string', description: "record every rank's calls and schedule steps (and its node engine's) and write the timeline to FILE as a Chrome trace (docs/view-formats.md; coll view FILE shows it)" },
  { name: 'trace-limit', type: 'number', description: 'with --trace: spans kept per rank thread and per engine (default 1000000, or COLL_TRACE_LIMIT); later ones are counted as dropped' },
  { name: 'timeout', type: 'number', description: 'kill the whole job after this many seconds (exit code 124; default: no job limit)' },
  { name: 'warn-after', type: 'number', description: "seconds after which a waiting rank prints one 'still waiting' warning naming the call and the missing ranks (default 30; 0 = never)" },
  { name: 'arena-mb', type: 'number', description: 'shared arena per node for comm.alloc and zero-copy (MiB, default 256)' },
  { name: 'bind', type: 'string', description: "address the nodes listen on (default 127.0.0.1; across hosts 'auto': the address each node reaches the launcher from)" },
  { name: 'hosts', alias: 'H', type: 'string', description: 'run on these hosts, with slots: a:4,b:4 (one node process per host, ranks filled slot by slot; like mpirun --host)' },
  { name: 'hostfile', type: 'string', description: "read the hosts from FILE (Open MPI syntax: 'host slots=K' per line, # comments)" },
  { name: 'oversubscribe', type: 'boolean', description: 'allow more ranks than the hosts have slots' },
  { name: 'launch-agent', type: 'string', description: "command that starts nodes on other hosts, called as ssh is: CMD HOST COMMAND ARGS... (default COLL_LAUNCH_AGENT or 'ssh -x -o BatchMode=yes')" },
  { name: 'ring', type: 'boolean', description: 'start the nodes through the daemon ring of coll ring up (its hosts and slots; every host starts in parallel)' },
  { name: 'ring-file', type: 'string', description: 'the ring to use (default COLL_RING_FILE or ~/.coll-ring.json); implies --ring' },
  { name: 'startup', type: 'string', description: "how node processes exchange endpoints: original | reassembly | bootstrap (seed 003 ch. 2; default reassembly, or COLL_STARTUP; counters in --report)" },
  { name: 'transport', type: 'string', description: "how node processes talk: tcp (default) | mpi (started by the installed mpirun/mpiexec, frames through that MPI; or COLL_TRANSPORT=mpi)" },
  { name: 'connections', type: 'string', description: 'when pairs of nodes get a TCP connection: partial (default: the ±2^i peers at start, the rest on demand) | on-demand | static (seed 003 ch. 3; or COLL_CONNECTIONS); before it, datagrams' },
  { name: 'connection-threshold', type: 'number', description: 'on-demand and partial: connect a pair after more than this many messages (default 16, or COLL_CONNECTION_THRESHOLD)' },
  { name: 'connection-bytes', type: 'number', description: 'on-demand and partial: connect a pair after more than this many bytes too (default 65536, or COLL_CONNECTION_BYTES)' },
  { name: 'checkpoint-dir', type: 'string', description: 'take coordinated checkpoints into DIR (shared by every host) when the program calls comm.checkpoint(state) and one is due (docs/runtime.md)' },
  { name: 'checkpoint-every', type: 'string', description: "a checkpoint is due this often: 500ms, 60s, 2m (or SIGUSR1 to coll run; or checkpoint(state, { force: true }))" },
  { name: 'checkpoint-keep', type: 'number', description: 'complete checkpoints kept (default 2)' },
  { name: 'restart', type: 'string', description: 'resume every rank from the latest complete checkpoint in DIR (the same number of ranks; comm.restored() returns its state)' },
  { name: 'max-restarts', type: 'number', description: 'when the job fails (a node dies), restart it from the latest complete checkpoint, up to this many times (default 0)' },
  { name: 'io-servers', type: 'number', description: 'start K I/O servers on this host for pfs: files (docs/io.md); the first is the metadata service' },
  { name: 'io-server', type: 'string', description: 'use running I/O servers (coll io-server) for pfs: files: host:port,…' },
  { name: 'io-dir', type: 'string', description: 'directory of the started I/O servers (server-<i> each), kept after the job; default a temporary one removed after it' },
  { name: 'io-host', type: 'string', description: 'address the started I/O servers listen on (default 127.0.0.1; a job across hosts: this host’s external address)' },
  ...IO_SERVER_OPTIONS,
  { name: 'startup-timeout', type: 'number', description: 'seconds every node may take to start and connect back (default 60)' },
  { name: 'help', alias: 'h', type: 'boolean', description: 'show this help' },
];

const USAGE = 'coll run -n <ranks> [--nodes K | --hosts a:4,b:4 | --hostfile F | --ring] [--debug] [--timeout S] [--report FILE|-] [--trace FILE] [--checkpoint-dir D [--checkpoint-every 60s] | --restart D] [--max-restarts K] [--io-servers K | --io-server H:P,…] <program.(js|ts)> [program args...]';

/** `500ms`, `60s`, `2m`, `1h`, or a plain number of seconds, in ms. */
export function parseDuration(text: string, what: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/.exec(text.trim());
  if (!m || !(Number(m[1]) > 0)) throw new ArgumentError(`${what} '${text}' is not a positive duration`, 'e.g. 500ms, 60s, 2m, 1h (a plain number is seconds)');
  return Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
}

function checkpointOptions(args: ReturnType<typeof parseArgs>): { checkpoint?: { dir: string; everyMs?: number; keep?: number }; restart?: string; maxRestarts?: number } {
  const dir = opt<string>(args, 'checkpoint-dir');
  const every = opt<string>(args, 'checkpoint-every');
  const keep = opt<number>(args, 'checkpoint-keep');
  const restart = opt<string>(args, 'restart');
  const maxRestarts = opt<number>(args, 'max-restarts');
  if ((every !== undefined || keep !== undefined) && dir === undefined && restart === undefined) {
    throw new ArgumentError('--checkpoint-every and --checkpoint-keep need --checkpoint-dir DIR (or --restart DIR)');
  }
  const where = dir ?? restart;
  return {
    ...(where !== undefined ? { checkpoint: { dir: where, ...(every !== undefined ? { everyMs: parseDuration(every, '--checkpoint-every') } : {}), ...(keep !== undefined ? { keep } : {}) } } : {}),
    ...(restart !== undefined ? { restart } : {}),
    ...(maxRestarts !== undefined ? { maxRestarts } : {}),
  };
}

function ioOptions(args: ReturnType<typeof parseArgs>): { io?: JobIoOptions } {
  const servers = opt<number>(args, 'io-servers');
  const list = opt<string>(args, 'io-server');
  const settings = ioServerSettings(args);
  const dir = opt<string>(args, 'io-dir');
  const host = opt<string>(args, 'io-host');
  if (servers === undefined && list === undefined) {
    if (Object.keys(settings).length > 0 || dir !== undefined || host !== undefined) throw new ArgumentError('the I/O server settings need --io-servers K');
    return {};
  }
  if (servers !== undefined && list !== undefined) throw new ArgumentError('give --io-servers K or --io-server host:port,…, not both');
  if (list !== undefined && (Object.keys(settings).length > 0 || dir !== undefined || host !== undefined)) throw new ArgumentError('--io-server uses running servers: set their options where they are started (coll io-server)');
  return { io: list !== undefined ? { addresses: list.split(',').filter(Boolean) } : { servers, dir, host, settings } };
}

function readHostfile(file: string): string {
  if (!existsSync(file)) throw new ArgumentError(`hostfile '${file}' does not exist`);
  return readFileSync(file, 'utf8');
}

export const runCommand: Command = {
  name: 'run',
  summary: 'run a program on N ranks (threads) in K node processes',
  async run(argv) {
    const args = parseArgs(argv, OPTIONS, 1);
    if (opt(args, 'help')) {
      console.log(`${helpText(USAGE, OPTIONS)}\n\nEach rank's output is prefixed with [rank]. If a rank fails, every node is stopped and the exit code is 1.`);
      return 0;
    }
    const ranks = opt<number>(args, 'np');
    const program = args.positionals[0];
    if (ranks === undefined) throw new ArgumentError('-n <ranks> is required', `usage: ${USAGE}`);
    if (program === undefined) throw new ArgumentError('no program given', `usage: ${USAGE}`);
    const timeout = opt<number>(args, 'timeout');
    if (timeout !== undefined && !(timeout > 0)) throw new ArgumentError(`--timeout must be a positive number of seconds, got ${timeout}`);
    const warnAfter = opt<number>(args, 'warn-after');
    if (warnAfter !== undefined && !(warnAfter >= 0)) throw new ArgumentError(`--warn-after must be a non-negative number of seconds, got ${warnAfter}`);
    const hostList = opt<string>(args, 'hosts');
    const hostfile = opt<string>(args, 'hostfile');
    if (hostList !== undefined && hostfile !== undefined) throw new ArgumentError('give --hosts or --hostfile, not both');
    const hosts = hostList !== undefined ? parseHostList(hostList) : hostfile !== undefined ? parseHostfile(readHostfile(hostfile), hostfile) : undefined;
    const ringFile = opt<string>(args, 'ring-file') ?? (opt<boolean>(args, 'ring') ? defaultRingFile() : undefined);
    if (ringFile !== undefined && hosts) throw new ArgumentError('--ring does not go with --hosts/--hostfile', 'the ring’s hosts are those given to coll ring up');
    const ring = ringFile !== undefined ? readRingFile(ringFile) : undefined;
    if (ring && opt<number>(args, 'nodes') !== undefined) throw new ArgumentError('--nodes does not go with --ring', 'each ring host runs one node process with its ranks as threads');
    if (hosts && opt<number>(args, 'nodes') !== undefined) throw new ArgumentError('--nodes does not go with --hosts/--hostfile', 'each host runs one node process with its ranks as threads');
    const startup = opt<number>(args, 'startup-timeout');
    if (startup !== undefined && !(startup > 0)) throw new ArgumentError(`--startup-timeout must be a positive number of seconds, got ${startup}`);
    const scheme = opt<string>(args, 'startup');
    const policy = opt<string>(args, 'connections');
    const threshold = opt<number>(args, 'connection-threshold');
    const byteThreshold = opt<number>(args, 'connection-bytes');
    const traceFile = opt<string>(args, 'trace');
    const traceLimit = opt<number>(args, 'trace-limit');
    if (traceLimit !== undefined && traceFile === undefined) throw new ArgumentError('--trace-limit needs --trace FILE');
    const transport = parseTransport(opt<string>(args, 'transport') ?? process.env.COLL_TRANSPORT ?? 'tcp', opt<string>(args, 'transport') !== undefined ? '--transport' : 'COLL_TRANSPORT');
    const r = await launch({
      transport: transport === 'mpi' ? 'mpi' : 'tcp',
      ranks,
      nodes: opt<number>(args, 'nodes'),
      hosts,
      ring,
      oversubscribe: opt<boolean>(args, 'oversubscribe'),
      launchAgent: opt<string>(args, 'launch-agent'),
      startupTimeoutMs: startup !== undefined ? startup * 1000 : undefined,
      startup: scheme !== undefined ? parseStartupScheme(scheme) : undefined,
      connections: { policy: policy !== undefined ? parseConnectionPolicy(policy) : undefined, threshold, byteThreshold },
      program,
      args: args.rest,
      stdio: 'inherit',
      debug: opt<boolean>(args, 'debug'),
      timeoutMs: opt<number>(args, 'timeout-ms'),
      arenaMb: opt<number>(args, 'arena-mb'),
      bindHost: opt<string>(args, 'bind'),
      jobTimeoutMs: timeout !== undefined ? timeout * 1000 : undefined,
      env: warnAfter !== undefined ? { COLL_WARN_AFTER_MS: String(warnAfter * 1000) } : undefined,
      ...checkpointOptions(args),
      ...ioOptions(args),
      ...(traceFile !== undefined ? { trace: { file: traceFile, ...(traceLimit !== undefined ? { limit: traceLimit } : {}) } } : {}),
    });
    if (r.report.trace) {
      const t = r.report.trace;
      process.stderr.write(`coll run: wrote the timeline to ${traceFile} (${t.spans} spans${t.dropped > 0 ? `, ${t.dropped} dropped: raise --trace-limit` : ''})\n`);
    }
    const report = opt<string>(args, 'report');
    if (report !== undefined) {
      const text = `${JSON.stringify(r.report, null, 2)}\n`;
      if (report === '-') process.stderr.write(text);
      else writeFileSync(report, text);
    }
    return r.exitCode;
  },
};
