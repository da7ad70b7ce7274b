/**
 * Communicator: a group of ranks with its own message context, the object every
 * collective and point-to-point call goes through (MPI_Comm).
 *
 *   const comm = init();
 *   const sum = comm.allreduce(new Float64Array([comm.rank]));   // in place, returns the buffer
 *   comm.allreduce(x, y, { op: 'max', algorithm: 'ring' });
 *   await comm.iallgather(mine, all);                              // nonblocking
 *   const half = comm.split(comm.rank % 2);
 *
 * Buffers are typed arrays (the datatype is inferred) or byte views with an explicit
 * `datatype` (pair types). Counts are MPI counts: the vector length for bcast,
 * reduce and allreduce, one rank's block for allgather, gather, scatter,
 * reduce-scatter and alltoall. Without `recvbuf`, allreduce and reduce (at the root)
 * work in place: the result replaces sendbuf.
 *
 * Collectives on a communicator must be called in the same order by all its ranks,
 * with matching arguments; blocking and nonblocking calls do not match each other.
 * Debug mode (COLL_DEBUG=1, init({ debug }), or per call) checks this and raises
 * MismatchError on every rank instead of hanging.
 */
import v8 from 'node:v8';
import { datatype as lookupDatatype, datatypeOf, type Datatype, type DatatypeName, type PairTypeName } from '../core/datatypes.js';
import { ArgumentError, MismatchError, checkIntRange } from '../core/errors.js';
import { op as lookupOp, type Op } from '../core/ops.js';
import type { Params } from '../schedule/context.js';
import { isRooted } from '../schedule/context.js';
import { topologyFromNodes, type Topology } from '../schedule/topology.js';
import type { CollectiveKind } from '../schedule/types.js';
import { ANY, SPACE_COLL, SPACE_CTRL, SPACE_P2P, type RecvOp } from '../transport/types.js';
import { byteView, checkRank, checkTag, countOf, elementsOf, EMPTY, overlaps, region, resolveType, type Buffer } from '../exec/buffers.js';
import type { WaitInfo } from './engine.js';
import { Execution } from '../exec/executor.js';
import { makePlan, planKey, type CallShape, type Phase, type Plan } from '../exec/plan.js';
import { callSignature, type CallSignature } from '../exec/call-signature.js';
import type { RankRuntime } from './rank-runtime.js';
import { Request } from './request.js';
import { initShmBlock, shmBlockBytes, ShmCollectives, type NumberArray, type NumberArrayConstructor } from './shm-collectives.js';
import { OpsTask, OpTask, ProbeTask, Sequence, type Task } from '../exec/task.js';
import { SK_COLLECTIVE, SK_RECV, SK_SEND, type Tracer } from '../exec/trace.js';
import { ENGINE_GRACE_MS, OffloadClient } from './offload-client.js';
import { MpiTask } from './mpi-task.js';
import { ABORT_KEY, bigSlotBytes, launchedSpec, SHM_BLOCK_LIMIT, SHM_SLOT_BYTES } from '../exec/config.js';
import { parentPort } from 'node:worker_threads';
import { checkOffloadable, commNodes, makeNodePlan, offloadRestriction, type CommNodes, type NodePlan } from '../offload/engine/node-plan.js';
import type { BuiltinOpName } from '../core/ops.js';
import { COUNTER_WORDS } from '../offload/engine/spec.js';

export const ANY_SOURCE = -1;
export const ANY_TAG = -1;

/** Options of split and dup. */
export interface SplitOptions {
  /** Give up the exchange and set-up after this many milliseconds (TimeoutError); default: the communicator's. */
  timeoutMs?: number;
}

export interface CallOptions {
  /** Give up after this many milliseconds (TimeoutError naming the missing ranks); 0 = never. */
  timeoutMs?: number;
  /** Element type; inferred from typed arrays, required for pair types and byte buffers. */
  datatype?: DatatypeName;
  /** Elements (per rank, MPI-style); defaults to what the buffers hold. */
  count?: number;
}

/** Options of sendrecv (MPI_Sendrecv). */
export interface SendrecvOptions {
  /** Tag of the message sent (default 0). */
  sendTag?: number;
  /** Tag to receive (default ANY_TAG). */
  recvTag?: number;
  timeoutMs?: number;
}

/** Options of the vector collectives (gatherv, scatterv, allgatherv). */
export interface VectorOptions {
  /** The rank that gathers or scatters (default 0; gatherv, scatterv). */
  root?: number;
  /** Element offset of each rank's block in the root's (or every rank's) buffer; default: the counts' prefix sums. */
  displs?: readonly number[];
  /** Element type; inferred from typed arrays. */
  datatype?: DatatypeName;
  timeoutMs?: number;
}

/** Options of alltoallv. */
export interface AlltoallvOptions {
  /** Element offset of the block for each destination in sendbuf; default: prefix sums of sendCounts. */
  sdispls?: readonly number[];
  /** Element offset of the block from each source in recvbuf; default: prefix sums of recvCounts. */
  rdispls?: readonly number[];
  datatype?: DatatypeName;
  timeoutMs?: number;
}

/** Options of the object collectives. */
export interface ObjectOptions {
  /** The rank whose value is broadcast, or that gathers (default 0). */
  root?: number;
  timeoutMs?: number;
}

/**
 * Who executes a collective (seed 000 ch. 3): 'host' — the rank threads run the
 * schedule; 'offload' — the node's offload engine thread combines the node's
 * contributions and runs the inter-node schedule, the ranks only post and wait;
 * 'intermediate' — leaves and the root of the inter-node tree act on the host,
 * interior nodes in the engine (seed 000 §3.3.2).
 */
export type ExecutionMode = 'host' | 'offload' | 'intermediate';

export const EXECUTION_MODES: readonly ExecutionMode[] = ['host', 'offload', 'intermediate'];

export interface CollectiveOptions extends CallOptions {
  /**
   * Execution mode of this call (default: the communicator's, see setMode()). With
   * 'offload'/'intermediate' the algorithm and params name the inter-node schedule.
   */
  mode?: ExecutionMode;
  /** Algorithm of the catalogue (`coll algorithms`); automatic when omitted. */
  algorithm?: string;
  /** Parameters of the named algorithm. */
  params?: Params;
  /** Rank-order reduction, identical whatever the algorithm or size (reductions only). */
  reproducible?: boolean;
  /** Check that all ranks make the same call (MismatchError otherwise). */
  debug?: boolean;
  /** Advanced: generate schedules for this topology (e.g. meshTopology(W, H)) instead of the node layout. */
  topology?: Topology;
}

export interface ReductionOptions extends CollectiveOptions {
  /** Reduction operator: a built-in name ('sum', 'max', ...) or one from defineOp(). Default 'sum'. */
  op?: string | Op;
}

export interface RootOptions extends CollectiveOptions {
  /** Root rank (default 0). */
  root?: number;
}

export type ReduceOptions = ReductionOptions & RootOptions;

export interface CommDefaults {
  /**
   * Execution mode of collectives (default 'host'). With 'offload' or 'intermediate',
   * calls the engine cannot run (gather, scatter, alltoall, reduce-scatter,
   * user-defined or non-commutative operators, reproducible reductions) run on the host.
   */
  mode?: ExecutionMode;
  reproducible: boolean;
  debug: boolean;
  timeoutMs: number;
}

/** Result of a receive. */
export interface Status {
  /** Communicator rank of the sender. */
  readonly source: number;
  readonly tag: number;
  /** Elements received. */
  readonly count: number;
  readonly bytes: number;
}

/** The typed array `comm.alloc(type, n)` returns. */
export type ArrayOf<T extends DatatypeName> = T extends 'float64'
  ? Float64Array
  : T extends 'float32'
    ? Float32Array
    : T extends 'int32'
      ? Int32Array
      : T extends 'uint32'
        ? Uint32Array
        : T extends 'int16'
          ? Int16Array
          : T extends 'uint16'
            ? Uint16Array
            : T extends 'int8'
              ? Int8Array
              : T extends 'int64'
                ? BigInt64Array
                : T extends 'uint64'
                  ? BigUint64Array
                  : T extends 'uint8' | PairTypeName
                    ? Uint8Array
                    : never;

const SETUP_TAG = 0x7ffffffe;
/** Control tag of free()'s synchronisation. */
const FREE_TAG = 0x7ffffffd;

/** One message of a vector collective: to or from `peer` (communicator rank). */
interface Block {
  readonly peer: number;
  readonly data: Uint8Array;
  readonly send: boolean;
}

/** Per-rank element counts: one non-negative integer per rank. */
function checkCounts(name: string, counts: readonly number[], size: number): void {
  if (!Array.isArray(counts) || counts.length !== size) throw new ArgumentError(`${name} must have one count per rank (${size}), got ${Array.isArray(counts) ? counts.length : typeof counts}`);
  counts.forEach((c, r) => checkIntRange(`${name}[${r}]`, c, 0, 0x7fffffff));
}

/** The displacements given (checked), or the counts' prefix sums. */
function displacements(name: string, given: readonly number[] | undefined, counts: readonly number[]): number[] {
  if (given === undefined) {
    let at = 0;
    return counts.map((c) => ((at += c), at - c));
  }
  if (given.length !== counts.length) throw new ArgumentError(`${name} must have one offset per rank (${counts.length}), got ${given.length}`);
  given.forEach((d, r) => checkIntRange(`${name}[${r}]`, d, 0, 0x7fffffff));
  return [...given];
}

/** Elements a buffer must hold for these blocks. */
function spanOf(counts: readonly number[], displs: readonly number[]): number {
  return counts.reduce((m, c, r) => (c > 0 ? Math.max(m, displs[r] + c) : m), 0);
}

function freedError(): ArgumentError {
  return new ArgumentError('this communicator has been freed', 'make a new one with split() or dup() on a communicator still in use');
}
/** Communicators one rank can lead (context = leader's world rank × this + its counter; < 2^31 for 4096 ranks). */
const CONTEXT_COUNTER_LIMIT = 1 << 19;

/** Per-call wait description (built lazily: it is only needed for errors). */
/**
 * How long a multicast collective still waits for a root that has returned (its node
 * delivers the buffered message, rebroadcasting under loss, until fail-over to the tree
 * after 4 × maxfail rebroadcasts: seconds with the default settings); other calls use
 * the engine's 1.5 s.
 */
const MCAST_EXIT_GRACE_MS = 30_000;

class CallInfo implements WaitInfo {
  constructor(
    private readonly kind: string,
    /** Collective sequence number; −1 for point-to-point calls (`kind` then says whom and which tag). */
    private readonly seq: number,
    private readonly comm: Communicator,
    readonly timeoutMs: number,
    readonly deadline: number,
    readonly worldOf: Int32Array,
    readonly hint?: string,
    readonly exitGraceMs?: number,
  ) {}
  get what(): string {
    return `${this.kind}${this.seq >= 0 ? ` #${this.seq}` : ''} on communicator ${this.comm.context} (${this.comm.size} ranks, this is rank ${this.comm.rank})`;
  }
}

