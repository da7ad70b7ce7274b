/**
 * Entry point of a node process (started by the launcher, one per node). It
 * allocates the node's shared memory (control block and arena), starts the network
 * proxy when the job spans several nodes, runs one worker thread per local rank (and,
 * when a rank first offloads, the node's offload engine thread), and
 * forwards each rank's output line by line with a `[rank] ` prefix.
 *
 * Launcher protocol (messages on the control channel: IPC when the launcher spawned
 * this process, TCP from another host; see launch/control.ts):
 *   launcher → node  { type: 'start', spec: NodeSpec }
 *   node → launcher  { type: 'endpoints', … }               (multi-node jobs: the start-up
 *   launcher → node  { type: 'peers' | 'ring', … }           exchange, launch/startup)
 *   node → launcher  { type: 'failed', rank, reason }        (first rank failure)
 *   node → launcher  { type: 'output', stream, text }        (ranks' output, when a daemon
 *                                                             started the node: --output control)
 *   node → launcher  { type: 'trace', trace }               (`coll run --trace`: a piece of one
 *                                                             thread's spans, exec/trace.ts)
 *   node → launcher  { type: 'done' }                        (every rank returned)
 * If the launcher goes away (IPC disconnect, or the TCP control connection or standard
 * input closing) the node exits at once, taking its rank threads with it: no orphans.
 *
 * Under a cluster launcher (mpirun, mpiexec, srun) there is no `coll run`: the protocol
 * is served by the launcher's key-value store (task-control.ts). This module then runs
 * either as the main module of `coll node -r K` (a task with K rank threads), or as the
 * node agent thread of a task whose main thread is its only rank (task.ts).
 */
import { parentPort, workerData, type Worker, type WorkerOptions } from 'node:worker_threads';
import { startWorker as startThread } from './tsx-loader.js';
import { shmBlockBytes, initShmBlock } from './shm-collectives.js';
import { ABORT_KEY, TRACE_KEY, WORKER_KEY, worldShmSlotBytes, nodeOfRank, placement, type NodeSpec, type RankSpec } from '../exec/config.js';
import { encodeTraceChunks, type RawTrace } from '../exec/trace.js';
import { DEFAULT_FLAGS } from './rank-runtime.js';
import { arenaMemory } from '../exec/simd.js';
import { notifyIfSleeping, signalAbort, waitAsync } from '../transport/shm/layout.js';
import { ExitBoard } from './exit-board.js';
import { nodeLayout } from '../offload/engine/node-layout.js';
import { readPathCounters } from './path-counters.js';
import { helperNice, lowerHelperThreads } from './helper-priority.js';
import { COUNTER_WORDS, ENGINE_KEY, START_WORD, STOP_WORD, type EngineSpec } from '../offload/engine/spec.js';
import type { NodeReport } from './job-report.js';
import { NodeProxy } from '../transport/proxy.js';
import { addressText, TcpDevice, type PeerAddress, type TcpCounters } from '../transport/tcp/device.js';
import { DirectTable } from '../transport/tcp/direct.js';
import { AdaptiveLink, type ConnectionCounters } from '../transport/connections.js';
import { DatagramPath, parseDatagramFault } from '../transport/udp/datagram-path.js';
import { MpiSession } from '../transport/mpi/binding.js';
import { MpiLink } from '../transport/mpi/link.js';
import { McastAgent } from '../transport/mcast/agent.js';
import { CHECKPOINT_KEY, nodeCheckpoint, type CheckpointCounters } from './checkpoint.js';
import { jobMcastGroup, parseMcastFaults, parseMcastGroup, parseMcastOptions } from '../transport/mcast/options.js';
import { isIPv4 } from 'node:net';
import { pairKey, type PairIds } from '../transport/tcp/endpoint-ids.js';
import { exchangeEndpoints, type NodeExchangeCounters } from '../launch/startup/node-exchange.js';
import type { ExchangeReply } from '../launch/startup/schemes.js';
import { connectControl, ipcNodeLink, type ControlLink } from '../launch/control.js';
import { firstLine } from '../launch/lines.js';
import { signalReady, TASK_KEY, TASK_NODE, type TaskData } from './task.js';
import { openTaskControl } from './task-control.js';

