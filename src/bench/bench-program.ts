/**
 * The rank program behind `coll bench` (run by the launcher in every rank): OSU-style
 * timing of one collective over a range of message sizes and algorithms.
 *
 * For each (algorithm, size): warm-up calls, a barrier, then `iterations`
 * back-to-back calls; each rank's mean time per call is gathered at rank 0 and
 * reduced to min / avg / max over ranks. Rank 0 prints one `BENCH {json}` line per
 * measurement (`SKIP {json}` when the algorithm's restrictions fail at that size),
 * preceded by `PLAN {json}` with the number of measurements.
 *
 * The rank program itself is bench-main.ts (argument: the JSON of a BenchConfig); this
 * module only defines, so that importing its helpers never starts a benchmark.
 */
import { listAlgorithms } from '../algorithms/registry.js';
import { datatype as lookupDatatype, type DatatypeName } from '../core/datatypes.js';
import { RestrictionError } from '../core/errors.js';
import { ioCounts, type ParamValue } from '../schedule/context.js';
import type { CollectiveKind } from '../schedule/types.js';
import type { Communicator, ExecutionMode, ReduceOptions } from '../runtime/communicator.js';

export interface BenchConfig {
  readonly collective: CollectiveKind;
  /** Algorithms to time; null = automatic selection; 'all' = every catalogue algorithm. */
  readonly algorithms: readonly (string | null)[] | 'all';
  readonly minBytes: number;
  readonly maxBytes: number;
  /** Iterations for small messages (≤ 16 KiB); fewer for larger ones, as OSU and peer-bench do. */
  readonly iterations: number;
  /** Warm-up calls (default: iterations / 10 + 1). */
  readonly warmup?: number;
  /** Buffers in the shared arena (comm.alloc) instead of private memory. */
  readonly shared: boolean;
  readonly datatype: DatatypeName;
  readonly op: string;
  /** Execution modes to time (default ['host']). */
  readonly modes?: readonly ExecutionMode[];
  /** Exact message sizes (bytes per rank) instead of the doubling range minBytes..maxBytes. */
  readonly sizes?: readonly number[];
  /** Time the nonblocking call (`i…` then wait) instead of the blocking one. */
  readonly nonblocking?: boolean;
  /**
   * The communicator timed: the world (default), a dup() of it, or a split() with the
   * rank order reversed (same size; communicator ranks differ from world ranks).
   */
  readonly communicator?: BenchCommunicator;
  /**
   * Explicit measurements instead of algorithms × sizes (used by `coll tune` to check its
   * choices against the default): each case is timed `repetitions` times, the list run
   * forwards on even passes and backwards on odd ones, so the cases of one size alternate
   * and drift on the machine affects them alike.
   */
  readonly cases?: readonly BenchCase[];
  /** Passes over `cases` (default 1). */
  readonly repetitions?: number;
}

export interface BenchCase {
  /** null: the automatic selection (the default). */
  readonly algorithm: string | null;
  readonly params?: Readonly<Record<string, ParamValue>>;
  readonly bytes: number;
  /**
   * Test seam: busy-wait this long after every call of the case, a deliberately slow
   * candidate whose loss does not depend on timing luck.
   */
  readonly delayUs?: number;
}

export type BenchCommunicator = 'world' | 'dup' | 'split';

export interface BenchRecord {
  readonly collective: CollectiveKind;
  /** The algorithm that ran (automatic selection resolved). */
  readonly algorithm: string;
  readonly requested: string;
  /** Execution mode (host, offload, intermediate). */
  readonly mode: ExecutionMode;
  /** Present for nonblocking calls and sub-communicators (see BenchConfig). */
  readonly nonblocking?: boolean;
  readonly communicator?: BenchCommunicator;
  readonly ranks: number;
  readonly nodes: number;
  readonly bytes: number;
  readonly iterations: number;
  readonly min_us: number;
  readonly avg_us: number;
  readonly max_us: number;
  /** With cases: the case index, its pass, and its parameters. */
  readonly case?: number;
  readonly rep?: number;
  readonly params?: Readonly<Record<string, ParamValue>>;
}

