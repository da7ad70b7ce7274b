/**
 * What the launcher tells a node process and what a node process tells its rank
 * threads: job shape, placement, transport sizes and defaults. Plain data (it
 * crosses the IPC channel and worker_threads' structured clone).
 */
import type { McastOptions } from '../transport/mcast/options.js';
import { workerData } from 'node:worker_threads';
import type { SharedMemory } from './simd.js';
import type { StartupScheme } from '../launch/startup/schemes.js';
import type { ConnectionSettings } from '../transport/connections.js';
import type { MpiFlavour, TransportName } from '../transport/mpi/binding.js';
import type { TraceSettings } from './trace.js';

/** What the launcher tells the ranks about checkpoints (runtime/checkpoint.ts). */
export interface CheckpointSpec {
  /** Where checkpoints are written (shared by every host of the job). */
  readonly dir: string;
  /** Complete checkpoints kept (default 2). */
  readonly keep: number;
  /** The complete checkpoint this run restarts from (its directory and epoch), if any. */
  readonly restart?: { readonly dir: string; readonly epoch: number };
}

export interface JobSpec {
  readonly jobId: string;
  /** Total ranks. */
  readonly size: number;
  readonly nodeCount: number;
  /** firstRank[i] = first world rank of node i; firstRank[nodeCount] = size (block placement). */
  readonly firstRank: readonly number[];
  /** Absolute path of the user program. */
  readonly program: string;
  readonly args: readonly string[];
  /** Address the nodes' TCP servers bind to. */
  readonly bindHost: string;
  readonly arenaBytes: number;
  readonly ringBytes: number;
  readonly debug: boolean;
  /** Default collective timeout (ms); 0 = none. */
  readonly timeoutMs: number;
  /** Microseconds a waiting rank polls before it parks. */
  readonly spin: number;
  /** How long a node's proxy keeps polling after traffic before it sleeps (ms). */
  readonly proxySpinMs: number;
  /** Whether every node runs an offload engine thread (see src/offload/engine). */
  readonly engine: boolean;
  /** Microseconds the offload engine polls after work before it parks. */
  readonly engineSpin: number;
  /** How the nodes exchange their endpoints at start-up (launch/startup/schemes.ts). */
  readonly startup: StartupScheme;
  /** When node pairs get a TCP connection (transport/connections.ts); before it, datagrams. */
  readonly connections: ConnectionSettings;
  /** How nodes talk: TCP (the default) or the MPI library of the launcher (transport/mpi; jobs started by mpirun/mpiexec). */
  readonly transport?: TransportName;
  /** The MPI binding's flavour when `transport` is 'mpi'. */
  readonly mpiFlavour?: MpiFlavour;
  /** Module to preload with --import in node processes (tsx), if any. */
  readonly loader: string | undefined;
  /** Module whose register() installs the same loader in rank threads (tsx/esm/api), if any. */
  readonly workerLoader: string | undefined;
  /** Checkpoints (runtime/checkpoint.ts): where, how many kept, and the one this run restarts from. */
  readonly checkpoint?: CheckpointSpec;
  /** Span recording (`coll run --trace`, exec/trace.ts): the job's time origin and the spans kept per thread; absent: off. */
  readonly trace?: TraceSettings;
}

/**
 * Header phases of the flat shared-memory collective block (shm-collectives.ts): call c
 * publishes in header phase c mod SHM_PHASES, so an eager rank runs up to SHM_PHASES − 1
 * small calls ahead of a reader (a power of two).
 */
export const SHM_PHASES = 64;
/**
 * Largest slot write of one rank (bytes) that travels in the header slot itself: such
 * "small" calls use the SHM_PHASES-deep ring; larger ones use the big slots.
 */
export const SHM_SMALL_BYTES = 1024;
/**
 * Data phases of the big slots (writes above SHM_SMALL_BYTES): call c writes big data
 * phase c mod SHM_DATA_PHASES, so a big eager write runs up to SHM_DATA_PHASES − 1 calls
 * ahead (a power of two dividing SHM_PHASES).
 */
export const SHM_DATA_PHASES = 8;
/**
 * Slot size of the flat shared-memory collective block (shm-collectives.ts) of
 * communicators made by split and dup: calls whose per-rank slot write fits take the
 * flat path. Each such communicator keeps SHM_DATA_PHASES·(size + 1) such slots (and
 * SHM_PHASES·(size + 1) small ones) of the node arena.
 */
export const SHM_SLOT_BYTES = 4096;
/**
 * Largest block (one rank's contribution, the MPI count × element size) that takes the
 * flat path on a communicator with big slots: up to 64 KiB the flat path beats the
 * schedules, whose first calls at a new size also pay for compiling and planning
 * (docs/benchmarks.md).
 */
export const SHM_BLOCK_LIMIT = 65536;

