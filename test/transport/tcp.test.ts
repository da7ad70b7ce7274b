/**
 * TCP node links in one process: authenticated connections carry frames in order
 * (small, and large ones written from a view), a peer with the wrong secret is
 * rejected before any frame is accepted, and the frame parser copes with any split.
 */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { encodeHeader, FRAME_HEADER_BYTES, FrameParser } from '../../src/transport/tcp/framing.js';
import { MAX_HANDSHAKES, TcpDevice } from '../../src/transport/tcp/device.js';
import { SPACE_COLL, type FrameHeader } from '../../src/transport/types.js';

// Signatures use all 16 bits (the top one too) and survive the trip.
const header = (i: number, total: number): FrameHeader => ({ context: 3, space: SPACE_COLL, sig: (i * 4099 + 0x8001) & 0xffff, tag: 7, src: 0, dst: 1, index: i, total, offset: 0 });

/** Two listening devices on loopback that know each other's addresses. */
async function pair(secret: Buffer): Promise<[TcpDevice, TcpDevice]> {
  const mk = (node: number) => new TcpDevice({ node, secret, bindHost: '127.0.0.1', onError: () => {} });
  const devices: [TcpDevice, TcpDevice] = [mk(0), mk(1)];
  const peers = [await devices[0].listen(), await devices[1].listen()];
  for (const d of devices) d.setPeers(peers);
  return devices;
}

describe('FrameParser', () => {
  it('reassembles frames split at every byte boundary', () => {
    const frames: Buffer[] = [];
    for (const n of [0, 1, 35, 36, 1000]) {
      const b = Buffer.alloc(FRAME_HEADER_BYTES + n);
      encodeHeader(header(n, n), n, b);
      for (let i = 0; i < n; i++) b[FRAME_HEADER_BYTES + i] = (i * 13) & 0xff;
      frames.push(b);
    }
    const stream = Buffer.concat(frames);
    for (const step of [1, 7, 36, 37, 500, stream.length]) {
      const got: [FrameHeader, Uint8Array][] = [];
      const p = new FrameParser((h, pl) => got.push([h, Uint8Array.from(pl)]));
      for (let i = 0; i < stream.length; i += step) p.push(stream.subarray(i, i + step));
      expect(got.map(([h]) => h.index)).toEqual([0, 1, 35, 36, 1000]);
      for (const [h, pl] of got) {
        expect(h).toEqual(header(h.index, h.index));
        expect(pl.every((v, i) => v === ((i * 13) & 0xff))).toBe(true);
      }
    }
  });
});