interface LastPlan {
  kind: CollectiveKind;
  count: number;
  type: Datatype;
  op: Op | undefined;
  root: number;
  blocking: boolean;
  reproducible: boolean;
  plan: Plan;
}

const MAX_PLANS = 64;
/** Scratch sets up to this size stay allocated with their plan for reuse. */
const SPARE_SCRATCH_BYTES = 256 * 1024;

export class Communicator {
  /** This rank's index in the communicator. */
  readonly rank: number;
  readonly size: number;
  /** Index of this rank's node among the communicator's nodes (in rank order of first appearance). */
  readonly nodeRank: number;
  /** Number of nodes the communicator spans. */
  readonly nodeCount: number;
  /** Index of this rank among the communicator's ranks on its node. */
  readonly localRank: number;
  /** Number of the communicator's ranks on this rank's node. */
  readonly localSize: number;
  /** How the job's node processes talk: 'tcp', or 'mpi' (the MPI transport: `{ algorithm: 'mpi' }` runs MPI's own collectives where each rank is an MPI process). */
  get transport(): 'tcp' | 'mpi' {
    return this.rt.spec.job.transport ?? 'tcp';
  }
  /** Context id: separates this communicator's messages from every other's. */
  readonly context: number;
  /** Node layout of the communicator's ranks (what node-aware algorithms see). */
  readonly topology: Topology;
  /** Defaults for calls on this communicator (reproducible, debug, timeoutMs). */
  readonly defaults: CommDefaults;
  /** @internal World rank of each communicator rank. */
  readonly worldOf: Int32Array;
  private readonly rankOfWorld: Map<number, number>;
  private readonly rt: RankRuntime;
  private shm: ShmCollectives | undefined;
  /** Arena offset of the shared-memory block in rank 0's slice (−1: none, or not rank 0's to free). */
  private readonly shmBlock: number;
  /** Nonblocking collectives not known to be complete (free() completes them first). */
  private live: { readonly settledYet: boolean; wait(): unknown }[] = [];
  private freed = false;
  private seq = 0;
  private readonly plans = new Map<string, Plan>();
  private last: LastPlan | undefined;
  /** Signature of the allreduce lane's last call shape (element type and count). */
  private laneSig: CallSignature | undefined;
  private laneCtor: unknown;
  private nodes: CommNodes | undefined;
  private nodeComm: Communicator | undefined;
  private readonly nodePlans = new Map<string, NodePlan>();

  /** @internal Use init(), split() or dup(). */
  constructor(rt: RankRuntime, context: number, worldOf: Int32Array, rank: number, defaults: CommDefaults, shmOffset: number, shmSlotBytes?: number, shmBlockBytes?: number) {
    this.rt = rt;
    this.context = context;
    this.worldOf = worldOf;
    this.rank = rank;
    this.size = worldOf.length;
    this.defaults = { ...defaults };
    this.rankOfWorld = new Map(Array.from(worldOf, (w, r) => [w, r]));
    const nodeIds = new Map<number, number>();
    const nodeOf = Array.from(worldOf, (w) => {
      const n = rt.nodeOf[w];
      if (!nodeIds.has(n)) nodeIds.set(n, nodeIds.size);
      return nodeIds.get(n) as number;
    });
    this.topology = topologyFromNodes(nodeOf, `${nodeIds.size} node(s): ${nodeOf.join(',')}`);
    this.nodeRank = nodeOf[rank];
    this.nodeCount = nodeIds.size;
    const mine = this.topology.ranksOn(this.nodeRank);
    this.localRank = mine.indexOf(rank);
    this.localSize = mine.length;
    this.shmBlock = rank === 0 && context !== 0 ? shmOffset : -1;
    this.shm =
      shmOffset >= 0
        ? new ShmCollectives(
            rt.arena,
            shmOffset,
            rank,
            this.size,
            worldOf,
            rt.engine,
            (kind, seq, timeoutMs, deadline) => new CallInfo(kind, seq, this, timeoutMs, deadline, this.worldOf),
            { scratch: (bytes) => rt.allocScratch(bytes), release: (v) => rt.freeScratch(v), paths: rt.paths },
            shmSlotBytes,
            shmBlockBytes,
          )
        : undefined;
  }

  /** World rank of communicator rank `r`. */
  worldRank(r: number = this.rank): number {
    checkRank('rank', r, this.size);
    return this.worldOf[r];
  }

  // ------------------------------------------------------------ collectives

  barrier(o?: CollectiveOptions): void {
    this.collective('barrier', EMPTY, EMPTY, false, 0, lookupDatatype('uint8'), undefined, 0, o, true, noResult);
  }

  ibarrier(o?: CollectiveOptions): Request<void> {
    return this.collective('barrier', EMPTY, EMPTY, false, 0, lookupDatatype('uint8'), undefined, 0, o, false, noResult) as Request<void>;
  }

  /** Broadcast `buf` from the root to every rank (in place). */
  bcast<T extends Buffer>(buf: T, o?: RootOptions): T {
    return this.bcastCall(buf, o, true);
  }

  ibcast<T extends Buffer>(buf: T, o?: RootOptions): Request<T> {
    return this.bcastCall(buf, o, false);
  }

  private bcastCall<T extends Buffer>(buf: T, o: RootOptions | undefined, blocking: true): T;
  private bcastCall<T extends Buffer>(buf: T, o: RootOptions | undefined, blocking: false): Request<T>;
  private bcastCall<T extends Buffer>(buf: T, o: RootOptions | undefined, blocking: boolean): T | Request<T> {
    const type = resolveType(o?.datatype, buf);
    const root = this.root(o);
    const count = countOf(o?.count, () => elementsOf('buf', buf, type));
    const b = region('buf', buf, type, count);
    return this.collective('bcast', EMPTY, b, false, count, type, undefined, root, o, blocking, () => buf);
  }

  /** Combine every rank's vector with `op` (default sum) into `recvbuf` at the root. */
  reduce<T extends Buffer>(sendbuf: T, recvbuf?: T | null, o?: ReduceOptions): T | undefined {
    return this.reduceCall(sendbuf, recvbuf, o, true);
  }

  ireduce<T extends Buffer>(sendbuf: T, recvbuf?: T | null, o?: ReduceOptions): Request<T | undefined> {
    return this.reduceCall(sendbuf, recvbuf, o, false);
  }

  private reduceCall<T extends Buffer>(sendbuf: T, recvbuf: T | null | undefined, o: ReduceOptions | undefined, blocking: true): T | undefined;
  private reduceCall<T extends Buffer>(sendbuf: T, recvbuf: T | null | undefined, o: ReduceOptions | undefined, blocking: false): Request<T | undefined>;
  private reduceCall<T extends Buffer>(sendbuf: T, recvbuf: T | null | undefined, o: ReduceOptions | undefined, blocking: boolean): T | undefined | Request<T | undefined> {
    const type = resolveType(o?.datatype, sendbuf);
    const root = this.root(o);
    const count = countOf(o?.count, () => elementsOf('sendbuf', sendbuf, type));
    const isRoot = this.rank === root;
    const out = isRoot ? (recvbuf ?? sendbuf) : undefined;
    const send = region('sendbuf', sendbuf, type, count);
    const recv = isRoot ? region('recvbuf', out, type, count) : EMPTY;
    const inPlace = isRoot && out === sendbuf;
    return this.collective('reduce', send, recv, inPlace, count, type, this.op(o, type), root, o, blocking, () => out);
  }

  /**
   * A coordinated checkpoint of the job (collective over the world communicator; see
   * runtime/checkpoint.ts and docs/runtime.md): returns false at once unless one is due
   * (the launcher's `--checkpoint-every` interval, SIGUSR1 to the launcher, or
   * `{ force: true }`); then drains the channels, saves this rank's `state` (JSON-like
   * values, typed arrays, Map/Set, nested; `comm.alloc` buffers come back as ordinary
   * typed arrays) with the library's own, commits the checkpoint and returns true.
   * Point-to-point receives must not be pending across it.
   */
  checkpoint(state?: unknown, o?: { force?: boolean; timeoutMs?: number }): boolean {
    if (this.freed) throw freedError();
    if (this.context !== 0) throw new ArgumentError('checkpoint() is a call on the world communicator', 'call it on init()\'s communicator; every rank of the job takes part');
    const timeoutMs = timeoutOf(o, this.defaults.timeoutMs);
    return this.rt.checkpointer.take(
      {
        rank: this.rank,
        size: this.size,
        context: this.context,
        worldOf: this.worldOf,
        allreduceMax: (x) => void this.allreduce(x, null, { op: 'max', algorithm: undefined }),
        barrier: () => this.barrier(),
        gatherBytes: (mine, all) => void this.gather(mine, this.rank === 0 ? all : null, { root: 0 }),
        waitInfo: (what) => new CallInfo(what, -1, this, timeoutMs, timeoutMs > 0 ? performance.now() + timeoutMs : Infinity, this.worldOf, 'a rank has not reached comm.checkpoint(): every rank must call it at the same point'),
      },
      state,
      o?.force ?? false,
    );
  }

  /** The state this rank saved in the checkpoint the job restarted from (`coll run --restart`), or undefined on a fresh start. */
  restored<T = unknown>(): T | undefined {
    return this.rt.checkpointer.restored() as T | undefined;
  }

  /** Combine every rank's vector with `op` (default sum); every rank gets the result. Without recvbuf: in place. */
  allreduce<T extends Buffer>(sendbuf: T, recvbuf?: T | null, o?: ReductionOptions): T {
    // Hand-tuned lane for the latency-critical case: small typed-array sums on one node.
    const shm = this.shm;
    if (shm !== undefined && (o === undefined || plainSum(o)) && !this.defaults.debug && (this.defaults.mode ?? 'host') === 'host') {
      const ctor = (sendbuf as ArrayBufferView).constructor;
      const out = recvbuf ?? sendbuf;
      const n = (sendbuf as unknown as NumberArray).length;
      if (NUMBER_ARRAYS.has(ctor) && out.constructor === ctor && n * (sendbuf as unknown as NumberArray).BYTES_PER_ELEMENT <= shm.blockLimit && (out as unknown as NumberArray).length >= n) {
        const seq = this.seq;
        this.seq = (seq + 1) & 0x3fffffff;
        let sig = this.laneSig;
        if (sig === undefined || sig.count !== n || this.laneCtor !== ctor) {
          sig = this.laneSig = callSignature('allreduce', n, datatypeOf(sendbuf as ArrayBufferView), SUM, 0);
          this.laneCtor = ctor;
        }
        const tr = this.rt.trace;
        const t0 = tr === undefined ? 0 : tr.now();
        shm.allreduceSum(sendbuf as unknown as NumberArray, out as unknown as NumberArray, n, ctor as NumberArrayConstructor, sig, seq, timeoutOf(o, this.defaults.timeoutMs));
        if (tr !== undefined) this.traceCall(tr, 'allreduce', 'allreduce/shm_flat', t0, n * (sendbuf as unknown as NumberArray).BYTES_PER_ELEMENT);
        return out;
      }
    }
    return this.allreduceCall(sendbuf, recvbuf, o, true);
  }

