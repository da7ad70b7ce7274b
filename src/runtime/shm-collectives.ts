/**
 * Flat shared-memory collectives: the small-message path of a communicator whose
 * ranks all live on one node (hand-tuned; not a catalogue schedule). Every
 * collective, blocking and nonblocking, when one rank's contribution fits a slot
 * (the block's slot size: P × 64 KiB for the world and for communicators made by
 * split and dup while their rank 0's arena slice has room, else 4 KiB; blocks of at
 * most 64 KiB) and no algorithm is named.
 *
 * A call c uses header phase p = c mod PHASES (64): rank r publishes the call's target
 * number (c + 1) in the first word of header slot [p][r] of the communicator's block in
 * the node arena, next to its contribution; readers take what they need straight from
 * the slots. Contributions of at most SHM_SMALL_BYTES (1 KiB) per rank travel in the
 * header slot itself ("small" calls); larger ones go to big slot [c mod DATA_PHASES][r]
 * (8 data phases, as large as the block's slot size). By shape:
 *
 * - everyone needs everyone (barrier, allreduce, allgather, alltoall,
 *   reduce_scatter): two ranks wait for each other's slot word; more ranks count
 *   arrivals and the last one (after folding the slots in rank order into the
 *   phase's result area for allreduce) publishes the phase's generation;
 * - gathering (reduce, gather): the root waits for every slot; the others publish
 *   and return at once (eager, as MPI's small messages are);
 * - distributing (bcast, scatter): the root publishes and returns at once; the
 *   others wait for the root's slot.
 *
 * Slot reuse: before a rank writes header phase p for call c it waits until every rank
 * has finished call c − PHASES (each rank's done word of phase p carries the target of
 * the last call it finished there); a big call also waits for calls c − 8, c − 16, …
 * > c − PHASES, the earlier users of its data phase (older ones are implied: finishing
 * any call implies every rank finished the call PHASES before it, whose slot it
 * reused). Blocking everyone-shaped calls never wait there; it is what makes eager
 * returns and several outstanding nonblocking calls safe, and it lets an eager root
 * (bcast, scatter) or eager sender (reduce, gather) run up to 63 small calls (7 big
 * ones) ahead of a reader that is not scheduled: with more ranks than cores that is
 * the difference between a context switch per call and one per burst of calls.
 *
 * Waiting spins briefly (the engine's adaptive budget), then parks on the rank's
 * doorbell; every write another rank may wait for rings the doorbells of sleeping
 * ranks, so nonblocking calls waiting in the progress engine are woken too.
 *
 * Mismatch check: each rank stores its call's signature (collective, datatype, op,
 * root, count: call-signature.ts) next to its slot, and every rank compares the
 * slots it reads with its own; a mismatch raises MismatchError on the ranks that
 * read a mismatching slot (ranks that read none, such as a bcast root, return), and
 * a rank still waiting checks the slots already published before it parks.
 *
 * Reductions are folds in rank order, (v0 ∘ v1) ∘ v2 ∘ …: reproducible, correct for
 * non-commutative operators, bitwise identical on every rank.
 *
 * Direct mode (blocks that do not fit a slot): the slot carries the arena offsets of
 * the rank's buffers instead of data; after every rank has published, each moves its
 * part straight between the users' buffers (shm-direct.ts), marks its done word and
 * waits until every rank has (others may touch its buffers until then). Buffers
 * outside the arena are staged through arena scratch; when a rank cannot get any, its
 * slot says so and every rank runs the plan's schedule instead.
 *
 * Block layout (int32 words from the block's start): GEN[p] @16p, COUNTER[p]
 * @16(PHASES + p), per rank a line of PHASES words @32·PHASES + PHASES·r (DONE[p] @+p);
 * then PHASES·P header slots (word 0: target, words 1–3: signature meta, count, root;
 * small data from byte 16; in direct mode words 4–6: send offset, receive offset,
 * failed) and PHASES small result areas, SHM_SMALL_BYTES + 64 bytes apart; then
 * DATA_PHASES·P big slots and DATA_PHASES big result areas, slot size + 64 bytes apart.
 */
import type { Kernel } from '../core/ops.js';
import { MismatchError } from '../core/errors.js';
import type { CollectiveKind } from '../schedule/types.js';
import { copyBytes } from '../transport/shm/endpoint.js';
import { describeSignature, type CallSignature } from '../exec/call-signature.js';
import { SHM_DATA_PHASES, SHM_PHASES, SHM_SLOT_BYTES, SHM_SMALL_BYTES } from '../exec/config.js';
import type { Engine, WaitInfo } from './engine.js';
import { osYield } from './os-yield.js';
import type { Task } from '../exec/task.js';
import { moveDirect, sendNeedsSnapshot, sharedBuffers, type DirectMemory } from './shm-direct.js';
import type { PathCounterLine } from './path-counters.js';

/** Scratch for direct mode (arena views when there is room) and the rank's path counters. */
export interface ShmResources {
  scratch(bytes: number): Uint8Array;
  release(v: Uint8Array): void;
  readonly paths: PathCounterLine;
}

