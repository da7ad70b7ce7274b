/**
 * Shared-memory transport pieces in one thread: the SPSC ring (wrap-around with
 * skip markers, full ring, entry sizes), the arena allocator, and two endpoints of
 * one node exchanging eager, chunked and zero-copy messages with MPI matching.
 */
import { describe, expect, it } from 'vitest';
import { ArenaAllocator, arenaSlice } from '../../src/transport/shm/arena.js';
import { ShmEndpoint } from '../../src/transport/shm/endpoint.js';
import { makeLayout, readAbort, signalAbort } from '../../src/transport/shm/layout.js';
import { ENTRY_HEADER_BYTES, entryBytes, Ring } from '../../src/transport/shm/ring.js';
import { ANY, SPACE_COLL, SPACE_P2P, type MessageKey } from '../../src/transport/types.js';

describe('Ring', () => {
  it('wraps around with skip markers and never overfills', () => {
    const cap = 4096;
    const sab = new SharedArrayBuffer(128 + cap);
    const prod = new Ring(sab, 0, cap, 'producer');
    const cons = new Ring(sab, 0, cap, 'consumer');
    let next = 0;
    let expect_ = 0;
    for (let round = 0; round < 200; round++) {
      // Write entries of varying size until full.
      for (;;) {
        const n = (next * 37) % 700;
        const len = entryBytes(n);
        const at = prod.reserve(len);
        if (at < 0) break;
        prod.i32[at >> 2] = 1;
        prod.i32[(at >> 2) + 8] = n;
        prod.i32[(at >> 2) + 1] = next;
        for (let i = 0; i < n; i++) prod.u8[at + ENTRY_HEADER_BYTES + i] = (next + i) & 0xff;
        prod.commit(len);
        next++;
      }
      // Read a random-ish number of them.
      for (let k = 0; k < 1 + (round % 5); k++) {
        const at = cons.next();
        if (at < 0) break;
        const n = cons.i32[(at >> 2) + 8];
        expect(cons.i32[(at >> 2) + 1]).toBe(expect_);
        for (let i = 0; i < n; i += 97) expect(cons.u8[at + ENTRY_HEADER_BYTES + i]).toBe((expect_ + i) & 0xff);
        cons.release(entryBytes(n));
        expect_++;
      }
    }
    while (cons.next() >= 0) {
      const at = cons.next();
      cons.release(entryBytes(cons.i32[(at >> 2) + 8]));
      expect_++;
    }
    expect(expect_).toBe(next);
    expect(cons.drained()).toBe(true);
    expect(prod.maxPayload).toBe(cap / 4 - ENTRY_HEADER_BYTES);
  });
});

describe('ArenaAllocator', () => {
  it('allocates first-fit, 64-byte aligned, and coalesces on free', () => {
    const a = new ArenaAllocator(new SharedArrayBuffer(4096), 1024, 2048);
    const x = a.alloc(1);
    const y = a.alloc(100);
    const z = a.alloc(64);
    expect([x, y, z]).toEqual([1024, 1088, 1216]);
    expect(a.alloc(4096)).toBe(-1);
    a.free(y);
    expect(a.alloc(128)).toBe(1088);
    a.free(1088);
    a.free(x);
    a.free(z);
    expect(a.available).toBe(2048);
    expect(a.alloc(2048)).toBe(1024);
    expect(() => a.free(12345)).toThrow(/not allocated here/);
    expect(arenaSlice(1000, 3, 2)).toEqual({ start: 640, bytes: 320 });
  });
});

function pair(ringBytes = 4096) {
  const layout = makeLayout({ localSize: 2, ringBytes, flagsPerEndpoint: 8 });
  const control = new SharedArrayBuffer(layout.totalBytes);
  const arena = new SharedArrayBuffer(1 << 20);
  const localIndexOf = Int32Array.from([0, 1]);
  const mk = (r: number) => new ShmEndpoint({ control, arena, layout, local: r, worldRank: r, localIndexOf, multiNode: false });
  return { a: mk(0), b: mk(1), arena, control, layout };
}