  iallreduce<T extends Buffer>(sendbuf: T, recvbuf?: T | null, o?: ReductionOptions): Request<T> {
    return this.allreduceCall(sendbuf, recvbuf, o, false);
  }

  private allreduceCall<T extends Buffer>(sendbuf: T, recvbuf: T | null | undefined, o: ReductionOptions | undefined, blocking: true): T;
  private allreduceCall<T extends Buffer>(sendbuf: T, recvbuf: T | null | undefined, o: ReductionOptions | undefined, blocking: false): Request<T>;
  private allreduceCall<T extends Buffer>(sendbuf: T, recvbuf: T | null | undefined, o: ReductionOptions | undefined, blocking: boolean): T | Request<T> {
    const type = resolveType(o?.datatype, sendbuf);
    const count = countOf(o?.count, () => elementsOf('sendbuf', sendbuf, type));
    const out = recvbuf ?? sendbuf;
    const send = region('sendbuf', sendbuf, type, count);
    const recv = out === sendbuf ? send : region('recvbuf', out, type, count);
    return this.collective('allreduce', send, recv, out === sendbuf, count, type, this.op(o, type), 0, o, blocking, () => out);
  }

  /**
   * Inclusive prefix reduction (MPI_Scan): rank r gets v0 ∘ v1 ∘ … ∘ vr in recvbuf (in
   * place without it), folded in rank order, so non-commutative operators work.
   */
  scan<T extends Buffer>(sendbuf: T, recvbuf?: T | null, o?: ReductionOptions): T {
    return this.prefixCall('scan', sendbuf, recvbuf, o, true);
  }

  iscan<T extends Buffer>(sendbuf: T, recvbuf?: T | null, o?: ReductionOptions): Request<T> {
    return this.prefixCall('scan', sendbuf, recvbuf, o, false);
  }

  /**
   * Exclusive prefix reduction (MPI_Exscan): rank r > 0 gets v0 ∘ … ∘ v(r−1); rank 0's
   * recvbuf is left as it was (MPI leaves it undefined).
   */
  exscan<T extends Buffer>(sendbuf: T, recvbuf?: T | null, o?: ReductionOptions): T {
    return this.prefixCall('exscan', sendbuf, recvbuf, o, true);
  }

  iexscan<T extends Buffer>(sendbuf: T, recvbuf?: T | null, o?: ReductionOptions): Request<T> {
    return this.prefixCall('exscan', sendbuf, recvbuf, o, false);
  }

  private prefixCall<T extends Buffer>(kind: 'scan' | 'exscan', sendbuf: T, recvbuf: T | null | undefined, o: ReductionOptions | undefined, blocking: true): T;
  private prefixCall<T extends Buffer>(kind: 'scan' | 'exscan', sendbuf: T, recvbuf: T | null | undefined, o: ReductionOptions | undefined, blocking: false): Request<T>;
  private prefixCall<T extends Buffer>(kind: 'scan' | 'exscan', sendbuf: T, recvbuf: T | null | undefined, o: ReductionOptions | undefined, blocking: boolean): T | Request<T> {
    const type = resolveType(o?.datatype, sendbuf);
    const count = countOf(o?.count, () => elementsOf('sendbuf', sendbuf, type));
    const out = recvbuf ?? sendbuf;
    const send = region('sendbuf', sendbuf, type, count);
    const recv = out === sendbuf ? send : region('recvbuf', out, type, count);
    return this.collective(kind, send, recv, out === sendbuf, count, type, this.op(o, type), 0, o, blocking, () => out);
  }

  /** Concatenate every rank's block (count = one block) into recvbuf on every rank. */
  allgather<T extends Buffer>(sendbuf: T, recvbuf: T, o?: CollectiveOptions): T {
    return this.allgatherCall(sendbuf, recvbuf, o, true);
  }

  iallgather<T extends Buffer>(sendbuf: T, recvbuf: T, o?: CollectiveOptions): Request<T> {
    return this.allgatherCall(sendbuf, recvbuf, o, false);
  }

  private allgatherCall<T extends Buffer>(sendbuf: T, recvbuf: T, o: CollectiveOptions | undefined, blocking: true): T;
  private allgatherCall<T extends Buffer>(sendbuf: T, recvbuf: T, o: CollectiveOptions | undefined, blocking: false): Request<T>;
  private allgatherCall<T extends Buffer>(sendbuf: T, recvbuf: T, o: CollectiveOptions | undefined, blocking: boolean): T | Request<T> {
    const type = resolveType(o?.datatype, sendbuf, recvbuf);
    const count = countOf(o?.count, () => elementsOf('sendbuf', sendbuf, type));
    const send = region('sendbuf', sendbuf, type, count);
    const recv = region('recvbuf', recvbuf, type, count * this.size);
    return this.collective('allgather', send, recv, overlaps(send, recv), count, type, undefined, 0, o, blocking, () => recvbuf);
  }

  /** Reduce P blocks and scatter them: rank r gets the reduction of block r (count = one block). */
  reduceScatter<T extends Buffer>(sendbuf: T, recvbuf: T, o?: ReductionOptions): T {
    return this.reduceScatterCall(sendbuf, recvbuf, o, true);
  }

  ireduceScatter<T extends Buffer>(sendbuf: T, recvbuf: T, o?: ReductionOptions): Request<T> {
    return this.reduceScatterCall(sendbuf, recvbuf, o, false);
  }

  private reduceScatterCall<T extends Buffer>(sendbuf: T, recvbuf: T, o: ReductionOptions | undefined, blocking: true): T;
  private reduceScatterCall<T extends Buffer>(sendbuf: T, recvbuf: T, o: ReductionOptions | undefined, blocking: false): Request<T>;
  private reduceScatterCall<T extends Buffer>(sendbuf: T, recvbuf: T, o: ReductionOptions | undefined, blocking: boolean): T | Request<T> {
    const type = resolveType(o?.datatype, sendbuf, recvbuf);
    const count = countOf(o?.count, () => elementsOf('recvbuf', recvbuf, type));
    const send = region('sendbuf', sendbuf, type, count * this.size);
    const recv = region('recvbuf', recvbuf, type, count);
    return this.collective('reduce_scatter', send, recv, overlaps(send, recv), count, type, this.op(o, type), 0, o, blocking, () => recvbuf);
  }

  /** Collect every rank's block at the root (recvbuf needed at the root only). */
  gather<T extends Buffer>(sendbuf: T, recvbuf?: T | null, o?: RootOptions): T | undefined {
    return this.gatherCall(sendbuf, recvbuf, o, true);
  }

  igather<T extends Buffer>(sendbuf: T, recvbuf?: T | null, o?: RootOptions): Request<T | undefined> {
    return this.gatherCall(sendbuf, recvbuf, o, false);
  }

  private gatherCall<T extends Buffer>(sendbuf: T, recvbuf: T | null | undefined, o: RootOptions | undefined, blocking: true): T | undefined;
  private gatherCall<T extends Buffer>(sendbuf: T, recvbuf: T | null | undefined, o: RootOptions | undefined, blocking: false): Request<T | undefined>;
  private gatherCall<T extends Buffer>(sendbuf: T, recvbuf: T | null | undefined, o: RootOptions | undefined, blocking: boolean): T | undefined | Request<T | undefined> {
    const type = resolveType(o?.datatype, sendbuf, recvbuf);
    const root = this.root(o);
    const count = countOf(o?.count, () => elementsOf('sendbuf', sendbuf, type));
    const send = region('sendbuf', sendbuf, type, count);
    const isRoot = this.rank === root;
    const recv = isRoot ? region('recvbuf', recvbuf, type, count * this.size) : EMPTY;
    const out = isRoot ? (recvbuf ?? undefined) : undefined;
    return this.collective('gather', send, recv, isRoot && overlaps(send, recv), count, type, undefined, root, o, blocking, () => out);
  }

  /** Hand block r of the root's sendbuf to rank r (sendbuf needed at the root only). */
  scatter<T extends Buffer>(sendbuf: T | null | undefined, recvbuf: T, o?: RootOptions): T {
    return this.scatterCall(sendbuf, recvbuf, o, true);
  }

  iscatter<T extends Buffer>(sendbuf: T | null | undefined, recvbuf: T, o?: RootOptions): Request<T> {
    return this.scatterCall(sendbuf, recvbuf, o, false);
  }

  private scatterCall<T extends Buffer>(sendbuf: T | null | undefined, recvbuf: T, o: RootOptions | undefined, blocking: true): T;
  private scatterCall<T extends Buffer>(sendbuf: T | null | undefined, recvbuf: T, o: RootOptions | undefined, blocking: false): Request<T>;
  private scatterCall<T extends Buffer>(sendbuf: T | null | undefined, recvbuf: T, o: RootOptions | undefined, blocking: boolean): T | Request<T> {
    const type = resolveType(o?.datatype, recvbuf, sendbuf);
    const root = this.root(o);
    const count = countOf(o?.count, () => elementsOf('recvbuf', recvbuf, type));
    const isRoot = this.rank === root;
    const send = isRoot ? region('sendbuf', sendbuf, type, count * this.size) : EMPTY;
    const recv = region('recvbuf', recvbuf, type, count);
    return this.collective('scatter', send, recv, isRoot && overlaps(send, recv), count, type, undefined, root, o, blocking, () => recvbuf);
  }

  /** Rank r sends block q of sendbuf to rank q, which stores it as block r (count = one block). */
  alltoall<T extends Buffer>(sendbuf: T, recvbuf: T, o?: CollectiveOptions): T {
    return this.alltoallCall(sendbuf, recvbuf, o, true);
  }

  ialltoall<T extends Buffer>(sendbuf: T, recvbuf: T, o?: CollectiveOptions): Request<T> {
    return this.alltoallCall(sendbuf, recvbuf, o, false);
  }

  private alltoallCall<T extends Buffer>(sendbuf: T, recvbuf: T, o: CollectiveOptions | undefined, blocking: true): T;
  private alltoallCall<T extends Buffer>(sendbuf: T, recvbuf: T, o: CollectiveOptions | undefined, blocking: false): Request<T>;
  private alltoallCall<T extends Buffer>(sendbuf: T, recvbuf: T, o: CollectiveOptions | undefined, blocking: boolean): T | Request<T> {
    const type = resolveType(o?.datatype, sendbuf, recvbuf);
    const count = countOf(o?.count, () => {
      const n = elementsOf('sendbuf', sendbuf, type);
      if (n % this.size !== 0) {
        throw new ArgumentError(`sendbuf holds ${n} elements, not a multiple of the ${this.size} ranks`, 'pass { count } (elements per destination)');
      }
      return n / this.size;
    });
    const send = region('sendbuf', sendbuf, type, count * this.size);
    const recv = region('recvbuf', recvbuf, type, count * this.size);
    return this.collective('alltoall', send, recv, overlaps(send, recv), count, type, undefined, 0, o, blocking, () => recvbuf);
  }

  // ------------------------------------------------------- point-to-point

  /** Send `buf` to `dest` (blocks until the buffer may be reused). */
  send(buf: Buffer, dest: number, tag = 0, o?: CallOptions): void {
    this.isendCall(buf, dest, tag, o, true);
  }