type LauncherMessage = { type: 'start'; spec: NodeSpec } | ExchangeReply | { type: 'exited'; rank: number } | { type: 'checkpoint-due'; seq: number };

/** Set when a cluster launcher started the job: this is the node agent thread of a task (task.ts). */
const task = (workerData as Record<string, TaskData | undefined> | null)?.[TASK_KEY];
/** Set by `coll node`: this process is one task of a cluster launcher, with rank threads. */
const taskNode = (globalThis as Record<symbol, Pick<TaskData, 'launch' | 'spec'> | undefined>)[TASK_NODE];
const { link, localAddress, secret } = task ? await openTask(task) : taskNode ? await openTask(taskNode) : await openControl();

function send(msg: object, then?: () => void): void {
  link.send(msg, then);
}

/** Messages that arrived before anyone waited for them (the TCP link delivers in one go). */
const inbox: LauncherMessage[] = [];
const waiters: ((m: LauncherMessage) => boolean)[] = [];
/** Ranks of other nodes that returned, relayed by the launcher (handled once the exit board exists). */
const exits: { handle?: (rank: number) => void } = {};
const earlyExits: number[] = [];
/** The number of the launcher's latest checkpoint request (the ranks' next comm.checkpoint() takes it if it is new). */
const checkpointDue = new SharedArrayBuffer(4);
/** Each local rank's checkpoint counters, as it last sent them (runtime/checkpoint.ts). */
const checkpointCounters = new Map<number, CheckpointCounters>();
/** The spans of this node's rank threads and engine, as each ended (`coll run --trace`). */
const traces: RawTrace[] = [];
link.onMessage((m) => {
  if (m.type === 'exited') return exits.handle ? exits.handle(m.rank) : void earlyExits.push(m.rank);
  if (m.type === 'checkpoint-due') return void Atomics.store(new Int32Array(checkpointDue), 0, m.seq);
  const i = waiters.findIndex((w) => w(m));
  if (i >= 0) waiters.splice(i, 1);
  else inbox.push(m);
});

function waitMessage<T extends LauncherMessage['type']>(...types: T[]): Promise<Extract<LauncherMessage, { type: T }>> {
  const wanted = (m: LauncherMessage): m is Extract<LauncherMessage, { type: T }> => (types as string[]).includes(m.type);
  return new Promise((resolve) => {
    const i = inbox.findIndex(wanted);
    if (i >= 0) return resolve(inbox.splice(i, 1)[0] as Extract<LauncherMessage, { type: T }>);
    waiters.push((m) => wanted(m) && (resolve(m), true));
  });
}

/** Set once 'done' is sent: the launcher then closes the channel, and that is the normal end. */
let finishing = false;
// The launcher is gone: exit at once, taking the rank threads along (no orphans).
link.onClose(() => process.exit(finishing ? 0 : 1));
/** A TCP control channel (a node on another host, or started by a daemon). */
const tcpControl = !task && !taskNode && !process.send;
/** Started by a daemon (`--output control`): the ranks' output goes over the control channel (output()). */
const outputOverControl = process.argv.includes('--output') && process.argv[process.argv.indexOf('--output') + 1] === 'control';

/**
 * The control channel: IPC when the launcher spawned this process on its machine;
 * TCP when it was started on another host (`node-main --control HOST:PORT,… --node N
 * --job ID`, the job secret as the first line of standard input, whose end — the
 * launcher or its ssh gone — also ends the node).
 */
async function openControl(): Promise<{ link: ControlLink<LauncherMessage, object>; localAddress?: string; secret?: string }> {
  if (process.send) return { link: ipcNodeLink<LauncherMessage, object>() };
  const arg = (name: string): string => {
    const i = process.argv.indexOf(`--${name}`);
    const v = i >= 0 ? process.argv[i + 1] : undefined;
    if (v === undefined) throw new Error(`node-main: --${name} is missing (it is started by coll run, not by hand)`);
    return v;
  };
  const key = await firstLine(process.stdin, 'the job secret (node-main)');
  process.stdin.on('end', () => process.exit(1));
  process.stdin.resume();
  const c = await connectControl(arg('control').split(','), arg('job'), Number(arg('node')), key);
  return { link: c.link as ControlLink<LauncherMessage, object>, localAddress: c.localAddress, secret: key };
}