/** Header phases: call c uses phase c mod PHASES, so an eager rank can run PHASES − 1 small calls ahead. */
const PHASES = SHM_PHASES;
const PHASE_MASK = PHASES - 1;
/** Data phases of the big slots: a big call c writes data phase c mod DATA_PHASES. */
const DATA_PHASES = SHM_DATA_PHASES;
const DATA_MASK = DATA_PHASES - 1;
/** Largest slot write that travels in the header slot (a small call). */
const SMALL = SHM_SMALL_BYTES;
const SMALL_STRIDE = SMALL + 64;
const GEN = 0; // + phase * 16
const COUNTER = PHASES * 16; // + phase * 16
/** Words of a rank's line (its done word per phase), whole cache lines. */
const LINE = Math.max(16, PHASES);
const RANKS = 2 * PHASES * 16; // + rank * LINE: DONE[phase] at +phase
const SIG_META = 1; // slot words after the target
const SIG_COUNT = 2;
const SIG_ROOT = 3;
const DATA = 16;
// Direct mode: the slot's data words carry offsets instead of data.
const D_SEND = 4; // arena offset of the send buffer others read (−1: none)
const D_RECV = 5; // … of the receive buffer others read or write
const D_FAILED = 6; // 1: a buffer that had to be shared could not be (arena full)

/** Typed arrays of non-BigInt scalar types. */
export type NumberArray = Float64Array | Float32Array | Int32Array | Uint32Array | Int16Array | Uint16Array | Int8Array | Uint8Array;
export interface NumberArrayConstructor {
  readonly BYTES_PER_ELEMENT: number;
  new (buffer: ArrayBufferLike, byteOffset: number, length: number): NumberArray;
}

export type ShmKind = CollectiveKind;

/** What a waiting call waits for: the slot guard, the data (or every rank's offsets), every rank done (direct mode). */
const enum Stage {
  Guard = 0,
  Data = 1,
  Settled = 2,
}

const enum Shape {
  Everyone = 0,
  Gathering = 1,
  Distributing = 2,
}

function shapeOf(kind: ShmKind): Shape {
  return kind === 'reduce' || kind === 'gather' ? Shape.Gathering : kind === 'bcast' || kind === 'scatter' ? Shape.Distributing : Shape.Everyone;
}

/** The target number of call c: never 0 (the initial value of every word). */
function targetOf(c: number): number {
  return (c & 0x3fffffff) + 1;
}

/** Whether a done word `d` carries target `t` or a later one (targets count modulo 2³⁰; 0: nothing finished yet). */
function reached(d: number, t: number): boolean {
  return ((d - t) & 0x3fffffff) < 0x20000000;
}

/** Bytes one rank writes into its slot for a call (all P blocks for scatter at the root, alltoall, reduce_scatter). */
function slotWrite(kind: ShmKind, block: number, size: number): number {
  const all = block * size; // computed for every kind (see makeCall on branches)
  return kind === 'barrier' ? 0 : kind === 'scatter' || kind === 'alltoall' || kind === 'reduce_scatter' ? all : block;
}

function headerBytes(size: number): number {
  return (RANKS + size * LINE) * 4;
}

/** Bytes of the header and the header slots and small result areas (where the big slots start). */
function smallBytes(size: number): number {
  return headerBytes(size) + (PHASES * size + PHASES) * SMALL_STRIDE;
}

export function shmBlockBytes(size: number, slotBytes: number = SHM_SLOT_BYTES): number {
  return smallBytes(size) + (DATA_PHASES * size + DATA_PHASES) * (slotBytes + 64);
}

/** Builds the wait description when a call has to report a timeout. */
export type DescribeCall = (kind: ShmKind, seq: number, timeoutMs: number, deadline: number) => WaitInfo;

/** One call's arguments (nonblocking calls keep them in their task). */
interface Call {
  readonly kind: ShmKind;
  readonly send: Uint8Array;
  readonly recv: Uint8Array;
  /** Elements per block (the MPI count). */
  readonly count: number;
  readonly elementSize: number;
  readonly root: number;
  readonly kernel: Kernel | undefined;
  /** Call number on this block. */
  readonly c: number;
  /** The communicator's sequence number of the call (for messages). */
  readonly seq: number;
  readonly sig: CallSignature;
  /** Direct (rendezvous) mode: offsets in the slots, data moved between the users' buffers (shm-direct.ts). */
  readonly direct: boolean;
  /** The data goes through the big slots of data phase c mod DATA_PHASES (else the header slots). */
  readonly big: boolean;
  /** Index of rank 0's slot data in the block's data tables (header slots, then big slots). */
  readonly at: number;
  /** Index of the call's result area (small ones, then big ones). */
  readonly res: number;
}

/** A direct call's buffers as this rank shares them. */
interface DirectState {
  /** The send buffer others read (a snapshot in the arena when it had to be one). */
  readonly send: Uint8Array;
  /** The arena stand-in for a receive buffer others write, copied out at the end. */
  readonly recvStage: Uint8Array | undefined;
  /** Scratch to give back at the end. */
  readonly scratch: Uint8Array[];
  /** Whether every rank shared what it had to (known after the data stage). */
  ok: boolean;
}

