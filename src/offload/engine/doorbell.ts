/**
 * Posting slots and completion doorbells between node ranks and the offload engine
 * thread (seed 000 F10: host posts op info and signals start, NIC signals completion).
 *
 * Layout (Int32 words from `baseByte`, each group on its own 64-byte line):
 *   engine bell     one counter every rank bumps after posting; the engine Atomics.waits on it
 *                   (or any other word given as `bellIndex`, e.g. the engine's transport doorbell,
 *                   so that one wait covers both postings and messages)
 *   per rank, `depth` slots of 16 words:
 *     0 postedSeq   sequence of the descriptor in the slot (written last by the rank)
 *     1 doneSeq     sequence the engine completed (written last by the engine)
 *     2 code        completion code: 0 done, > 0 error code chosen by the engine
 *     3 reply       a value the engine returns (e.g. the cache slot of a registration)
 *     4..11         the descriptor (descriptor.ts)
 *   per rank and slot, MESSAGE_BYTES for the text of the slot's error completion (u32 length +
 *                   UTF-8): per slot, so that a rank with several failed calls outstanding reads
 *                   each call's own message (the rank reads it when it looks at the ticket)
 *
 * Sequence numbers run 1..2^31−1 per rank and wrap to 1 (0 = never used). A ticket is
 * complete only when doneSeq equals ITS sequence, so a stale completion of an earlier
 * occupant of the slot can never be mistaken for a new one. Each rank is a single
 * producer (RankPoster) and the engine the single consumer (EngineClaimer); the rank
 * reuses a slot only after its previous occupant completed (else post throws, "full").
 */
import { ArgumentError, TimeoutError, TransportError } from '../../core/errors.js';
import { keepAlive, waitAsync } from '../../transport/shm/layout.js';
import { DESCRIPTOR_WORDS, readDescriptor, writeDescriptor, type Descriptor } from './descriptor.js';

const LINE_WORDS = 16;
const SLOT_WORDS = 16;
const POSTED = 0;
const DONE = 1;
const CODE = 2;
const REPLY = 3;
const DESC = 4;
/** Bytes per slot for the message of an error completion. */
export const MESSAGE_BYTES = 1024;
/** Completion code for success. */
export const DONE_OK = 0;
export const MAX_SEQ = 0x7fffffff;

export interface EngineLayoutParams {
  readonly ranks: number;
  /** Posting slots per rank (outstanding descriptors). */
  readonly depth: number;
  /** Byte offset of the region in the SharedArrayBuffer (multiple of 64). Default 0. */
  readonly baseByte?: number;
  /** Int32 index of the engine bell elsewhere in the same buffer (default: the region's first word). */
  readonly bellIndex?: number;
  /**
   * Int32 index of a word the engine keeps non-zero while it may sleep on the bell; with
   * it, posting wakes the engine (a futex syscall) only then. Without it, every post notifies.
   */
  readonly sleepIndex?: number;
}

export interface EngineLayout {
  readonly ranks: number;
  readonly depth: number;
  readonly baseByte: number;
  /** Bytes the region occupies. */
  readonly bytes: number;
  readonly bellIndex: number;
  /** The engine's sleeping word, if it announces sleep (see EngineLayoutParams). */
  readonly sleepIndex: number | undefined;
  /** Int32 index of a slot's first word. */
  slotIndex(rank: number, slot: number): number;
  /** Byte offset of the error message area of a rank's slot. */
  messageByte(rank: number, slot: number): number;
}

export function makeEngineLayout(p: EngineLayoutParams): EngineLayout {
  const baseByte = p.baseByte ?? 0;
  if (!Number.isInteger(p.ranks) || p.ranks < 1) throw new ArgumentError(`engine ranks must be >= 1, got ${p.ranks}`);
  if (!Number.isInteger(p.depth) || p.depth < 1 || p.depth > 4096) {
    throw new ArgumentError(`engine slot depth must be in 1..4096, got ${p.depth}`);
  }
  if (!Number.isInteger(baseByte) || baseByte < 0 || baseByte % 64 !== 0) {
    throw new ArgumentError(`engine region offset must be a non-negative multiple of 64, got ${baseByte}`);
  }
  const base = baseByte >> 2;
  const slots = base + LINE_WORDS;
  const messages = (slots + p.ranks * p.depth * SLOT_WORDS) * 4;
  return Object.freeze({
    ranks: p.ranks,
    depth: p.depth,
    baseByte,
    bytes: (LINE_WORDS + p.ranks * p.depth * SLOT_WORDS) * 4 + p.ranks * p.depth * MESSAGE_BYTES,
    bellIndex: p.bellIndex ?? base,
    sleepIndex: p.sleepIndex,
    slotIndex: (rank: number, slot: number) => slots + (rank * p.depth + slot) * SLOT_WORDS,
    messageByte: (rank: number, slot: number) => messages + (rank * p.depth + slot) * MESSAGE_BYTES,
  });
}