/** A task's agent: the launcher protocol served by the launcher's key-value store. */
async function openTask(t: Pick<TaskData, 'launch' | 'spec'> & { ready?: SharedArrayBuffer }): Promise<{ link: ControlLink<LauncherMessage, object>; localAddress?: string; secret?: string }> {
  const failed = (e: unknown): void => {
    const err = e as { message?: string; hint?: string };
    const text = `${err.message ?? String(e)}${err.hint ? ` (${err.hint})` : ''}`;
    if (t.ready) signalReady(t.ready, text);
    else {
      process.stderr.write(`coll: node ${t.spec.node} could not join the ${t.launch.launcher} job: ${text}\n`);
      process.exit(1);
    }
  };
  try {
    const c = await openTaskControl<LauncherMessage, { type: string }>(t, failed);
    return { link: c.link as ControlLink<LauncherMessage, object>, localAddress: c.localAddress, secret: c.secret };
  } catch (e) {
    failed(e);
    throw e;
  }
}

const start = await waitMessage('start');
// Over TCP the secret is not in the start message (it came on standard input), and
// 'auto' binds the node's TCP server to the address its control connection left from.
const spec: NodeSpec = {
  ...start.spec,
  secret: secret ?? start.spec.secret,
  bindHost: start.spec.bindHost === 'auto' ? (localAddress ?? '127.0.0.1') : start.spec.bindHost,
};
const node = spec.node;
const first = spec.firstRank[node];
const localSize = spec.firstRank[node + 1] - first;
const nl = nodeLayout({ localSize, engine: spec.engine, ringBytes: spec.ringBytes, flagsPerEndpoint: DEFAULT_FLAGS, jobSize: spec.size });
// Before any rank thread exists: V8's helper threads yield the cores to the ranks (helper-priority.ts).
const helperPriority = { nice: helperNice(), lowered: 0 };
helperPriority.lowered = lowerHelperThreads(helperPriority.nice);
const layout = nl.layout;
const control = task ? task.control : new SharedArrayBuffer(nl.controlBytes);
const exitBoard = new ExitBoard(new Int32Array(control), nl.exitBoard);
/** Mark a returned rank (of this node, or relayed by the launcher) and wake every endpoint to look. */
function rankExited(rank: number): void {
  if (!exitBoard.mark(rank)) return;
  const i32 = new Int32Array(control);
  for (let e = 0; e < nl.layout.endpoints; e++) notifyIfSleeping(i32, nl.layout, e);
  // A node whose ranks have all returned acknowledges datagrams only until it closes.
  const peer = nodeOfRank(spec.firstRank, rank);
  if (peer !== node && datagramPath && allReturned(peer)) datagramPath.finished(peer);
}
/** Whether every rank of the job has returned (this node's, and the others' as the launcher relays them). */
function jobReturned(): boolean {
  for (let n = 0; n < spec.nodeCount; n++) if (!allReturned(n)) return false;
  return true;
}
/** Whether every rank of node `n` has returned from its program. */
function allReturned(n: number): boolean {
  for (let r = spec.firstRank[n]; r < spec.firstRank[n + 1]; r++) if (!exitBoard.exited(r)) return false;
  return true;
}
let datagramPath: DatagramPath | undefined;
exits.handle = rankExited;
for (const r of earlyExits.splice(0)) rankExited(r);
const memory = task ? task.memory : arenaMemory(spec.arenaBytes);
const arena = memory.buffer as SharedArrayBuffer;
let worldShmOffset = -1;
let arenaReserved = 0;
if (spec.nodeCount === 1 && spec.size > 1) {
  worldShmOffset = 0;
  const slotBytes = worldShmSlotBytes(spec.size, spec.arenaBytes);
  arenaReserved = Math.ceil(shmBlockBytes(spec.size, slotBytes) / 64) * 64;
  initShmBlock(arena, 0, spec.size);
}

