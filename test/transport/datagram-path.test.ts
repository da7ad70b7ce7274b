/**
 * The reliable datagram path on loopback: frames of every size class arrive intact,
 * once and in order under injected loss, duplication and reordering; datagrams that
 * are foreign (wrong key, malformed, spoofed, misaddressed) are counted and never
 * delivered; a peer that never answers is reported by node within giveUpMs.
 * Expected payloads come from an independent byte formula, not from the sender's buffers.
 */
import dgram from 'node:dgram';
import { describe, expect, it } from 'vitest';
import {
  DATAGRAM_HEADER_BYTES,
  DATAGRAM_MAC_BYTES,
  DATAGRAM_MAGIC,
  DATAGRAM_VERSION,
  DatagramPath,
  parseDatagramFault,
  signDatagram,
  TYPE_DATA,
  type DatagramFault,
} from '../../src/transport/udp/datagram-path.js';
import { encodeHeader, FRAME_HEADER_BYTES } from '../../src/transport/tcp/framing.js';
import { SPACE_P2P, type FrameHeader } from '../../src/transport/types.js';
import type { PeerAddress } from '../../src/transport/tcp/device.js';

const SIZES = [0, 1, 1199, 1200, 1201, 100 * 1024, 1 << 20];
const byteAt = (frame: number, i: number): number => (i * 31 + frame * 7 + (i >>> 8)) & 0xff;
const payloadOf = (frame: number, n: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => byteAt(frame, i));
const header = (src: number, dst: number, index: number, total: number): FrameHeader => ({
  context: 5,
  space: SPACE_P2P,
  sig: (index * 977 + 0x8001) & 0xffff,
  tag: 11,
  src,
  dst,
  index,
  total,
  offset: 0,
});

interface Got {
  from: number;
  h: FrameHeader;
  ok: boolean;
  bytes: number;
}

async function until(cond: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
}

async function mesh(n: number, opts: { fault?: DatagramFault; secret?: (node: number) => Buffer; giveUpMs?: number; keyFor?: (self: number, peer: number) => Promise<Buffer> } = {}) {
  const errors: Error[] = [];
  const paths = Array.from(
    { length: n },
    (_, node) =>
      new DatagramPath({
        node,
        bindHost: '127.0.0.1',
        secret: opts.secret?.(node) ?? Buffer.alloc(32, 1),
        keyFor: opts.keyFor ? (peer) => (opts.keyFor as (s: number, p: number) => Promise<Buffer>)(node, peer) : undefined,
        retransmitMs: 4,
        giveUpMs: opts.giveUpMs ?? 5000,
        fault: opts.fault,
        onError: (e) => errors.push(e),
      }),
  );
  const addrs: PeerAddress[] = [];
  for (const p of paths) addrs.push(await p.listen());
  for (const p of paths) p.setPeers(addrs);
  return { paths, addrs, errors };
}

describe('parseDatagramFault', () => {
  it('reads COLL_UDP_FAULT and rejects nonsense', () => {
    expect(parseDatagramFault('loss=0.2,duplicate=0.1,reorder=0.1,seed=7')).toEqual({ loss: 0.2, duplicate: 0.1, reorder: 0.1, seed: 7 });
    expect(parseDatagramFault(undefined)).toBeUndefined();
    expect(parseDatagramFault(' ')).toBeUndefined();
    expect(() => parseDatagramFault('loss=1.5')).toThrow(/probability/);
    expect(() => parseDatagramFault('jitter=0.1')).toThrow(/unknown key 'jitter'/);
    expect(() => parseDatagramFault('loss')).toThrow(/not key=number/);
  });
});

