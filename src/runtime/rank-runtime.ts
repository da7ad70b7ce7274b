/**
 * Per-thread runtime state of a rank: its endpoint and progress engine, its slice of
 * the node arena (for `comm.alloc` and scratch buffers), the context-id counter for
 * new communicators, and the placement of every world rank.
 *
 * Outside a launched job (a program started with plain `node`), `singletonSpec()`
 * builds a one-rank world in this thread, like an MPI singleton.
 */
import { Checkpointer } from './checkpoint.js';
import { availableParallelism } from 'node:os';
import { ArenaAllocator, arenaSlice } from '../transport/shm/arena.js';
import { ShmEndpoint } from '../transport/shm/endpoint.js';
import { DirectTable } from '../transport/tcp/direct.js';
import { makeLayout, type Layout } from '../transport/shm/layout.js';
import { nodeLayout, type NodeLayout } from '../offload/engine/node-layout.js';
import { PathCounterLine } from './path-counters.js';
import type { EngineLayout } from '../offload/engine/doorbell.js';
import { placement, TRACE_KEY, type JobSpec, type RankSpec } from '../exec/config.js';
import { DEFAULT_STARTUP } from '../launch/startup/schemes.js';
import { ExitBoard } from './exit-board.js';
import { Engine } from './engine.js';
import { ArenaSimd, arenaMemory } from '../exec/simd.js';
import { noiseFromEnv, type NoiseInjector } from './noise.js';
import type { OffloadClient } from './offload-client.js';
import { DEFAULT_CONNECTIONS } from '../transport/connections.js';
import { MpiCollectives } from '../transport/mpi/collectives.js';
import type { MpiFlavour } from '../transport/mpi/binding.js';
import { Tracer } from '../exec/trace.js';
import { parentPort } from 'node:worker_threads';

export const DEFAULT_RING_BYTES = 256 * 1024;
export const DEFAULT_FLAGS = 1024;

export class RankRuntime {
  readonly spec: RankSpec;
  readonly layout: Layout;
  readonly endpoint: ShmEndpoint;
  readonly engine: Engine;
  readonly allocator: ArenaAllocator;
  readonly arena: SharedArrayBuffer;
  /** SIMD sum kernels over the arena (undefined without WebAssembly SIMD). */
  readonly simd: ArenaSimd | undefined;
  /**
   * How long (µs) a rank polls for its engine's completion before it parks. Default 0:
   * the rank has nothing to progress, and parking at once frees its core and shields the
   * collective from noise on it (the point of offloading; measured in
   * docs/offload-experiments.md). COLL_OFFLOAD_SPIN_US trades CPU for latency.
   */
  readonly offloadSpinUs: number;
  /** The rank's link to its node's offload engine, created on first use. */
  offload: OffloadClient | undefined;
  /** Counter of the communicators this rank leads (names their context ids, see Communicator.split). */
  nextContext = 1;
  /** Node of each transport address (world ranks, then engines). */
  readonly nodeOf: Int32Array;
  readonly nodeLayout: NodeLayout;
  /** Posting slots of this node's offload engine (undefined: the job runs without engines). */
  readonly engineLayout: EngineLayout | undefined;
  /** Noise injected into this rank thread (COLL_NOISE), if any. */
  readonly noise: NoiseInjector | undefined;
  /** Which path this rank's collective calls took (the job report's `paths`). */
  readonly paths: PathCounterLine;
  /** Checkpoints of this rank (comm.checkpoint, comm.restored; runtime/checkpoint.ts). */
  readonly checkpointer: Checkpointer;
  /** Why MPI's own collectives ({ algorithm: 'mpi' }) cannot run in this job; undefined: they can. */
  readonly mpiWhyNot: string | undefined;
  /** This rank's span recorder (`coll run --trace`); undefined when tracing is off. */
  readonly trace: Tracer | undefined;
  private mpiColl: MpiCollectives | undefined;