/**
 * Slot size for big-slot blocks (the world's, and sub-communicators' when rank 0's arena
 * slice has room): P blocks of SHM_BLOCK_LIMIT, so that scatter, alltoall and
 * reduce_scatter, whose ranks write all P blocks, take the flat path up to 64 KiB per
 * block too; at most `budget` bytes for the whole block, never under SHM_SLOT_BYTES
 * (blocks beyond the slots take direct mode).
 */
export function bigSlotBytes(size: number, budget: number): number {
  const fit = Math.floor((budget - SHM_PHASES * (size + 1) * (SHM_SMALL_BYTES + 64)) / (SHM_DATA_PHASES * (size + 1)) / 4096) * 4096 - 4096;
  return Math.max(SHM_SLOT_BYTES, Math.min(SHM_BLOCK_LIMIT * size, fit));
}

/** Slot size of the world communicator's block (one-node jobs; reserved at the start of the arena, at most an eighth of it). */
export function worldShmSlotBytes(size: number, arenaBytes: number): number {
  return bigSlotBytes(size, arenaBytes / 8);
}

export interface NodeSpec extends JobSpec {
  readonly node: number;
  /** Hex secret every TCP connection between nodes must prove knowledge of. */
  readonly secret: string;
}

/** What a rank thread receives as workerData (under WORKER_KEY). */
export interface RankSpec {
  readonly job: JobSpec;
  readonly node: number;
  readonly worldRank: number;
  readonly localRank: number;
  readonly localSize: number;
  readonly control: SharedArrayBuffer;
  /** The node arena: the buffer of `memory` (a shared WebAssembly.Memory, for the SIMD kernels). */
  readonly arena: SharedArrayBuffer;
  readonly memory?: SharedMemory;
  /** Arena offset of the world communicator's flat collective block (-1: none). */
  readonly worldShmOffset: number;
  /** Bytes at the start of the arena reserved before the per-endpoint slices. */
  readonly arenaReserved: number;
  readonly flagsPerEndpoint: number;
  /** The node's direct-write table (transport/tcp/direct.ts) on a multi-node job. */
  readonly direct?: SharedArrayBuffer;
  /** The node process runs a multicast agent (transport/mcast) with these settings: broadcasts may multicast. */
  readonly multicast?: McastOptions;
  /** Int32 word the node process raises when the launcher says a checkpoint is due (runtime/checkpoint.ts). */
  readonly checkpointDue?: SharedArrayBuffer;
}

export const WORKER_KEY = '__collectivesRank';
/** Key of the message a rank thread posts to its node process when it calls comm.abort(). */
export const ABORT_KEY = '__collectivesAbort';
/** Key of the message with a thread's recorded spans (exec/trace.ts), posted by a rank or engine thread as it ends. */
export const TRACE_KEY = '__collectivesTrace';

/** The rank spec when this thread is a rank started by the launcher, else undefined. */
export function launchedSpec(): RankSpec | undefined {
  const d = workerData as Record<string, unknown> | null | undefined;
  return d && typeof d === 'object' && WORKER_KEY in d ? (d[WORKER_KEY] as RankSpec) : undefined;
}

/**
 * Transport address of the offload engine of `node`: engines are addressed like
 * ranks, with ids after the world ranks (size + node).
 */
export function engineAddress(job: Pick<JobSpec, 'size'>, node: number): number {
  return job.size + node;
}

/**
 * Placement of every transport address (world ranks, then engines) seen from `node`:
 * its node, and its endpoint index on `node` (-1 elsewhere). Endpoints of a node are
 * its ranks by local rank, then its engine (when the job runs engines).
 */
export function placement(job: Pick<JobSpec, 'size' | 'nodeCount' | 'firstRank' | 'engine'>, node: number): { nodeOf: Int32Array; localIndexOf: Int32Array } {
  const n = job.size + (job.engine ? job.nodeCount : 0);
  const nodeOf = new Int32Array(n);
  const localIndexOf = new Int32Array(n).fill(-1);
  const first = job.firstRank[node];
  for (let r = 0; r < job.size; r++) {
    nodeOf[r] = nodeOfRank(job.firstRank, r);
    if (nodeOf[r] === node) localIndexOf[r] = r - first;
  }
  if (job.engine) {
    for (let k = 0; k < job.nodeCount; k++) nodeOf[job.size + k] = k;
    localIndexOf[job.size + node] = job.firstRank[node + 1] - first;
  }
  return { nodeOf, localIndexOf };
}

/** Which node a world rank lives on (block placement). */
export function nodeOfRank(firstRank: readonly number[], rank: number): number {
  let lo = 0;
  let hi = firstRank.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (firstRank[mid] <= rank) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Split `ranks` over `nodes` as evenly as possible (the first nodes get one more). */
export function blockPlacement(ranks: number, nodes: number): number[] {
  const first = [0];
  for (let i = 0; i < nodes; i++) first.push(first[i] + Math.floor(ranks / nodes) + (i < ranks % nodes ? 1 : 0));
  return first;
}
