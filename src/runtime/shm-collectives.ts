/**
 * Flat shared-memory collectives: the small-message fast path of a communicator
 * whose ranks all live on one node (hand-tuned; not a catalogue schedule). Used by
 * blocking barrier, bcast, reduce, allreduce, allgather and gather with at most
 * SHM_SLOT_BYTES per rank when no algorithm is named.
 *
 * Every rank copies its contribution into its slot of the communicator's block in
 * the node arena and publishes the call number in the slot's first word.
 *
 * - Two ranks: each waits for the peer's slot to carry the call number and then
 *   reads what it needs straight from the slots; allreduce folds slot 0 ∘ slot 1
 *   into the output (both ranks compute the same fold: identical results). One
 *   cache-line transfer each way per call.
 * - More ranks: ranks also increment the phase counter; the last to arrive folds the
 *   slots in rank order into the result area, publishes the generation and wakes
 *   sleepers with a single notify (ranks parked on one word: cheap when ranks
 *   outnumber cores); the others copy the result.
 *
 * Reductions are folds in rank order, (v0 ∘ v1) ∘ v2 ∘ …: reproducible, correct for
 * non-commutative operators, bitwise identical on every rank.
 *
 * Two phases (call number parity) alternate, which makes slot reuse safe: every call
 * waits for every rank to arrive, so a rank can only start call c+2 after all ranks
 * arrived at c+1, i.e. after all of them finished reading call c.
 *
 * Block layout: int32 words GEN @0, SLEEPERS @16, COUNTER[phase] @32/@48, per rank a
 * line @64+16r (word 0: "parked" flag of the two-rank protocol); then 2·P slots
 * (word 0: call number, data from byte 8) and 2 result areas.
 */
import type { Kernel } from '../core/ops.js';
import { RankFailedError } from '../core/errors.js';
import { copyBytes } from '../transport/shm/endpoint.js';
import { SHM_SLOT_BYTES } from './config.js';
import { SPIN_CHECK, timeoutError, type Engine, type WaitInfo } from './engine.js';

const GEN = 0;
const SLEEPERS = 16;
const COUNTER = 32; // + phase * 16
const RANKS = 64; // + rank * 16
const DATA = 8;
const STRIDE = SHM_SLOT_BYTES + 64;

/** Typed arrays of non-BigInt scalar types. */
export type NumberArray = Float64Array | Float32Array | Int32Array | Uint32Array | Int16Array | Uint16Array | Int8Array | Uint8Array;
export interface NumberArrayConstructor {
  readonly BYTES_PER_ELEMENT: number;
  new (buffer: ArrayBufferLike, byteOffset: number, length: number): NumberArray;
}

export type ShmKind = 'barrier' | 'bcast' | 'reduce' | 'allreduce' | 'allgather' | 'gather';

function headerBytes(size: number): number {
  return (RANKS + size * 16) * 4;
}

export function shmBlockBytes(size: number): number {
  return headerBytes(size) + (2 * size + 2) * STRIDE;
}

/** Builds the wait description when a call has to report a timeout. */
export type DescribeCall = (seq: number, timeoutMs: number, deadline: number) => WaitInfo;

export class ShmCollectives {
  /** Largest per-rank contribution in bytes. */
  static readonly limit = SHM_SLOT_BYTES;
  private readonly i32: Int32Array;
  private readonly u8: Uint8Array;
  private readonly base: number;
  /** Byte offset (in the arena) of the data of slot [phase][rank]. */
  private readonly slotData: Int32Array;
  /** Int32 index (in i32) of the call-number word of slot [phase][rank]. */
  private readonly slotSeq: Int32Array;
  private readonly slotView: Uint8Array[];
  private readonly resultView: Uint8Array[];
  private calls = 0;
  private typedCtor: NumberArrayConstructor | undefined;
  private typedViews: NumberArray[] = [];
  private readonly typedCache = new Map<NumberArrayConstructor, NumberArray[]>();

  constructor(
    arena: SharedArrayBuffer,
    offset: number,
    private readonly rank: number,
    private readonly size: number,
    private readonly engine: Engine,
    private readonly describe: DescribeCall,
  ) {
    this.u8 = new Uint8Array(arena);
    this.i32 = new Int32Array(arena);
    this.base = offset >> 2;
    const slots = offset + headerBytes(size);
    this.slotData = new Int32Array(2 * size);
    this.slotSeq = new Int32Array(2 * size);
    this.slotView = [];
    for (let i = 0; i < 2 * size; i++) {
      const at = slots + i * STRIDE;
      this.slotSeq[i] = at >> 2;
      this.slotData[i] = at + DATA;
      this.slotView.push(new Uint8Array(arena, at + DATA, SHM_SLOT_BYTES));
    }
    const results = slots + 2 * size * STRIDE;
    this.resultView = [0, 1].map((p) => new Uint8Array(arena, results + p * STRIDE, SHM_SLOT_BYTES));
  }

