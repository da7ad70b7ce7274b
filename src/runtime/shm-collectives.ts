/**
 * Flat shared-memory collectives: the small-message fast path of a communicator
 * whose ranks all live on one node (hand-tuned; not a catalogue schedule).
 *
 * Every rank writes its contribution into its slot of the communicator's block in
 * the node arena, marks its arrival and increments the phase counter; the last
 * rank to arrive folds the slots in rank order (v0 ∘ v1 ∘ … ∘ vP−1, so the result is
 * reproducible, correct for non-commutative operators and bitwise identical on all
 * ranks), then publishes the generation and wakes sleepers with one notify. Others
 * spin on the generation, then park on it. Two phases alternate, which makes reuse
 * safe: a rank can only start call c+2 after everyone arrived at c+1, i.e. after
 * everyone finished reading call c.
 *
 * Block layout (bytes): gen @0, sleepers @64, counters @128/@192, arrival markers
 * @256 (one int32 per rank), then 2·P slots and 2 result areas of SHM_SLOT_BYTES.
 */
import type { Kernel } from '../core/ops.js';
import { RankFailedError } from '../core/errors.js';
import { copyBytes } from '../transport/shm/endpoint.js';
import { SHM_SLOT_BYTES } from './config.js';
import { timeoutError, type Engine, type WaitInfo } from './engine.js';

const GEN = 0;
const SLEEPERS = 16;
const COUNTER = 32; // + phase * 16
const MARKERS = 64;

export type ShmKind = 'barrier' | 'bcast' | 'reduce' | 'allreduce' | 'allgather' | 'gather';

export function shmBlockBytes(size: number): number {
  return slotsOffset(size) + (2 * size + 2) * SHM_SLOT_BYTES;
}

function slotsOffset(size: number): number {
  return Math.ceil((MARKERS * 4 + size * 4) / 64) * 64;
}

export class ShmCollectives {
  private readonly i32: Int32Array;
  private readonly u8: Uint8Array;
  private readonly base: number;
  private readonly slots: number;
  private calls = 0;

  constructor(
    arena: SharedArrayBuffer,
    offset: number,
    private readonly rank: number,
    private readonly size: number,
    private readonly engine: Engine,
  ) {
    this.u8 = new Uint8Array(arena);
    this.i32 = new Int32Array(arena, offset, slotsOffset(size) / 4);
    this.base = offset;
    this.slots = offset + slotsOffset(size);
  }

  /** Largest per-rank contribution in bytes. */
  static readonly limit = SHM_SLOT_BYTES;

  private slot(phase: number, r: number): number {
    return this.slots + (phase * this.size + r) * SHM_SLOT_BYTES;
  }

  private result(phase: number): number {
    return this.slots + (2 * this.size + phase) * SHM_SLOT_BYTES;
  }

  /**
   * Run one collective. `send`/`recv` are byte views (`recv` may be empty where the
   * rank gets no output); `bytes` is the per-rank contribution; `elements` its count.
   */
  run(
    kind: ShmKind,
    send: Uint8Array,
    recv: Uint8Array,
    bytes: number,
    elements: number,
    root: number,
    kernel: Kernel | undefined,
    info: WaitInfo,
  ): void {
    const c = this.calls++;
    const ph = c & 1;
    const me = this.rank;
    const P = this.size;
    const u8 = this.u8;
    const i32 = this.i32;
    if (kind === 'bcast') {
      if (me === root) copyBytes(u8, this.slot(ph, root), recv, 0, bytes);
    } else if (kind !== 'barrier') {
      copyBytes(u8, this.slot(ph, me), send, 0, bytes);
    }
    const target = (c + 1) | 0;
    Atomics.store(i32, MARKERS + me, target);
    if (Atomics.add(i32, COUNTER + ph * 16, 1) + 1 === P) {
      Atomics.store(i32, COUNTER + ph * 16, 0);
      if (kind === 'allreduce' || kind === 'reduce') this.fold(ph, bytes, elements, kernel as Kernel);
      Atomics.store(i32, GEN, target);
      if (Atomics.load(i32, SLEEPERS) > 0) Atomics.notify(i32, GEN);
    } else if (((Atomics.load(i32, GEN) - target) | 0) < 0) {
      this.await(target, info);
    }
    switch (kind) {
      case 'allreduce':
        copyBytes(recv, 0, u8, this.result(ph), bytes);
        break;
      case 'reduce':
        if (me === root) copyBytes(recv, 0, u8, this.result(ph), bytes);
        break;
      case 'bcast':
        if (me !== root) copyBytes(recv, 0, u8, this.slot(ph, root), bytes);
        break;
      case 'allgather':
        for (let r = 0; r < P; r++) copyBytes(recv, r * bytes, u8, this.slot(ph, r), bytes);
        break;
      case 'gather':
        if (me === root) for (let r = 0; r < P; r++) copyBytes(recv, r * bytes, u8, this.slot(ph, r), bytes);
        break;
      case 'barrier':
        break;
    }
  }

  /** result = slot0 ∘ slot1 ∘ … in rank order. */
  private fold(ph: number, bytes: number, n: number, kernel: Kernel): void {
    const u8 = this.u8;
    const res = u8.subarray(this.result(ph), this.result(ph) + bytes);
    if (this.size === 1) {
      res.set(u8.subarray(this.slot(ph, 0), this.slot(ph, 0) + bytes));
      return;
    }
    const view = (r: number): Uint8Array => u8.subarray(this.slot(ph, r), this.slot(ph, r) + bytes);
    kernel(res, view(0), view(1), n);
    for (let r = 2; r < this.size; r++) kernel(res, res, view(r), n);
  }

  private await(target: number, info: WaitInfo): void {
    const i32 = this.i32;
    const engine = this.engine;
    let spins = 0;
    while (((Atomics.load(i32, GEN) - target) | 0) < 0) {
      if (++spins < engine.spin) {
        if ((spins & 255) === 0) engine.progress();
        continue;
      }
      spins = 0;
      const now = performance.now();
      const ab = engine.ep.aborted();
      if (ab) throw new RankFailedError(ab.rank, ab.reason);
      if (now >= info.deadline) throw timeoutError(info, this.missing(target));
      Atomics.add(i32, SLEEPERS, 1);
      const g = Atomics.load(i32, GEN);
      if (((g - target) | 0) < 0) Atomics.wait(i32, GEN, g, Math.min(info.deadline - now, 20));
      Atomics.sub(i32, SLEEPERS, 1);
      engine.progress();
    }
  }

  /** Ranks that have not arrived at the call with generation `target`. */
  private missing(target: number): number[] {
    const out: number[] = [];
    for (let r = 0; r < this.size; r++) if (((Atomics.load(this.i32, MARKERS + r) - target) | 0) < 0) out.push(r);
    return out;
  }
}

/** Clear a freshly allocated block (the allocating rank does this before publishing the offset). */
export function initShmBlock(arena: SharedArrayBuffer, offset: number, size: number): void {
  new Uint8Array(arena, offset, slotsOffset(size)).fill(0);
}
