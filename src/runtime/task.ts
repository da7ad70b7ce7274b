/**
 * A rank started as a task of a cluster launcher (`mpirun -np 4 node prog.js`,
 * `mpiexec`, `srun`): the process's main thread is the rank, and each task is a node of
 * its own (Node.js cannot map one SharedArrayBuffer into several processes, so tasks on
 * one host talk over loopback TCP; `coll run` inside an allocation keeps the ranks of a
 * host in one process instead). init() calls taskSpec(), which allocates the node's
 * shared memory, starts the node agent (node-main.ts in a worker thread: the launcher's
 * key-value store for the secret and the peers' addresses, the TCP device and proxy,
 * the offload engine on demand) and blocks until the agent is connected.
 *
 * When the program's event loop empties, the rank has returned: the agent flushes what
 * is in flight, closes its connections and ends, and the process exits (an explicit
 * process.exit() skips this, as exiting without MPI_Finalize would).
 */
import { isMainThread } from 'node:worker_threads';
import { ArgumentError, TransportError } from '../core/errors.js';
import { type NodeSpec, type RankSpec } from '../exec/config.js';
import { arenaMemory } from '../exec/simd.js';
import { detectLaunch, type ExternalLaunch } from '../launch/external.js';
import { nodeLayout } from '../offload/engine/node-layout.js';
import { DEFAULT_FLAGS, DEFAULT_RING_BYTES, defaultEngineSpin, defaultProxySpinMs, defaultSpin } from './rank-runtime.js';
import { startWorker, tsxLoader } from './tsx-loader.js';
import { DEFAULT_STARTUP_MS } from './task-control.js';
import { DEFAULT_STARTUP, parseStartupScheme } from '../launch/startup/schemes.js';
import { connectionSettings } from '../transport/connections.js';
import { chooseTransport, prepareMpiEnvironment, type TransportRequest } from '../transport/mpi/binding.js';

/** workerData key of the agent's task description. */
export const TASK_KEY = '__collectivesTask';
/** Global under which `coll node` hands its task to node-main.ts, imported in the same process. */
export const TASK_NODE = Symbol.for('collectives.taskNode');

export interface TaskData {
  readonly spec: NodeSpec;
  readonly launch: ExternalLaunch;
  readonly control: SharedArrayBuffer;
  readonly memory: ReturnType<typeof arenaMemory>;
  /** [state (0 starting, 1 ready, 2 failed), message length, message bytes…]. */
  readonly ready: SharedArrayBuffer;
}

const READY_BYTES = 8 + 4096;
/** The agent ends the job after the start-up timeout; this thread waits a little longer. */
const STARTUP_GRACE_MS = 15_000;

/**
 * The node spec of launcher task `launch.rank` when every task runs `ranksPerNode`
 * ranks (1: the task is the rank; more: `coll node -r K`, the task is a node process
 * with K rank threads). Task t holds ranks t·K … t·K+K−1.
 */
export function taskNodeSpec(
  launch: ExternalLaunch,
  ranksPerNode: number,
  program: string,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
  transport?: TransportRequest,
): NodeSpec {
  const selfTs = import.meta.url.endsWith('.ts');
  const loader = selfTs || /\.(m|c)?ts$/.test(program) ? tsxLoader(program) : undefined;
  const size = launch.size * ranksPerNode;
  const arenaMb = Number(env.COLL_ARENA_MB) || (ranksPerNode > 1 ? 256 : 64);
  // Threads on this host: each task's ranks and its proxy (or agent).
  const threads = launch.localSize * (ranksPerNode + 1);
  return {
    jobId: launch.jobKey.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 64),
    size,
    nodeCount: launch.size,
    firstRank: Array.from({ length: launch.size + 1 }, (_, i) => i * ranksPerNode),
    program,
    args: [...args],
    // Tasks all on this host talk over loopback; otherwise the agent picks the address.
    bindHost: env.COLL_BIND ?? (launch.localSize === launch.size ? '127.0.0.1' : 'auto'),
    arenaBytes: arenaMb * 1024 * 1024,
    ringBytes: DEFAULT_RING_BYTES,
    debug: env.COLL_DEBUG === '1',
    timeoutMs: 0,
    spin: defaultSpin(threads, env),
    proxySpinMs: defaultProxySpinMs(threads, env),
    engine: env.COLL_ENGINE !== '0',
    startup: env.COLL_STARTUP ? parseStartupScheme(env.COLL_STARTUP, 'COLL_STARTUP') : DEFAULT_STARTUP,
    engineSpin: defaultEngineSpin(threads + launch.localSize, env),
    connections: connectionSettings({}, env),
    ...chooseTransport(transport, env),
    loader: loader?.process,
    workerLoader: loader?.worker,
    node: launch.rank,
    secret: '',
  };
}