export class ShmCollectives {
  /** Largest slot write of one rank in bytes (the block's slot size; see slotBytes). */
  readonly limit: number;
  /** Largest block (count × element size) calls may have (at most the slot size). */
  readonly blockLimit: number;
  private readonly i32: Int32Array;
  private readonly u8: Uint8Array;
  private readonly base: number;
  /** Int32 index (in i32) of the target word of header slot [phase][rank]. */
  private readonly slotSeq: Int32Array;
  /**
   * Byte offsets (in the arena) and views of the slot data: header slots [phase][rank]
   * (small data), then big slots [data phase][rank]; a call's entries start at its `at`.
   */
  private readonly slotData: Int32Array;
  private readonly slotView: Uint8Array[];
  /** Result areas: PHASES small ones, then DATA_PHASES big ones (a call's is its `res`). */
  private readonly resultView: Uint8Array[];
  private calls = 0;
  private typedCtor: NumberArrayConstructor | undefined;
  private typedViews: NumberArray[] = [];
  private readonly typedCache = new Map<NumberArrayConstructor, NumberArray[]>();
  private readonly sendAt: Int32Array;
  private readonly recvAt: Int32Array;
  /** The arena and scratch for direct mode (shm-direct.ts), and the path counters. */
  private readonly memory: DirectMemory & ShmResources;

  constructor(
    arena: SharedArrayBuffer,
    offset: number,
    private readonly rank: number,
    private readonly size: number,
    private readonly worldOf: Int32Array,
    private readonly engine: Engine,
    private readonly describe: DescribeCall,
    resources: ShmResources,
    slotBytes: number = SHM_SLOT_BYTES,
    blockBytes: number = slotBytes,
  ) {
    this.limit = slotBytes;
    this.blockLimit = Math.min(slotBytes, blockBytes);
    this.u8 = new Uint8Array(arena);
    this.memory = { arena, u8: this.u8, ...resources };
    this.i32 = new Int32Array(arena);
    this.base = offset >> 2;
    const slots = offset + headerBytes(size);
    const stride = slotBytes + 64;
    const big = offset + smallBytes(size);
    this.sendAt = new Int32Array(size);
    this.recvAt = new Int32Array(size);
    this.slotSeq = new Int32Array(PHASES * size);
    this.slotData = new Int32Array((PHASES + DATA_PHASES) * size);
    this.slotView = [];
    for (let i = 0; i < PHASES * size; i++) {
      const at = slots + i * SMALL_STRIDE;
      this.slotSeq[i] = at >> 2;
      this.slotData[i] = at + DATA;
      this.slotView.push(new Uint8Array(arena, at + DATA, SMALL));
    }
    for (let i = 0; i < DATA_PHASES * size; i++) {
      this.slotData[PHASES * size + i] = big + i * stride;
      this.slotView.push(new Uint8Array(arena, big + i * stride, slotBytes));
    }
    const results = slots + PHASES * size * SMALL_STRIDE;
    const bigResults = big + DATA_PHASES * size * stride;
    this.resultView = [
      ...Array.from({ length: PHASES }, (_, p) => new Uint8Array(arena, results + p * SMALL_STRIDE, SMALL)),
      ...Array.from({ length: DATA_PHASES }, (_, p) => new Uint8Array(arena, bigResults + p * stride, slotBytes)),
    ];
  }

  /**
   * A call's arguments and where its data goes: the header slots of phase c mod PHASES
   * when one rank's slot write fits SMALL, else the big slots of data phase c mod
   * DATA_PHASES (direct-mode calls write offsets only). Both places are computed and
   * one is picked, so that code V8 optimised on small calls has type feedback for the
   * big ones too (an operation it never ran would deoptimise it at the first big call).
   */
  private makeCall(kind: ShmKind, send: Uint8Array, recv: Uint8Array, count: number, elementSize: number, root: number, kernel: Kernel | undefined, c: number, seq: number, sig: CallSignature, direct: boolean): Call {
    const P = this.size;
    const big = !direct && slotWrite(kind, count * elementSize, P) > SMALL;
    const smallAt = (c & PHASE_MASK) * P;
    const bigAt = (PHASES + (c & DATA_MASK)) * P;
    const smallRes = c & PHASE_MASK;
    const bigRes = PHASES + (c & DATA_MASK);
    return { kind, send, recv, count, elementSize, root, kernel, c, seq, sig, direct, big, at: big ? bigAt : smallAt, res: big ? bigRes : smallRes };
  }

  /**
   * Run one collective to completion. `send`/`recv` are byte views (empty where the
   * rank has none; bcast passes its buffer as `recv` on every rank); `count` is the
   * MPI count (elements per block).
   */
  run(kind: ShmKind, send: Uint8Array, recv: Uint8Array, count: number, elementSize: number, root: number, kernel: Kernel | undefined, sig: CallSignature, seq: number, timeoutMs: number): void {
    const call = this.makeCall(kind, send, recv, count, elementSize, root, kernel, this.calls++, seq, sig, false);
    this.memory.paths.flat();
    if (!this.free(call)) this.wait(call, Stage.Guard, seq, timeoutMs);
    this.publish(call);
    if (!this.ready(call)) this.wait(call, Stage.Data, seq, timeoutMs);
    this.finish(call);
  }