/** Iterations at a size, following peer-bench's mpi_coll_bench. */
export function iterationsFor(bytes: number, small: number): number {
  if (bytes <= 16384) return small;
  if (bytes <= 1048576) return Math.max(20, Math.floor(small / 20));
  return 20;
}

export function sizesFor(c: BenchConfig): number[] {
  if (c.cases !== undefined) return [...new Set(c.cases.map((k) => k.bytes))];
  if (c.collective === 'barrier') return [0];
  if (c.sizes !== undefined) return [...c.sizes];
  const out: number[] = [];
  for (let b = Math.max(1, c.minBytes); b <= c.maxBytes; b *= 2) out.push(b);
  return out;
}

function buffers(comm: Communicator, c: BenchConfig, count: number): { send: ArrayBufferView; recv: ArrayBufferView; free: () => void } {
  const t = lookupDatatype(c.datatype);
  let inMax = 0;
  let outMax = 0;
  for (let r = 0; r < comm.size; r++) {
    const io = ioCounts(c.collective, r, comm.size, count, 0);
    inMax = Math.max(inMax, io.in, c.collective === 'bcast' ? count : 0);
    outMax = Math.max(outMax, io.out);
  }
  const make = (n: number): ArrayBufferView => (c.shared ? (comm.alloc(c.datatype, n) as ArrayBufferView) : new Uint8Array(n * t.size));
  const send = make(inMax);
  const recv = make(outMax);
  new Uint8Array(send.buffer, send.byteOffset, send.byteLength).fill(1);
  return {
    send,
    recv,
    free: () => {
      if (c.shared) {
        comm.free(send);
        comm.free(recv);
      }
    },
  };
}

function caller(comm: Communicator, c: BenchConfig, send: ArrayBufferView, recv: ArrayBufferView, o: ReduceOptions | undefined): () => void {
  if (c.nonblocking) return nonblockingCaller(comm, c, send, recv, o);
  const root = comm.rank === 0;
  switch (c.collective) {
    case 'barrier':
      return () => comm.barrier(o);
    case 'bcast':
      return () => comm.bcast(send, o);
    case 'reduce':
      return () => comm.reduce(send, root ? recv : null, o);
    case 'allreduce':
      return () => comm.allreduce(send, recv, o);
    case 'allgather':
      return () => comm.allgather(send, recv, o);
    case 'reduce_scatter':
      return () => comm.reduceScatter(send, recv, o);
    case 'gather':
      return () => comm.gather(send, root ? recv : null, o);
    case 'scatter':
      return () => comm.scatter(root ? send : null, recv, o);
    case 'alltoall':
      return () => comm.alltoall(send, recv, o);
    case 'scan':
      return () => comm.scan(send, recv, o);
    case 'exscan':
      return () => comm.exscan(send, recv, o);
  }
}

/** The nonblocking call, completed at once with wait() (what MPI_I… + MPI_Wait costs). */
function nonblockingCaller(comm: Communicator, c: BenchConfig, send: ArrayBufferView, recv: ArrayBufferView, o: ReduceOptions | undefined): () => void {
  const root = comm.rank === 0;
  switch (c.collective) {
    case 'barrier':
      return () => comm.ibarrier(o).wait();
    case 'bcast':
      return () => comm.ibcast(send, o).wait();
    case 'reduce':
      return () => comm.ireduce(send, root ? recv : null, o).wait();
    case 'allreduce':
      return () => comm.iallreduce(send, recv, o).wait();
    case 'allgather':
      return () => comm.iallgather(send, recv, o).wait();
    case 'reduce_scatter':
      return () => comm.ireduceScatter(send, recv, o).wait();
    case 'gather':
      return () => comm.igather(send, root ? recv : null, o).wait();
    case 'scatter':
      return () => comm.iscatter(root ? send : null, recv, o).wait();
    case 'alltoall':
      return () => comm.ialltoall(send, recv, o).wait();
    case 'scan':
      return () => comm.iscan(send, recv, o).wait();
    case 'exscan':
      return () => comm.iexscan(send, recv, o).wait();
  }
}

