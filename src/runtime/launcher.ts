/**
 * launch(): start a job of `ranks` ranks on `nodes` node processes of this machine
 * (block placement, uneven splits allowed: 5 ranks on 2 nodes = 3 + 2), wait for it,
 * and report its exit code and output. `coll run` is a thin wrapper around it.
 *
 * - Every node process gets the job description and a fresh random secret over its
 *   IPC channel; nodes report their TCP address and get everyone else's.
 * - Output: each rank's lines come prefixed `[rank] `; they are streamed to this
 *   process (stdio 'inherit'), handed to `onLine`, and/or captured in the result.
 * - A rank that throws (or exits non-zero) ends the job: the launcher reports which
 *   rank failed and why, kills every node process, and the exit code is 1. A job
 *   that exceeds `jobTimeoutMs` is killed the same way (exit code 124).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { latestCheckpoint } from './checkpoint-files.js';
import { startJobIo, type JobIoOptions } from './io-servers.js';
import { tmpdir } from 'node:os';
import { resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsxLoader } from './tsx-loader.js';
import { launchUnderMpi } from './mpi-launch.js';
import { ArgumentError, checkIntRange } from '../core/errors.js';
import { combineReports, type JobReport, type NodeReport, type RingLaunchReport } from './job-report.js';
import { blockPlacement, type CheckpointSpec, type JobSpec, type NodeSpec } from '../exec/config.js';
import { DEFAULT_RING_BYTES, defaultEngineSpin, defaultProxySpinMs, defaultSpin } from './rank-runtime.js';
import { DEFAULT_STARTUP, LauncherExchange, parseStartupScheme, type EndpointsMessage, type StartupScheme } from '../launch/startup/schemes.js';
import { ControlServer, ipcChildLink, nodeControlArgs, type ControlLink } from '../launch/control.js';
import { controlAddresses, isLocalHost, mapRanks, type HostSlots } from '../launch/hosts.js';
import { shellQuote } from '../launch/shell.js';
import { readLines } from '../launch/lines.js';
import { jobSecret, type RingFile } from '../launch/daemon/protocol.js';
import { ringRequest } from '../launch/daemon/ring.js';
import { connectionSettings, type ConnectionSettings } from '../transport/connections.js';
import { DEFAULT_TRACE_LIMIT, type EncodedTrace, type TraceSettings } from '../exec/trace.js';
import { RunTraceSink, type RunTraceFile } from './run-trace.js';

export const DEFAULT_LAUNCH_AGENT = 'ssh -x -o BatchMode=yes';
const DEFAULT_STARTUP_TIMEOUT_MS = 60_000;
/** Lines of a node's output kept to explain why it did not start. */
const TAIL_LINES = 6;
/** How long after a node's (or its agent's) exit its output pipes may stay open. */
const STDIO_GRACE_MS = 2000;

/** Messages of a node process to the launcher (node-main.ts). */
type NodeMessage =
  | { type: string; rank?: number; reason?: string; network?: boolean; exitCode?: number; report?: NodeReport }
  | { type: 'trace'; trace: EncodedTrace }
  | { type: 'output'; stream: string; text: string }
  | EndpointsMessage;

/** How long a node's network failure is held back in case it is the echo of another node dying. */
const NETWORK_ECHO_MS = 750;