describe('DatagramPath', () => {
  for (const seed of [1, 7, 42]) {
    it(`frames of ${SIZES.join(', ')} bytes arrive intact and in order under loss, duplication and reordering (seed ${seed})`, async () => {
      const { paths, errors } = await mesh(2, { fault: { loss: 0.2, duplicate: 0.1, reorder: 0.1, seed } });
      const [a, b] = paths;
      const gotB: Got[] = [];
      const gotA: Got[] = [];
      const check = (into: Got[]) => (from: number, h: FrameHeader, p: Uint8Array) =>
        into.push({ from, h, bytes: p.byteLength, ok: p.byteLength === h.total && p.every((v, i) => v === byteAt(h.index, i)) });
      b.onFrame = check(gotB);
      a.onFrame = check(gotA);
      let sentA = 0;
      let sentB = 0;
      // Two rounds of every size from a to b; small frames back from b to a interleaved (acks ride on them).
      const order = [...SIZES, ...SIZES];
      order.forEach((n, i) => {
        a.send(1, header(0, 1, i, n), payloadOf(i, n), () => sentA++);
        b.send(0, header(1, 0, i, i), payloadOf(i, i), () => sentB++);
      });
      await until(() => gotB.length === order.length && gotA.length === order.length && sentA === order.length && sentB === order.length, 20_000);
      expect(errors).toEqual([]);
      expect(gotB.map((g) => [g.from, g.h.index, g.bytes, g.ok])).toEqual(order.map((n, i) => [0, i, n, true]));
      expect(gotB.map((g) => g.h)).toEqual(order.map((n, i) => header(0, 1, i, n)));
      expect(gotA.map((g) => [g.from, g.h.index, g.ok])).toEqual(order.map((_, i) => [1, i, true]));
      expect(sentA).toBe(order.length);
      const ca = a.counters();
      const cb = b.counters();
      const fragments = order.reduce((s, n) => s + Math.max(1, Math.ceil(n / 1200)), 0);
      expect(ca.retransmissions).toBeGreaterThan(0);
      expect(cb.duplicatesDropped).toBeGreaterThan(0);
      expect(ca.datagramsSent).toBeGreaterThanOrEqual(fragments + ca.retransmissions);
      expect(cb.framesReceived).toBe(order.length);
      expect(cb.bytesReceived).toBe(order.reduce((s, n) => s + n, 0));
      expect(ca.framesSent).toBe(order.length);
      expect(cb.foreignDropped + ca.foreignDropped).toBe(0);
      // Nothing delivered twice after the dust settles.
      await new Promise((r) => setTimeout(r, 30));
      expect(gotB.length).toBe(order.length);
      await Promise.all([a.close(), b.close()]);
    });
  }

  it('three nodes with per-pair asynchronous keys: frames held until a receiver is attached, in order per sender', async () => {
    const key = (s: number, p: number) => Promise.resolve(Buffer.from(`pair-${Math.min(s, p)}-${Math.max(s, p)}`));
    const { paths, errors } = await mesh(3, { keyFor: key });
    for (let i = 0; i < 20; i++) {
      paths[0].send(2, header(0, 2, i, 3000), payloadOf(i, 3000));
      paths[1].send(2, header(1, 2, i, 10), payloadOf(i, 10));
    }
    await until(() => paths[2].counters().framesReceived === 40, 5000);
    const got: [number, number, boolean][] = [];
    paths[2].onFrame = (from, h, p) => got.push([from, h.index, p.every((v, i) => v === byteAt(h.index, i))]);
    expect(got.length).toBe(40);
    for (const from of [0, 1]) expect(got.filter((g) => g[0] === from)).toEqual(Array.from({ length: 20 }, (_, i) => [from, i, true]));
    expect(errors).toEqual([]);
    await Promise.all(paths.map((p) => p.close()));
  });

  it('drops and counts datagrams with the wrong key, malformed, spoofed or misaddressed; delivers none of them', async () => {
    const { paths, addrs, errors } = await mesh(2);
    const [, b] = paths;
    let delivered = 0;
    b.onFrame = () => delivered++;
    // A node with the wrong secret (it claims to be node 0).
    const evil = new DatagramPath({ node: 0, bindHost: '127.0.0.1', secret: Buffer.alloc(32, 9), retransmitMs: 4, giveUpMs: 150, onError: () => {} });
    evil.setPeers([await evil.listen(), addrs[1]]);
    evil.send(1, header(0, 1, 0, 5), payloadOf(0, 5));
    await until(() => b.counters().foreignDropped >= 3, 2000);
    const fromEvil = b.counters().foreignDropped;
    expect(fromEvil).toBeGreaterThanOrEqual(3); // the original and retransmissions, each dropped
    // Raw datagrams: each must be counted exactly once.
    const raw = dgram.createSocket('udp4');
    await new Promise<void>((r) => raw.bind(0, '127.0.0.1', () => r()));
    const good = (from: number, to: number, key: Buffer, seq = 0): Buffer => {
      const d = Buffer.alloc(DATAGRAM_HEADER_BYTES + FRAME_HEADER_BYTES + 4 + DATAGRAM_MAC_BYTES);
      d.writeUInt32LE(DATAGRAM_MAGIC, 0);
      d.writeUInt8(DATAGRAM_VERSION, 4);
      d.writeUInt8(TYPE_DATA, 5);
      d.writeUInt8(1, 6);
      d.writeUInt32LE(from, 8);
      d.writeUInt32LE(to, 12);
      d.writeUInt32LE(seq, 16);
      encodeHeader(header(from, to, 0, 4), 4, d, DATAGRAM_HEADER_BYTES);
      signDatagram(key, d, d.length - DATAGRAM_MAC_BYTES);
      return d;
    };
    const secret = Buffer.alloc(32, 1);
    const flipped = good(0, 1, secret);
    flipped[DATAGRAM_HEADER_BYTES + FRAME_HEADER_BYTES] ^= 1; // payload changed after signing
    const bad = [
      Buffer.from('hello'), // too short
      Buffer.alloc(200, 0xab), // garbage
      good(0, 1, Buffer.alloc(32, 2)), // wrong key
      flipped, // tampered
      good(7, 1, secret), // a node that does not exist (valid MAC with the secret)
      good(1, 1, secret), // claims to be the receiver itself
      good(0, 0, secret), // addressed to another node
      good(0, 1, secret).subarray(0, DATAGRAM_HEADER_BYTES + 10 + DATAGRAM_MAC_BYTES), // truncated first fragment
    ];
    evil.abort('test');
    await new Promise((r) => setTimeout(r, 20)); // its last datagrams are in
    const settled = b.counters().foreignDropped;
    for (const d of bad) raw.send(d, addrs[1].port, addrs[1].host);
    await until(() => b.counters().foreignDropped >= settled + bad.length, 2000);
    await new Promise((r) => setTimeout(r, 20));
    expect(b.counters().foreignDropped).toBe(settled + bad.length);
    expect(delivered).toBe(0);
    expect(b.counters().framesReceived).toBe(0);
    expect(b.counters().datagramsReceived).toBe(0);
    // The genuine datagram from the same raw socket is accepted: the checks are not simply rejecting everything.
    raw.send(good(0, 1, secret), addrs[1].port, addrs[1].host);
    await until(() => delivered === 1, 2000);
    expect(delivered).toBe(1);
    raw.close();
    expect(errors).toEqual([]);
    await Promise.all(paths.map((p) => p.abort('test')));
  });

  it('a peer that never acknowledges is reported by node within giveUpMs', async () => {
    const errors: [Error, number][] = [];
    const t0 = performance.now();
    const a = new DatagramPath({ node: 0, bindHost: '127.0.0.1', secret: Buffer.alloc(32), retransmitMs: 5, giveUpMs: 200, onError: (e) => errors.push([e, performance.now() - t0]) });
    const silent = dgram.createSocket('udp4'); // bound, reads nothing back
    await new Promise<void>((r) => silent.bind(0, '127.0.0.1', () => r()));
    let received = 0;
    silent.on('message', () => received++);
    a.setPeers([await a.listen(), { host: '127.0.0.1', port: silent.address().port }]);
    let sent = false;
    a.send(1, header(0, 1, 0, 5000), payloadOf(0, 5000), () => (sent = true));
    await until(() => errors.length > 0, 2000);
    expect(errors.length).toBe(1);
    expect(errors[0][0].message).toMatch(/node 0: node 1 acknowledged no datagram for 200 ms/);
    expect(errors[0][1]).toBeGreaterThanOrEqual(200);
    expect(errors[0][1]).toBeLessThan(600);
    expect(sent).toBe(false);
    expect(received).toBeGreaterThan(5); // it did retransmit meanwhile
    expect(a.counters().retransmissions).toBeGreaterThan(0);
    silent.close();
    await a.close();
  });
});