let failed = false;
/**
 * `network`: a consequence of another node's trouble (the launcher looks for a dead node
 * first); `exitCode`: the job's exit code (comm.abort(code)), default 1.
 */
function fail(rank: number, reason: string, network = false, exitCode?: number): void {
  if (failed) return;
  failed = true;
  signalAbort(control, layout, rank, reason);
  send({ type: 'failed', rank, reason, network, exitCode });
  // The launcher kills every node; exit on our own if it does not (at once under a
  // cluster launcher, which ends the job when a task exits non-zero).
  setTimeout(() => process.exit(1), taskNode ? 300 : 3000).unref();
}

/** How long a failed connection waits for the launcher's word that the peer's ranks have all returned. */
const EXIT_WORD_MS = 750;

/**
 * A connection to another node failed. When every rank of that node has returned from
 * its program, the node has simply finished and the failure means a message for it
 * that no rank will receive: warn, drop it, and let any rank still waiting on those
 * ranks fail through its exit-board check, which names them ("rank 3 failed: returned
 * from its program while world rank 0 still waits for it in send to 3, tag 7").
 * Otherwise it is a network failure of the job (the launcher looks for a dead node first).
 */
function connectionFailed(e: Error, lost: { peer: number; frames: number; bytes: number } | undefined): void {
  if (lost === undefined) return fail(first, `network failure: ${e.message}`, true);
  const ranks = Array.from({ length: spec.firstRank[lost.peer + 1] - spec.firstRank[lost.peer] }, (_, i) => spec.firstRank[lost.peer] + i);
  const until = Date.now() + EXIT_WORD_MS;
  const decide = (): void => {
    if (allReturned(lost.peer)) {
      if (lost.frames > 0) {
        const who = ranks.length === 1 ? `rank ${ranks[0]}` : `ranks ${ranks[0]}–${ranks[ranks.length - 1]}`;
        process.stderr.write(
          `coll: node ${node}: ${lost.frames} message(s) (${lost.bytes} bytes) for node ${lost.peer} not delivered: ${who} had already returned (a send with no matching receive?)\n`,
        );
      }
      return;
    }
    if (Date.now() >= until) return fail(first, `network failure: ${e.message}`, true);
    setTimeout(decide, 25);
  };
  decide();
}

/** COLL_TCP_RESET=node:frames (tests): that node resets its connections after sending `frames` frames. */
function injectedReset(me: number): number | undefined {
  const v = process.env.COLL_TCP_RESET;
  if (!v) return undefined;
  const m = /^(\d+):(\d+)$/.exec(v);
  if (!m) throw new Error(`COLL_TCP_RESET must be node:frames (e.g. 1:100), got '${v}'`);
  return Number(m[1]) === me ? Number(m[2]) : undefined;
}

/**
 * The node's TCP server and its datagram path on the same port number (UDP and TCP
 * ports are separate spaces), so the one address of the start-up exchange serves
 * both; when the UDP port is taken, both try again on a new port.
 */
async function listenBoth(tcp: () => TcpDevice, datagram: () => DatagramPath): Promise<{ tcp: TcpDevice; datagram: DatagramPath; address: PeerAddress }> {
  for (let attempt = 1; ; attempt++) {
    const t = tcp();
    const address = await t.listen();
    const d = datagram();
    try {
      await d.listen(address.port);
      return { tcp: t, datagram: d, address };
    } catch (e) {
      d.abort('port taken');
      await t.close();
      if (attempt >= 20) throw new Error(`no port free for both TCP and UDP after ${attempt} tries: ${(e as Error).message}`);
    }
  }
}

let proxy: NodeProxy | undefined;
let mcastAgent: McastAgent | undefined;
let mcastOptions: RankSpec['multicast'];
/** Why this multi-node job runs without multicast (undefined: it has it, or it was turned off). */
let mcastWhyNot: string | undefined;
let startup: NodeExchangeCounters | undefined;
let listenedOn: string | undefined;
let device: TcpDevice | undefined;
let nodeLink: AdaptiveLink | undefined;
/**
 * Rank threads write their small frames to other nodes themselves (transport/tcp/
 * direct.ts); COLL_DIRECT=0 sends everything through the proxy.
 */