  /**
   * One call in direct mode (blocks that do not fit a slot; shm-direct.ts). False when
   * some rank could not share a buffer it had to (its arena slice was full): every rank
   * learns that from the published words, moves nothing, and the caller runs the
   * plan's schedule instead.
   */
  runDirect(kind: ShmKind, send: Uint8Array, recv: Uint8Array, count: number, elementSize: number, root: number, kernel: Kernel | undefined, sig: CallSignature, seq: number, timeoutMs: number): boolean {
    const call = this.makeCall(kind, send, recv, count, elementSize, root, kernel, this.calls++, seq, sig, true);
    if (!this.free(call)) this.wait(call, Stage.Guard, seq, timeoutMs);
    const d = this.publishDirect(call);
    try {
      if (!this.allPublished(call)) this.wait(call, Stage.Data, seq, timeoutMs);
      this.moveDirect(call, d);
      if (!this.allDone(call)) this.wait(call, Stage.Settled, seq, timeoutMs);
      return this.settleDirect(call, d);
    } finally {
      this.releaseDirect(d);
    }
  }

  /** Take the next call number now, for a task created later (see task). */
  reserve(): number {
    return this.calls++;
  }

  /** The same call as a task for the progress engine (nonblocking calls; not counted in the paths: see Communicator); its call number is taken now unless reserved. */
  task(kind: ShmKind, send: Uint8Array, recv: Uint8Array, count: number, elementSize: number, root: number, kernel: Kernel | undefined, sig: CallSignature, seq: number, c = this.calls++): Task {
    return new ShmTask(this, this.makeCall(kind, send, recv, count, elementSize, root, kernel, c, seq, sig, false));
  }

  /** runDirect() as a task; `fallback` makes the schedule's task when some rank could not share a buffer. */
  directTask(kind: ShmKind, send: Uint8Array, recv: Uint8Array, count: number, elementSize: number, root: number, kernel: Kernel | undefined, sig: CallSignature, seq: number, fallback: () => Task): Task {
    return new ShmTask(this, this.makeCall(kind, send, recv, count, elementSize, root, kernel, this.calls++, seq, sig, true), fallback);
  }

  /**
   * allreduce with op 'sum' on typed arrays of a non-BigInt scalar type: the same
   * protocol, with the copies and the fold done on cached typed views of the slots
   * (o[i] = x[i] + y[i], exactly the core sum kernel) — no views created per call.
   */
  allreduceSum(send: NumberArray, recv: NumberArray, n: number, ctor: NumberArrayConstructor, sig: CallSignature, seq: number, timeoutMs: number): void {
    const c = this.calls++;
    const ph = c & PHASE_MASK;
    const P = this.size;
    this.memory.paths.flat();
    const call = this.makeCall('allreduce', EMPTY_U8, EMPTY_U8, n, ctor.BYTES_PER_ELEMENT, 0, undefined, c, seq, sig, false);
    if (!this.free(call)) this.wait(call, Stage.Guard, seq, timeoutMs);
    const v = this.typed(ctor);
    // Typed views of the slots ((PHASES + DATA_PHASES)·P), then of the result areas.
    const slot0 = call.at;
    const result = (PHASES + DATA_PHASES) * P + call.res;
    const mine = v[slot0 + this.rank];
    for (let i = 0; i < n; i++) mine[i] = send[i];
    this.sign(call);
    const s0 = v[slot0];
    const s1 = v[slot0 + 1];
    if (this.arrive(ph, targetOf(c))) {
      const res = v[result];
      for (let i = 0; i < n; i++) res[i] = s0[i] + s1[i];
      for (let r = 2; r < P; r++) {
        const sr = v[slot0 + r];
        for (let i = 0; i < n; i++) res[i] = res[i] + sr[i];
      }
      this.release(ph, targetOf(c));
    }
    if (!this.ready(call)) this.wait(call, Stage.Data, seq, timeoutMs);
    this.verify(call, 0, P);
    if (P === 2) for (let i = 0; i < n; i++) recv[i] = s0[i] + s1[i];
    else {
      const res = v[result];
      for (let i = 0; i < n; i++) recv[i] = res[i];
    }
    this.done(ph, targetOf(c));
  }

  // ------------------------------------------------------------ protocol steps

  /** Whether the call may write its slots: every rank has cleared them (see cleared). */
  free(call: Call): boolean {
    for (let r = 0; r < this.size; r++) if (!this.cleared(call, r)) return false;
    return true;
  }

  /**
   * Whether rank r is done with the slots the call reuses: it has finished call
   * c − PHASES (header phase c mod PHASES) and, for a big call, calls c − 8, c − 16, …
   * > c − PHASES (the earlier users of its data phase; older ones are implied, see the
   * header). One loop for both sizes: see makeCall on branches.
   */
  private cleared(call: Call, r: number): boolean {
    const c = call.c;
    const step = call.big ? DATA_PHASES : PHASES;
    for (let x = c - PHASES; x < c; x += step) if (!this.finished(r, x)) return false;
    return true;
  }

  /** Whether rank r has finished call x: its done word of x's phase carries x's target or a later one (a rank that returned early may be further on); true for x < 0. */
  private finished(r: number, x: number): boolean {
    return x < 0 || reached(Atomics.load(this.i32, this.base + RANKS + r * LINE + (x & PHASE_MASK)), targetOf(x));
  }

