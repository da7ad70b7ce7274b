/**
 * Single-producer/single-consumer byte ring in shared memory, one per ordered pair
 * of endpoints of a node.
 *
 * Positions are free-running 32-bit counters (head: consumed, tail: published); the
 * data offset is position mod capacity. An entry is a 40-byte header (ten int32
 * words, see ENTRY_*) followed by its payload, padded to 8 bytes, and never wraps:
 * when it does not fit before the end the producer writes a SKIP marker and starts
 * over at offset 0. The producer publishes with an atomic store of `tail` after its
 * plain writes, the consumer frees with an atomic store of `head` after reading, so
 * each side sees the other's data (sequentially consistent Atomics).
 */

export const ENTRY_HEADER_BYTES = 40;

/** Header words. */
export const W_KIND = 0; // kind | space << 8 | call signature << 16 (MessageKey.sig)
export const W_CONTEXT = 1;
export const W_TAG = 2;
export const W_SRC = 3;
export const W_DST = 4;
export const W_INDEX = 5;
export const W_TOTAL = 6; // total message bytes
export const W_OFFSET = 7; // inline: offset of this chunk in the message; shm: arena offset
export const W_BYTES = 8; // inline: payload bytes of this entry
export const W_FLAG = 9; // shm: completion cell id

/**
 * W_DST of entries toward the proxy that are not for one rank: the destination list of
 * the multicast that follows (payload: int32 world ranks), and that multicast's data
 * (transport/mcast: the node's multicast agent sends it).
 */
export const DST_MCAST_LIST = -2;
export const DST_MCAST_DATA = -3;

export const KIND_INLINE = 1;
export const KIND_SHM = 2;
export const KIND_SKIP = 3;

export function entryBytes(payload: number): number {
  return (ENTRY_HEADER_BYTES + payload + 7) & ~7;
}

export class Ring {
  readonly i32: Int32Array;
  readonly u8: Uint8Array;
  readonly capacity: number;
  private readonly headIdx: number;
  private readonly tailIdx: number;
  private readonly data: number;
  private readonly mask: number;
  /** Producer's tail or consumer's head (each side keeps its own). */
  private pos: number;
  private pendingSkip = 0;

  constructor(sab: SharedArrayBuffer, offset: number, capacity: number, side: 'producer' | 'consumer') {
    this.i32 = new Int32Array(sab);
    this.u8 = new Uint8Array(sab);
    this.capacity = capacity;
    this.mask = capacity - 1;
    this.headIdx = offset >> 2;
    this.tailIdx = (offset + 64) >> 2;
    this.data = offset + 128;
    this.pos = Atomics.load(this.i32, side === 'producer' ? this.tailIdx : this.headIdx);
  }

  /** Largest payload one entry may carry. */
  get maxPayload(): number {
    return this.capacity / 4 - ENTRY_HEADER_BYTES;
  }

  // ---- producer side ----

  /**
   * Reserve `len` bytes (from entryBytes) for one entry; returns the entry's byte
   * offset in `u8`, or -1 when the ring is too full. Follow with commit(len).
   */
  reserve(len: number): number {
    const used = (this.pos - Atomics.load(this.i32, this.headIdx)) | 0;
    const free = this.capacity - used;
    const off = this.pos & this.mask;
    const toEnd = this.capacity - off;
    if (len <= toEnd) {
      if (len > free) return -1;
      this.pendingSkip = 0;
      return this.data + off;
    }
    if (toEnd + len > free) return -1;
    this.i32[(this.data + off) >> 2] = KIND_SKIP;
    this.pendingSkip = toEnd;
    return this.data;
  }

  /** Publish the entry written at the last reserve(). */
  commit(len: number): void {
    this.pos = (this.pos + this.pendingSkip + len) | 0;
    this.pendingSkip = 0;
    Atomics.store(this.i32, this.tailIdx, this.pos);
  }

  // ---- consumer side ----

  /** Byte offset of the next entry, or -1 when the ring is empty. */
  next(): number {
    for (;;) {
      if (this.pos === Atomics.load(this.i32, this.tailIdx)) return -1;
      const off = this.pos & this.mask;
      if ((this.i32[(this.data + off) >> 2] & 0xff) === KIND_SKIP) {
        this.pos = (this.pos + this.capacity - off) | 0;
        Atomics.store(this.i32, this.headIdx, this.pos);
        continue;
      }
      return this.data + off;
    }
  }

  /** Free the entry returned by next(). */
  release(len: number): void {
    this.pos = (this.pos + len) | 0;
    Atomics.store(this.i32, this.headIdx, this.pos);
  }

  /** True when the consumer has read everything the producer published. */
  drained(): boolean {
    return Atomics.load(this.i32, this.headIdx) === Atomics.load(this.i32, this.tailIdx);
  }
}
