/**
 * Direct (single-copy) shared-memory collectives: the data movement of the flat path's
 * rendezvous mode (shm-collectives.ts), for calls whose blocks do not fit a slot.
 *
 * Every rank publishes the arena offsets of the buffers other ranks must touch; once
 * all have published, each rank moves data straight between the users' buffers (no
 * slot in between: one copy where the slot path makes two and a schedule makes two
 * plus its messages), then marks the call done and waits until every rank has, since
 * its buffers may still be read or written by the others until then.
 *
 * - bcast, scatter: every rank copies its part out of the root's buffer;
 * - gather: every rank copies its block into the root's receive buffer;
 * - allgather, alltoall: every rank copies its blocks out of every rank's send buffer;
 * - reduce_scatter: every rank folds its block of every rank's send buffer;
 * - reduce, allreduce: the vector is cut into P chunks (whole cache lines); rank k folds
 *   chunk k of every send buffer into the root's (reduce) or its own (allreduce)
 *   receive buffer and, for allreduce, copies the result into every other rank's:
 *   the reduce-scatter + allgather of Rabenseifner's algorithm, with the messages
 *   replaced by loads.
 *
 * Folds run in rank order, (s0 ∘ s1) ∘ s2 ∘ …, once per element: results are
 * reproducible, right for non-commutative operators and bitwise identical on every
 * rank. Only rank k touches chunk k (block k) of any buffer, so in-place calls are safe
 * without snapshots; a fold whose output overlaps a later operand goes through scratch.
 *
 * Cost on P ranks, block B: one copy of what each rank receives (bcast B, allgather
 * (P−1)B, …); reductions read P·n/P = n elements and write n/P (reduce) or n
 * (allreduce) per rank; two synchronisations (all published, all done).
 */
import type { Kernel } from '../core/ops.js';
import type { CollectiveKind } from '../schedule/types.js';
import { copyBytes } from '../transport/shm/endpoint.js';

/** Which of a rank's buffers other ranks touch in a direct call (they must be arena views). */
export function sharedBuffers(kind: CollectiveKind, rank: number, root: number): { send: boolean; recv: boolean } {
  const isRoot = rank === root;
  switch (kind) {
    case 'bcast':
      return { send: false, recv: isRoot };
    case 'scatter':
      return { send: isRoot, recv: false };
    case 'gather':
      return { send: false, recv: isRoot };
    case 'reduce':
      return { send: true, recv: isRoot };
    case 'allreduce':
      return { send: true, recv: true };
    default:
      // allgather, alltoall, reduce_scatter
      return { send: true, recv: false };
  }
}

/**
 * Whether a rank's send buffer must be snapshotted before it is shared: it overlaps the
 * receive buffer other than in the in-place layouts the movement above leaves intact
 * (gather/allgather: the send block is the rank's own block of recv; scatter: the
 * root's recv is its own block of send; reduce/allreduce: the same bytes).
 */
export function sendNeedsSnapshot(kind: CollectiveKind, rank: number, root: number, send: Uint8Array, recv: Uint8Array, block: number): boolean {
  if (send.byteLength === 0 || recv.byteLength === 0 || send.buffer !== recv.buffer) return false;
  const s = send.byteOffset;
  const r = recv.byteOffset;
  if (s + send.byteLength <= r || r + recv.byteLength <= s) return false;
  switch (kind) {
    case 'gather':
    case 'allgather':
      return !(s === r + rank * block && send.byteLength === block);
    case 'scatter':
      return !(rank === root && r === s + rank * block && recv.byteLength === block);
    case 'reduce':
    case 'allreduce':
      return s !== r;
    default:
      return true;
  }
}

/** Elements [lo, hi) of chunk k of n elements cut into P chunks of whole cache lines. */
export function chunkOf(n: number, P: number, k: number, elementSize: number): [number, number] {
  const line = Math.max(1, 64 / elementSize);
  const per = Math.ceil(Math.ceil(n / P) / line) * line;
  const lo = Math.min(n, k * per);
  return [lo, Math.min(n, lo + per)];
}

