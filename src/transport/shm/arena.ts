/**
 * The node's shared arena: one SharedArrayBuffer per node process, mapped by every
 * rank thread and the proxy. Buffers that live here (handed out by `comm.alloc`, and
 * the runtime's scratch buffers) can be read by other ranks of the node in place,
 * which is what makes zero-copy sends and reductions possible (like MPI_Alloc_mem).
 *
 * Each endpoint owns one equal slice and allocates from it alone, so allocation needs
 * no cross-thread synchronisation: a first-fit free list with coalescing, 64-byte
 * aligned blocks.
 */
import { ArgumentError } from '../../core/errors.js';

const ALIGN = 64;

/** Slices of at least 8 MiB are whole multiples of 2 MiB (transparent huge pages stay aligned). */
const HUGE = 2 * 1024 * 1024;

export function arenaSlice(arenaBytes: number, endpoints: number, e: number): { start: number; bytes: number } {
  let bytes = Math.floor(arenaBytes / endpoints / ALIGN) * ALIGN;
  if (bytes >= 4 * HUGE) bytes = Math.floor(bytes / HUGE) * HUGE;
  return { start: e * bytes, bytes };
}

export class ArenaAllocator {
  readonly sab: SharedArrayBuffer;
  /** Free blocks [offset, size], sorted by offset. */
  private readonly freeList: [number, number][];
  private readonly used = new Map<number, number>();
  private readonly start: number;
  private readonly end: number;

  constructor(sab: SharedArrayBuffer, start: number, bytes: number) {
    this.sab = sab;
    this.start = start;
    this.end = start + bytes;
    this.freeList = bytes > 0 ? [[start, bytes]] : [];
  }

  /** Bytes still free in this slice (possibly fragmented). */
  get available(): number {
    return this.freeList.reduce((s, [, n]) => s + n, 0);
  }

  /** Allocate `bytes`; returns the arena offset, or -1 when the slice is exhausted. */
  alloc(bytes: number): number {
    const need = Math.max(ALIGN, Math.ceil(bytes / ALIGN) * ALIGN);
    for (let i = 0; i < this.freeList.length; i++) {
      const blk = this.freeList[i];
      if (blk[1] >= need) {
        const off = blk[0];
        if (blk[1] === need) this.freeList.splice(i, 1);
        else {
          blk[0] += need;
          blk[1] -= need;
        }
        this.used.set(off, need);
        return off;
      }
    }
    return -1;
  }

  /** `bytes` of scratch: a view of this slice when it has room (zero-copy eligible), else private memory. */
  scratch(bytes: number): Uint8Array {
    if (bytes === 0) return new Uint8Array(0);
    const off = this.alloc(bytes);
    return off >= 0 ? new Uint8Array(this.sab, off, bytes) : new Uint8Array(bytes);
  }

  /** Give back a view from scratch() (private memory needs nothing). */
  release(v: Uint8Array): void {
    if (v.buffer === this.sab && v.byteLength > 0) this.free(v.byteOffset);
  }

  /** Return a block obtained from alloc(). */
  free(offset: number): void {
    const size = this.used.get(offset);
    if (size === undefined) {
      throw new ArgumentError(`arena offset ${offset} was not allocated here (double free, or a buffer of another rank)`);
    }
    this.used.delete(offset);
    let i = 0;
    while (i < this.freeList.length && this.freeList[i][0] < offset) i++;
    this.freeList.splice(i, 0, [offset, size]);
    // Coalesce with the next and previous blocks.
    if (i + 1 < this.freeList.length && offset + size === this.freeList[i + 1][0]) {
      this.freeList[i][1] += this.freeList[i + 1][1];
      this.freeList.splice(i + 1, 1);
    }
    if (i > 0 && this.freeList[i - 1][0] + this.freeList[i - 1][1] === offset) {
      this.freeList[i - 1][1] += this.freeList[i][1];
      this.freeList.splice(i, 1);
    }
  }

  /** Whether `offset` lies in this allocator's slice. */
  owns(offset: number): boolean {
    return offset >= this.start && offset < this.end;
  }

  /** Size of the allocated block at `offset` (undefined if none). */
  sizeOf(offset: number): number | undefined {
    return this.used.get(offset);
  }
}