  /**
   * Run one collective. `send`/`recv` are byte views (`recv` may be empty where the
   * rank gets no output; bcast passes its buffer as `recv` on every rank); `bytes`
   * is the per-rank contribution, `elements` its element count.
   */
  run(
    kind: ShmKind,
    send: Uint8Array,
    recv: Uint8Array,
    bytes: number,
    elements: number,
    root: number,
    kernel: Kernel | undefined,
    seq: number,
    timeoutMs: number,
  ): void {
    const c = this.calls++;
    const ph = c & 1;
    const me = this.rank;
    const P = this.size;
    const mine = ph * P + me;
    const target = (c + 1) & 0x7fffffff;
    if (kind === 'bcast') {
      if (me === root) copyBytes(this.u8, this.slotData[mine], recv, 0, bytes);
    } else if (kind !== 'barrier') {
      copyBytes(this.u8, this.slotData[mine], send, 0, bytes);
    }
    const reduces = kind === 'allreduce' || kind === 'reduce';
    if (this.arrive(ph, target, seq, timeoutMs)) {
      if (reduces) this.fold(ph, elements, kernel as Kernel);
      this.release(target);
    }
    if (reduces) {
      if (kind === 'reduce' && me !== root) return;
      if (P === 2) (kernel as Kernel)(recv, this.slotView[ph * 2], this.slotView[ph * 2 + 1], elements);
      else copyBytes(recv, 0, this.resultView[ph], 0, bytes);
    } else if (kind === 'bcast') {
      if (me !== root) copyBytes(recv, 0, this.u8, this.slotData[ph * P + root], bytes);
    } else if (kind === 'allgather' || (kind === 'gather' && me === root)) {
      for (let r = 0; r < P; r++) copyBytes(recv, r * bytes, this.u8, this.slotData[ph * P + r], bytes);
    }
  }

  /**
   * allreduce with op 'sum' on typed arrays of a non-BigInt scalar type: the same
   * protocol, with the copies and the fold done on cached typed views of the slots
   * (o[i] = x[i] + y[i], exactly the core sum kernel) — no views created per call.
   */
  allreduceSum(send: NumberArray, recv: NumberArray, n: number, ctor: NumberArrayConstructor, seq: number, timeoutMs: number): void {
    const c = this.calls++;
    const ph = c & 1;
    const P = this.size;
    const v = this.typed(ctor);
    const mine = v[ph * P + this.rank];
    for (let i = 0; i < n; i++) mine[i] = send[i];
    const s0 = v[ph * P];
    const s1 = v[ph * P + 1];
    const target = (c + 1) & 0x7fffffff;
    if (this.arrive(ph, target, seq, timeoutMs)) {
      const res = v[2 * P + ph];
      for (let i = 0; i < n; i++) res[i] = s0[i] + s1[i];
      for (let r = 2; r < P; r++) {
        const sr = v[ph * P + r];
        for (let i = 0; i < n; i++) res[i] = res[i] + sr[i];
      }
      this.release(target);
    }
    if (P === 2) for (let i = 0; i < n; i++) recv[i] = s0[i] + s1[i];
    else {
      const res = v[2 * P + ph];
      for (let i = 0; i < n; i++) recv[i] = res[i];
    }
  }

  /** Typed views of the slots (2·P) and result areas (2) for one element type. */
  private typed(ctor: NumberArrayConstructor): NumberArray[] {
    if (this.typedCtor === ctor) return this.typedViews;
    let views = this.typedCache.get(ctor);
    if (!views) {
      views = [...this.slotView, ...this.resultView].map((b) => new ctor(b.buffer, b.byteOffset, SHM_SLOT_BYTES / ctor.BYTES_PER_ELEMENT));
      this.typedCache.set(ctor, views);
    }
    this.typedCtor = ctor;
    this.typedViews = views;
    return views;
  }

  /**
   * Publish this rank's arrival at call `target` (its slot is written) and wait for
   * the others. Returns true when this rank arrived last with more than two ranks:
   * it must then fold (if the call reduces) and release() the others.
   */
  private arrive(ph: number, target: number, seq: number, timeoutMs: number): boolean {
    const i32 = this.i32;
    const P = this.size;
    const mine = ph * P + this.rank;
    Atomics.store(i32, this.slotSeq[mine], target);
    if (P === 2) {
      const peer = 1 - this.rank;
      if (Atomics.load(i32, this.base + RANKS + peer * 16) !== 0) Atomics.notify(i32, this.slotSeq[mine]);
      const theirs = this.slotSeq[ph * 2 + peer];
      if (Atomics.load(i32, theirs) !== target) this.awaitPeer(theirs, target, seq, timeoutMs);
      return false;
    }
    const counter = this.base + COUNTER + ph * 16;
    if (Atomics.add(i32, counter, 1) + 1 === P) {
      Atomics.store(i32, counter, 0);
      return true;
    }
    if (((Atomics.load(i32, this.base + GEN) - target) | 0) < 0) this.awaitGeneration(ph, target, seq, timeoutMs);
    return false;
  }

