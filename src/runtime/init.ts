/**
 * init(): the entry point of a rank program. Inside a job started by `coll run` /
 * launch() it connects the rank thread to its node's shared memory and returns the
 * world communicator; in a process started by a cluster launcher (mpirun, mpiexec,
 * srun: task.ts) it joins the launcher's job through its key-value store; in a program
 * started with plain `node` it returns a one-rank world (an MPI singleton). Calling it
 * again returns the same communicator.
 *
 * Defaults for the world (and communicators split from it): debug mode from
 * init({ debug }) or COLL_DEBUG=1 (or `coll run --debug`), collective timeout from
 * init({ timeoutMs }) or COLL_TIMEOUT_MS (default 10 minutes; 0 = none),
 * reproducible mode from init({ reproducible }) or COLL_REPRODUCIBLE=1,
 * execution mode from init({ mode }) or COLL_MODE (host, offload, intermediate).
 */
import { ArgumentError } from '../core/errors.js';
import { checkTimeout, Communicator, EXECUTION_MODES, type ExecutionMode } from './communicator.js';
import { launchedSpec, SHM_BLOCK_LIMIT, worldShmSlotBytes } from '../exec/config.js';
import { RankRuntime, singletonSpec } from './rank-runtime.js';
import { taskSpec } from './task.js';
import { parseTransport, type TransportRequest } from '../transport/mpi/binding.js';

export interface InitOptions {
  /** Check that every collective call agrees across ranks (MismatchError instead of a hang). */
  debug?: boolean;
  /** Rank-order reductions by default on every communicator. */
  reproducible?: boolean;
  /** Default timeout of blocking and nonblocking operations (ms); 0 = none. */
  timeoutMs?: number;
  /**
   * Execution mode of the world's collectives: 'host' (default), 'offload' or
   * 'intermediate' (see Communicator.setMode); COLL_MODE sets it too.
   */
  mode?: ExecutionMode;
  /**
   * How the nodes of a job started by mpirun/mpiexec talk: 'mpi' (the launcher's MPI
   * library, its fabric), 'tcp', or 'auto' (the default: MPI where its binding is
   * built); COLL_TRANSPORT sets it too. Jobs started by `coll run` choose it with
   * `coll run --transport`.
   */
  transport?: TransportRequest;
}

export const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;

const WORLD = Symbol.for('collectives.world');

type Holder = { [WORLD]?: Communicator };

/** The rank spec of this thread when it was started by the runtime. */

function envFlag(name: string): boolean | undefined {
  const v = process.env[name];
  return v === undefined || v === '' ? undefined : v !== '0' && v.toLowerCase() !== 'false';
}

function envNumber(name: string): number | undefined {
  const v = process.env[name];
  return v === undefined || v === '' || !Number.isFinite(Number(v)) ? undefined : Number(v);
}

function envMode(): ExecutionMode | undefined {
  const v = process.env.COLL_MODE;
  if (v === undefined || v === '') return undefined;
  if (!(EXECUTION_MODES as readonly string[]).includes(v)) throw new ArgumentError(`COLL_MODE '${v}' is not an execution mode`, `use one of: ${EXECUTION_MODES.join(', ')}`);
  return v as ExecutionMode;
}

/** The world communicator of this rank. */
export function init(o: InitOptions = {}): Communicator {
  const holder = globalThis as Holder;
  const existing = holder[WORLD];
  if (existing) return existing;
  if (o.transport !== undefined) parseTransport(o.transport, 'init({ transport })');
  const launched = launchedSpec();
  if (launched && o.transport === 'mpi' && launched.job.transport !== 'mpi') {
    throw new ArgumentError("init({ transport: 'mpi' }) in a job that coll run started over TCP", 'start it with coll run --transport mpi, or under mpirun/mpiexec');
  }
  const spec = launched ?? taskSpec(process.env, o.transport) ?? singletonSpec({});
  const rt = new RankRuntime(spec);
  const job = spec.job;
  if (o.timeoutMs !== undefined) checkTimeout(o.timeoutMs, 'init({ timeoutMs })');
  const envTimeout = envNumber('COLL_TIMEOUT_MS');
  if (envTimeout !== undefined) checkTimeout(envTimeout, 'COLL_TIMEOUT_MS');
  const defaults = {
    debug: o.debug ?? envFlag('COLL_DEBUG') ?? job.debug,
    reproducible: o.reproducible ?? envFlag('COLL_REPRODUCIBLE') ?? false,
    timeoutMs: o.timeoutMs ?? envTimeout ?? (job.timeoutMs > 0 ? job.timeoutMs : DEFAULT_TIMEOUT_MS),
  };
  const worldOf = Int32Array.from({ length: job.size }, (_, r) => r);
  const world = new Communicator(rt, 0, worldOf, spec.worldRank, defaults, spec.worldShmOffset, worldShmSlotBytes(worldOf.length, rt.arena.byteLength), SHM_BLOCK_LIMIT);
  const mode = o.mode ?? envMode();
  if (mode !== undefined && mode !== 'host') world.setMode(mode);
  holder[WORLD] = world;
  return world;
}