const viaMpi = spec.nodeCount > 1 && spec.transport === 'mpi';
const direct = spec.nodeCount > 1 && !viaMpi && process.env.COLL_DIRECT !== '0' ? DirectTable.create(spec.nodeCount) : undefined;
/** Time start() took to make the policy's initial connections, ms. */
let connectMs = 0;
/** The node link over the launcher's MPI library (transport/mpi), on the MPI transport. */
let mpiLink: MpiLink | undefined;
if (viaMpi) {
  const { nodeOf, localIndexOf } = placement(spec, node);
  try {
    if (!spec.mpiFlavour) throw new Error('the MPI transport was chosen without an MPI flavour');
    mpiLink = new MpiLink(await MpiSession.open(spec.mpiFlavour), spec.nodeCount);
  } catch (e) {
    if (task) signalReady(task.ready, `the MPI transport could not start: ${(e as Error).message}`);
    throw e;
  }
  proxy = new NodeProxy({ control, arena, layout, nodeOf, localIndexOf, link: mpiLink, spinMs: spec.proxySpinMs, onError: (e) => fail(first, e.message) });
  proxy.start();
} else if (spec.nodeCount > 1) {
  const { nodeOf, localIndexOf } = placement(spec, node);
  const secret = Buffer.from(spec.secret, 'hex');
  let gotIds!: (ids: PairIds) => void;
  const ids = new Promise<PairIds>((resolve) => (gotIds = resolve));
  const listened = await listenBoth(
    () =>
      new TcpDevice({
        node,
        secret,
        bindHost: spec.bindHost,
        onError: (e, lost) => connectionFailed(e, lost),
        resetAfterFrames: injectedReset(node),
        direct,
      }),
    () =>
      new DatagramPath({
        node,
        secret,
        bindHost: spec.bindHost,
        // Datagrams authenticate with their own key per pair, derived like the connections'.
        keyFor: async (peer) => pairKey(secret, node, peer, await ids, 'udp'),
        fault: parseDatagramFault(process.env.COLL_UDP_FAULT),
        onError: (e, lost) => connectionFailed(e, lost),
      }),
  ).catch((e: Error) => {
    if (task) signalReady(task.ready, `cannot listen on ${spec.bindHost}: ${e.message} (set COLL_BIND to an address of this host)`);
    throw e;
  });
  device = listened.tcp;
  const datagrams = listened.datagram;
  datagramPath = datagrams;
  const address = listened.address;
  listenedOn = addressText(address);
  const exchanged = await exchangeEndpoints({
    scheme: spec.startup,
    node,
    nodes: spec.nodeCount,
    address,
    secret: Buffer.from(spec.secret, 'hex'),
    bindHost: spec.bindHost,
    send,
    reply: () => waitMessage('peers', 'ring'),
  }).catch((e: Error) => {
    if (task) signalReady(task.ready, `the start-up exchange failed: ${e.message}`);
    fail(first, `start-up exchange (${spec.startup}) failed: ${e.message}`, true);
    // Wait for the launcher to end the job (fail() has told it why), at most a moment.
    return new Promise<never>(() => setTimeout(() => process.exit(1), 3000));
  });
  startup = exchanged.counters;
  device.setPeers(exchanged.addresses, exchanged.ids);
  // Every node's datagram path listens on its TCP port number (listenBoth).
  datagrams.setPeers(exchanged.addresses);
  gotIds(exchanged.ids);
  nodeLink = new AdaptiveLink({
    node,
    nodes: spec.nodeCount,
    policy: spec.connections.policy,
    // The spec crossed a JSON channel, which writes Infinity ('inf': never) as null.
    threshold: spec.connections.threshold ?? Infinity,
    byteThreshold: spec.connections.byteThreshold ?? Infinity,
    datagram: datagrams,
    tcp: device,
    onError: (e) => connectionFailed(e, undefined),
  });
  proxy = new NodeProxy({ control, arena, layout, nodeOf, localIndexOf, link: nodeLink, spinMs: spec.proxySpinMs, onError: (e) => fail(first, e.message) });
  proxy.start();
  const t0 = performance.now();
  await nodeLink.start();
  connectMs = performance.now() - t0;
  // Not under a cluster launcher's tasks: nothing relays the ranks' returns there, and a
  // node must serve rebroadcasts until every rank of the job has returned.
  if (!task && !taskNode) await openMulticast(nodeLink, proxy, nodeOf, secret);
}