/** The rank spec of a launcher task, or undefined when no launcher started this process. */
export function taskSpec(env: Readonly<Record<string, string | undefined>> = process.env, transport?: TransportRequest): RankSpec | undefined {
  if (!isMainThread) return undefined;
  const launch = detectLaunch(env);
  if (!launch) return undefined;
  const spec = taskNodeSpec(launch, 1, process.argv[1] ?? '', process.argv.slice(2), env, transport);
  if (spec.transport === 'mpi') prepareMpiEnvironment();
  const job = spec;
  const nl = nodeLayout({ localSize: 1, engine: job.engine, ringBytes: job.ringBytes, flagsPerEndpoint: DEFAULT_FLAGS, jobSize: job.size });
  const control = new SharedArrayBuffer(nl.controlBytes);
  const memory = arenaMemory(job.arenaBytes);
  const ready = new SharedArrayBuffer(READY_BYTES);
  const data: TaskData = { spec, launch, control, memory, ready };
  const url = new URL(`./node-main.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url);
  const agent = startWorker(url, spec.workerLoader, { workerData: { [TASK_KEY]: data } });
  agent.on('error', (e: Error) => process.stderr.write(`coll: rank ${launch.rank}: the node agent failed: ${e.stack ?? e.message}\n`));
  const state = new Int32Array(ready);
  const startupMs = Number(env.COLL_STARTUP_TIMEOUT_MS) || DEFAULT_STARTUP_MS;
  if (Atomics.wait(state, 0, 0, startupMs + STARTUP_GRACE_MS) === 'timed-out') {
    void agent.terminate();
    throw new TransportError(
      `rank ${launch.rank} of ${launch.size} (${launch.launcher}): the other tasks did not all arrive within ${startupMs / 1000} s (a fence of the launcher's key-value store never completed)`,
    );
  }
  if (Atomics.load(state, 0) === 2) {
    const text = new TextDecoder().decode(new Uint8Array(ready, 8, Atomics.load(state, 1)).slice());
    void agent.terminate();
    throw new ArgumentError(`rank ${launch.rank} of ${launch.size} (${launch.launcher}) could not join the job: ${text}`);
  }
  // The agent must not keep the process alive on its own; when the program is done,
  // ask it to finish (flush, close) and let it end.
  agent.unref();
  let finishing = false;
  process.on('beforeExit', () => {
    if (finishing) return;
    finishing = true;
    agent.ref();
    agent.postMessage({ type: 'finish' });
  });
  return {
    job,
    node: launch.rank,
    worldRank: launch.rank,
    localRank: 0,
    localSize: 1,
    control,
    arena: memory.buffer as SharedArrayBuffer,
    memory,
    worldShmOffset: -1,
    arenaReserved: 0,
    flagsPerEndpoint: DEFAULT_FLAGS,
  };
}

/** The agent's side: report that the node is connected (1) or why it could not be (2). */
export function signalReady(ready: SharedArrayBuffer, error?: string): void {
  const state = new Int32Array(ready);
  if (Atomics.load(state, 0) !== 0) return;
  if (error !== undefined) {
    const bytes = new TextEncoder().encode(error).slice(0, READY_BYTES - 8);
    new Uint8Array(ready, 8).set(bytes);
    Atomics.store(state, 1, bytes.length);
  }
  Atomics.store(state, 0, error === undefined ? 1 : 2);
  Atomics.notify(state, 0);
}