  /** Write this rank's contribution, publish it and wake whoever waits for it. */
  publish(call: Call): void {
    const { kind, c } = call;
    const ph = c & PHASE_MASK;
    const me = this.rank;
    const P = this.size;
    const block = call.count * call.elementSize;
    const at = this.slotData[call.at + me];
    switch (kind) {
      case 'barrier':
        break;
      case 'bcast':
        if (me === call.root) copyBytes(this.u8, at, call.recv, 0, block);
        break;
      case 'scatter':
        if (me === call.root) copyBytes(this.u8, at, call.send, 0, block * P);
        break;
      case 'alltoall':
      case 'reduce_scatter':
        copyBytes(this.u8, at, call.send, 0, block * P);
        break;
      default:
        copyBytes(this.u8, at, call.send, 0, block);
    }
    this.sign(call);
    const t = targetOf(c);
    const shape = shapeOf(kind);
    if (shape === Shape.Everyone) {
      if (this.arrive(ph, t)) {
        if (kind === 'allreduce') this.fold(this.resultView[call.res], call, 0, call.count, call.elementSize, call.kernel as Kernel);
        this.release(ph, t);
      }
      return;
    }
    Atomics.store(this.i32, this.slotSeq[ph * P + me], t);
    if (shape === Shape.Gathering) {
      if (me !== call.root) this.wake(call.root);
    } else if (me === call.root) this.wakeOthers();
  }

  /** Whether the data this rank needs for the call has been published. */
  ready(call: Call): boolean {
    const ph = call.c & PHASE_MASK;
    const t = targetOf(call.c);
    const i32 = this.i32;
    const P = this.size;
    switch (shapeOf(call.kind)) {
      case Shape.Everyone:
        return P === 2 ? Atomics.load(i32, this.slotSeq[ph * 2 + 1 - this.rank]) === t : Atomics.load(i32, this.base + GEN + ph * 16) === t;
      case Shape.Gathering:
        if (this.rank !== call.root) return true;
        for (let r = 0; r < P; r++) if (Atomics.load(i32, this.slotSeq[ph * P + r]) !== t) return false;
        return true;
      default:
        return this.rank === call.root || Atomics.load(i32, this.slotSeq[ph * P + call.root]) === t;
    }
  }

  /** Take the result out of the slots, then mark the phase read by this rank. */
  finish(call: Call): void {
    const { kind, recv, count, root } = call;
    const ph = call.c & PHASE_MASK;
    const me = this.rank;
    const P = this.size;
    switch (shapeOf(kind)) {
      case Shape.Everyone:
        this.verify(call, 0, P);
        break;
      case Shape.Gathering:
        if (me === root) this.verify(call, 0, P);
        break;
      default:
        if (me !== root) this.verify(call, root, root + 1);
    }
    const block = count * call.elementSize;
    const slot = (r: number): number => this.slotData[call.at + r];
    switch (kind) {
      case 'bcast':
        if (me !== root) copyBytes(recv, 0, this.u8, slot(root), block);
        break;
      case 'scatter':
        copyBytes(recv, 0, this.u8, slot(root) + me * block, block);
        break;
      case 'reduce':
        if (me === root) this.fold(recv, call, 0, count, call.elementSize, call.kernel as Kernel);
        break;
      case 'allreduce':
        if (P === 2) (call.kernel as Kernel)(recv, this.slotView[call.at], this.slotView[call.at + 1], count);
        else copyBytes(recv, 0, this.resultView[call.res], 0, block);
        break;
      case 'reduce_scatter':
        this.fold(recv, call, me * block, count, call.elementSize, call.kernel as Kernel);
        break;
      case 'gather':
      case 'allgather':
        if (kind === 'allgather' || me === root) for (let r = 0; r < P; r++) copyBytes(recv, r * block, this.u8, slot(r), block);
        break;
      case 'alltoall':
        for (let r = 0; r < P; r++) copyBytes(recv, r * block, this.u8, slot(r) + me * block, block);
        break;
      default:
        break;
    }
    this.done(ph, targetOf(call.c));
  }

  /** Communicator ranks a call is still waiting for at the given stage. */
  missing(call: Call, stage: Stage): number[] {
    const i32 = this.i32;
    const P = this.size;
    const ph = call.c & PHASE_MASK;
    const out: number[] = [];
    if (stage === Stage.Settled) {
      for (let r = 0; r < P; r++) if (!this.finished(r, call.c)) out.push(r);
      return out;
    }
    if (stage === Stage.Guard) {
      for (let r = 0; r < P; r++) if (!this.cleared(call, r)) out.push(r);
      return out;
    }
    const t = targetOf(call.c);
    const shape = call.direct ? Shape.Everyone : shapeOf(call.kind);
    if (shape === Shape.Distributing) return this.rank === call.root || Atomics.load(i32, this.slotSeq[ph * P + call.root]) === t ? [] : [call.root];
    if (shape === Shape.Gathering && this.rank !== call.root) return [];
    // Everyone-shaped calls of more than two ranks are released by the generation word;
    // either way each rank's slot word says whether it has arrived.
    if (shape === Shape.Everyone && P > 2 && !call.direct && Atomics.load(i32, this.base + GEN + ph * 16) === t) return [];
    for (let r = 0; r < P; r++) if (Atomics.load(i32, this.slotSeq[ph * P + r]) !== t) out.push(r);
    return out;
  }