/**
 * The node's multicast agent (transport/mcast; COLL_MCAST, on by default), joined on the
 * node's own address (loopback for nodes on one host) or COLL_MCAST_IFACE. Where the
 * group cannot be joined the job runs without it ({ algorithm: 'multicast' } then sends
 * point to point) and the report says why. Bad settings fail the node.
 */
async function openMulticast(link: AdaptiveLink, p: NodeProxy, nodeOf: Int32Array, secret: Buffer): Promise<void> {
  try {
    const options = parseMcastOptions(process.env.COLL_MCAST);
    if (options === undefined) return;
    const group = process.env.COLL_MCAST_GROUP ? parseMcastGroup(process.env.COLL_MCAST_GROUP) : jobMcastGroup(secret);
    const iface = process.env.COLL_MCAST_IFACE ?? (isIPv4(spec.bindHost) ? spec.bindHost : '127.0.0.1');
    const faults = parseMcastFaults(process.env.COLL_MCAST_FAULTS);
    mcastAgent = await McastAgent.open({
      node, nodeOf, options, group, iface, secret, faults, link,
      deliver: (h, payload) => p.deliverFrame(h, payload),
      onError: (e) => fail(first, e.message, true),
    });
    mcastOptions = options;
    p.attachMulticast(mcastAgent);
  } catch (e) {
    const err = e as Error & { hint?: string };
    if (err.name === 'ArgumentError') {
      if (task) signalReady(task.ready, err.message);
      fail(first, `${err.message}${err.hint ? ` (${err.hint})` : ''}`);
      throw e;
    }
    mcastWhyNot = `the multicast group could not be joined: ${err.message}`;
  }
}
// A task's rank (the process's main thread) waits for this before init() returns.
if (task) signalReady(task.ready);

const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
const workerUrl = new URL(`./worker-main.${ext}`, import.meta.url);

// The offload engine: one more thread with its own endpoint and arena slice, started
// when a rank of the node first needs it (it sets the start word), so that jobs that
// never offload do not pay for its start-up.
let engine: { worker: Worker; exited: Promise<void> } | undefined;
function startEngine(): void {
  if (engine || failed) return;
  const engineSpec: EngineSpec = { job: spec, node, control, arena, arenaReserved, flagsPerEndpoint: DEFAULT_FLAGS };
  const worker = startWorker(new URL(`../offload/engine/engine-main.${ext}`, import.meta.url), { workerData: { [ENGINE_KEY]: engineSpec }, stdout: false, stderr: false });
  const exited = new Promise<void>((resolve) => {
    worker.on('error', (e: unknown) => {
      const err = e as { stack?: string; message?: string } | undefined;
      fail(-1, `the offload engine of node ${node} failed: ${err?.stack ?? err?.message ?? String(e)}`);
    });
    worker.on('exit', () => resolve());
    worker.on('message', (m: unknown) => {
      const t = (m as Record<string, RawTrace | undefined> | null)?.[TRACE_KEY];
      if (t) traces.push(t);
    });
  });
  engine = { worker, exited };
}
let engineRequest: { cancel(): void } | undefined;
if (spec.engine) {
  const i32 = new Int32Array(control);
  const word = START_WORD(nl);
  const w = waitAsync(i32, word, 0);
  if (!w.async) startEngine();
  else {
    let cancelled = false;
    engineRequest = { cancel: () => (cancelled = true) };
    void w.value.then(() => {
      if (!cancelled) startEngine();
    });
  }
}