  isend(buf: Buffer, dest: number, tag = 0, o?: CallOptions): Request<void> {
    return this.isendCall(buf, dest, tag, o, false);
  }

  private isendCall(buf: Buffer, dest: number, tag: number, o: CallOptions | undefined, blocking: true): void;
  private isendCall(buf: Buffer, dest: number, tag: number, o: CallOptions | undefined, blocking: false): Request<void>;
  private isendCall(buf: Buffer, dest: number, tag: number, o: CallOptions | undefined, blocking: boolean): void | Request<void> {
    const type = resolveType(o?.datatype, buf);
    const count = countOf(o?.count, () => elementsOf('buf', buf, type));
    const data = region('buf', buf, type, count);
    checkRank('dest', dest, this.size);
    checkTag(tag);
    const ep = this.rt.endpoint;
    const key = { context: this.context, space: SPACE_P2P, tag, src: ep.rank, dst: this.worldOf[dest], index: 0 } as const;
    const task = new OpTask(() => ep.isend(key, data), [dest]);
    const tr = this.rt.trace;
    let span: (() => void) | undefined;
    if (tr !== undefined) {
      const t0 = tr.now();
      const k = tr.p2pIndex(true, key.context, tag, key.dst);
      span = () => tr.message(tr.span(SK_SEND, t0, tr.now(), key.dst, data.byteLength, tr.label(`send tag ${tag}`), -1, -1), key.context, SPACE_P2P, tag, key.src, key.dst, k);
    }
    return this.runTask(task, `send to ${dest}, tag ${tag}`, o, blocking, noResult, 'no matching receive was posted (a send completes when it is received): check the destination, tag and communicator of the receives, or raise timeoutMs', span);
  }

  /** Receive into `buf` from `source` (or ANY_SOURCE) with `tag` (or ANY_TAG). */
  recv(buf: Buffer, source = ANY_SOURCE, tag = ANY_TAG, o?: CallOptions): Status {
    return this.irecvCall(buf, source, tag, o, true);
  }

  irecv(buf: Buffer, source = ANY_SOURCE, tag = ANY_TAG, o?: CallOptions): Request<Status> {
    return this.irecvCall(buf, source, tag, o, false);
  }

  private irecvCall(buf: Buffer, source: number, tag: number, o: CallOptions | undefined, blocking: true): Status;
  private irecvCall(buf: Buffer, source: number, tag: number, o: CallOptions | undefined, blocking: false): Request<Status>;
  private irecvCall(buf: Buffer, source: number, tag: number, o: CallOptions | undefined, blocking: boolean): Status | Request<Status> {
    const type = resolveType(o?.datatype, buf);
    const count = countOf(o?.count, () => elementsOf('buf', buf, type));
    const data = region('buf', buf, type, count);
    if (source !== ANY_SOURCE) checkRank('source', source, this.size);
    if (tag !== ANY_TAG) checkTag(tag);
    const ep = this.rt.endpoint;
    const key = { context: this.context, space: SPACE_P2P, tag: tag === ANY_TAG ? ANY : tag, src: source === ANY_SOURCE ? ANY : this.worldOf[source], dst: ep.rank, index: 0 } as const;
    const peers = source === ANY_SOURCE ? Array.from({ length: this.size }, (_, r) => r).filter((r) => r !== this.rank) : [source];
    const task = new OpTask(() => ep.irecv(key, data), peers);
    const from = `recv from ${source === ANY_SOURCE ? 'any source' : source}, ${tag === ANY_TAG ? 'any tag' : `tag ${tag}`}`;
    const hint = 'no matching send arrived: check the source, tag and communicator of the sends, or raise timeoutMs';
    const tr = this.rt.trace;
    let span: (() => void) | undefined;
    if (tr !== undefined) {
      const t0 = tr.now();
      span = () => {
        // The message's source and tag are known now (any source, any tag): the k-th from it with that tag.
        const op = task.op as RecvOp;
        const k = tr.p2pIndex(false, key.context, op.tag, op.source);
        tr.message(tr.span(SK_RECV, t0, tr.now(), op.source, op.bytes, tr.label(`recv tag ${op.tag}`), -1, -1), key.context, SPACE_P2P, op.tag, op.source, key.dst, k);
      };
    }
    return this.runTask(task, from, o, blocking, () => {
      const op = task.op as RecvOp;
      return { source: this.rankOfWorld.get(op.source) ?? -1, tag: op.tag, bytes: op.bytes, count: op.bytes / type.size };
    }, hint, span);
  }

  /**
   * Whether a message from `source` (or ANY_SOURCE) with `tag` (or ANY_TAG) has arrived
   * and no receive has taken it (MPI_Iprobe): its status (source, tag, bytes; `count`
   * in elements of `datatype`, default uint8) without receiving it, else undefined.
   * Size a buffer from it, then recv() with the status's source and tag.
   */
  iprobe(source: number = ANY_SOURCE, tag: number = ANY_TAG, o?: { datatype?: DatatypeName }): Status | undefined {
    if (this.freed) throw freedError();
    if (source !== ANY_SOURCE) checkRank('source', source, this.size);
    if (tag !== ANY_TAG) checkTag(tag);
    const ep = this.rt.endpoint;
    const key = { context: this.context, space: SPACE_P2P, tag: tag === ANY_TAG ? ANY : tag, src: source === ANY_SOURCE ? ANY : this.worldOf[source], dst: ep.rank, index: 0 } as const;
    const m = ep.probe(key);
    if (!m) return undefined;
    const size = lookupDatatype(o?.datatype ?? 'uint8').size;
    return { source: this.rankOfWorld.get(m.source) ?? -1, tag: m.tag, bytes: m.bytes, count: m.bytes / size };
  }

  /** Wait until iprobe() would find a message, and return its status (MPI_Probe; timeoutMs applies). */
  probe(source: number = ANY_SOURCE, tag: number = ANY_TAG, o?: { datatype?: DatatypeName; timeoutMs?: number }): Status {
    const first = this.iprobe(source, tag, o);
    if (first) return first;
    const found: { st?: Status } = {};
    const from = `probe for ${source === ANY_SOURCE ? 'any source' : source}, ${tag === ANY_TAG ? 'any tag' : `tag ${tag}`}`;
    const peers = source === ANY_SOURCE ? Array.from({ length: this.size }, (_, r) => r).filter((r) => r !== this.rank) : [source];
    const task = new ProbeTask(() => (found.st = this.iprobe(source, tag, o)) !== undefined, peers);
    return this.runTask(task, from, o, true, () => found.st as Status, 'no matching send arrived: check the source, tag and communicator of the sends, or raise timeoutMs') as Status;
  }

  /**
   * Send `sendbuf` to `dest` and receive into `recvbuf` from `source` at once
   * (MPI_Sendrecv): the receive is posted first, so every rank of a ring can call it
   * without deadlock. Returns the receive's status.
   */
  sendrecv(sendbuf: Buffer, dest: number, recvbuf: Buffer, source: number = ANY_SOURCE, o?: SendrecvOptions): Status {
    checkRank('dest', dest, this.size);
    checkTag(o?.sendTag ?? 0);
    const t = o?.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : undefined;
    const r = this.irecv(recvbuf, source, o?.recvTag ?? ANY_TAG, t);
    this.isend(sendbuf, dest, o?.sendTag ?? 0, t).wait();
    return r.wait();
  }

  // ------------------------------------------------------ vector collectives
  // Per-rank counts and displacements (MPI_Gatherv, _Scatterv, _Allgatherv, _Alltoallv):
  // direct point-to-point exchanges in the collective message space, one message per
  // non-empty block (linear algorithms, as MPICH and Open MPI use for the v-variants
  // on small communicators). Every rank passes the same counts.

  /** Rank r's `counts[r]` elements at `displs[r]` of the root's recvbuf (undefined elsewhere). */
  gatherv<T extends Buffer>(sendbuf: T, recvbuf: T | null | undefined, counts: readonly number[], o?: VectorOptions): T | undefined {
    return this.vectorCall('gatherv', sendbuf, recvbuf ?? null, counts, o, true) as T | undefined;
  }

  igatherv<T extends Buffer>(sendbuf: T, recvbuf: T | null | undefined, counts: readonly number[], o?: VectorOptions): Request<T | undefined> {
    return this.vectorCall('gatherv', sendbuf, recvbuf ?? null, counts, o, false) as Request<T | undefined>;
  }

  /** Rank r gets `counts[r]` elements from `displs[r]` of the root's sendbuf. */
  scatterv<T extends Buffer>(sendbuf: T | null | undefined, counts: readonly number[], recvbuf: T, o?: VectorOptions): T {
    return this.vectorCall('scatterv', sendbuf ?? null, recvbuf, counts, o, true) as T;
  }

  iscatterv<T extends Buffer>(sendbuf: T | null | undefined, counts: readonly number[], recvbuf: T, o?: VectorOptions): Request<T> {
    return this.vectorCall('scatterv', sendbuf ?? null, recvbuf, counts, o, false) as Request<T>;
  }

  /** Every rank gets rank r's `counts[r]` elements at `displs[r]` of its recvbuf. */
  allgatherv<T extends Buffer>(sendbuf: T, recvbuf: T, counts: readonly number[], o?: VectorOptions): T {
    return this.vectorCall('allgatherv', sendbuf, recvbuf, counts, o, true) as T;
  }

  iallgatherv<T extends Buffer>(sendbuf: T, recvbuf: T, counts: readonly number[], o?: VectorOptions): Request<T> {
    return this.vectorCall('allgatherv', sendbuf, recvbuf, counts, o, false) as Request<T>;
  }

  /**
   * Rank i sends `sendCounts[j]` elements from `sdispls[j]` to rank j, which puts them
   * at `rdispls[i]` of its recvbuf (`recvCounts[i]` elements: the counts must agree).
   */
  alltoallv<T extends Buffer>(sendbuf: T, sendCounts: readonly number[], recvbuf: T, recvCounts: readonly number[], o?: AlltoallvOptions): T {
    return this.alltoallvCall(sendbuf, sendCounts, recvbuf, recvCounts, o, true) as T;
  }

  ialltoallv<T extends Buffer>(sendbuf: T, sendCounts: readonly number[], recvbuf: T, recvCounts: readonly number[], o?: AlltoallvOptions): Request<T> {
    return this.alltoallvCall(sendbuf, sendCounts, recvbuf, recvCounts, o, false) as Request<T>;
  }