function checkRegion(i32: Int32Array, layout: EngineLayout): void {
  if (!(i32.buffer instanceof SharedArrayBuffer)) throw new ArgumentError('engine doorbells need an Int32Array over a SharedArrayBuffer');
  if (i32.byteOffset !== 0 || layout.baseByte + layout.bytes > i32.byteLength) {
    throw new ArgumentError(
      `engine region [${layout.baseByte}, ${layout.baseByte + layout.bytes}) does not fit a ${i32.byteLength}-byte buffer view at offset 0`,
    );
  }
}

export const nextSeq = (s: number): number => (s >= MAX_SEQ ? 1 : s + 1);

export interface Completion {
  readonly seq: number;
  /** 0 (DONE_OK) or the engine's error code. */
  readonly code: number;
  readonly ok: boolean;
  /** The engine's reply word. */
  readonly reply: number;
  /** The engine's message for an error completion ('' when ok). */
  readonly message: string;
}

/** A posted descriptor; complete when the engine writes its sequence to doneSeq. */
export class Ticket {
  private result: Completion | undefined;
  constructor(
    private readonly i32: Int32Array,
    readonly seq: number,
    readonly slot: number,
    private readonly index: number,
    private readonly messageByte: number,
  ) {}

  /** Non-blocking check. */
  test(): Completion | undefined {
    if (this.result) return this.result;
    if (Atomics.load(this.i32, this.index + DONE) !== this.seq) return undefined;
    const code = Atomics.load(this.i32, this.index + CODE);
    const reply = Atomics.load(this.i32, this.index + REPLY);
    this.result = { seq: this.seq, code, ok: code === DONE_OK, reply, message: code === DONE_OK ? '' : readMessage(this.i32, this.messageByte) };
    return this.result;
  }

  /** Whether the engine has completed it (cheapest check, for hot loops). */
  get finished(): boolean {
    return this.result !== undefined || Atomics.load(this.i32, this.index + DONE) === this.seq;
  }

  /** Block the thread (Atomics.wait) until complete; TimeoutError after `timeoutMs`. */
  wait(timeoutMs = Infinity): Completion {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const r = this.test();
      if (r) return r;
      const seen = Atomics.load(this.i32, this.index + DONE);
      if (seen === this.seq) continue;
      const left = deadline - Date.now();
      if (left <= 0) throw this.timeout(timeoutMs);
      Atomics.wait(this.i32, this.index + DONE, seen, left);
    }
  }

  /** Await completion without blocking the event loop (Atomics.waitAsync). */
  async done(timeoutMs = 60_000): Promise<Completion> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const r = this.test();
      if (r) return r;
      const seen = Atomics.load(this.i32, this.index + DONE);
      if (seen === this.seq) continue;
      const left = deadline - Date.now();
      if (left <= 0) throw this.timeout(timeoutMs);
      const w = waitAsync(this.i32, this.index + DONE, seen, left);
      if (w.async) await keepAlive(w.value, left);
    }
  }

  /** Called by the poster before the slot is reused: capture the result now. */
  retire(): boolean {
    return this.test() !== undefined;
  }

  private timeout(ms: number): TimeoutError {
    return new TimeoutError(`offload descriptor seq ${this.seq} (slot ${this.slot}) not completed within ${ms} ms`, [], 'is the engine thread running?');
  }
}

/** The rank side: posts descriptors into its slots and rings the engine bell. */
export class RankPoster {
  private seq = 0;
  private cursor = 0;
  private readonly inflight: (Ticket | undefined)[];
  constructor(
    private readonly i32: Int32Array,
    private readonly layout: EngineLayout,
    readonly rank: number,
  ) {
    checkRegion(i32, layout);
    if (!Number.isInteger(rank) || rank < 0 || rank >= layout.ranks) {
      throw new ArgumentError(`rank ${rank} out of range 0..${layout.ranks - 1}`);
    }
    this.inflight = new Array<Ticket | undefined>(layout.depth).fill(undefined);
  }

  /** Whether the next post would find its slot free. */
  canPost(): boolean {
    const prev = this.inflight[this.cursor];
    return prev === undefined || prev.retire();
  }