export interface LaunchOptions {
  /** Total number of ranks. */
  ranks: number;
  /** Node processes (default 1). */
  nodes?: number;
  /** The rank program (.js, .mjs, .ts, .mts). */
  program: string;
  args?: readonly string[];
  /** 'capture' (default): collect output in the result; 'inherit': stream it to this process. */
  stdio?: 'capture' | 'inherit';
  /** Called for every output line (already prefixed with the rank). */
  onLine?: (stream: 'stdout' | 'stderr', line: string) => void;
  /** Extra environment for the node processes and ranks (it also sets the job-wide COLL_* knobs: spins, engine, arena). */
  env?: Readonly<Record<string, string>>;
  /** Address the nodes listen on (default 127.0.0.1). */
  bindHost?: string;
  /** Shared arena per node in MiB (default 256, or COLL_ARENA_MB). */
  arenaMb?: number;
  /** Debug mode by default in every rank (COLL_DEBUG). */
  debug?: boolean;
  /** Default collective timeout in the ranks (ms; 0 = the library default). */
  timeoutMs?: number;
  /** Kill the job after this long (ms); exit code 124. */
  jobTimeoutMs?: number;
  /** Extra Node.js / V8 flags for the node processes (default: COLL_NODE_ARGS, space-separated). */
  nodeArgs?: readonly string[];
  /** Run an offload engine thread in every node (default true; COLL_ENGINE=0 disables). */
  engine?: boolean;
  /**
   * Hosts to run on (`--hosts a:4,b:4`, `--hostfile`): one node process per host that
   * gets ranks, by-slot mapping (hosts.ts). Nodes on this machine start directly, the
   * others through `launchAgent`. Excludes `nodes`.
   */
  hosts?: readonly HostSlots[];
  /** Place more ranks than the hosts have slots (default false: an error). */
  oversubscribe?: boolean;
  /**
   * Command that starts a node on another host, called as ssh is: `AGENT HOST COMMAND
   * ARGS…` with the words of the remote command shell-quoted (default COLL_LAUNCH_AGENT,
   * else `ssh -x -o BatchMode=yes`).
   */
  launchAgent?: string;
  /** How long every node may take to start and connect back (ms, default 60000). */
  startupTimeoutMs?: number;
  /** How the nodes exchange their endpoints (launch/startup/schemes.ts; default 'reassembly', or COLL_STARTUP). */
  startup?: StartupScheme;
  /**
   * When pairs of nodes get a TCP connection (seed 003 ch. 3; default on-demand after
   * 16 messages or 64 KiB, or COLL_CONNECTIONS / COLL_CONNECTION_THRESHOLD /
   * COLL_CONNECTION_BYTES); before it their messages travel as datagrams.
   */
  connections?: Partial<ConnectionSettings>;
  /**
   * Start the nodes through this daemon ring (`coll ring up`, launch/daemon): its
   * members are the hosts, in ring order; one request goes around the ring and every
   * host starts its node in parallel. Excludes `hosts` and `nodes`.
   */
  ring?: RingFile;
  /**
   * How the node processes talk: 'tcp' (default: started by this launcher, datagrams and
   * TCP connections) or 'mpi' (started by the installed MPI's mpirun/mpiexec as `coll node`
   * tasks, frames through that MPI: mpi-launch.ts).
   */
  transport?: 'tcp' | 'mpi';
  /**
   * Coordinated checkpoints (runtime/checkpoint.ts): the directory (shared by every host),
   * how often the launcher says one is due (ms; also SIGUSR1 to the launcher; the ranks'
   * next `comm.checkpoint()` takes it), and how many complete ones to keep (default 2).
   */
  checkpoint?: { readonly dir: string; readonly everyMs?: number; readonly keep?: number };
  /** Restart from the latest complete checkpoint in this directory (the same number of ranks); checkpoints then go there too unless `checkpoint.dir` says otherwise. */
  restart?: string;
  /** When the job fails (a node dies), restart it from the latest complete checkpoint, up to this many times (default 0). */
  maxRestarts?: number;
  /** I/O servers for `pfs:` files (runtime/io-servers.ts): started for the job, or running ones; the report's `io` has their counters. */
  io?: JobIoOptions;
  /**
   * Record a timeline of the run (`coll run --trace FILE`; run-trace.ts): every rank's
   * calls and schedule steps and its node engine's, written to `file` as they arrive
   * when given, else returned as `trace`; counted in the report's `trace`. `limit`:
   * spans kept per thread (default COLL_TRACE_LIMIT, else 10⁶). Not on the MPI transport.
   */
  trace?: boolean | LaunchTraceOptions;
}

export interface LaunchTraceOptions {
  /** Write the Chrome trace here. */
  readonly file?: string;
  /** Spans kept per thread (rank or engine); later ones are counted as dropped. */
  readonly limit?: number;
}

