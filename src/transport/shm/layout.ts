/**
 * Layout of a node's shared control memory (one SharedArrayBuffer per node process).
 *
 * Endpoints 0..L−1 are the node's ranks (by local rank), followed by its offload
 * engine when the job runs engines (src/offload/engine/node-layout.ts counts it in
 * `localSize`); the last endpoint is the node's network proxy (the process's main
 * thread). The block holds:
 * - a job header: abort flag, the failed rank and its reason (UTF-8);
 * - per endpoint a doorbell (a counter to Atomics.wait on) and a "sleeping" flag,
 *   each on its own cache line;
 * - per endpoint `flagsPerEndpoint` completion cells for zero-copy sends;
 * - one single-producer/single-consumer ring per ordered pair of endpoints
 *   (the proxy has no ring to itself).
 */
import { ArgumentError } from '../../core/errors.js';

const LINE = 64;
const REASON_OFFSET = 256;
const REASON_BYTES = 2048;
const BELLS_OFFSET = REASON_OFFSET + REASON_BYTES;
/** Bytes of a ring's header: head and tail counters on separate cache lines. */
export const RING_HEADER = 2 * LINE;

export interface LayoutParams {
  /** Endpoints on this node other than the proxy: its ranks (and its offload engine). */
  readonly localSize: number;
  /** Data bytes per ring (power of two, at least 4 KiB). */
  readonly ringBytes: number;
  /** Zero-copy completion cells per endpoint. */
  readonly flagsPerEndpoint: number;
}

export interface Layout extends LayoutParams {
  /** Number of endpoints: ranks plus the proxy. */
  readonly endpoints: number;
  /** Index of the proxy endpoint. */
  readonly proxy: number;
  readonly totalBytes: number;
  bellIndex(endpoint: number): number;
  sleepIndex(endpoint: number): number;
  /** Int32 index of a completion cell (global id). */
  flagIndex(flagId: number): number;
  /** Byte offset of the ring from `src` to `dst` endpoint. */
  ringOffset(src: number, dst: number): number;
}

export function makeLayout(p: LayoutParams): Layout {
  if (!Number.isInteger(p.localSize) || p.localSize < 1) throw new ArgumentError(`localSize must be >= 1, got ${p.localSize}`);
  if (p.ringBytes < 4096 || (p.ringBytes & (p.ringBytes - 1)) !== 0) {
    throw new ArgumentError(`ring size must be a power of two >= 4096 bytes, got ${p.ringBytes}`);
  }
  const endpoints = p.localSize + 1;
  const proxy = p.localSize;
  const flagsOffset = BELLS_OFFSET + endpoints * 2 * LINE;
  const ringsOffset = align(flagsOffset + endpoints * p.flagsPerEndpoint * 4, LINE);
  const ringStride = RING_HEADER + p.ringBytes;
  const ringIndex = (s: number, d: number): number => s * endpoints + d;
  const totalBytes = ringsOffset + endpoints * endpoints * ringStride;
  return Object.freeze({
    ...p,
    endpoints,
    proxy,
    totalBytes,
    bellIndex: (e: number) => (BELLS_OFFSET + e * 2 * LINE) >> 2,
    sleepIndex: (e: number) => (BELLS_OFFSET + e * 2 * LINE + LINE) >> 2,
    flagIndex: (id: number) => (flagsOffset >> 2) + id,
    ringOffset: (s: number, d: number) => ringsOffset + ringIndex(s, d) * ringStride,
  });
}

function align(n: number, a: number): number {
  return Math.ceil(n / a) * a;
}

/** Job header words. */
const ABORT = 0;
const FAILED_RANK = 1;
const REASON_LEN = 2;

/** Record that `rank` failed (first failure wins) and wake every endpoint. */
export function signalAbort(sab: SharedArrayBuffer, layout: Layout, rank: number, reason: string): void {
  const i32 = new Int32Array(sab);
  if (Atomics.compareExchange(i32, ABORT, 0, 1) !== 0) return;
  const bytes = new TextEncoder().encode(reason).subarray(0, REASON_BYTES);
  new Uint8Array(sab, REASON_OFFSET, REASON_BYTES).set(bytes);
  Atomics.store(i32, REASON_LEN, bytes.byteLength);
  Atomics.store(i32, FAILED_RANK, rank);
  Atomics.store(i32, ABORT, 2);
  for (let e = 0; e < layout.endpoints; e++) {
    Atomics.add(i32, layout.bellIndex(e), 1);
    Atomics.notify(i32, layout.bellIndex(e));
  }
}

/** The recorded failure, if the job is being aborted. */
export function readAbort(i32: Int32Array): { rank: number; reason: string } | undefined {
  if (Atomics.load(i32, ABORT) !== 2) return undefined;
  const len = Atomics.load(i32, REASON_LEN);
  const bytes = new Uint8Array(i32.buffer, REASON_OFFSET, len).slice();
  return { rank: Atomics.load(i32, FAILED_RANK), reason: new TextDecoder().decode(bytes) };
}

/** Whether the abort flag is set (cheap check for hot loops). */
export function isAborting(i32: Int32Array): boolean {
  return Atomics.load(i32, ABORT) !== 0;
}

/**
 * Wake endpoint `e` if it announced that it sleeps. Producers call this after making
 * something available to `e` (a ring entry, ring space, a completion cell).
 */
export function notifyIfSleeping(i32: Int32Array, layout: Layout, e: number): void {
  if (Atomics.load(i32, layout.sleepIndex(e)) !== 0) {
    const b = layout.bellIndex(e);
    Atomics.add(i32, b, 1);
    Atomics.notify(i32, b);
  }
}

type WaitAsyncResult =
  | { async: false; value: 'not-equal' | 'timed-out' }
  | { async: true; value: Promise<'ok' | 'timed-out'> };

/** Atomics.waitAsync (Node 20 has it; the ES2022 lib typings do not). */
export const waitAsync: (ta: Int32Array, index: number, value: number, timeoutMs?: number) => WaitAsyncResult = (
  Atomics as unknown as { waitAsync: (ta: Int32Array, index: number, value: number, timeoutMs?: number) => WaitAsyncResult }
).waitAsync.bind(Atomics);

/**
 * Await a waitAsync promise while keeping the event loop alive: a pending
 * Atomics.waitAsync does not count as work for Node's loop, so a thread whose only
 * pending work is such a wait would otherwise exit (or end its top-level await).
 */
export async function keepAlive<T>(p: Promise<T>, timeoutMs: number): Promise<T | 'timed-out'> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<'timed-out'>((resolve) => {
    timer = setTimeout(() => resolve('timed-out'), Math.max(1, Math.ceil(timeoutMs)) + 1);
  });
  try {
    return await Promise.race([p, t]);
  } finally {
    clearTimeout(timer);
  }
}
