/**
 * The two rotating buffer channels of the NIC allgathers (seed 003 ch. 6 §6.5.2,
 * M13, §3 A13, Fig. 6.2).
 *
 * Operations are numbered by a global collective sequence number; op s uses channel
 * s mod 2. A channel holds the op's blocks (early packets land there before the host
 * posts the op: skew tolerance), a status bit vector (CB: one bit per origin; RD: one
 * per step), an arrival counter, and the tag of the op it holds. At the end of an op
 * the blocks are copied out; the channel keeps them (for answering NACKs) until op
 * s + 2 claims it.
 *
 * Why two suffice: an allgather synchronizes by nature. A rank posts op s + 1 only
 * after completing op s, and completing op s needs every rank's block of op s, so (a)
 * at most one op per rank has packets to send and (b) at most two ops have packets to
 * receive: a packet of op s + 2 exists only once some rank completed s + 1, which
 * needed this rank's block of s + 1, posted after this rank completed s. So no packet
 * of op s + 2 can arrive while op s is incomplete — the invariant the owners check
 * (their `violations`) — and op s + 2 only ever claims a channel whose op is done.
 *
 * Cost: memory 2 × N × blockBytes plus 2 × (N + status) bits per rank, whatever the
 * number of ops; no packets of its own.
 */
import { BitVector } from './bitvector.js';

export interface ChannelSlot {
  /** Operation held (−1: never used). */
  op: number;
  /** N blocks of blockBytes. */
  readonly data: Uint8Array;
  /** Blocks present. */
  readonly have: BitVector;
  /** Status bit vector: expected packets that arrived (scanned only on timeout). */
  readonly status: BitVector;
  /** Arrival counter (packets that set a status bit). */
  arrivals: number;
  /** The host posted the op (its own block is in place). */
  posted: boolean;
  complete: boolean;
  /** Protocol-specific progress (RD: steps sent). */
  cursor: number;
}

export class RotatingChannels {
  private readonly slots: ChannelSlot[];

  constructor(
    readonly blocks: number,
    readonly blockBytes: number,
    statusBits: number,
    readonly count = 2,
  ) {
    this.slots = Array.from({ length: count }, () => ({
      op: -1,
      data: new Uint8Array(blocks * blockBytes),
      have: new BitVector(blocks),
      status: new BitVector(statusBits),
      arrivals: 0,
      posted: false,
      complete: false,
      cursor: 0,
    }));
  }

  /** The channel holding `op`, if it still does. */
  lookup(op: number): ChannelSlot | undefined {
    const s = this.slots[op % this.count];
    return s.op === op ? s : undefined;
  }

  /** The channel of `op`, claimed (cleared) if it held an earlier, completed op. */
  acquire(op: number): ChannelSlot {
    const s = this.slots[op % this.count];
    if (s.op === op) return s;
    if (s.op > op) throw new Error(`channel ${op % this.count} already holds op ${s.op} > ${op}`);
    if (s.op >= 0 && !s.complete) throw new Error(`channel ${op % this.count} is still busy with op ${s.op}; cannot take op ${op}`);
    s.op = op;
    s.have.clear();
    s.status.clear();
    s.arrivals = 0;
    s.posted = false;
    s.complete = false;
    s.cursor = 0;
    return s;
  }

  /** Block `i` of a slot (a view). */
  block(s: ChannelSlot, i: number): Uint8Array {
    return s.data.subarray(i * this.blockBytes, (i + 1) * this.blockBytes);
  }
}