/** The communicator a configuration times. */
function benchComm(world: Communicator, which: BenchCommunicator | undefined): Communicator {
  if (which === 'dup') return world.dup();
  if (which === 'split') return world.split(0, world.size - 1 - world.rank) as Communicator;
  return world;
}

/**
 * OSU-style timing: warm-up calls, a barrier, then `iterations` back-to-back calls; every
 * rank's mean µs per call, gathered at world rank 0 and reduced to min / avg / max over
 * the ranks there (`times` undefined on the other ranks).
 */
function timeCalls(
  world: Communicator,
  comm: Communicator,
  call: () => void,
  bytes: number,
  c: BenchConfig,
): { iterations: number; times: Pick<BenchRecord, 'min_us' | 'avg_us' | 'max_us'> | undefined } {
  const iterations = iterationsFor(bytes, c.iterations);
  const warmup = c.warmup ?? Math.floor(iterations / 10) + 1;
  for (let i = 0; i < warmup; i++) call();
  comm.barrier();
  const t0 = performance.now();
  for (let i = 0; i < iterations; i++) call();
  const us = ((performance.now() - t0) * 1000) / iterations;
  const all = world.gather(Float64Array.of(us), world.rank === 0 ? new Float64Array(world.size) : null);
  const times = all && { min_us: round(Math.min(...all)), avg_us: round(all.reduce((s, v) => s + v, 0) / all.length), max_us: round(Math.max(...all)) };
  return { iterations, times };
}

/** Print a PLAN, BENCH or SKIP line (world rank 0 only). */
function printAt0(world: Communicator, kind: string, o: object): void {
  if (world.rank === 0) console.log(`${kind} ${JSON.stringify(o)}`);
}

function reducesOp(c: BenchConfig): boolean {
  return c.collective === 'reduce' || c.collective === 'allreduce' || c.collective === 'reduce_scatter';
}

export function runBench(world: Communicator, c: BenchConfig): void {
  if (c.cases) return runCases(world, c, c.cases);
  const comm = benchComm(world, c.communicator);
  const t = lookupDatatype(c.datatype);
  // Over the MPI transport, 'all' includes MPI's own collective (the runtime paths are named, not listed).
  const algorithms = c.algorithms === 'all' ? [null, ...listAlgorithms(c.collective).map((a) => a.name), ...(world.transport === 'mpi' ? ['mpi'] : [])] : c.algorithms;
  const sizes = sizesFor(c);
  const print = (kind: string, o: object): void => printAt0(world, kind, o);
  const modes = c.modes ?? ['host'];
  print('PLAN', { measurements: modes.length * algorithms.length * sizes.length });
  for (const mode of modes) for (const alg of algorithms) {
    for (const bytes of sizes) {
      const count = c.collective === 'barrier' ? 0 : Math.max(1, Math.floor(bytes / t.size));
      // Options as an application would pass them: buffers are typed arrays of exactly
      // the right size, so only what differs from the defaults is given.
      const o: ReduceOptions = {
        ...(t.kind === 'pair' || !c.shared ? { datatype: c.datatype } : {}),
        ...(reducesOp(c) && c.op !== 'sum' ? { op: c.op } : {}),
        ...(alg ? { algorithm: alg } : {}),
        ...(mode !== 'host' ? { mode } : {}),
      };
      let label: string;
      try {
        // Offloaded calls run the named algorithm among the nodes' engines.
        label = mode === 'host' ? comm.algorithmFor(c.collective, count, { ...o, op: c.op, datatype: c.datatype, blocking: true }) : `${mode}${alg ? `/${alg}` : ''}`;
        if (mode !== 'host') comm.checkMode(c.collective, mode, o.op ?? c.op);
      } catch (e) {
        if (!(e instanceof RestrictionError)) throw e;
        print('SKIP', { collective: c.collective, requested: alg ?? 'auto', mode, bytes, reason: e.message.split('\n')[0] });
        continue;
      }
      const { send, recv, free } = buffers(comm, c, count);
      const call = caller(comm, c, send, recv, Object.keys(o).length > 0 ? o : undefined);
      const { times, iterations } = timeCalls(world, comm, call, bytes, c);
      free();
      if (times) {
        const rec: BenchRecord = {
          collective: c.collective,
          algorithm: label,
          requested: alg ?? 'auto',
          mode,
          ...(c.nonblocking ? { nonblocking: true } : {}),
          ...(c.communicator !== undefined && c.communicator !== 'world' ? { communicator: c.communicator } : {}),
          ranks: comm.size,
          nodes: comm.nodeCount,
          bytes: count * t.size,
          iterations,
          ...times,
        };
        print('BENCH', rec);
      }
    }
  }
}