export interface LaunchResult {
  /** 0 when every rank returned normally. */
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
  /** The first failure, if any (rank −1: a node's or the network's, not a rank's; exitCode: from comm.abort()). */
  readonly failure?: { readonly rank: number; readonly reason: string; readonly exitCode?: number };
  /** Process ids of the node processes (all gone when launch() resolves). */
  readonly pids: readonly number[];
  /** The job report (job-report.ts): timing, connections, frames, engine counters. */
  readonly report: JobReport;
  /** The run's timeline as a Chrome trace (`trace` option without a file; run-trace.ts). */
  readonly trace?: RunTraceFile;
}

const PROGRAM_EXT = /\.(m|c)?(j|t)s$/;

const round1 = (x: number): number => Math.round(x * 10) / 10;

/**
 * Start a job, with checkpoints and restarts when asked: `restart` resumes from the
 * latest complete checkpoint of a directory; with `maxRestarts`, a failed run is started
 * again from the latest complete checkpoint, up to that many times (torchrun's rule),
 * saying so on stderr and in the report's `checkpoint.restarts`.
 */
export async function launch(o: LaunchOptions): Promise<LaunchResult> {
  if (o.io === undefined) return launchRestartable(o);
  if (o.transport === 'mpi') throw new ArgumentError('I/O servers are not available on the MPI transport yet', 'use the default TCP transport with --io-servers/--io-server');
  const remote = (o.ring?.members ?? o.hosts ?? []).some((h) => !isLocalHost(h.host));
  const io = await startJobIo(o.io, tsxLoaderIfTs(), remote);
  let r: LaunchResult | undefined;
  try {
    r = await launchRestartable({ ...o, env: { ...o.env, COLL_IO_SERVERS: io.addresses.join(',') } });
  } finally {
    const report = await io.finish();
    if (r) r = { ...r, report: { ...r.report, io: report } };
  }
  return r as LaunchResult;
}

/** tsx's --import entry when this module runs as TypeScript (the I/O server processes need it too). */
function tsxLoaderIfTs(): string | undefined {
  return import.meta.url.endsWith('.ts') ? tsxLoader('the I/O servers').process : undefined;
}

/** launch() after the I/O servers: checkpoints and restarts. */
async function launchRestartable(o: LaunchOptions): Promise<LaunchResult> {
  const dir = o.checkpoint?.dir ?? o.restart;
  if (dir === undefined) {
    if (o.maxRestarts !== undefined && o.maxRestarts > 0) throw new ArgumentError('--max-restarts needs checkpoints to restart from', 'give --checkpoint-dir DIR (and --checkpoint-every, or call comm.checkpoint(state, { force: true }))');
    return launchOnce(o, undefined);
  }
  if (o.transport === 'mpi') throw new ArgumentError('checkpoints are not available on the MPI transport', 'use the default TCP transport with --checkpoint-dir/--restart');
  const keep = o.checkpoint?.keep ?? 2;
  checkIntRange('checkpoints kept', keep, 1, 1000);
  const maxRestarts = o.maxRestarts ?? 0;
  checkIntRange('max restarts', maxRestarts, 0, 1000);
  if (o.checkpoint?.everyMs !== undefined && !(o.checkpoint.everyMs > 0)) throw new ArgumentError(`the checkpoint interval must be positive, got ${o.checkpoint.everyMs} ms`);
  mkdirSync(resolvePath(dir), { recursive: true });
  const root = resolvePath(dir);
  let from: { dir: string; epoch: number } | undefined;
  if (o.restart !== undefined) {
    const latest = latestCheckpoint(resolvePath(o.restart));
    if (latest === undefined) throw new ArgumentError(`no complete checkpoint in ${o.restart}`, 'a checkpoint is complete once its directory ckpt-N (without .tmp) holds manifest.json; start afresh without --restart');
    if (latest.manifest.ranks !== o.ranks) throw new ArgumentError(`checkpoint ${latest.dir} was taken with ${latest.manifest.ranks} ranks, not ${o.ranks}`, `restart with -n ${latest.manifest.ranks}`);
    from = { dir: latest.dir, epoch: latest.manifest.epoch };
  }
  const restartedFrom: number[] = from ? [from.epoch] : [];
  const outs: string[] = [];
  const errs: string[] = [];
  for (let attempt = 0; ; attempt++) {
    const r = await launchOnce(o, { dir: root, keep, ...(from ? { restart: from } : {}) });
    outs.push(r.stdout);
    errs.push(r.stderr);
    const latest = r.exitCode !== 0 && attempt < maxRestarts ? latestCheckpoint(root) : undefined;
    if (latest === undefined || latest.manifest.ranks !== o.ranks) {
      const checkpoint = { ...(r.report.checkpoint ?? {}), dir: root, restarts: attempt, restartedFrom };
      return { ...r, stdout: outs.join(''), stderr: errs.join(''), report: { ...r.report, checkpoint } };
    }
    const line = `coll: the job failed (${r.failure?.reason ?? `exit code ${r.exitCode}`}); restarting from checkpoint ${latest.manifest.epoch} (restart ${attempt + 1} of ${maxRestarts})`;
    if (o.stdio === 'inherit') process.stderr.write(`${line}\n`);
    else errs.push(`${line}\n`);
    o.onLine?.('stderr', line);
    from = { dir: latest.dir, epoch: latest.manifest.epoch };
    restartedFrom.push(from.epoch);
  }
}