  // ------------------------------------------------------------ direct mode

  /** Share the buffers other ranks touch (snapshots or stand-ins in the arena where needed) and publish their offsets. */
  publishDirect(call: Call): DirectState {
    const { kind, root, send, recv } = call;
    const me = this.rank;
    const mem = this.memory;
    const shared = sharedBuffers(kind, me, root);
    const scratch: Uint8Array[] = [];
    let failed = false;
    const inArena = (v: Uint8Array): Uint8Array | undefined => {
      if (v.byteLength === 0) return undefined;
      const s = mem.scratch(v.byteLength);
      scratch.push(s);
      if (s.buffer === mem.arena) {
        mem.paths.staged(v.byteLength);
        return s;
      }
      failed = true;
      return undefined;
    };
    let ownSend = send;
    let recvStage: Uint8Array | undefined;
    if (shared.send && (send.buffer !== mem.arena || sendNeedsSnapshot(kind, me, root, send, recv, call.count * call.elementSize))) {
      const s = inArena(send);
      if (s) {
        copyBytes(s, 0, send, 0, send.byteLength);
        ownSend = s;
      }
    }
    if (shared.recv && recv.buffer !== mem.arena) {
      recvStage = inArena(recv);
      // A broadcast root's buffer is the data others read; every other stand-in is written in full by the call.
      if (recvStage && kind === 'bcast') copyBytes(recvStage, 0, recv, 0, recv.byteLength);
    }
    const w = this.slotSeq[(call.c & PHASE_MASK) * this.size + me];
    const i32 = this.i32;
    i32[w + D_SEND] = shared.send && !failed ? ownSend.byteOffset : -1;
    i32[w + D_RECV] = shared.recv && !failed ? (recvStage ?? recv).byteOffset : -1;
    i32[w + D_FAILED] = failed ? 1 : 0;
    this.sign(call);
    Atomics.store(i32, w, targetOf(call.c));
    this.wakeOthers();
    return { send: ownSend, recvStage, scratch, ok: !failed };
  }

  /** Whether every rank has published its offsets for the call. */
  allPublished(call: Call): boolean {
    const base = (call.c & PHASE_MASK) * this.size;
    const t = targetOf(call.c);
    for (let r = 0; r < this.size; r++) if (Atomics.load(this.i32, this.slotSeq[base + r]) !== t) return false;
    return true;
  }

  /** Check every rank's signature, move this rank's part (unless some rank could not share) and mark the call done. */
  moveDirect(call: Call, d: DirectState): void {
    const P = this.size;
    this.verify(call, 0, P);
    const base = (call.c & PHASE_MASK) * P;
    const i32 = this.i32;
    for (let r = 0; r < P; r++) {
      const w = this.slotSeq[base + r];
      if (i32[w + D_FAILED] !== 0) d.ok = false;
      this.sendAt[r] = i32[w + D_SEND];
      this.recvAt[r] = i32[w + D_RECV];
    }
    if (d.ok) {
      const { kind, root, count, elementSize, kernel } = call;
      moveDirect({ kind, rank: this.rank, size: P, root, count, elementSize, kernel, send: d.send, recv: d.recvStage ?? call.recv, sendAt: this.sendAt, recvAt: this.recvAt }, this.memory);
    }
    this.done(call.c & PHASE_MASK, targetOf(call.c));
  }

  /** Whether every rank is done with the call (nobody touches this rank's buffers any more). */
  allDone(call: Call): boolean {
    for (let r = 0; r < this.size; r++) if (!this.finished(r, call.c)) return false;
    return true;
  }

  /** Copy a receive stand-in out; whether the call ran (false: run the schedule). */
  settleDirect(call: Call, d: DirectState): boolean {
    // (A broadcast root's stand-in was only read.)
    if (d.ok && d.recvStage && call.kind !== 'bcast') copyBytes(call.recv, 0, d.recvStage, 0, call.recv.byteLength);
    if (d.ok) this.memory.paths.direct();
    else this.memory.paths.directFallback();
    return d.ok;
  }

  // ------------------------------------------------------------------ helpers

  /** Store this rank's call signature next to its slot (before the slot is published). */
  private sign(call: Call): void {
    const w = this.slotSeq[(call.c & PHASE_MASK) * this.size + this.rank];
    const i32 = this.i32;
    i32[w + SIG_META] = call.sig.meta;
    i32[w + SIG_COUNT] = call.sig.count;
    i32[w + SIG_ROOT] = call.sig.root;
  }

  /** Whether slot r of the call's phase carries another signature than the call's. */
  private differs(call: Call, r: number): boolean {
    const w = this.slotSeq[(call.c & PHASE_MASK) * this.size + r];
    const i32 = this.i32;
    const s = call.sig;
    return i32[w + SIG_META] !== s.meta || i32[w + SIG_COUNT] !== s.count || i32[w + SIG_ROOT] !== s.root;
  }

  /**
   * Compare the published slots [from, to) with the call's signature; on a mismatch
   * mark the phase read (so no rank waits for this one) and throw MismatchError.
   */
  private verify(call: Call, from: number, to: number): void {
    for (let r = from; r < to; r++) if (this.differs(call, r)) this.mismatch(call, r);
  }