const finished: Promise<void>[] = [];
const online: Promise<void>[] = [];
// A task's only rank is the process's main thread: it has returned when its event loop
// emptied and task.ts asks the agent to finish.
if (task) finished.push(new Promise<void>((resolve) => parentPort?.on('message', (m: { type?: string }) => m.type === 'finish' && resolve())));
for (let l = 0; l < (task ? 0 : localSize); l++) {
  const rank = first + l;
  const rankSpec: RankSpec = {
    job: spec,
    node,
    worldRank: rank,
    localRank: l,
    localSize,
    control,
    arena,
    memory,
    worldShmOffset,
    arenaReserved,
    flagsPerEndpoint: DEFAULT_FLAGS,
    ...(direct ? { direct: direct.sab } : {}),
    ...(mcastOptions ? { multicast: mcastOptions } : {}),
    checkpointDue,
  };
  const w = startWorker(workerUrl, {
    workerData: { [WORKER_KEY]: rankSpec },
    stdout: true,
    stderr: true,
    env: { ...process.env, COLL_RANK: String(rank), COLL_SIZE: String(spec.size) },
  });
  online.push(new Promise<void>((resolve) => w.once('online', () => resolve())));
  const outDone = prefixLines(w.stdout, output('stdout'), `[${rank}] `);
  const errDone = prefixLines(w.stderr, output('stderr'), `[${rank}] `);
  finished.push(
    new Promise<void>((resolve) => {
      w.on('error', (e: unknown) => {
        const err = e as { stack?: string; message?: string } | undefined;
        fail(rank, err?.stack ?? err?.message ?? String(e));
      });
      w.on('message', (m: unknown) => {
        const a = (m as Record<string, { code: number; reason: string } | undefined> | null)?.[ABORT_KEY];
        if (a) fail(rank, a.reason, false, a.code);
        const c = (m as Record<string, CheckpointCounters | undefined> | null)?.[CHECKPOINT_KEY];
        if (c) checkpointCounters.set(rank, c);
        const t = (m as Record<string, RawTrace | undefined> | null)?.[TRACE_KEY];
        if (t) traces.push(t);
      });
      w.on('exit', (code) => {
        if (code !== 0) fail(rank, `exited with code ${code}`);
        else {
          // The rank's program returned: peers still waiting for it fail fast (exit-board.ts).
          rankExited(rank);
          send({ type: 'exited', rank });
        }
        void Promise.all([outDone, errDone]).then(() => resolve());
      });
    }),
  );
}

let startMs = 0;
let startRssMb = 0;
void Promise.all(online).then(() => {
  startMs = performance.now();
  startRssMb = process.memoryUsage.rss() / 2 ** 20;
  send({ type: 'started' });
});
await Promise.all(finished);
if ((engine || mcastAgent?.used()) && spec.nodeCount > 1 && !task && !taskNode) {
  // The engine keeps answering its peers until every rank of the job has returned: a
  // peer still in a collective may need it to repeat an acknowledgement that was lost
  // (the engines' protocols retransmit over lossy links, COLL_ENGINE_LOSS), which it
  // cannot once it has stopped. The multicast agent likewise: a root returns once its
  // broadcast is buffered (seed 003 B5), and its node must still rebroadcast what a peer
  // NACKs. coll run relays every rank's return, so this ends; under a cluster launcher
  // nothing relays them, and the node stops at once as before.
  while (!failed && !jobReturned()) await new Promise((r) => setTimeout(r, 5));
}
engineRequest?.cancel();
if (spec.engine) Atomics.notify(new Int32Array(control), START_WORD(nl)); // settle the pending waitAsync
if (engine) {
  // Ask the engine to finish (it completes nothing more: every rank has returned) and exit.
  const i32 = new Int32Array(control);
  Atomics.store(i32, STOP_WORD(nl), 1);
  Atomics.add(i32, layout.bellIndex(nl.engineEndpoint), 1);
  Atomics.notify(i32, layout.bellIndex(nl.engineEndpoint));
  const kill = setTimeout(() => void engine?.worker.terminate(), 2000);
  await engine.exited;
  clearTimeout(kill);
}
if (!failed) {
  mcastAgent?.close();
  await proxy?.stop();
  finishing = true;
  // The spans first, in pieces the control channel carries comfortably (the same channel, so before 'done').
  for (const t of traces) for (const piece of encodeTraceChunks(t)) send({ type: 'trace', trace: piece });
  // Exit once the launcher has the message (IPC sends are asynchronous). Over TCP, wait
  // for the launcher to close the channel: exiting with its last messages unread would
  // reset the connection, and a reset can cost the launcher the unread 'done' itself.
  send({ type: 'done', report: nodeReport() }, () => (tcpControl ? setTimeout(() => process.exit(0), 3000) : process.exit(0)));
}