async function launchOnce(o: LaunchOptions, checkpoint: CheckpointSpec | undefined): Promise<LaunchResult> {
  checkIntRange('ranks', o.ranks, 1, 4096);
  if ((o.hosts !== undefined || o.ring !== undefined) && o.nodes !== undefined) throw new ArgumentError('give either nodes or hosts (or a ring), not both', 'with hosts, each host runs one node process');
  if (o.hosts !== undefined && o.ring !== undefined) throw new ArgumentError('give either hosts or a daemon ring, not both', 'the ring’s hosts are those of coll ring up');
  const hostList = o.ring ? o.ring.members : o.hosts;
  const placed = hostList ? mapRanks(hostList, o.ranks, o.oversubscribe ?? false) : undefined;
  const nodes = placed ? placed.length : (o.nodes ?? 1);
  checkIntRange('nodes', nodes, 1, o.ranks);
  const program = resolvePath(o.program);
  if (!PROGRAM_EXT.test(program)) throw new ArgumentError(`program '${o.program}' is not a .js/.mjs/.ts/.mts file`);
  if (!existsSync(program)) throw new ArgumentError(`program '${o.program}' does not exist`);
  const vars: Record<string, string | undefined> = { ...process.env, ...o.env };
  const trace = traceSettings(o.trace, vars);
  if (o.transport === 'mpi') {
    if (trace) throw new ArgumentError('tracing (--trace) is not available on the MPI transport', 'use the default TCP transport');
    return launchUnderMpi(o, program);
  }
  const arenaMb = o.arenaMb ?? (Number(vars.COLL_ARENA_MB) || 256);
  checkIntRange('arena size (MiB)', arenaMb, 1, 1 << 16);
  const selfTs = import.meta.url.endsWith('.ts');
  const loader = selfTs || /\.(m|c)?ts$/.test(program) ? tsxLoader(program) : undefined;
  const remote = placed ? placed.map((p) => !isLocalHost(p.host)) : [];
  const anyRemote = remote.some(Boolean);
  const firstRank = placed ? placed.reduce((a, p) => [...a, a[a.length - 1] + p.ranks], [0]) : blockPlacement(o.ranks, nodes);
  const job: JobSpec = {
    jobId: randomBytes(6).toString('hex'),
    size: o.ranks,
    nodeCount: nodes,
    firstRank,
    program,
    args: [...(o.args ?? [])],
    // A job across hosts binds each node to the address its control connection left from.
    bindHost: o.bindHost ?? (anyRemote ? 'auto' : '127.0.0.1'),
    arenaBytes: arenaMb * 1024 * 1024,
    ringBytes: DEFAULT_RING_BYTES,
    debug: o.debug ?? false,
    timeoutMs: o.timeoutMs ?? 0,
    // The job's environment (o.env over this process's) sets the job-wide knobs.
    spin: defaultSpin(o.ranks + (nodes > 1 ? nodes : 0), vars),
    proxySpinMs: defaultProxySpinMs(o.ranks + nodes, vars),
    engine: o.engine ?? vars.COLL_ENGINE !== '0',
    startup: o.startup ?? (vars.COLL_STARTUP ? parseStartupScheme(vars.COLL_STARTUP, 'COLL_STARTUP') : DEFAULT_STARTUP),
    engineSpin: defaultEngineSpin(o.ranks + 2 * nodes, vars),
    connections: connectionSettings(o.connections, vars),
    loader: loader?.process,
    workerLoader: loader?.worker,
    ...(checkpoint ? { checkpoint } : {}),
    ...(trace ? { trace } : {}),
  };
  // A ring's daemons derive the job secret from the ring's: it never crosses the network.
  const secret = o.ring ? jobSecret(o.ring, job.jobId) : randomBytes(32).toString('hex');
  const nodeMain = fileURLToPath(new URL(`./node-main.${selfTs ? 'ts' : 'js'}`, import.meta.url));
  const nodeArgs = o.nodeArgs ?? (process.env.COLL_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const nodeEnv = { ...process.env, ...o.env, ...(o.debug ? { COLL_DEBUG: '1' } : {}) };
  const agent = o.launchAgent ?? (vars.COLL_LAUNCH_AGENT || DEFAULT_LAUNCH_AGENT);
  const startupTimeoutMs = o.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
  const out: string[] = [];
  const err: string[] = [];
  const emit = (stream: 'stdout' | 'stderr', line: string): void => {
    o.onLine?.(stream, line);
    if (o.stdio === 'inherit') (stream === 'stdout' ? process.stdout : process.stderr).write(`${line}\n`);
    else (stream === 'stdout' ? out : err).push(line);
  };

  const t0 = performance.now();
  let started = 0;
  let initMs = 0;
  const nodeReports: NodeReport[] = [];
  // The spans go into the trace file as the nodes send them (created now: a bad path fails before the job runs).
  const traceFile = o.trace !== undefined && typeof o.trace === 'object' ? o.trace.file : undefined;
  const traceSink = trace ? new RunTraceSink({ ranks: o.ranks, firstRank: job.firstRank, program, args: job.args, origin: trace.origin, limit: trace.limit }, traceFile) : undefined;
  let traceError: string | undefined;
  const children: ChildProcess[] = [];
  const links: (ControlLink<NodeMessage, object> | undefined)[] = new Array<ControlLink<NodeMessage, object> | undefined>(nodes).fill(undefined);
  const connectMs = new Array<number>(nodes).fill(-1);
  const tails: string[][] = Array.from({ length: nodes }, () => []);
  let failure: { rank: number; reason: string; exitCode?: number } | undefined;
  let timedOut = false;
  let server: ControlServer | undefined;
  const killAll = (): void => {
    for (const l of links) l?.close();
    // Nodes a ring started end when their control links close; those never connected are not waited for.
    for (const end of ringEnds) end();
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    server?.close();
  };
  // A network failure on a healthy node is usually the echo of another node dying:
  // hold it briefly, and report the dead node instead if its process ends meanwhile.
  let heldNetwork: NodeJS.Timeout | undefined;
  const onFailure = (rank: number, reason: string, network = false, exitCode?: number): void => {
    if (failure) return;
    if (network) {
      // Not the rank's fault: the message names the nodes ("node 1 network failure: …").
      heldNetwork ??= setTimeout(() => {
        heldNetwork = undefined;
        onFailure(-1, reason);
      }, NETWORK_ECHO_MS);
      return;
    }
    if (heldNetwork) clearTimeout(heldNetwork);
    heldNetwork = undefined;
    failure = exitCode !== undefined ? { rank, reason, exitCode } : { rank, reason };
    emit('stderr', rank >= 0 ? `coll: rank ${rank} failed: ${reason}` : `coll: ${reason}`);
    killAll();
  };
  process.once('exit', killAll);
  // Checkpoints are due every `everyMs` once every node runs, and on SIGUSR1.
  let dueSeq = 0;
  const checkpointDue = (): void => {
    dueSeq++;
    links.forEach((l) => l?.send({ type: 'checkpoint-due', seq: dueSeq }));
  };
  let checkpointTimer: NodeJS.Timeout | undefined;
  const startCheckpointTimer = (): void => {
    if (!checkpoint) return;
    process.on('SIGUSR1', checkpointDue);
    const every = o.checkpoint?.everyMs;
    if (every !== undefined) checkpointTimer = setInterval(checkpointDue, every);
  };
  const stopCheckpointTimer = (): void => {
    if (checkpointTimer) clearInterval(checkpointTimer);
    process.off('SIGUSR1', checkpointDue);
  };
  /** "node 1 (ranks 4–7)" or "host b (node 1, ranks 4–7)". */
  const describe = (n: number): string => {
    const from = job.firstRank[n];
    const to = job.firstRank[n + 1] - 1;
    const ranks = from === to ? `rank ${from}` : `ranks ${from}–${to}`;
    return placed ? `host ${placed[n].host} (node ${n}, ${ranks})` : `node ${n} (${ranks})`;
  };

  const exchange = new LauncherExchange(job.startup, nodes);
  const done = new Array<boolean>(nodes).fill(false);
  const attach = (n: number, link: ControlLink<NodeMessage, object>): void => {
    links[n] = link;
    connectMs[n] = Math.round((performance.now() - t0) * 10) / 10;
    link.onMessage((m) => {
      if (m.type === 'endpoints') {
        try {
          exchange.receive(n, m as EndpointsMessage)?.forEach((r, i) => links[i]?.send(r));
        } catch (e) {
          onFailure(-1, `${describe(n)}: bad start-up message: ${(e as Error).message}`);
        }
      } else if (m.type === 'failed') onFailure(m.rank ?? -1, m.reason ?? 'unknown reason', m.network === true, m.exitCode);
      else if (m.type === 'exited') {
        // A rank's program returned: tell the other nodes (their ranks may wait for it).
        links.forEach((l, i) => i !== n && l?.send({ type: 'exited', rank: m.rank }));
      } else if (m.type === 'output' && 'text' in m) {
        // A node started by a daemon sends its ranks' output over the control channel.
        for (const line of m.text.split('\n').slice(0, -1)) emit(m.stream === 'stderr' ? 'stderr' : 'stdout', line);
      } else if (m.type === 'started') {
        if (++started === nodes) {
          initMs = performance.now() - t0;
          startCheckpointTimer();
        }
      } else if (m.type === 'trace' && 'trace' in m) {
        if (traceSink && traceError === undefined) {
          try {
            traceSink.add(m.trace);
          } catch (e) {
            traceError = (e as Error).message;
            emit('stderr', `coll: the trace could not be written: ${traceError}`);
          }
        }
      } else if (m.type === 'done') {
        done[n] = true;
        if (m.report) nodeReports.push(m.report);
        // The node waits for this (over TCP) to exit without unread messages, so without a reset.
        link.close();
      }
    });
    if (o.ring)
      link.onClose(() => {
        if (!done[n] && !failure) onFailure(-1, `${describe(n)} died: its control connection closed before its ranks finished`);
        ringEnds[n]?.();
      });
    const spec: NodeSpec = { ...job, node: n, secret: placed ? '' : secret };
    link.send({ type: 'start', spec });
  };

  let controlTargets: string[] = [];
  if (placed) {
    server = new ControlServer({
      jobId: job.jobId,
      secret,
      onNode: (n, link) => {
        if (n >= nodes || failure) return link.close();
        attach(n, link as ControlLink<NodeMessage, object>);
      },
    });
    const port = await server.listen(anyRemote ? '0.0.0.0' : '127.0.0.1');
    controlTargets = (anyRemote ? controlAddresses(false) : ['127.0.0.1']).map((h) => `${h}:${port}`);
  }

  const nodeCmd = [...nodeArgs, ...(loader ? ['--import', loader.process] : []), nodeMain];
  /** What a node on another host needs of this environment: the job's COLL_* knobs and o.env. */
  const passedEnv = (): [string, string][] =>
    Object.entries(nodeEnv)
      .filter(([k, v]) => v !== undefined && (k.startsWith('COLL_') || k === 'NODE_OPTIONS' || (o.env !== undefined && k in o.env)))
      .map(([k, v]) => [k, v ?? '']);
  /** Nodes started by a daemon ring: one request around it; a node ends when its control link closes. */
  const ringEnds: (() => void)[] = [];
  function startThroughRing(ring: RingFile): Promise<void>[] {
    const ends = Array.from({ length: nodes }, (_, n) => new Promise<void>((resolve) => (ringEnds[n] = resolve)));
    const t = performance.now();
    const request = {
      jobId: job.jobId,
      control: controlTargets,
      cwd: process.cwd(),
      env: Object.fromEntries(passedEnv()),
      argv: [process.execPath, ...nodeCmd],
      nodes: (placed ?? []).map((p, n) => ({ member: ring.members.findIndex((m) => m.host === p.host), node: n })),
    };
    ringRequest(ring, { type: 'launch', request }, startupTimeoutMs).then(
      (r) => {
        if (r.type !== 'launched') return onFailure(-1, `the daemon ring answered '${r.type}' to a launch request`);
        ringLaunch = { id: ring.id, requestMs: round1(performance.now() - t), reachedMs: r.outcomes.map((x) => x.atMs) };
      },
      (e: Error) => onFailure(-1, `the daemon ring could not start the job: ${e.message}`),
    );
    return ends;
  }
  const exits: Promise<void>[] = [];
  let ringLaunch: RingLaunchReport | undefined;
  if (o.ring) exits.push(...startThroughRing(o.ring));
  for (let n = 0; n < (o.ring ? 0 : nodes); n++) {
    const control = nodeControlArgs(controlTargets, n, job.jobId);
    let child: ChildProcess;
    if (!placed) child = spawn(process.execPath, nodeCmd, { stdio: ['ignore', 'pipe', 'pipe', 'ipc'], env: nodeEnv });
    else if (!remote[n]) child = spawn(process.execPath, [...nodeCmd, ...control], { stdio: ['pipe', 'pipe', 'pipe'], env: nodeEnv });
    else {
      // The remote command: the launcher's directory, the job's COLL_* knobs and this
      // Node.js and package at the same paths (as mpirun assumes the same prefix).
      const words = ['cd', process.cwd(), '&&', 'exec', 'env', ...passedEnv().map(([k, v]) => `${k}=${v}`), process.execPath, ...nodeCmd, ...control];
      const [cmd, ...agentArgs] = agent.split(/\s+/).filter(Boolean);
      child = spawn(cmd, [...agentArgs, placed[n].host, ...words.map((w) => (w === '&&' ? w : shellQuote(w)))], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...o.env } });
    }
    children.push(child);
    if (!placed) attach(n, ipcChildLink<NodeMessage, object>(child));
    else {
      // The secret travels on standard input (never on a command line); keeping the pipe
      // open lets the node notice when the launcher (or its ssh) is gone.
      child.stdin?.on('error', () => undefined);
      child.stdin?.write(`${secret}\n`);
    }
    // A node that cannot start is a failure; a message to a node whose IPC channel is
    // closing (it is exiting) is not (its 'close' tells whether it ended well).
    child.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE' || e.code === 'ERR_IPC_CHANNEL_CLOSED') return;
      onFailure(-1, remote[n] ? `${describe(n)}: the launch agent '${agent}' could not be started: ${e.message}` : `node ${n} could not be started or reached: ${e.message}`);
    });
    const tail = (l: string): void => {
      tails[n].push(l);
      if (tails[n].length > TAIL_LINES) tails[n].shift();
    };
    if (child.stdout) readLines(child.stdout, (l) => emit('stdout', l), true);
    if (child.stderr) readLines(child.stderr, (l) => (tail(l), emit('stderr', l)), true);
    // 'close' waits for the output pipes, which a process the agent left behind (an
    // orphan of ssh) may hold open: after the agent's exit, give them a moment, then
    // stop reading.
    child.on('exit', () => {
      const t = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
      }, STDIO_GRACE_MS);
      child.once('close', () => clearTimeout(t));
    });
    exits.push(
      new Promise<void>((resolve) => {
        child.on('close', (code, signal) => {
          if (!done[n] && !failure) {
            const how = signal ? `killed by ${signal}` : `exit code ${code}`;
            if (placed && !links[n]) {
              const said = tails[n].length ? `: ${tails[n].join(' | ')}` : '';
              const by = remote[n] ? `the launch agent (${agent}) ended with ${how}` : `it ended with ${how}`;
              onFailure(-1, `${describe(n)} did not start: ${by} before the node connected back${said}`);
            } else onFailure(-1, `${describe(n)} died: ${how} before its ranks finished`);
          }
          resolve();
        });
      }),
    );
  }
  const startup = placed
    ? setTimeout(() => {
        const missing = links.map((l, n) => (l ? -1 : n)).filter((n) => n >= 0);
        if (missing.length === 0) return;
        const said = o.ring
          ? ` (see the daemon logs coll-daemon-${o.ring.id}-*.log in ${tmpdir()})`
          : missing.map((n) => (tails[n].length ? ` [${placed[n].host}: ${tails[n].join(' | ')}]` : '')).join('');
        onFailure(-1, `${missing.map(describe).join(', ')} did not connect back within ${startupTimeoutMs / 1000} s (host unreachable or slow to start?)${said}`);
      }, startupTimeoutMs)
    : undefined;
  const timer =
    o.jobTimeoutMs !== undefined
      ? setTimeout(() => {
          timedOut = true;
          onFailure(-1, `job timed out after ${o.jobTimeoutMs} ms; killed`);
        }, o.jobTimeoutMs)
      : undefined;
  await Promise.all(exits);
  stopCheckpointTimer();
  if (timer) clearTimeout(timer);
  if (startup) clearTimeout(startup);
  server?.close();
  process.off('exit', killAll);
  const exitCode = timedOut ? 124 : failure ? (failure.exitCode ?? 1) : 0;
  const timeline = traceSink?.finish(exitCode);
  const report = combineReports({
    ranks: o.ranks,
    nodeCount: nodes,
    exitCode,
    initMs,
    connectedMs: connectMs.every((v) => v >= 0) ? Math.max(...connectMs) : 0,
    wallMs: performance.now() - t0,
    reports: nodeReports,
    startup: { scheme: job.startup, launcher: exchange.counters },
    ...(placed
      ? {
          launch: {
            agent: o.ring ? `daemon ring ${o.ring.id}` : agent,
            ...(ringLaunch ? { ring: ringLaunch } : {}),
            hosts: placed.map((p, n) => ({ host: p.host, node: n, ranks: [job.firstRank[n], job.firstRank[n + 1] - 1] as const, remote: remote[n] })),
            connectMs,
            controlRejected: server?.rejected ?? 0,
          },
        }
      : {}),
  });
  return {
    exitCode,
    stdout: out.length ? `${out.join('\n')}\n` : '',
    stderr: err.length ? `${err.join('\n')}\n` : '',
    ...(failure ? { failure } : {}),
    pids: children.map((c) => c.pid ?? -1),
    report:
      timeline && traceSink && trace
        ? {
            ...report,
            trace: {
              spans: timeline.otherData.spans,
              dropped: timeline.otherData.dropped,
              limit: trace.limit,
              threads: traceSink.threads,
              ...(traceFile !== undefined ? { file: traceFile } : {}),
            },
          }
        : report,
    ...(timeline?.trace ? { trace: timeline.trace } : {}),
  };
}

/** The job's tracing settings (undefined: off): its time origin now, and the spans kept per thread. */
function traceSettings(t: LaunchOptions['trace'], vars: Readonly<Record<string, string | undefined>>): TraceSettings | undefined {
  if (t === undefined || t === false) return undefined;
  const env = vars.COLL_TRACE_LIMIT;
  const limit = (typeof t === 'object' ? t.limit : undefined) ?? (env !== undefined && env !== '' ? Number(env) : DEFAULT_TRACE_LIMIT);
  checkIntRange(typeof t === 'object' && t.limit !== undefined ? 'trace limit' : 'COLL_TRACE_LIMIT', limit, 1, 1e9);
  return { origin: performance.timeOrigin + performance.now(), limit };
}