  private vectorCall(kind: 'gatherv' | 'scatterv' | 'allgatherv', sendbuf: Buffer | null, recvbuf: Buffer | null, counts: readonly number[], o: VectorOptions | undefined, blocking: boolean): unknown {
    const type = resolveType(o?.datatype, sendbuf, recvbuf);
    const root = kind === 'allgatherv' ? 0 : this.root(o);
    const me = this.rank;
    checkCounts('counts', counts, this.size);
    const displs = displacements('displs', o?.displs, counts);
    const es = type.size;
    const block = (buf: Uint8Array, r: number): Uint8Array => buf.subarray(displs[r] * es, (displs[r] + counts[r]) * es);
    const blocks: Block[] = [];
    let result: () => unknown;
    if (kind === 'scatterv') {
      const mine = region('recvbuf', recvbuf, type, counts[me]);
      if (me === root) {
        const all = region('sendbuf', sendbuf, type, spanOf(counts, displs));
        for (let r = 0; r < this.size; r++) {
          if (r === me) mine.set(block(all, r));
          else if (counts[r] > 0) blocks.push({ peer: r, data: block(all, r), send: true });
        }
      } else if (counts[me] > 0) blocks.push({ peer: root, data: mine, send: false });
      result = () => recvbuf;
    } else {
      const mine = region('sendbuf', sendbuf, type, counts[me]);
      const gathers = kind === 'allgatherv' || me === root;
      const all = gathers ? region('recvbuf', recvbuf, type, spanOf(counts, displs)) : EMPTY;
      if (gathers) block(all, me).set(mine);
      for (let r = 0; r < this.size; r++) {
        if (r === me) continue;
        if (kind === 'allgatherv' || me === root) {
          if (counts[r] > 0) blocks.push({ peer: r, data: block(all, r), send: false });
        }
        if ((kind === 'allgatherv' || r === root) && counts[me] > 0) blocks.push({ peer: r, data: mine, send: true });
      }
      result = () => (gathers ? recvbuf : undefined);
    }
    return this.exchange(kind, blocks, o, blocking, result);
  }

  /**
   * MPI_Reduce_scatter with per-rank counts: sendbuf holds one block per rank in rank
   * order (`counts[r]` elements for rank r, no gaps); rank r gets in recvbuf the
   * reduction with `op` over all ranks of block r. Pairwise exchange: each rank sends
   * block j to rank j and folds the N blocks it holds in rank order, so any operator
   * works, commutative or not (cost: N−1 messages per rank, (N−1)·counts[r] elements
   * received and reduced). `reduceScatter` is the equal-count form.
   */
  reduceScatterv<T extends Buffer>(sendbuf: T, recvbuf: T, counts: readonly number[], o?: ReductionOptions): T {
    return this.reduceScattervCall(sendbuf, recvbuf, counts, o, true) as T;
  }

  ireduceScatterv<T extends Buffer>(sendbuf: T, recvbuf: T, counts: readonly number[], o?: ReductionOptions): Request<T> {
    return this.reduceScattervCall(sendbuf, recvbuf, counts, o, false) as Request<T>;
  }

  private reduceScattervCall(sendbuf: Buffer, recvbuf: Buffer, counts: readonly number[], o: ReductionOptions | undefined, blocking: boolean): unknown {
    const type = resolveType(o?.datatype, sendbuf, recvbuf);
    const kernel = this.op(o, type).kernel(type);
    checkCounts('counts', counts, this.size);
    const displs = displacements('displs', undefined, counts);
    const es = type.size;
    const me = this.rank;
    const n = counts[me];
    const send = region('sendbuf', sendbuf, type, spanOf(counts, displs));
    const out = region('recvbuf', recvbuf, type, n);
    // Every rank's block r lands in its own slot (this rank's copied too: recvbuf may overlap sendbuf).
    const held = new Uint8Array(this.size * n * es);
    const slot = (r: number): Uint8Array => held.subarray(r * n * es, (r + 1) * n * es);
    slot(me).set(send.subarray(displs[me] * es, (displs[me] + n) * es));
    const blocks: Block[] = [];
    for (let r = 0; r < this.size; r++) {
      if (r === me) continue;
      if (n > 0) blocks.push({ peer: r, data: slot(r), send: false });
      if (counts[r] > 0) blocks.push({ peer: r, data: send.subarray(displs[r] * es, (displs[r] + counts[r]) * es), send: true });
    }
    return this.exchange('reduce_scatterv', blocks, o, blocking, () => {
      if (n > 0) {
        out.set(slot(0));
        for (let r = 1; r < this.size; r++) kernel(out, out, slot(r), n);
      }
      return recvbuf;
    });
  }

  private alltoallvCall(sendbuf: Buffer, sendCounts: readonly number[], recvbuf: Buffer, recvCounts: readonly number[], o: AlltoallvOptions | undefined, blocking: boolean): unknown {
    const type = resolveType(o?.datatype, sendbuf, recvbuf);
    checkCounts('sendCounts', sendCounts, this.size);
    checkCounts('recvCounts', recvCounts, this.size);
    const sd = displacements('sdispls', o?.sdispls, sendCounts);
    const rd = displacements('rdispls', o?.rdispls, recvCounts);
    const es = type.size;
    const send = region('sendbuf', sendbuf, type, spanOf(sendCounts, sd));
    const recv = region('recvbuf', recvbuf, type, spanOf(recvCounts, rd));
    const me = this.rank;
    if (sendCounts[me] !== recvCounts[me]) throw new ArgumentError(`alltoallv: rank ${me} sends itself ${sendCounts[me]} element(s) but expects ${recvCounts[me]}`);
    recv.subarray(rd[me] * es, (rd[me] + recvCounts[me]) * es).set(send.subarray(sd[me] * es, (sd[me] + sendCounts[me]) * es));
    const blocks: Block[] = [];
    for (let r = 0; r < this.size; r++) {
      if (r === me) continue;
      if (recvCounts[r] > 0) blocks.push({ peer: r, data: recv.subarray(rd[r] * es, (rd[r] + recvCounts[r]) * es), send: false });
      if (sendCounts[r] > 0) blocks.push({ peer: r, data: send.subarray(sd[r] * es, (sd[r] + sendCounts[r]) * es), send: true });
    }
    return this.exchange('alltoallv', blocks, o, blocking, () => recvbuf);
  }

  /** Run one vector collective's messages (receives exact: a count that disagrees is a MismatchError). */
  private exchange(kind: string, blocks: readonly Block[], o: { readonly timeoutMs?: number } | undefined, blocking: boolean, result: () => unknown): unknown {
    if (this.freed) throw freedError();
    const tr = this.rt.trace;
    const t0 = tr === undefined ? 0 : tr.now();
    const bytes = tr === undefined ? 0 : blocks.reduce((s, b) => s + (b.send ? b.data.byteLength : 0), 0);
    const span = tr === undefined ? undefined : (): void => this.traceCall(tr, kind, `${kind}/linear`, t0, bytes);
    const seq = this.seq;
    this.seq = (seq + 1) & 0x3fffffff;
    const ep = this.rt.endpoint;
    const key = (src: number, dst: number) => ({ context: this.context, space: SPACE_COLL, tag: seq, src, dst, index: 0 }) as const;
    const tasks = blocks.map(({ peer, data, send }) =>
      send
        ? new OpTask(() => ep.isend(key(ep.rank, this.worldOf[peer]), data), [peer])
        : new OpTask(() => ep.irecv(key(this.worldOf[peer], ep.rank), data, { exact: true }), [peer]),
    );
    const timeoutMs = timeoutOf(o, this.defaults.timeoutMs);
    const info = new CallInfo(kind, seq, this, timeoutMs, timeoutMs > 0 ? performance.now() + timeoutMs : Infinity, this.worldOf);
    const task = new OpsTask(tasks);
    if (blocking) {
      this.rt.engine.run(task, info);
      span?.();
      return result();
    }
    return this.track(new Request(this.rt.engine, task, info, result, span));
  }

  // ------------------------------------------------------ object collectives
  // Plain JavaScript values (anything structured clone takes: objects, arrays, Maps,
  // typed arrays, …), serialised with node:v8 and moved as bytes: the slow,
  // convenient path (torch.distributed's *_object, mpi4py's lowercase calls). Use typed
  // arrays and the collectives above for data that matters to speed.

  /** The root's value on every rank (MPI_Bcast of a serialised value). */
  bcastObject<T>(value: T, o?: ObjectOptions): T {
    const root = this.root(o);
    const t = o?.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {};
    const bytes = this.rank === root ? new Uint8Array(v8.serialize(value)) : undefined;
    const len = Float64Array.of(bytes?.byteLength ?? 0);
    this.bcast(len, { root, ...t });
    const buf = bytes ?? new Uint8Array(len[0]);
    if (len[0] > 0) this.bcast(buf, { root, ...t });
    return this.rank === root ? value : (v8.deserialize(buf) as T);
  }

  /** Every rank's value, in rank order, on every rank. */
  allgatherObject<T>(value: T, o?: Omit<ObjectOptions, 'root'>): T[] {
    const { mine, counts } = this.serialized(value, o);
    const all = new Uint8Array(counts.reduce((a, b) => a + b, 0));
    this.allgatherv(mine, all, counts, o);
    return this.deserialized(value, all, counts);
  }

  /** Every rank's value, in rank order, at the root (undefined elsewhere). */
  gatherObject<T>(value: T, o?: ObjectOptions): T[] | undefined {
    const root = this.root(o);
    const { mine, counts } = this.serialized(value, o);
    const all = this.rank === root ? new Uint8Array(counts.reduce((a, b) => a + b, 0)) : null;
    this.gatherv(mine, all, counts, { root, timeoutMs: o?.timeoutMs });
    return all ? this.deserialized(value, all, counts) : undefined;
  }

  /** This rank's value serialised, and every rank's serialised length (the counts of the v-collective). */
  private serialized(value: unknown, o: { timeoutMs?: number } | undefined): { mine: Uint8Array; counts: number[] } {
    const mine = new Uint8Array(v8.serialize(value));
    const lens = new Float64Array(this.size);
    this.allgather(Float64Array.of(mine.byteLength), lens, { timeoutMs: o?.timeoutMs });
    return { mine, counts: Array.from(lens) };
  }

  /** The values of the concatenated blocks (this rank's own value as it is). */
  private deserialized<T>(value: T, all: Uint8Array, counts: readonly number[]): T[] {
    let at = 0;
    return counts.map((n, r) => {
      at += n;
      return r === this.rank ? value : (v8.deserialize(all.subarray(at - n, at)) as T);
    });
  }

  // ---------------------------------------------------------- communicators

  /**
   * Partition the communicator (MPI_Comm_split): ranks with the same `color` form a
   * new communicator, ordered by `key` (then by rank). A negative, null or undefined
   * color leaves the rank out (it gets null). Collective over this communicator;
   * `timeoutMs` (default: the communicator's) bounds its exchange and set-up.
   */
  split(color: number | null | undefined, key: number = this.rank, o?: SplitOptions): Communicator | null {
    const none = color === null || color === undefined || color < 0;
    if (!none) checkIntRange('color', color as number, 0, 0x7fffffff);
    checkIntRange('key', key, -0x80000000, 0x7fffffff);
    const timeoutMs = timeoutOf(o, this.defaults.timeoutMs);
    const mine = Int32Array.from([none ? -1 : (color as number), key, this.rt.nextContext]);
    const all = new Int32Array(3 * this.size);
    this.allgather(mine, all, { algorithm: undefined, reproducible: false, mode: 'host', timeoutMs });
    if (none) return null;
    const members: number[] = [];
    for (let r = 0; r < this.size; r++) if (all[3 * r] === color) members.push(r);
    members.sort((a, b) => all[3 * a + 1] - all[3 * b + 1] || a - b);
    const worldOf = Int32Array.from(members, (r) => this.worldOf[r]);
    const rank = members.indexOf(this.rank);
    // Context ids are unique in the whole job, not only among communicators that share
    // ranks (node engines serve every communicator of their node): the new
    // communicator's first rank names it with its world rank and its own counter.
    const counter = all[3 * members[0] + 2];
    if (counter >= CONTEXT_COUNTER_LIMIT) {
      throw new ArgumentError(`world rank ${worldOf[0]} has created ${counter - 1} communicators, the most one rank can lead`, 'reuse communicators instead of splitting in a loop');
    }
    if (rank === 0) this.rt.nextContext = counter + 1;
    const ctx = worldOf[0] * CONTEXT_COUNTER_LIMIT + counter;
    return Communicator.create(this.rt, ctx, worldOf, rank, this.defaults, timeoutMs);
  }