/** The device's counters with the frames rank threads wrote to its connections themselves. */
function withDirect(c: TcpCounters): TcpCounters & { directFramesSent: number } {
  const d = direct?.written() ?? { frames: 0, bytes: 0 };
  return { ...c, framesSent: c.framesSent + d.frames, bytesSent: c.bytesSent + d.bytes, directFramesSent: d.frames };
}

/** The link's per-peer traffic plus the messages its rank threads wrote to each peer themselves. */
function withDirectTraffic<C extends ConnectionCounters>(c: C): C {
  if (!direct) return c;
  const table = direct;
  return {
    ...c,
    traffic: c.traffic.map((t) => {
      const d = table.writtenTo(t.peer);
      return { ...t, messagesSent: t.messagesSent + d.messages, bytesSent: t.bytesSent + d.bytes };
    }),
  };
}

/** This node's part of the job report (job-report.ts). */
function nodeReport(): NodeReport {
  const i32 = new Int32Array(control);
  const w = engine ? COUNTER_WORDS(nl) : undefined;
  return {
    node,
    ranks: [first, first + localSize - 1],
    startMs: Math.round(startMs * 10) / 10,
    startRssMb: Math.round(startRssMb * 10) / 10,
    wallMs: Math.round(performance.now() * 10) / 10,
    ...(listenedOn !== undefined ? { address: listenedOn } : {}),
    ...(device ? { tcp: withDirect(device.counters()) } : {}),
    ...(nodeLink ? { connections: withDirectTraffic({ ...nodeLink.counters(), connectMs: Math.round(connectMs * 10) / 10 }) } : {}),
    ...(mpiLink ? { mpi: mpiLink.counters() } : {}),
    ...(mcastAgent ? { multicast: mcastAgent.report() } : {}),
    ...(mcastWhyNot ? { multicastUnavailable: mcastWhyNot } : {}),
    ...(checkpointCounters.size > 0 ? { checkpoint: nodeCheckpoint([...checkpointCounters.values()]) } : {}),
    ...(startup ? { startup } : {}),
    paths: readPathCounters(control, nl, localSize),
    ...(spec.trace !== undefined ? { trace: { threads: traces.length, spans: traces.reduce((s, t) => s + t.count, 0), dropped: traces.reduce((s, t) => s + t.dropped, 0) } } : {}),
    helperThreads: helperPriority,
    ...(w ? { engine: { collectives: Atomics.load(i32, w.completed), framesSent: Atomics.load(i32, w.framesSent), framesDropped: Atomics.load(i32, w.framesDropped) } } : {}),
  };
}

/** A thread of this node (a rank or the engine), with the job's TypeScript loader if any. */
function startWorker(url: URL, options: WorkerOptions): Worker {
  return startThread(url, spec.workerLoader, options);
}

/**
 * Where the ranks' output goes: this process's stdout/stderr (the launcher, or ssh,
 * reads them), or, for a node a daemon started (`--output control`), the control
 * channel as { type: 'output', stream, text } messages, ahead of 'done' on the same link.
 */
function output(stream: 'stdout' | 'stderr'): (text: string) => void {
  if (outputOverControl) return (text) => send({ type: 'output', stream, text });
  const out = stream === 'stdout' ? process.stdout : process.stderr;
  return (text) => void out.write(text);
}

/** Copy a stream to `out` line by line with a prefix; resolves at its end. */
function prefixLines(input: NodeJS.ReadableStream, out: (text: string) => void, prefix: string): Promise<void> {
  return new Promise((resolve) => {
    let partial = '';
    input.setEncoding('utf8');
    input.on('data', (chunk: string) => {
      const text = partial + chunk;
      const lines = text.split('\n');
      partial = lines.pop() ?? '';
      if (lines.length > 0) out(lines.map((l) => `${prefix}${l}\n`).join(''));
    });
    input.on('end', () => {
      if (partial) out(`${prefix}${partial}\n`);
      resolve();
    });
  });
}