  constructor(spec: RankSpec) {
    this.spec = spec;
    const job = spec.job;
    const nl = nodeLayout({ localSize: spec.localSize, engine: job.engine, ringBytes: job.ringBytes, flagsPerEndpoint: spec.flagsPerEndpoint, jobSize: job.size });
    this.layout = nl.layout;
    this.engineLayout = nl.engine;
    this.nodeLayout = nl;
    this.paths = new PathCounterLine(spec.control, nl, spec.localRank);
    // One JS object for the arena everywhere: buffer identity tells arena views apart.
    this.arena = (spec.memory?.buffer as SharedArrayBuffer | undefined) ?? spec.arena;
    this.simd = ArenaSimd.create(spec.memory);
    const { nodeOf, localIndexOf } = placement(job, spec.node);
    this.nodeOf = nodeOf;
    this.endpoint = new ShmEndpoint({
      control: spec.control,
      arena: this.arena,
      layout: this.layout,
      local: spec.localRank,
      worldRank: spec.worldRank,
      localIndexOf,
      multiNode: job.nodeCount > 1,
      direct: spec.direct && job.nodeCount > 1 ? { table: new DirectTable(spec.direct, job.nodeCount), nodeOf } : undefined,
      multicast: spec.multicast,
    });
    this.noise = noiseFromEnv(spec.worldRank);
    this.trace = job.trace !== undefined ? new Tracer(spec.worldRank, 'host', job.trace) : undefined;
    if (this.trace !== undefined && parentPort !== null) {
      // The spans go to the node process as the thread ends (it forwards them to the launcher).
      const tracer = this.trace;
      const port = parentPort;
      process.once('exit', () => port.postMessage({ [TRACE_KEY]: tracer.raw() }));
    }
    const os = Number(process.env.COLL_OFFLOAD_SPIN_US);
    this.offloadSpinUs = process.env.COLL_OFFLOAD_SPIN_US && Number.isFinite(os) ? Math.max(0, os) : 0;
    this.engine = new Engine(this.endpoint, job.spin, this.noise);
    this.engine.exits = new ExitBoard(new Int32Array(spec.control), nl.exitBoard);
    // One slice per rank and one for the engine (the proxy forwards from their memory and allocates none).
    const slice = arenaSlice(this.arena.byteLength - spec.arenaReserved, nl.arenaSlices, spec.localRank);
    this.allocator = new ArenaAllocator(this.arena, spec.arenaReserved + slice.start, slice.bytes);
    this.mpiWhyNot =
      job.transport !== 'mpi' || job.mpiFlavour === undefined
        ? 'this job does not run on the MPI transport (start it with mpirun/mpiexec where the MPI binding is built, or coll run --transport mpi)'
        : job.size !== job.nodeCount
          ? `this job runs ${job.size} ranks in ${job.nodeCount} MPI processes: MPI's collectives need one rank per process (mpirun -np N node prog.js, or coll run --transport mpi with -n equal to --nodes)`
          : undefined;
    // Last: a restart queues the saved messages into the endpoint before the program runs.
    this.checkpointer = new Checkpointer(this, job.checkpoint, spec.checkpointDue, job.program);
  }

  /** MPI's collectives in this thread (loaded on first use; only where mpiWhyNot is undefined). */
  mpiCollectives(): MpiCollectives {
    this.mpiColl ??= new MpiCollectives(this.spec.job.mpiFlavour as MpiFlavour);
    return this.mpiColl;
  }

  /** The MPI mirror of a communicator being freed, if it has one. */
  freeMpiComm(context: number): void {
    this.mpiColl?.free(context);
  }

  /** Bytes of scratch: from the arena when it has room (zero-copy sends), else private memory. */
  allocScratch(bytes: number): Uint8Array {
    return this.allocator.scratch(bytes);
  }

  freeScratch(v: Uint8Array): void {
    this.allocator.release(v);
  }
}

/**
 * Spin budget: how long (µs) a waiting rank polls before parking. Long enough for
 * the round trips of a busy collective when every busy thread of the job (ranks, and
 * proxies of multi-node jobs) can have a core; none when they outnumber the cores,
 * where a spinning thread only delays the one it waits for. COLL_SPIN_US overrides.
 */
export function defaultSpin(threadsOnHost: number, vars: Readonly<Record<string, string | undefined>> = process.env): number {
  const env = vars.COLL_SPIN_US;
  if (env !== undefined && env !== '' && Number.isFinite(Number(env))) return Math.max(0, Number(env));
  return threadsOnHost <= availableParallelism() ? 200 : 0;
}

/** Offload engine polling after work (µs): only when there are cores to spare. COLL_ENGINE_SPIN_US overrides. */
export function defaultEngineSpin(threadsOnHost: number, vars: Readonly<Record<string, string | undefined>> = process.env): number {
  const env = vars.COLL_ENGINE_SPIN_US;
  if (env !== undefined && env !== '' && Number.isFinite(Number(env))) return Math.max(0, Number(env));
  return threadsOnHost <= availableParallelism() ? 200 : 0;
}

/** Proxy polling after traffic (ms): only when there are cores to spare. COLL_PROXY_SPIN_MS overrides. */
export function defaultProxySpinMs(threadsOnHost: number, vars: Readonly<Record<string, string | undefined>> = process.env): number {
  const env = vars.COLL_PROXY_SPIN_MS;
  if (env !== undefined && env !== '' && Number.isFinite(Number(env))) return Math.max(0, Number(env));
  return threadsOnHost <= availableParallelism() ? 2 : 0;
}

/** A one-rank world in this thread (no launcher). */
export function singletonSpec(o: { arenaBytes?: number; debug?: boolean; timeoutMs?: number }): RankSpec {
  const job: JobSpec = {
    jobId: 'singleton',
    startup: DEFAULT_STARTUP,
    size: 1,
    nodeCount: 1,
    firstRank: [0, 1],
    program: process.argv[1] ?? '',
    args: process.argv.slice(2),
    bindHost: '127.0.0.1',
    arenaBytes: o.arenaBytes ?? 64 * 1024 * 1024,
    ringBytes: 4096,
    debug: o.debug ?? false,
    timeoutMs: o.timeoutMs ?? 0,
    spin: defaultSpin(1),
    proxySpinMs: 0,
    engine: false,
    engineSpin: 0,
    connections: DEFAULT_CONNECTIONS,
    loader: undefined,
    workerLoader: undefined,
  };
  const layout = makeLayout({ localSize: 1, ringBytes: job.ringBytes, flagsPerEndpoint: 16 });
  const memory = arenaMemory(job.arenaBytes);
  return {
    job,
    node: 0,
    worldRank: 0,
    localRank: 0,
    localSize: 1,
    control: new SharedArrayBuffer(layout.totalBytes),
    arena: memory.buffer as SharedArrayBuffer,
    memory,
    worldShmOffset: -1,
    arenaReserved: 0,
    flagsPerEndpoint: 16,
  };
}