/** One rank's part of a direct call, once every rank has published its offsets. */
export interface DirectMove {
  readonly kind: CollectiveKind;
  readonly rank: number;
  readonly size: number;
  readonly root: number;
  /** Elements per block (the MPI count). */
  readonly count: number;
  readonly elementSize: number;
  readonly kernel: Kernel | undefined;
  /** This rank's own buffers (send possibly a snapshot; either may be private memory when not shared). */
  readonly send: Uint8Array;
  readonly recv: Uint8Array;
  /** Arena offsets published by each rank (−1: not shared by that rank). */
  readonly sendAt: Int32Array;
  readonly recvAt: Int32Array;
}

/** The whole arena as bytes, and scratch for folds whose output overlaps an operand. */
export interface DirectMemory {
  readonly arena: SharedArrayBuffer;
  readonly u8: Uint8Array;
  scratch(bytes: number): Uint8Array;
  release(v: Uint8Array): void;
}

export function moveDirect(m: DirectMove, mem: DirectMemory): void {
  const { kind, rank: me, size: P, root, elementSize: es, send, recv, sendAt, recvAt } = m;
  const u8 = mem.u8;
  const B = m.count * es;
  /** Copy n bytes from arena offset `from` into own recv at byte `at`, unless they are the same bytes. */
  const pull = (at: number, from: number, n: number): void => {
    if (n > 0 && !(recv.buffer === mem.arena && recv.byteOffset + at === from)) copyBytes(recv, at, u8, from, n);
  };
  switch (kind) {
    case 'bcast':
      if (me !== root) pull(0, recvAt[root], B);
      return;
    case 'scatter':
      pull(0, sendAt[root] + me * B, B);
      return;
    case 'gather': {
      const to = recvAt[root] + me * B;
      if (!(send.buffer === mem.arena && send.byteOffset === to)) copyBytes(u8, to, send, 0, B);
      return;
    }
    case 'allgather':
      for (let q = 0; q < P; q++) pull(q * B, sendAt[q], B);
      return;
    case 'alltoall':
      for (let q = 0; q < P; q++) pull(q * B, sendAt[q] + me * B, B);
      return;
    case 'reduce_scatter':
      fold(mem, m.kernel as Kernel, recv, P, (q) => sendAt[q] + me * B, B, m.count);
      return;
    case 'reduce':
    case 'allreduce': {
      const [lo, hi] = chunkOf(m.count, P, me, es);
      if (hi <= lo) return;
      const n = hi - lo;
      const dst = kind === 'reduce' ? recvAt[root] : recvAt[me];
      const out = new Uint8Array(mem.arena, dst + lo * es, n * es);
      fold(mem, m.kernel as Kernel, out, P, (q) => sendAt[q] + lo * es, n * es, n);
      if (kind === 'allreduce') for (let q = 0; q < P; q++) if (q !== me) copyBytes(u8, recvAt[q] + lo * es, out, 0, n * es);
      return;
    }
    default:
      return;
  }
}

/**
 * out = s0 ∘ s1 ∘ … ∘ s(P−1) (rank order) over n elements, sq the arena bytes at
 * at(q). The kernel reads both operands before writing each element, so out may be
 * s0 or s1 itself; any other overlap folds through scratch.
 */
function fold(mem: DirectMemory, kernel: Kernel, out: Uint8Array, P: number, at: (q: number) => number, bytes: number, n: number): void {
  const src = (q: number): Uint8Array => new Uint8Array(mem.arena, at(q), bytes);
  if (P === 1) {
    if (!(out.buffer === mem.arena && out.byteOffset === at(0))) copyBytes(out, 0, src(0), 0, bytes);
    return;
  }
  let clash = false;
  if (out.buffer === mem.arena) {
    const o = out.byteOffset;
    for (let q = 0; q < P && !clash; q++) {
      const s = at(q);
      clash = o < s + bytes && s < o + bytes && !(q < 2 && s === o);
    }
  }
  const acc = clash ? mem.scratch(bytes) : out;
  try {
    kernel(acc, src(0), src(1), n);
    for (let q = 2; q < P; q++) kernel(acc, acc, src(q), n);
    if (clash) copyBytes(out, 0, acc, 0, bytes);
  } finally {
    if (clash) mem.release(acc);
  }
}