  /** The last arrival lets everyone go. */
  private release(target: number): void {
    Atomics.store(this.i32, this.base + GEN, target);
    if (Atomics.load(this.i32, this.base + SLEEPERS) > 0) Atomics.notify(this.i32, this.base + GEN);
  }

  /** result = slot0 ∘ slot1 ∘ … in rank order. */
  private fold(ph: number, n: number, kernel: Kernel): void {
    const res = this.resultView[ph];
    const s = (r: number): Uint8Array => this.slotView[ph * this.size + r];
    kernel(res, s(0), s(1), n);
    for (let r = 2; r < this.size; r++) kernel(res, res, s(r), n);
  }

  /** Two ranks: wait for the peer's call number (spin, then park on that word). */
  private awaitPeer(word: number, target: number, seq: number, timeoutMs: number): void {
    const i32 = this.i32;
    const engine = this.engine;
    const flag = this.base + RANKS + this.rank * 16;
    let deadline = 0;
    let spins = 0;
    let since = 0;
    let parked = false;
    let start = 0;
    const budget = engine.spinBudget();
    const noise = engine.noise;
    while (Atomics.load(i32, word) !== target) {
      if (noise !== undefined) noise.tick();
      if (!engine.spinDone(++spins, since, budget)) {
        if ((spins & 1023) === 0) engine.progress();
        if (since === 0 && spins >= SPIN_CHECK) {
          since = performance.now();
          if (start === 0) start = since;
        }
        continue;
      }
      spins = 0;
      since = 0;
      parked = true;
      deadline = this.check(deadline, seq, timeoutMs, () => (Atomics.load(i32, word) === target ? [] : [1 - this.rank]));
      Atomics.store(i32, flag, 1);
      const v = Atomics.load(i32, word);
      noise?.parking();
      const r = v !== target ? Atomics.wait(i32, word, v, Math.min(deadline - performance.now(), 20)) : 'not-equal';
      noise?.woke();
      Atomics.store(i32, flag, 0);
      // Keep the rank's other traffic moving while it waits long (p2p, nonblocking calls).
      if (r === 'timed-out') engine.progress();
    }
    engine.spinOutcome(parked, start);
  }

  /** More ranks: wait for the generation (spin, then park on it with the others). */
  private awaitGeneration(ph: number, target: number, seq: number, timeoutMs: number): void {
    const i32 = this.i32;
    const engine = this.engine;
    const gen = this.base + GEN;
    let deadline = 0;
    let spins = 0;
    let since = 0;
    let parked = false;
    let start = 0;
    const budget = engine.spinBudget();
    const noise = engine.noise;
    while (((Atomics.load(i32, gen) - target) | 0) < 0) {
      if (noise !== undefined) noise.tick();
      if (!engine.spinDone(++spins, since, budget)) {
        if ((spins & 1023) === 0) engine.progress();
        if (since === 0 && spins >= SPIN_CHECK) {
          since = performance.now();
          if (start === 0) start = since;
        }
        continue;
      }
      spins = 0;
      since = 0;
      parked = true;
      deadline = this.check(deadline, seq, timeoutMs, () => this.missing(ph, target));
      Atomics.add(i32, this.base + SLEEPERS, 1);
      const g = Atomics.load(i32, gen);
      noise?.parking();
      const r = ((g - target) | 0) < 0 ? Atomics.wait(i32, gen, g, Math.min(deadline - performance.now(), 20)) : 'not-equal';
      noise?.woke();
      Atomics.sub(i32, this.base + SLEEPERS, 1);
      // Keep the rank's other traffic moving while it waits long (p2p, nonblocking calls).
      if (r === 'timed-out') engine.progress();
    }
    engine.spinOutcome(parked, start);
  }

  /**
   * Abort and deadline checks before parking. The deadline is set at the first park
   * (calls that finish while spinning never read the clock).
   */
  private check(deadline: number, seq: number, timeoutMs: number, missing: () => number[]): number {
    const now = performance.now();
    if (deadline === 0) deadline = timeoutMs > 0 ? now + timeoutMs : Infinity;
    const ab = this.engine.ep.aborted();
    if (ab) throw new RankFailedError(ab.rank, ab.reason);
    if (now >= deadline) throw timeoutError(this.describe(seq, timeoutMs, deadline), missing());
    return deadline;
  }

  /** Ranks that have not arrived at the call with number `target`. */
  private missing(ph: number, target: number): number[] {
    const out: number[] = [];
    for (let r = 0; r < this.size; r++) if (Atomics.load(this.i32, this.slotSeq[ph * this.size + r]) !== target) out.push(r);
    return out;
  }
}

/** Clear a freshly allocated block (the allocating rank does this before publishing the offset). */
export function initShmBlock(arena: SharedArrayBuffer, offset: number, size: number): void {
  new Uint8Array(arena, offset, shmBlockBytes(size)).fill(0);
}