  /** A communicator with the same ranks and a separate message context (collective; see split for `timeoutMs`). */
  dup(o?: SplitOptions): Communicator {
    return this.split(0, this.rank, o) as Communicator;
  }

  /** @internal Build a communicator and set up its shared-memory block (collective over its ranks). */
  static create(rt: RankRuntime, ctx: number, worldOf: Int32Array, rank: number, defaults: CommDefaults, timeoutMs = defaults.timeoutMs): Communicator {
    const size = worldOf.length;
    const node = rt.nodeOf[worldOf[0]];
    const oneNode = worldOf.every((w) => rt.nodeOf[w] === node);
    if (!oneNode || size === 1) return new Communicator(rt, ctx, worldOf, rank, defaults, -1);
    // Rank 0 allocates the block in its arena slice and tells the others where it is and
    // its slot size: big slots (P blocks of 64 KiB) while the block takes at most a
    // sixteenth of the slice's free room, else 4 KiB, else none (the communicator then
    // runs schedules only).
    const ep = rt.endpoint;
    const word = new Int32Array(2);
    const key = (dst: number) => ({ context: ctx, space: SPACE_CTRL, tag: SETUP_TAG, src: ep.rank, dst, index: 0 }) as const;
    let task: Task;
    if (rank === 0) {
      const big = bigSlotBytes(size, rt.allocator.available / 16);
      const slotBytes = shmBlockBytes(size, big) <= rt.allocator.available / 16 ? big : SHM_SLOT_BYTES;
      const off = rt.allocator.alloc(shmBlockBytes(size, slotBytes));
      if (off >= 0) initShmBlock(rt.arena, off, size);
      word[0] = off;
      word[1] = slotBytes;
      const tasks: OpTask[] = [];
      for (let r = 1; r < size; r++) tasks.push(new OpTask(() => ep.isend(key(worldOf[r]), byteView(word)), [r]));
      task = new OpsTask(tasks);
    } else {
      task = new OpTask(() => ep.irecv({ ...key(ep.rank), src: worldOf[0] }, byteView(word), { exact: true }), [0]);
    }
    rt.engine.run(task, {
      what: `communicator setup (context ${ctx})`,
      timeoutMs,
      deadline: timeoutMs > 0 ? performance.now() + timeoutMs : Infinity,
      worldOf,
    });
    return new Communicator(rt, ctx, worldOf, rank, defaults, word[0], word[1], SHM_BLOCK_LIMIT);
  }

  // ---------------------------------------------------------- shared memory

  /**
   * A buffer of `count` elements in the node's shared arena (MPI_Alloc_mem): sends
   * from it to ranks of the same node are zero-copy. Release it with free().
   */
  alloc<T extends DatatypeName>(type: T, count: number): ArrayOf<T> {
    const t = lookupDatatype(type);
    checkIntRange('count', count, 0, Number.MAX_SAFE_INTEGER);
    const bytes = count * t.size;
    const off = this.rt.allocator.alloc(bytes);
    if (off < 0) {
      throw new ArgumentError(
        `the shared arena has no room for ${bytes} bytes (this rank's slice has ${this.rt.allocator.available} free)`,
        'free() buffers you no longer need, or start the job with a larger arena (coll run --arena-mb, or COLL_ARENA_MB)',
      );
    }
    const arena = this.rt.arena;
    const view = t.kind === 'pair' || t.name === 'uint8' ? new Uint8Array(arena, off, bytes) : new t.valueArray(arena, off, count);
    return view as unknown as ArrayOf<T>;
  }

  /**
   * Free the communicator (MPI_Comm_free): collective over its ranks, which must all
   * call it. Its nonblocking collectives still outstanding complete first (their
   * errors stay with their requests); then the ranks synchronise and give back what
   * the communicator holds: the shared-memory block of a one-node communicator (in the
   * arena slice of its rank 0), its offload engine slot, cached plans and scratch.
   * Any later call on it throws ArgumentError. The world communicator cannot be freed.
   */
  free(): void;
  /** Return a buffer obtained from alloc() (MPI_Free_mem). */
  free(buf: ArrayBufferView): void;
  free(buf?: ArrayBufferView): void {
    if (buf === undefined && arguments.length === 0) {
      this.freeCommunicator();
      return;
    }
    if (buf === undefined || buf === null || buf.buffer !== this.rt.arena) throw new ArgumentError('free(buf) takes buffers obtained from comm.alloc()', 'call free() without an argument to free the communicator');
    this.rt.allocator.free(buf.byteOffset);
  }

  /**
   * End the whole job (MPI_Abort): every rank of every node is stopped, `coll run`
   * prints `rank R called abort(code): message` and exits with `code` (1–255; default
   * 1). Returns only by throwing nothing: the calling thread waits to be stopped.
   * Outside `coll run` (a single process) it prints the message and exits the process.
   */
  abort(code = 1, message = ''): never {
    checkIntRange('abort code', code, 1, 255);
    const reason = `called abort(${code})${message ? `: ${message}` : ''}`;
    if (launchedSpec() === undefined) {
      process.stderr.write(`coll: rank ${this.worldOf[this.rank]} ${reason}\n`);
      process.exit(code);
    }
    parentPort?.postMessage({ [ABORT_KEY]: { code, reason } });
    // The node process stops the job; should it not, end this thread after a while.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10_000);
    process.exit(code);
  }

  /** Whether free() has been called on this communicator. */
  get isFreed(): boolean {
    return this.freed;
  }

  private freeCommunicator(): void {
    if (this.freed) throw freedError();
    if (this.context === 0) throw new ArgumentError('the world communicator cannot be freed', 'free the communicators you made with split() or dup()');
    for (const r of this.live) {
      try {
        r.wait();
      } catch {
        // The error belongs to whoever awaits the request.
      }
    }
    this.live = [];
    this.rt.freeMpiComm(this.context);
    this.nodeComm?.free();
    this.nodeComm = undefined;
    // Fan-in to rank 0 and back out, point to point: after it no rank touches the
    // shared block or runs a collective of this communicator.
    const ep = this.rt.endpoint;
    const none = new Uint8Array(0);
    const key = (src: number, dst: number, index: number) => ({ context: this.context, space: SPACE_CTRL, tag: FREE_TAG, src, dst, index }) as const;
    const w0 = this.worldOf[0];
    let task: Task;
    if (this.rank === 0) {
      const ins: OpTask[] = [];
      for (let r = 1; r < this.size; r++) ins.push(new OpTask(() => ep.irecv(key(this.worldOf[r], ep.rank, 0), none, { exact: true }), [r]));
      const outs = (): Task => new OpsTask(Array.from({ length: this.size - 1 }, (_, i) => new OpTask(() => ep.isend(key(ep.rank, this.worldOf[i + 1], 1), none), [i + 1])));
      task = new Sequence([() => new OpsTask(ins), outs]);
    } else {
      task = new Sequence([
        () => new OpTask(() => ep.isend(key(ep.rank, w0, 0), none), [0]),
        () => new OpTask(() => ep.irecv(key(w0, ep.rank, 1), none, { exact: true }), [0]),
      ]);
    }
    const timeoutMs = this.defaults.timeoutMs;
    if (this.size > 1) {
      this.rt.engine.run(task, { what: `free() of communicator ${this.context}`, timeoutMs, deadline: timeoutMs > 0 ? performance.now() + timeoutMs : Infinity, worldOf: this.worldOf });
    }
    this.freed = true;
    this.shm = undefined;
    if (this.shmBlock >= 0) this.rt.allocator.free(this.shmBlock);
    this.rt.offload?.release(this.context);
    for (const plan of this.plans.values()) for (const ph of plan.phases) for (const set of ph.spare) for (const b of set) this.rt.freeScratch(b);
    this.plans.clear();
    this.nodePlans.clear();
    this.last = undefined;
  }

  /** Whether `buf` lives in the node's shared arena (zero-copy eligible). */
  isShared(buf: ArrayBufferView): boolean {
    return buf.buffer === this.rt.arena;
  }

  /**
   * Set the execution mode of this communicator's collectives ('host', 'offload' or
   * 'intermediate'); per-call { mode } overrides it. Communicators split from this
   * one inherit it. Throws when the job runs without offload engines.
   */
  setMode(mode: ExecutionMode): this {
    if (!EXECUTION_MODES.includes(mode)) throw new ArgumentError(`unknown execution mode '${String(mode)}'`, `use one of: ${EXECUTION_MODES.join(', ')}`);
    if (mode !== 'host') this.offloadClient();
    this.defaults.mode = mode;
    return this;
  }

  /** Throw RestrictionError when a collective with this operator cannot run in `mode` (for tools). */
  checkMode(kind: CollectiveKind, mode: ExecutionMode, op?: string | Op): void {
    if (mode === 'host') return;
    const o = kind === 'reduce' || kind === 'allreduce' || kind === 'reduce_scatter' ? lookupOp(op ?? 'sum') : undefined;
    checkOffloadable(kind, o, false, mode);
  }

  /**
   * Counters of this rank's node offload engine (undefined without engines): collectives
   * it completed, NIC-protocol frames it sent and those dropped by COLL_ENGINE_LOSS.
   */
  engineStats(): { collectives: number; framesSent: number; framesDropped: number } | undefined {
    const nl = this.rt.nodeLayout;
    if (!nl.engine) return undefined;
    const w = COUNTER_WORDS(nl);
    const i32 = new Int32Array(this.rt.spec.control);
    return { collectives: Atomics.load(i32, w.completed), framesSent: Atomics.load(i32, w.framesSent), framesDropped: Atomics.load(i32, w.framesDropped) };
  }

  /** The execution mode of this communicator's collectives. */
  get mode(): ExecutionMode {
    return this.defaults.mode ?? 'host';
  }

  /** The algorithm a collective call with these arguments would run (for tools and benchmarks). */
  algorithmFor(kind: CollectiveKind, count: number, o?: ReduceOptions & { blocking?: boolean; datatype?: DatatypeName }): string {
    const type = lookupDatatype(o?.datatype ?? 'float64');
    const op = kind === 'reduce' || kind === 'allreduce' || kind === 'reduce_scatter' ? lookupOp(o?.op ?? 'sum') : undefined;
    return this.plan({
      kind,
      count,
      type,
      op,
      root: o?.root ?? 0,
      algorithm: o?.algorithm,
      params: o?.params,
      reproducible: o?.reproducible ?? this.defaults.reproducible,
      blocking: o?.blocking ?? true,
      topology: o?.topology,
    }).algorithm;
  }

