/**
 * The inputs of a schedule generator: who this rank is, how big the collective is,
 * where ranks live, and the algorithm's parameters.
 */
import { ArgumentError, checkCount, checkIntRange } from '../core/errors.js';
import { flatTopology, type Topology } from './topology.js';
import type { CollectiveKind } from './types.js';

export type ParamValue = number | string | boolean;
export type Params = Readonly<Record<string, ParamValue>>;

export interface ScheduleContext {
  readonly collective: CollectiveKind;
  readonly rank: number;
  readonly size: number;
  /**
   * Elements per rank, as MPI counts them: the vector length for bcast, reduce and
   * allreduce; each rank's block for allgather, gather, scatter, reduce_scatter
   * (block form) and alltoall (per destination); 0 for barrier.
   */
  readonly count: number;
  /** Root rank of rooted collectives (0 otherwise). */
  readonly root: number;
  /** Whether the reduction operator is commutative (true when there is none). */
  readonly commutative: boolean;
  /** Bytes per element, for parameters given in bytes (segment sizes). */
  readonly elementSize: number;
  readonly topology: Topology;
  /** The algorithm's parameters, defaults filled in. */
  readonly params: Params;
}

export interface ContextOptions {
  rank: number;
  size: number;
  count?: number;
  root?: number;
  commutative?: boolean;
  elementSize?: number;
  topology?: Topology;
  params?: Params;
}

export function makeContext(collective: CollectiveKind, o: ContextOptions): ScheduleContext {
  checkIntRange('size', o.size, 1, 1 << 30);
  checkIntRange('rank', o.rank, 0, o.size - 1);
  const count = o.count ?? 0;
  checkCount('count', count);
  const root = o.root ?? 0;
  checkIntRange('root', root, 0, o.size - 1);
  const topology = o.topology ?? flatTopology(o.size);
  if (topology.size !== o.size) {
    throw new ArgumentError(`topology has ${topology.size} ranks but the collective has ${o.size}`);
  }
  return {
    collective,
    rank: o.rank,
    size: o.size,
    count,
    root,
    commutative: o.commutative ?? true,
    elementSize: o.elementSize ?? 8,
    topology,
    params: o.params ?? {},
  };
}

/** Is this collective rooted? */
export function isRooted(c: CollectiveKind): boolean {
  return c === 'bcast' || c === 'reduce' || c === 'gather' || c === 'scatter';
}

/** Does this collective reduce data? */
export function isReduction(c: CollectiveKind): boolean {
  return c === 'reduce' || c === 'allreduce' || c === 'reduce_scatter' || c === 'scan' || c === 'exscan';
}

/** Sizes (elements) of the user's input and output buffers on `rank`. */
export function ioCounts(
  c: CollectiveKind,
  rank: number,
  size: number,
  count: number,
  root: number,
): { in: number; out: number } {
  const isRoot = rank === root;
  switch (c) {
    case 'barrier':
      return { in: 0, out: 0 };
    case 'bcast':
      return { in: 0, out: count };
    case 'reduce':
      return { in: count, out: isRoot ? count : 0 };
    case 'allreduce':
      return { in: count, out: count };
    case 'allgather':
      return { in: count, out: count * size };
    case 'reduce_scatter':
      return { in: count * size, out: count };
    case 'gather':
      return { in: count, out: isRoot ? count * size : 0 };
    case 'scatter':
      return { in: isRoot ? count * size : 0, out: count };
    case 'scan':
    case 'exscan':
      return { in: count, out: count };
    case 'alltoall':
      return { in: count * size, out: count * size };
  }
}