  /** Validate, write and publish `d`; returns at once. Throws TransportError when the slots are full. */
  post(d: Descriptor): Ticket {
    if (!this.canPost()) {
      throw new TransportError(
        `rank ${this.rank}: all ${this.layout.depth} offload slots are in flight`,
        'wait for an earlier ticket, or use a larger depth',
      );
    }
    const slot = this.cursor;
    const index = this.layout.slotIndex(this.rank, slot);
    writeDescriptor(this.i32, index + DESC, d); // validates before anything is published
    const seq = nextSeq(this.seq);
    this.seq = seq;
    this.cursor = (slot + 1) % this.layout.depth;
    Atomics.store(this.i32, index + POSTED, seq); // release: publishes the descriptor
    // Bump the bell always (an engine about to sleep sees the change), notify only a sleeper.
    Atomics.add(this.i32, this.layout.bellIndex, 1);
    const sleep = this.layout.sleepIndex;
    if (sleep === undefined || Atomics.load(this.i32, sleep) !== 0) Atomics.notify(this.i32, this.layout.bellIndex);
    const t = new Ticket(this.i32, seq, slot, index, this.layout.messageByte(this.rank, slot));
    this.inflight[slot] = t;
    return t;
  }
}

/** A descriptor the engine has claimed and must complete exactly once. */
export interface Claim {
  readonly rank: number;
  readonly slot: number;
  readonly seq: number;
  readonly descriptor: Descriptor;
}

/** The engine side: claims posted slots of every rank in posting order and completes them. */
export class EngineClaimer {
  private readonly expect: number[];
  private readonly cursor: number[];
  private next = 0;
  constructor(
    private readonly i32: Int32Array,
    private readonly layout: EngineLayout,
  ) {
    checkRegion(i32, layout);
    this.expect = new Array<number>(layout.ranks).fill(1);
    this.cursor = new Array<number>(layout.ranks).fill(0);
  }

  /** The bell value; read it BEFORE scanning, and pass it to waitForWork if nothing was found. */
  bell(): number {
    return Atomics.load(this.i32, this.layout.bellIndex);
  }

  /** Claim the next descriptor of `rank` in posting order, if posted. */
  claim(rank: number): Claim | undefined {
    const slot = this.cursor[rank];
    const seq = this.expect[rank];
    if (slot === undefined || seq === undefined) throw new ArgumentError(`rank ${rank} out of range 0..${this.layout.ranks - 1}`);
    const index = this.layout.slotIndex(rank, slot);
    if (Atomics.load(this.i32, index + POSTED) !== seq) return undefined; // acquire
    const descriptor = readDescriptor(this.i32, index + DESC);
    this.expect[rank] = nextSeq(seq);
    this.cursor[rank] = (slot + 1) % this.layout.depth;
    return { rank, slot, seq, descriptor };
  }

  /** Claim from any rank, round-robin across ranks (each rank's order is preserved). */
  claimAny(): Claim | undefined {
    for (let k = 0; k < this.layout.ranks; k++) {
      const r = (this.next + k) % this.layout.ranks;
      const c = this.claim(r);
      if (c) {
        this.next = (r + 1) % this.layout.ranks;
        return c;
      }
    }
    return undefined;
  }

  /** Sleep until a rank rings the bell (bell value differs from `seen`) or the timeout passes. */
  waitForWork(seen: number, timeoutMs = Infinity): 'ok' | 'not-equal' | 'timed-out' {
    return Atomics.wait(this.i32, this.layout.bellIndex, seen, timeoutMs);
  }

  /** Complete a claim with DONE_OK or an error code (> 0) and its message, and wake the rank. */
  complete(c: Claim, code: number = DONE_OK, reply = 0, message = ''): void {
    if (!Number.isInteger(code) || code < 0 || code > MAX_SEQ) {
      throw new ArgumentError(`completion code must be an integer in 0..${MAX_SEQ}, got ${code}`);
    }
    const index = this.layout.slotIndex(c.rank, c.slot);
    if (Atomics.load(this.i32, index + POSTED) !== c.seq || Atomics.load(this.i32, index + DONE) === c.seq) {
      throw new TransportError(`rank ${c.rank} slot ${c.slot}: seq ${c.seq} is not an outstanding claim (completed twice?)`);
    }
    if (code !== DONE_OK) writeMessage(this.i32, this.layout.messageByte(c.rank, c.slot), message);
    Atomics.store(this.i32, index + CODE, code);
    Atomics.store(this.i32, index + REPLY, reply);
    Atomics.store(this.i32, index + DONE, c.seq); // release: publishes the code, reply and message
    Atomics.notify(this.i32, index + DONE);
  }
}

function writeMessage(i32: Int32Array, byte: number, message: string): void {
  const bytes = new TextEncoder().encode(message).subarray(0, MESSAGE_BYTES - 4);
  new Uint8Array(i32.buffer, byte + 4, bytes.byteLength).set(bytes);
  i32[byte >> 2] = bytes.byteLength;
}

function readMessage(i32: Int32Array, byte: number): string {
  const n = Math.min(i32[byte >> 2], MESSAGE_BYTES - 4);
  return n > 0 ? new TextDecoder().decode(new Uint8Array(i32.buffer, byte + 4, n).slice()) : '';
}

/** Int32 words per slot's descriptor area (for tests and sizing). */
export const SLOT_DESCRIPTOR_WORDS = DESCRIPTOR_WORDS;