  // -------------------------------------------------------------- internals

  private root(o: RootOptions | undefined): number {
    const root = o?.root ?? 0;
    checkRank('root', root, this.size);
    return root;
  }

  private op(o: ReductionOptions | undefined, type: Datatype): Op {
    const op = lookupOp(o?.op ?? 'sum');
    op.kernel(type); // throws OpError when the operator does not apply to the datatype
    return op;
  }

  private plan(shape: CallShape): Plan {
    const key = planKey(shape);
    let plan = this.plans.get(key);
    if (!plan) {
      plan = makePlan({ rank: this.rank, size: this.size, topology: this.topology, shmLimit: this.shm?.limit ?? 0, shmBlockLimit: this.shm?.blockLimit ?? 0, mpiReady: this.rt.mpiWhyNot === undefined, mpiWhyNot: this.rt.mpiWhyNot, mpiFlavour: this.rt.spec.job.mpiFlavour }, shape);
      const simd = this.rt.simd;
      if (simd && plan.kernel && shape.op?.name === 'sum') plan = { ...plan, kernel: simd.arenaSum(shape.type, plan.kernel) };
      if (this.plans.size >= MAX_PLANS) {
        const [oldKey, old] = this.plans.entries().next().value as [string, Plan];
        this.plans.delete(oldKey);
        for (const ph of old.phases) for (const set of ph.spare) for (const b of set) this.rt.freeScratch(b);
      }
      this.plans.set(key, plan);
    }
    return plan;
  }

  private collective<T>(
    kind: CollectiveKind,
    send: Uint8Array,
    recv: Uint8Array,
    inPlace: boolean,
    count: number,
    type: Datatype,
    op: Op | undefined,
    root: number,
    o: CollectiveOptions | undefined,
    blocking: boolean,
    result: () => T,
  ): T | Request<T> {
    if (this.freed) throw freedError();
    const tr = this.rt.trace;
    const t0 = tr === undefined ? 0 : tr.now();
    const reproducible = o?.reproducible ?? this.defaults.reproducible;
    const mode = o?.mode ?? this.defaults.mode ?? 'host';
    if (mode !== 'host') {
      if (o?.mode !== undefined) {
        if (!EXECUTION_MODES.includes(mode)) throw new ArgumentError(`unknown execution mode '${String(mode)}'`, `use one of: ${EXECUTION_MODES.join(', ')}`);
        checkOffloadable(kind, op, reproducible, mode);
      }
      if (offloadRestriction(kind, op, reproducible) === undefined) {
        this.rt.paths.offloaded();
        return this.offloaded(mode, kind, send, recv, inPlace, count, type, op as Op | undefined, root, o, blocking, reproducible, result, t0);
      }
    }
    let plan: Plan;
    const l = this.last;
    const simple = o === undefined || (o.algorithm === undefined && o.params === undefined && o.topology === undefined);
    if (simple && l && l.kind === kind && l.count === count && l.type === type && l.op === op && l.root === root && l.blocking === blocking && l.reproducible === reproducible) {
      plan = l.plan;
    } else {
      plan = this.plan({ kind, count, type, op, root, algorithm: o?.algorithm, params: o?.params, reproducible, blocking, topology: o?.topology });
      if (simple) this.last = { kind, count, type, op, root, blocking, reproducible, plan };
    }
    const debug = o?.debug ?? this.defaults.debug;
    const seq = this.seq;
    const timeoutMs = timeoutOf(o, this.defaults.timeoutMs);
    if (plan.shm && blocking && !debug) {
      // The latency-critical path: no clock reads or allocations unless the call has to wait long.
      this.seq = (seq + 1) & 0x3fffffff;
      (this.shm as ShmCollectives).run(kind, send, recv, count, type.size, root, plan.kernel, plan.sig, seq, timeoutMs);
      if (tr !== undefined) this.traceCall(tr, kind, plan.algorithm, t0, count * type.size);
      return result();
    }
    const span = tr === undefined ? undefined : (): void => this.traceCall(tr, kind, plan.algorithm, t0, count * type.size);
    const info = new CallInfo(kind, seq, this, timeoutMs, timeoutMs > 0 ? performance.now() + timeoutMs : Infinity, this.worldOf, undefined, plan.phases.some((ph) => ph.algorithm.endsWith('/multicast')) ? MCAST_EXIT_GRACE_MS : undefined);
    // Debug mode agrees before the sequence number moves: how far a call moves it depends
    // on its path (plan phases, offloaded or not), which mismatching ranks disagree on.
    if (debug) this.agree(seq, signature(kind, count, type, op, root, o, blocking, reproducible), info);
    this.seq = (seq + Math.max(1, plan.phases.length)) & 0x3fffffff;
    if (plan.mpi) {
      const mpi = this.rt.mpiCollectives();
      const comm = mpi.comm(this.context, this.worldOf);
      if (blocking) {
        MpiTask.run(mpi, comm, kind, send, recv, count, type, op, root, this.rank);
        span?.();
        return result();
      }
      return this.track(new Request(this.rt.engine, new MpiTask(mpi, comm, kind, send, recv, count, type, op, root, this.rank), info, result, span));
    }
    if (plan.shm) {
      const shm = this.shm as ShmCollectives;
      if (blocking) {
        shm.run(kind, send, recv, count, type.size, root, plan.kernel, plan.sig, seq, timeoutMs);
        span?.();
        return result();
      }
      this.rt.paths.flat();
      return this.track(new Request(this.rt.engine, shm.task(kind, send, recv, count, type.size, root, plan.kernel, plan.sig, seq), info, result, span));
    }
    const scheduled = (): Task => {
      this.rt.paths.scheduled();
      return this.scheduleTask(plan, seq, send, recv, inPlace, type);
    };
    if (plan.direct) {
      const shm = this.shm as ShmCollectives;
      if (!blocking) return this.track(new Request(this.rt.engine, shm.directTask(kind, send, recv, count, type.size, root, plan.kernel, plan.sig, seq, scheduled), info, result, span));
      // false: some rank could not share its buffer; every rank then runs the schedule.
      if (shm.runDirect(kind, send, recv, count, type.size, root, plan.kernel, plan.sig, seq, timeoutMs)) {
        span?.();
        return result();
      }
    }
    const task = scheduled();
    if (blocking) {
      this.rt.engine.run(task, info);
      span?.();
      return result();
    }
    return this.track(new Request(this.rt.engine, task, info, result, span));
  }

  /** Tracing: the span of one call of this rank, from `t0` to now, labelled "<kind> <algorithm>". */
  private traceCall(tr: Tracer, kind: string, algorithm: string, t0: number, bytes: number): void {
    tr.span(SK_COLLECTIVE, t0, tr.now(), -1, bytes, tr.label(`${kind} ${algorithm}`), -1, -1);
  }

  /** The plan's schedule phases as one task (the input snapshotted first when the call is in place). */
  private scheduleTask(plan: Plan, seq: number, send: Uint8Array, recv: Uint8Array, inPlace: boolean, type: Datatype): Task {
    const input = inPlace && send.byteLength > 0 ? send.slice() : send;
    const phases = plan.phases;
    return phases.length === 1
      ? this.execution(phases[0], seq, input, recv, type, plan)
      : new Sequence(phases.map((ph, i) => () => this.execution(ph, seq + i, ph.usesInput ? input : EMPTY, recv, type, plan)));
  }

  /** Remember a nonblocking collective until it completes (see free()). */
  private track<T>(r: Request<T>): Request<T> {
    if (this.live.length >= 64) this.live = this.live.filter((x) => !x.settledYet);
    this.live.push(r);
    return r;
  }

  private offloadClient(): OffloadClient {
    return (this.rt.offload ??= new OffloadClient(this.rt));
  }

  /** A collective in offload or intermediate mode (see src/offload/engine). */
  private offloaded<T>(
    mode: 'offload' | 'intermediate',
    kind: CollectiveKind,
    send: Uint8Array,
    recv: Uint8Array,
    inPlace: boolean,
    count: number,
    type: Datatype,
    op: Op | undefined,
    root: number,
    o: CollectiveOptions | undefined,
    blocking: boolean,
    reproducible: boolean,
    result: () => T,
    t0: number,
  ): T | Request<T> {
    // The node plan (cached) validates a named algorithm first, with typed errors, before anything is posted.
    const plan = this.nodePlan(mode, kind, count, type, op, root, o);
    const tr = this.rt.trace;
    const span = tr === undefined ? undefined : (): void => this.traceCall(tr, kind, `${mode} ${plan.inter?.algorithm ?? o?.algorithm ?? 'node'}`, t0, count * type.size);
    const client = this.offloadClient();
    const slot = client.slot(this.context, this.worldOf, this.rank);
    const timeoutMs = timeoutOf(o, this.defaults.timeoutMs);
    const debug = o?.debug ?? this.defaults.debug;
    if (debug) {
      // Agree before anything moves the sequence number (see collective()).
      const at = this.seq;
      const check = new CallInfo(`${kind} (${mode})`, at, this, timeoutMs, timeoutMs > 0 ? performance.now() + timeoutMs : Infinity, this.worldOf);
      this.agree(at, `${signature(kind, count, type, op, root, o, blocking, reproducible)} mode=${mode}`, check);
    }
    if (mode === 'intermediate' && this.nodeComm === undefined) {
      // Host roles combine within the node over a per-node communicator (collective: every rank creates it here).
      this.nodeComm = this.split(this.nodeRank, this.rank) as Communicator;
    }
    const seq = this.seq;
    this.seq = (seq + 2) & 0x3fffffff; // the inter-node plan has at most two phases
    const info = new CallInfo(`${kind} (${mode})`, seq, this, timeoutMs, timeoutMs > 0 ? performance.now() + timeoutMs + ENGINE_GRACE_MS : Infinity, this.worldOf);
    let task: Task | undefined;
    if (mode === 'intermediate') task = this.hostRoleTask(plan, kind, send, recv, inPlace, count, type, op, root, seq);
    task ??= client.task(
      {
        kind,
        op: (op?.name ?? 'noop') as BuiltinOpName,
        datatype: type.name,
        count,
        root,
        send,
        recv,
        inPlace,
        mode: mode === 'intermediate' ? 'intermediate-only' : 'all-nic',
        tag: seq,
        timeoutMs,
        algorithm: o?.algorithm,
        params: o?.params,
      },
      slot,
    );
    if (blocking) {
      this.rt.engine.run(task, info, this.rt.offloadSpinUs);
      span?.();
      return result();
    }
    return this.track(new Request(this.rt.engine, task, info, result, span));
  }

