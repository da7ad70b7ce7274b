/**
 * Direct writes (transport/tcp/direct.ts): rank threads and the node's main thread write
 * frames into one TCP connection; the lock and the busy flag keep every frame whole and
 * each writer's frames in order, and a revoked connection takes no more direct writes.
 */
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { DirectTable, DIRECT_MAX_MESSAGE, DIRECT_SEGMENT } from '../../src/transport/tcp/direct.js';
import { TcpDevice } from '../../src/transport/tcp/device.js';
import { SPACE_P2P, type FrameHeader } from '../../src/transport/types.js';

const tsxWorker = (url: URL, workerData: unknown): Worker =>
  new Worker(`import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(url.href)}); })`, { eval: true, workerData });

describe('direct writes', () => {
  it('two rank threads and the main thread share a connection: every frame arrives whole, each writer in order', async () => {
    const secret = Buffer.alloc(32, 3);
    const table = DirectTable.create(2);
    const a = new TcpDevice({ node: 0, secret, bindHost: '127.0.0.1', onError: () => {}, direct: table });
    const b = new TcpDevice({ node: 1, secret, bindHost: '127.0.0.1', onError: () => {} });
    const peers = [await a.listen(), await b.listen()];
    a.setPeers(peers);
    b.setPeers(peers);
    const got: FrameHeader[] = [];
    let bad = 0;
    const bigAt = new Map<number, number>();
    b.onFrame = (_from, h, p) => {
      const fill = h.src >= 1000 ? (h.index + h.tag) & 0xff : h.index & 0xff;
      if (!p.every((v) => v === fill)) bad++;
      if (h.src >= 1000) {
        if (p.byteLength !== h.total) bad++;
        got.push(h);
        return;
      }
      // The main thread's large frames arrive in pieces at their offsets.
      const at = bigAt.get(h.index) ?? 0;
      if (h.offset !== at) bad++;
      bigAt.set(h.index, at + p.byteLength);
      if (at + p.byteLength === h.total) got.push(h);
    };
    // Before a connection is published the table refuses.
    expect(table.open(1)).toBe(false);
    await a.connect(1);
    a.openDirect(1);
    expect(table.open(1)).toBe(true);
    const count = 3000;
    const go = new SharedArrayBuffer(8);
    const writers = [0, 1].map((w) => tsxWorker(new URL('./programs/direct-writer.ts', import.meta.url), { sab: table.sab, nodes: 2, peer: 1, count, writer: w, go }));
    let finished = 0;
    const messages = writers.map((w) => {
      const m: Promise<unknown>[] = [];
      let ready!: () => void;
      m.push(new Promise<void>((r) => (ready = r)));
      const result = new Promise<{ direct: number }>((resolve, reject) => {
        w.on('message', (x: 'ready' | { direct: number }) => (x === 'ready' ? ready() : (finished++, resolve(x))));
        w.once('error', reject);
      });
      return { ready: m[0], result };
    });
    await Promise.all(messages.map((m) => m.ready));
    Atomics.store(new Int32Array(go), 0, 1);
    Atomics.notify(new Int32Array(go), 0);
    const done = messages.map((m) => m.result);
    // Meanwhile the main thread sends large frames until both writers are done (the
    // kernel takes part of each at once and libuv writes the rest later: busy).
    let big = 0;
    let partial = 0;
    // The receiver stops reading for a while, so that the kernel's buffers fill, the main
    // thread's writes stay queued in libuv and are finished by it later, while the
    // writers keep trying: without the busy flag and the lock their frames would land in
    // the middle of the main thread's.
    const receiving = [...(b as unknown as { all: Set<{ socket: { pause(): void; resume(): void } }> }).all].map((c) => c.socket);
    for (const r of receiving) r.pause();
    setTimeout(() => {
      for (const r of receiving) r.resume();
    }, 150);
    for (let burst = 0; burst < 40 && finished < 2; burst++) {
      // Several at once, so that the socket's buffer fills while the receiver (this thread) does not read.
      for (let k = 0; k < 8; k++) {
        const n = 512 * 1024;
        a.send(1, { context: 1, space: SPACE_P2P, sig: 0, tag: 9, src: 7, dst: 0, index: big, total: n, offset: 0 }, new Uint8Array(n).fill(big & 0xff));
        big++;
      }
      if (Atomics.load(table.i32, 1 * 4 + 2) !== 0) partial++; // peer 1's busy word
      await new Promise((r) => setImmediate(r));
    }
    expect(partial).toBeGreaterThan(0); // the main thread had bytes queued in libuv at times: ranks kept out
    const stats = await Promise.all(done);
    expect(stats.map((s) => s.direct)).toEqual([count, count]);
    const want = 2 * count + big;
    for (let t = 0; t < 200 && got.length < want; t++) await new Promise((r) => setTimeout(r, 25));
    expect(got.length).toBe(want);
    expect(bad).toBe(0);
    for (const src of [1000, 1001, 7]) {
      const idx = got.filter((h) => h.src === src).map((h) => h.index);
      expect(idx).toEqual(Array.from({ length: src === 7 ? big : count }, (_, i) => i));
    }
    expect(table.written().frames).toBe(2 * count);
    // After close the descriptor is revoked: no rank writes into a closed (or reused) descriptor.
    await Promise.all([a.close(), b.close()]);
    expect(table.open(1)).toBe(false);
    expect(table.tryWrite(1, [new Uint8Array(8)])).toBe(false);
    expect(table.tryWrite(1, [new Uint8Array(8)], true)).toBe(false); // waiting does not help a closed connection
    for (const w of writers) await w.terminate();
  }, 30_000);

  it('a new table has no open connection; messages go in segments of the proxy\'s size, up to a bound', () => {
    expect(DIRECT_SEGMENT).toBe(256 * 1024);
    expect(DIRECT_MAX_MESSAGE).toBeGreaterThanOrEqual(DIRECT_SEGMENT);
    const t = DirectTable.create(3);
    for (let p = 0; p < 3; p++) expect(t.open(p)).toBe(false);
  });
});