const key = (o: Partial<MessageKey>): MessageKey => ({ context: 0, space: SPACE_COLL, tag: 0, src: 0, dst: 1, index: 0, ...o });

describe('ShmEndpoint', () => {
  it('delivers eager, chunked (larger than the ring) and zero-copy messages, matching by index', () => {
    const { a, b, arena } = pair();
    const big = new Uint8Array(10_000).map((_, i) => i & 0xff);
    const shared = new Uint8Array(arena, 4096, 8192).map((_, i) => (i * 7) & 0xff);
    const s1 = a.isend(key({ index: 1 }), Uint8Array.of(1, 2, 3));
    const s0 = a.isend(key({ index: 0 }), big);
    const s2 = a.isend(key({ index: 2 }), shared);
    const r0buf = new Uint8Array(10_000);
    const r1buf = new Uint8Array(3);
    const r2buf = new Uint8Array(8192);
    const r2 = b.irecv(key({ index: 2 }), r2buf, { exact: true });
    const r0 = b.irecv(key({ index: 0 }), r0buf, { exact: true });
    const r1 = b.irecv(key({ index: 1 }), r1buf, { exact: true });
    for (let i = 0; i < 100 && !(r0.done && r1.done && r2.done && s0.done && s2.done); i++) {
      a.progress();
      b.progress();
    }
    expect([s0.done, s1.done, s2.done, r0.done, r1.done, r2.done]).toEqual([true, true, true, true, true, true]);
    expect(r0buf).toEqual(big);
    expect([...r1buf]).toEqual([1, 2, 3]);
    expect(r2buf).toEqual(shared);
  });

  it('point-to-point: ANY source/tag, order per sender, shorter messages, size errors', () => {
    const { a, b } = pair();
    const p2p = (tag: number): MessageKey => key({ space: SPACE_P2P, tag });
    a.isend(p2p(5), Uint8Array.of(5));
    a.isend(p2p(6), Uint8Array.of(6, 6));
    a.isend(p2p(7), Uint8Array.of(7, 7, 7));
    b.progress();
    const x = b.irecv({ ...p2p(6), src: ANY }, new Uint8Array(4));
    const y = b.irecv({ ...p2p(ANY), src: 0 }, new Uint8Array(4));
    const z = b.irecv(p2p(7), new Uint8Array(1));
    expect([x.done, x.tag, x.bytes, x.source]).toEqual([true, 6, 2, 0]);
    expect([y.done, y.tag, y.bytes]).toEqual([true, 5, 1]);
    expect(z.done).toBe(true);
    expect(z.error?.name).toBe('MismatchError');
    expect(z.error?.message).toContain('3-byte message from rank 0 for a 1-byte receive');
  });

  it('exact receives reject a different size; cancel withdraws an unmatched receive', () => {
    const { a, b } = pair();
    a.isend(key({}), new Uint8Array(8));
    const r = b.irecv(key({}), new Uint8Array(16), { exact: true });
    b.progress();
    expect(r.error?.name).toBe('MismatchError');
    expect(r.error?.message).toContain('set COLL_DEBUG=1');
    const q = b.irecv(key({ index: 9 }), new Uint8Array(1));
    expect(b.waitingFor()).toEqual([0]);
    expect(b.cancel(q)).toBe(true);
    expect(b.waitingFor()).toEqual([]);
  });

  it('the abort flag names the failed rank and wakes everyone', () => {
    const { a, control, layout } = pair();
    expect(a.aborted()).toBeUndefined();
    signalAbort(control, layout, 1, 'boom');
    signalAbort(control, layout, 0, 'second failure is ignored');
    expect(a.aborted()).toEqual({ rank: 1, reason: 'boom' });
    expect(readAbort(new Int32Array(control))).toEqual({ rank: 1, reason: 'boom' });
  });
});