  /** The node-level plan of an offloaded call (cached per shape): roles, addresses, inter-node schedule or NIC protocol. */
  private nodePlan(mode: 'offload' | 'intermediate', kind: CollectiveKind, count: number, type: Datatype, op: Op | undefined, root: number, o: CollectiveOptions | undefined): NodePlan {
    this.nodes ??= commNodes(this.context, this.worldOf, this.rt.nodeOf);
    const key = `${mode}|${kind}|${count}|${type.name}|${op?.name ?? ''}|${root}|${o?.algorithm ?? ''}|${o?.params ? JSON.stringify(o.params) : ''}`;
    let plan = this.nodePlans.get(key);
    if (!plan) {
      const shape = { kind, count, type, op, root, algorithm: o?.algorithm, params: o?.params, mode };
      plan = makeNodePlan(this.nodes, this.nodeRank, shape, this.rt.spec.job.size);
      if (this.nodePlans.size > 64) this.nodePlans.clear();
      this.nodePlans.set(key, plan);
    }
    return plan;
  }

  /**
   * Intermediate mode on a node whose inter-node role is a leaf or the root: the
   * node's ranks combine on the host (per-node communicator), one of them (the root,
   * else the node's lowest rank) runs the node's inter-node steps from host memory,
   * and the result is handed out on the host. Undefined when the node's role belongs
   * to its engine.
   */
  private hostRoleTask(
    plan: NodePlan,
    kind: CollectiveKind,
    send: Uint8Array,
    recv: Uint8Array,
    inPlace: boolean,
    count: number,
    type: Datatype,
    op: Op | undefined,
    root: number,
    seq: number,
  ): Task | undefined {
    const me = this.nodeRank;
    if (!plan.hostRole[me] || this.nodes === undefined) return undefined;
    const local = this.nodeComm as Communicator;
    const executor = plan.executor[me];
    const execLocal = this.nodes.localIndexOf[executor];
    const isExec = this.rank === executor;
    const es = type.size;
    const bytes = count * es;
    const inter = plan.inter;
    // The executor's input and result buffers for the inter-node phases.
    const own = inPlace ? send.slice() : send;
    let partial: Uint8Array = kind === 'bcast' ? EMPTY : local.size === 1 ? own : isExec ? this.rt.allocScratch(bytes) : EMPTY;
    const result: Uint8Array = kind === 'reduce' ? (isExec && this.rank === root ? recv : EMPTY) : recv;
    // The per-node calls take their sequence numbers NOW, in call order on every rank of
    // the node (their tasks are created later, when the previous part has finished, and
    // ranks reach that point at different times when several calls are outstanding).
    const parts: (() => Task)[] = [];
    if ((kind === 'reduce' || kind === 'allreduce') && local.size > 1) {
      parts.push(local.prepareTask('reduce', own, partial, false, count, type, op, execLocal));
    }
    if (isExec && inter) {
      inter.phases.forEach((ph, i) => {
        parts.push(() => {
          const scratch = ph.compiled.scratch.map((n) => this.rt.allocScratch(n * es));
          const ex = new Execution(ph.compiled, [ph.usesInput ? partial : EMPTY, result, ...scratch], {
            endpoint: this.rt.endpoint,
            worldOf: plan.addresses,
            context: this.context,
            seq: seq + i,
            elementSize: es,
            kernel: inter.kernel,
            trace: this.rt.trace,
          });
          ex.onSuccess = () => scratch.forEach((b) => this.rt.freeScratch(b));
          return ex;
        });
      });
    }
    if ((kind === 'allreduce' || kind === 'bcast') && local.size > 1) {
      parts.push(local.prepareTask('bcast', EMPTY, recv, false, count, type, undefined, execLocal));
    }
    return new Sequence(parts, () => {
      if (partial !== own && partial.byteLength > 0) this.rt.freeScratch(partial);
      partial = EMPTY;
    });
  }

  /**
   * @internal A collective of this communicator (host mode, host algorithms or the
   * flat shared-memory path) whose sequence number (and shared-memory call number) is
   * taken now and whose task is created when the returned function is called: used by
   * the host roles of intermediate mode.
   */
  prepareTask(kind: CollectiveKind, send: Uint8Array, recv: Uint8Array, inPlace: boolean, count: number, type: Datatype, op: Op | undefined, root: number): () => Task {
    const plan = this.plan({ kind, count, type, op, root, algorithm: undefined, params: undefined, reproducible: false, blocking: false, topology: undefined });
    if (plan.shm) {
      const shm = this.shm as ShmCollectives;
      const c = shm.reserve();
      const seq = this.seq;
      this.seq = (seq + 1) & 0x3fffffff;
      return () => shm.task(kind, send, recv, count, type.size, root, plan.kernel, plan.sig, seq, c);
    }
    const seq = this.seq;
    this.seq = (seq + Math.max(1, plan.phases.length)) & 0x3fffffff;
    // Blocks beyond the flat path's slots run the schedule here, not direct mode (every rank of the local communicator comes through here, so all agree).
    return () => this.scheduleTask(plan, seq, send, recv, inPlace, type);
  }

  private execution(phase: Phase, seq: number, input: Uint8Array, recv: Uint8Array, type: Datatype, plan: Plan): Execution {
    const es = type.size;
    const scratch = phase.spare.pop() ?? phase.compiled.scratch.map((n) => this.rt.allocScratch(n * es));
    const ex = new Execution(phase.compiled, [input, recv, ...scratch], {
      endpoint: this.rt.endpoint,
      worldOf: this.worldOf,
      context: this.context,
      seq,
      elementSize: es,
      kernel: plan.kernel,
      sig: plan.sig.wire,
      trace: this.rt.trace,
    });
    ex.onSuccess = () => {
      // Keep small scratch sets for the next call of this shape; give large ones back to the arena.
      if (phase.spare.length < 2 && scratch.reduce((s, b) => s + b.byteLength, 0) <= SPARE_SCRATCH_BYTES) phase.spare.push(scratch);
      else for (const b of scratch) this.rt.freeScratch(b);
    };
    return ex;
  }

  private runTask<T>(task: Task, what: string, o: CallOptions | undefined, blocking: boolean, result: () => T, hint: string, span?: () => void): T | Request<T> {
    if (this.freed) throw freedError();
    const timeoutMs = timeoutOf(o, this.defaults.timeoutMs);
    const info = new CallInfo(what, -1, this, timeoutMs, timeoutMs > 0 ? performance.now() + timeoutMs : Infinity, this.worldOf, hint);
    if (blocking) {
      this.rt.engine.run(task, info);
      span?.();
      return result();
    }
    return new Request(this.rt.engine, task, info, result, span);
  }

  /** Debug mode: every rank sends its call signature to rank 0, which answers with a verdict. */
  private agree(seq: number, sig: string, info: WaitInfo): void {
    const ep = this.rt.endpoint;
    const key = (dst: number, src: number, index: number) => ({ context: this.context, space: SPACE_CTRL, tag: seq, src, dst, index }) as const;
    const enc = new TextEncoder();
    let verdict = '';
    if (this.rank === 0) {
      const bufs = Array.from({ length: this.size }, () => new Uint8Array(4096));
      const recvs: OpTask[] = [];
      for (let r = 1; r < this.size; r++) {
        const w = this.worldOf[r];
        recvs.push(new OpTask(() => ep.irecv(key(ep.rank, w, 0), bufs[r]), [r]));
      }
      const all = new OpsTask(recvs);
      this.rt.engine.run(all, info);
      const dec = new TextDecoder();
      const sigs = [sig, ...recvs.map((t) => dec.decode(bufs[1 + recvs.indexOf(t)].subarray(0, (t.op as RecvOp).bytes)))];
      if (sigs.some((s) => s !== sig)) {
        const groups = new Map<string, number[]>();
        sigs.forEach((s, r) => groups.set(s, [...(groups.get(s) ?? []), r]));
        const parts = [...groups].map(([s, rs]) => `${rs.length > 1 ? 'ranks' : 'rank'} ${rs.join(',')}: ${s}`);
        verdict = `collective #${seq} on communicator ${this.context}: ranks disagree: ${parts.join('; ')}`;
      }
      const v = enc.encode(verdict);
      const sends: OpTask[] = [];
      for (let r = 1; r < this.size; r++) {
        const w = this.worldOf[r];
        sends.push(new OpTask(() => ep.isend(key(w, ep.rank, 1), v), [r]));
      }
      this.rt.engine.run(new OpsTask(sends), info);
    } else {
      const root = this.worldOf[0];
      const s = enc.encode(sig);
      const buf = new Uint8Array(1 << 16);
      const recv = new OpTask(() => ep.irecv(key(ep.rank, root, 1), buf), [0]);
      this.rt.engine.run(new OpsTask([new OpTask(() => ep.isend(key(root, ep.rank, 0), s), [0]), recv]), info);
      verdict = new TextDecoder().decode(buf.subarray(0, (recv.op as RecvOp).bytes));
    }
    if (verdict) {
      // Every rank got the same verdict: resynchronise the sequence number identically,
      // whatever path each rank's call would have taken, so the communicator stays usable.
      this.seq = (seq + 1) & 0x3fffffff;
      throw new MismatchError(verdict, 'every rank must call the same collectives in the same order with the same count, datatype, op and root');
    }
  }
}

function noResult(): void {}

/** A call's timeout: its own (validated) or the communicator's default. */
function timeoutOf(o: { readonly timeoutMs?: number } | undefined, fallback: number): number {
  const t = o?.timeoutMs;
  if (t === undefined) return fallback;
  checkTimeout(t);
  return t;
}

/** timeoutMs must be a non-negative number of milliseconds (0 = none); NaN or negative is a mistake, not "no timeout". */
export function checkTimeout(t: number, what = 'timeoutMs'): void {
  if (typeof t !== 'number' || !(t >= 0)) {
    throw new ArgumentError(`${what} must be a non-negative number of milliseconds, got ${String(t)}`, 'pass 0 for no timeout, or a positive number of milliseconds');
  }
}

const NUMBER_ARRAYS: ReadonlySet<unknown> = new Set([Float64Array, Float32Array, Int32Array, Uint32Array, Int16Array, Uint16Array, Int8Array, Uint8Array]);
const SUM = lookupOp('sum');

/** Options that keep a call on the automatic shared-memory path with the sum operator. */
function plainSum(o: ReductionOptions): boolean {
  return (
    (o.op === undefined || o.op === 'sum' || o.op === SUM) &&
    o.algorithm === undefined &&
    o.params === undefined &&
    o.topology === undefined &&
    o.count === undefined &&
    o.datatype === undefined &&
    o.debug !== true &&
    o.mode === undefined
  );
}

function signature(
  kind: CollectiveKind,
  count: number,
  type: Datatype,
  op: Op | undefined,
  root: number,
  o: CollectiveOptions | undefined,
  blocking: boolean,
  reproducible: boolean,
): string {
  const parts = [`count=${count}`, `datatype=${type.name}`];
  if (op) parts.push(`op=${op.name}`);
  if (isRooted(kind)) parts.push(`root=${root}`);
  if (o?.algorithm) parts.push(`algorithm=${o.algorithm}`);
  if (reproducible && op) parts.push('reproducible');
  return `${blocking ? '' : 'i'}${kind}(${parts.join(', ')})`;
}