describe('TcpDevice', () => {
  it('authenticated nodes exchange frames in order; a wrong secret is rejected', async () => {
    const secret = Buffer.alloc(32, 7);
    const errors: Error[] = [];
    const mk = (node: number, s: Buffer) => new TcpDevice({ node, secret: s, bindHost: '127.0.0.1', onError: (e) => errors.push(e) });
    const a = mk(0, secret);
    const b = mk(1, secret);
    const evil = mk(0, Buffer.alloc(32, 9));
    const peers = [await a.listen(), await b.listen()];
    a.setPeers(peers);
    b.setPeers(peers);
    evil.setPeers(peers);
    await evil.listen();
    const got: [number, FrameHeader, number][] = [];
    b.onFrame = (from, h, p) => got.push([from, h, p.byteLength]);
    const stderr = process.stderr.write;
    process.stderr.write = () => true;
    try {
      evil.send(1, header(99, 4), new Uint8Array(4));
      const big = new Uint8Array(300_000);
      let sent = 0;
      for (let i = 0; i < 50; i++) a.send(1, header(i, i === 25 ? big.byteLength : 8), i === 25 ? big : new Uint8Array(8), () => sent++);
      const deadline = Date.now() + 10_000;
      while ((b.counters().framesReceived < 50 || errors.length === 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    } finally {
      process.stderr.write = stderr;
    }
    // Frames start in order; the large one may come in pieces (above 64 KiB), contiguous and in order.
    expect(got.filter(([, h]) => h.offset === 0).map(([, h]) => h.index)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(got.every(([from]) => from === 0)).toBe(true);
    const pieces = got.filter(([, h]) => h.index === 25);
    let at = 0;
    for (const [, h, n] of pieces) {
      expect(h.offset).toBe(at);
      expect(h.total).toBe(300_000);
      at += n;
    }
    expect(at).toBe(300_000);
    expect(b.counters().framesReceived).toBe(50);
    expect(errors.some((e) => /failed authentication|closed during the handshake/.test(e.message))).toBe(true);
    await Promise.all([a.close(), b.close(), evil.close()]);
  });

  it('holds frames that arrive before a receiver is attached, and delivers them in order', async () => {
    const [a, b] = await pair(Buffer.alloc(32, 5));
    let sent = 0;
    for (let i = 0; i < 5; i++) a.send(1, header(i, 8), new Uint8Array(8).fill(i), () => sent++);
    const deadline = Date.now() + 10_000;
    while (b.counters().framesReceived < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(b.counters().framesReceived).toBe(5);
    const got: [number, number, number][] = [];
    b.onFrame = (from, h, p) => got.push([from, h.index, p[0]]);
    expect(got).toEqual([0, 1, 2, 3, 4].map((i) => [0, i, i]));
    a.send(1, header(5, 8), new Uint8Array(8).fill(5));
    while (got.length < 6 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(got[5]).toEqual([0, 5, 5]);
    await Promise.all([a.close(), b.close()]);
  });

  it('closing right after sending (the connection still in its handshake) delivers the frames first', async () => {
    const [a, b] = await pair(Buffer.alloc(32, 6));
    const got: number[] = [];
    b.onFrame = (_from, h) => got.push(h.index);
    // A node whose ranks returned right after their last send closes its device at once.
    for (let i = 0; i < 3; i++) a.send(1, header(i, 8), new Uint8Array(8));
    await a.close();
    const deadline = Date.now() + 5000;
    while (got.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(got).toEqual([0, 1, 2]);
    await b.close();
  });

  it('drops a raw client that does not speak the protocol', async () => {
    const logged: string[] = [];
    const b = new TcpDevice({ node: 1, secret: Buffer.alloc(32), bindHost: '127.0.0.1', onError: () => {}, log: (l) => void logged.push(l) });
    const addr = await b.listen();
    let frames = 0;
    b.onFrame = () => frames++;
    const closed = await new Promise<boolean>((resolve) => {
      const s = net.connect(addr.port, addr.host, () => s.write(Buffer.alloc(200, 1)));
      s.resume();
      s.on('close', () => resolve(true));
      s.on('error', () => {});
      setTimeout(() => resolve(false), 5000);
    });
    expect(closed).toBe(true);
    expect(frames).toBe(0);
    expect(b.rejected).toBe(1);
    await b.close();
    expect(logged.join('')).toMatch(/node 1 rejected a connection from 127\.0\.0\.1: not a collectives node \(bad magic\)/);
  });

  it('300 silent clients: handshakes are bounded, the log stays short, the job is unaffected', async () => {
    const secret = Buffer.alloc(32, 3);
    const a = new TcpDevice({ node: 0, secret, bindHost: '127.0.0.1', onError: () => {} });
    const b = new TcpDevice({ node: 1, secret, bindHost: '127.0.0.1', onError: () => {} });
    const peers = [await a.listen(), await b.listen()];
    a.setPeers(peers);
    b.setPeers(peers);
    const lines: string[] = [];
    const stderr = process.stderr.write;
    process.stderr.write = ((s: string) => (lines.push(String(s)), true)) as typeof process.stderr.write;
    const silent: net.Socket[] = [];
    let closedEarly = 0;
    try {
      for (let i = 0; i < 300; i++) {
        const s = net.connect(peers[1].port, '127.0.0.1');
        s.on('error', () => {});
        s.resume();
        s.on('close', () => closedEarly++);
        silent.push(s);
      }
      // Connections beyond the handshake limit are closed at once.
      const deadline = Date.now() + 4000;
      while (closedEarly < 300 - MAX_HANDSHAKES && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(closedEarly).toBeGreaterThanOrEqual(300 - MAX_HANDSHAKES);
      // Meanwhile two real nodes still talk.
      const got: number[] = [];
      b.onFrame = (_from, h) => got.push(h.index);
      a.send(1, header(7, 8), new Uint8Array(8));
      const d2 = Date.now() + 5000;
      while (got.length === 0 && Date.now() < d2) await new Promise((r) => setTimeout(r, 10));
      expect(got).toEqual([7]);
    } finally {
      for (const s of silent) s.destroy();
      await Promise.all([a.close(), b.close()]);
      process.stderr.write = stderr;
    }
    expect(b.rejected).toBeGreaterThanOrEqual(300 - MAX_HANDSHAKES);
    const rejectLines = lines.filter((l) => l.includes('rejected'));
    expect(rejectLines.length).toBeGreaterThan(0);
    expect(rejectLines.length).toBeLessThanOrEqual(3);
  });
});
