/**
 * The node proxy's inbound side: frames from a NodeLink that do not fit the rank's
 * ring wait in a backlog, and must be kept as copies — a link may hand its frames as
 * views of one receive buffer it reuses (the MPI link does, as a Node Buffer, whose
 * slice() is a view, not a copy).
 */
import { describe, expect, it } from 'vitest';
import { NodeProxy } from '../../src/transport/proxy.js';
import { makeLayout } from '../../src/transport/shm/layout.js';
import { ENTRY_HEADER_BYTES, entryBytes, Ring, W_BYTES, W_OFFSET, W_SRC } from '../../src/transport/shm/ring.js';
import { SPACE_P2P, type FrameHeader, type NodeLink } from '../../src/transport/types.js';

describe('NodeProxy inbound', () => {
  it('keeps copies of backlogged frames when the link reuses its receive buffer', async () => {
    const ringBytes = 4096;
    const layout = makeLayout({ localSize: 1, ringBytes, flagsPerEndpoint: 8 });
    const control = new SharedArrayBuffer(layout.totalBytes);
    let deliver: NodeLink['onFrame'] = () => undefined;
    const link: NodeLink = {
      node: 0,
      set onFrame(f: NodeLink['onFrame']) {
        deliver = f;
      },
      get onFrame() {
        return deliver;
      },
      send: () => undefined,
      close: () => Promise.resolve(),
      abort: () => undefined,
    };
    const errors: Error[] = [];
    // World rank 0 lives here; ranks 1 and 2 on other nodes.
    const proxy = new NodeProxy({
      control,
      arena: new SharedArrayBuffer(4096),
      layout,
      nodeOf: Int32Array.of(0, 1, 2),
      localIndexOf: Int32Array.of(0, -1, -1),
      link,
      onError: (e) => errors.push(e),
    });
    // Two frames of 3000 bytes from ranks 1 and 2, each more than the ring holds at
    // once (ring entries carry at most ringBytes/4 − header bytes), through one Buffer.
    const reused = Buffer.alloc(3000);
    const frame = (src: number): FrameHeader => ({ context: 0, space: SPACE_P2P, tag: 5, src, dst: 0, index: 0, sig: 0, total: 3000, offset: 0 });
    for (const src of [1, 2]) {
      reused.fill(src);
      link.onFrame(src, frame(src), reused.subarray(0, 3000));
    }
    reused.fill(9);
    // Read the rank's ring as its endpoint would, letting the proxy refill it.
    const ring = new Ring(control, layout.ringOffset(layout.proxy, 0), ringBytes, 'consumer');
    const got = new Map<number, number[]>([
      [1, []],
      [2, []],
    ]);
    proxy.start();
    const deadline = Date.now() + 5000;
    while ((got.get(1)?.length ?? 0) + (got.get(2)?.length ?? 0) < 6000 && Date.now() < deadline) {
      const at = ring.next();
      if (at < 0) {
        Atomics.add(new Int32Array(control), layout.bellIndex(layout.proxy), 1);
        Atomics.notify(new Int32Array(control), layout.bellIndex(layout.proxy));
        await new Promise((r) => setTimeout(r, 1));
        continue;
      }
      const w = at >> 2;
      const n = ring.i32[w + W_BYTES];
      const src = ring.i32[w + W_SRC];
      const bytes = got.get(src) as number[];
      expect(ring.i32[w + W_OFFSET]).toBe(bytes.length);
      for (let i = 0; i < n; i++) bytes.push(ring.u8[at + ENTRY_HEADER_BYTES + i]);
      ring.release(entryBytes(n));
    }
    await proxy.stop();
    expect(errors).toEqual([]);
    expect(got.get(1)).toEqual(new Array(3000).fill(1));
    expect(got.get(2)).toEqual(new Array(3000).fill(2));
  });
});