  private mismatch(call: Call, r: number): never {
    const w = this.slotSeq[(call.c & PHASE_MASK) * this.size + r];
    const i32 = this.i32;
    const theirs = describeSignature(i32[w + SIG_META], i32[w + SIG_COUNT], i32[w + SIG_ROOT]);
    const mine = describeSignature(call.sig.meta, call.sig.count, call.sig.root);
    this.done(call.c & PHASE_MASK, targetOf(call.c));
    throw new MismatchError(
      `${this.describe(call.kind, call.seq, 0, Infinity).what}: rank ${r} called ${theirs} where rank ${this.rank} called ${mine}`,
      'every rank must make the same collective calls in the same order with matching arguments (collective, count, datatype, op, root); set COLL_DEBUG=1 to check each call on all ranks',
    );
  }

  /** While waiting: a slot of this call already published with another signature (a rank that made another call). */
  private earlyMismatch(call: Call): void {
    const i32 = this.i32;
    const t = targetOf(call.c);
    const base = (call.c & PHASE_MASK) * this.size;
    for (let r = 0; r < this.size; r++) if (Atomics.load(i32, this.slotSeq[base + r]) === t && this.differs(call, r)) this.mismatch(call, r);
  }

  /**
   * Everyone-shaped arrival: publish the slot word; with more than two ranks count
   * the arrival. True when this rank arrived last with more than two ranks: it must
   * then fold (allreduce) and release() the others.
   */
  private arrive(ph: number, t: number): boolean {
    const i32 = this.i32;
    const P = this.size;
    Atomics.store(i32, this.slotSeq[ph * P + this.rank], t);
    if (P === 2) {
      this.wake(1 - this.rank);
      return false;
    }
    const counter = this.base + COUNTER + ph * 16;
    if (Atomics.add(i32, counter, 1) + 1 === P) {
      Atomics.store(i32, counter, 0);
      return true;
    }
    return false;
  }

  /** The last arrival lets everyone go. */
  private release(ph: number, t: number): void {
    Atomics.store(this.i32, this.base + GEN + ph * 16, t);
    this.wakeOthers();
  }

  /** This rank has read everything of the phase's call with target t. */
  private done(ph: number, t: number): void {
    Atomics.store(this.i32, this.base + RANKS + this.rank * LINE + ph, t);
    this.wakeOthers();
  }

  /** out = the n-element block at byte `at` of the call's slot 0 ∘ slot 1 ∘ … in rank order. */
  private fold(out: Uint8Array, call: Call, at: number, n: number, elementSize: number, kernel: Kernel): void {
    const P = this.size;
    const views = this.slotView;
    const s = (r: number): Uint8Array => (at === 0 ? views[call.at + r] : views[call.at + r].subarray(at, at + n * elementSize));
    if (P === 1) {
      copyBytes(out, 0, s(0), 0, n * elementSize);
      return;
    }
    kernel(out, s(0), s(1), n);
    for (let r = 2; r < P; r++) kernel(out, out, s(r), n);
  }

  private wake(r: number): void {
    this.engine.ep.wakeRank(this.worldOf[r]);
  }

  private wakeOthers(): void {
    const ep = this.engine.ep;
    for (let r = 0; r < this.size; r++) if (r !== this.rank) ep.wakeRank(this.worldOf[r]);
  }

  /** Give back a direct call's scratch (once: the list is emptied). */
  releaseDirect(d: DirectState): void {
    for (const v of d.scratch.splice(0)) this.memory.release(v);
  }

  /** Typed views of the slots ((PHASES + DATA_PHASES)·P) and result areas (PHASES + DATA_PHASES) for one element type. */
  private typed(ctor: NumberArrayConstructor): NumberArray[] {
    if (this.typedCtor === ctor) return this.typedViews;
    let views = this.typedCache.get(ctor);
    if (!views) {
      views = [...this.slotView, ...this.resultView].map((b) => new ctor(b.buffer, b.byteOffset, b.byteLength / ctor.BYTES_PER_ELEMENT));
      this.typedCache.set(ctor, views);
    }
    this.typedCtor = ctor;
    this.typedViews = views;
    return views;
  }

  check(call: Call, stage: Stage): boolean {
    return stage === Stage.Guard ? this.free(call) : stage === Stage.Settled ? this.allDone(call) : call.direct ? this.allPublished(call) : this.ready(call);
  }

  /**
   * Block until the slot guard (published = false) or the call's data (true) is
   * there: a short tight spin, then the engine's adaptive spin budget with its
   * progress and noise hooks, then parking on the doorbell with deadline and abort
   * checks. Kept out of run() so the common path stays small for the JIT.
   */
  private wait(call: Call, stage: Stage, seq: number, timeoutMs: number): void {
    if (!this.quick(call, stage)) this.waitLong(call, stage, seq, timeoutMs);
  }

  /** A short tight spin (none when ranks outnumber the cores): most waits of a busy collective end here. */
  private quick(call: Call, stage: Stage): boolean {
    for (let k = this.engine.quickPolls; k > 0; k--) if (this.check(call, stage)) return true;
    return false;
  }