/** Time explicit cases, `repetitions` passes, alternating direction (see BenchConfig.cases). */
function runCases(world: Communicator, c: BenchConfig, cases: readonly BenchCase[]): void {
  const comm = benchComm(world, c.communicator);
  const t = lookupDatatype(c.datatype);
  const reps = c.repetitions ?? 1;
  const print = (kind: string, o: object): void => printAt0(world, kind, o);
  print('PLAN', { measurements: reps * cases.length });
  const spin = (us: number): void => {
    const end = performance.now() + us / 1000;
    while (performance.now() < end) {
      // the test seam's deliberate delay
    }
  };
  for (let rep = 0; rep < reps; rep++) {
    const order = cases.map((_, i) => i);
    if (rep % 2 === 1) order.reverse();
    for (const i of order) {
      const k = cases[i];
      const count = c.collective === 'barrier' ? 0 : Math.max(1, Math.floor(k.bytes / t.size));
      const o: ReduceOptions = {
        ...(t.kind === 'pair' || !c.shared ? { datatype: c.datatype } : {}),
        ...(reducesOp(c) && c.op !== 'sum' ? { op: c.op } : {}),
        ...(k.algorithm ? { algorithm: k.algorithm } : {}),
        ...(k.params && Object.keys(k.params).length > 0 ? { params: k.params } : {}),
      };
      let label: string;
      try {
        label = comm.algorithmFor(c.collective, count, { ...o, op: c.op, datatype: c.datatype, blocking: true });
      } catch (e) {
        if (!(e instanceof RestrictionError)) throw e;
        print('SKIP', { collective: c.collective, requested: k.algorithm ?? 'auto', mode: 'host', bytes: k.bytes, case: i, rep, reason: e.message.split('\n')[0] });
        continue;
      }
      const { send, recv, free } = buffers(comm, c, count);
      const once = caller(comm, c, send, recv, Object.keys(o).length > 0 ? o : undefined);
      const call = k.delayUs ? () => (once(), spin(k.delayUs ?? 0)) : once;
      const { times, iterations } = timeCalls(world, comm, call, k.bytes, c);
      free();
      if (times) {
        const rec: BenchRecord = {
          collective: c.collective,
          algorithm: label,
          requested: k.algorithm ?? 'auto',
          mode: 'host',
          ranks: comm.size,
          nodes: comm.nodeCount,
          bytes: count * t.size,
          iterations,
          ...times,
          case: i,
          rep,
          ...(k.params && Object.keys(k.params).length > 0 ? { params: k.params } : {}),
        };
        print('BENCH', rec);
      }
    }
  }
}

function round(v: number): number {
  return Math.round(v * 1000) / 1000;
}