  /**
   * The long wait: rounds of poll() (the engine's adaptive spin budget, then polls
   * with an OS yield between them for the engine's yield budget: os-yield.ts), each
   * followed by the abort, deadline and mismatch checks and a park on the doorbell.
   * The rare steps live here, the hot loop in poll(): an optimised poll() has type
   * feedback for everything it runs, so the first park does not throw it away.
   */
  private waitLong(call: Call, stage: Stage, seq: number, timeoutMs: number): void {
    const engine = this.engine;
    const start = performance.now();
    const deadline = timeoutMs > 0 ? start + timeoutMs : Infinity;
    const spinMs = engine.spinBudget() / 1000;
    const yieldMs = engine.yieldUs / 1000;
    let parked = false;
    let info: WaitInfo | undefined;
    while (!this.poll(call, stage, parked ? 0 : spinMs, yieldMs)) {
      parked = true;
      const now = performance.now();
      info ??= this.describe(call.kind, seq, timeoutMs, deadline);
      engine.beforePark(info, () => this.missing(call, stage), now, start);
      if (stage === Stage.Data) this.earlyMismatch(call);
      // Parks on the doorbell (every write another rank may wait for rings it); the
      // progress engine keeps the rank's other traffic moving meanwhile.
      engine.parkUntil(Math.min(deadline - now, 20), () => this.check(call, stage));
    }
    engine.spinOutcome(parked, start);
  }

  /**
   * Poll until the call can go on (true) or the budgets are spent (false): spinMs of
   * plain polling, then yieldMs of polling with an OS yield between polls. The clock
   * is read every 64 polls, the transport progressed every 1024.
   */
  private poll(call: Call, stage: Stage, spinMs: number, yieldMs: number): boolean {
    const engine = this.engine;
    const noise = engine.noise;
    const since = performance.now();
    let limit = spinMs;
    let yielding = false;
    let spins = 0;
    engine.progress(); // once up front too: feedback for the call before the loop is optimised
    while (!this.check(call, stage)) {
      if (noise !== undefined) noise.tick();
      if (yielding) (osYield as () => void)();
      if ((++spins & 63) !== 0) continue;
      if ((spins & 1023) === 0) engine.progress();
      if (performance.now() - since < limit) continue;
      if (yielding || yieldMs <= 0) return false;
      // Spin budget spent: keep polling, but give the core away between polls.
      yielding = true;
      limit = spinMs + yieldMs;
    }
    return true;
  }
}

const EMPTY_U8 = new Uint8Array(0);

/** A flat shared-memory collective driven by the progress engine (nonblocking calls). */
class ShmTask implements Task {
  done = false;
  error: Error | undefined = undefined;
  private stage = Stage.Guard;
  private direct: DirectState | undefined;
  /** The schedule run instead when some rank could not share a buffer (direct mode). */
  private instead: Task | undefined;

  constructor(
    private readonly shm: ShmCollectives,
    private readonly call: Call,
    private readonly fallback?: () => Task,
  ) {}

  start(): void {
    this.advance();
  }

  advance(): void {
    if (this.done) return;
    if (this.instead) return this.follow(this.instead);
    const shm = this.shm;
    const call = this.call;
    if (this.stage === Stage.Guard) {
      if (!shm.free(call)) return;
      if (call.direct) this.direct = shm.publishDirect(call);
      else shm.publish(call);
      this.stage = Stage.Data;
    }
    if (this.stage === Stage.Data) {
      if (!shm.check(call, Stage.Data)) return;
      try {
        if (this.direct) shm.moveDirect(call, this.direct);
        else shm.finish(call);
      } catch (e) {
        return this.end(e as Error);
      }
      if (!this.direct) return this.end(undefined);
      this.stage = Stage.Settled;
    }
    const d = this.direct as DirectState;
    if (!shm.allDone(call)) return;
    const ok = shm.settleDirect(call, d);
    if (ok) return this.end(undefined);
    // Some rank could not share a buffer: every rank runs the schedule instead.
    shm.releaseDirect(d);
    this.instead = (this.fallback as () => Task)();
    this.instead.start();
    this.follow(this.instead);
  }

  waitingFor(): number[] {
    if (this.instead) return this.instead.waitingFor();
    return this.done ? [] : this.shm.missing(this.call, this.stage);
  }

  private follow(t: Task): void {
    t.advance();
    if (t.done) {
      this.error = t.error;
      this.done = true;
    }
  }

  private end(error: Error | undefined): void {
    if (this.direct) this.shm.releaseDirect(this.direct);
    this.error = error;
    this.done = true;
  }
}

/** Clear a freshly allocated block (the allocating rank does this before publishing the offset). */
export function initShmBlock(arena: SharedArrayBuffer, offset: number, size: number): void {
  // The header and each header slot's first line (target and signature words); data
  // areas, big slots included, are only read after their header slot is published, so
  // they are left as they are (untouched pages).
  const u8 = new Uint8Array(arena);
  u8.fill(0, offset, offset + headerBytes(size));
  const slots = offset + headerBytes(size);
  for (let i = 0; i < PHASES * size + PHASES; i++) u8.fill(0, slots + i * SMALL_STRIDE, slots + i * SMALL_STRIDE + 64);
}
