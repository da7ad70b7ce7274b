/**
 * Adaptive connection management with several nodes in one process (a DatagramPath and
 * a TcpDevice per node on loopback): the connected peer sets of each policy, the
 * on-demand threshold, the request/reply/confirm handshake under datagram loss with
 * simultaneous and duplicated requests (exactly one TCP connection per pair, dialled by
 * the lower node), numbered streams that survive the datagram→TCP switch without loss,
 * duplication or reordering; and the pure policy function against pair counts made here.
 */
import { describe, expect, it } from 'vitest';
import {
  AdaptiveLink,
  CM_REQUEST,
  connectionsFor,
  controlHeader,
  partialPeers,
  type ConnectionPolicy,
} from '../../src/transport/connections.js';
import { DatagramPath, type DatagramFault } from '../../src/transport/udp/datagram-path.js';
import { TcpDevice, type PeerAddress } from '../../src/transport/tcp/device.js';
import { SPACE_P2P, type FrameHeader } from '../../src/transport/types.js';
import { Rng } from '../../src/core/random.js';

interface Node {
  link: AdaptiveLink;
  dp: DatagramPath;
  tcp: TcpDevice;
  /** Frames received: [from, index, payload ok]. */
  got: [number, number, boolean][];
}

const byteAt = (from: number, index: number, i: number): number => (from * 101 + index * 7 + i * 13) & 0xff;
const header = (src: number, dst: number, index: number, total: number): FrameHeader => ({ context: 1, space: SPACE_P2P, sig: 0, tag: 3, src, dst, index, total, offset: 0 });
const payload = (from: number, index: number, n: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => byteAt(from, index, i));

async function until(cond: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
}

async function cluster(
  n: number,
  policy: ConnectionPolicy,
  o: { threshold?: number; fault?: DatagramFault; controlPollMs?: number; requestRetryMs?: number } = {},
): Promise<{ nodes: Node[]; errors: Error[] }> {
  const errors: Error[] = [];
  const secret = Buffer.alloc(32, 4);
  const parts = Array.from({ length: n }, (_, node) => ({
    dp: new DatagramPath({ node, bindHost: '127.0.0.1', secret, retransmitMs: 4, giveUpMs: 5000, fault: o.fault ? { ...o.fault, seed: (o.fault.seed ?? 1) * 31 + node } : undefined, onError: (e) => errors.push(e) }),
    tcp: new TcpDevice({ node, secret, bindHost: '127.0.0.1', onError: (e) => errors.push(e) }),
  }));
  const udp: PeerAddress[] = [];
  const tcp: PeerAddress[] = [];
  for (const p of parts) {
    udp.push(await p.dp.listen());
    tcp.push(await p.tcp.listen());
  }
  const nodes = parts.map(({ dp, tcp: t }, node) => {
    dp.setPeers(udp);
    t.setPeers(tcp);
    const link = new AdaptiveLink({ node, nodes: n, policy, threshold: o.threshold, datagram: dp, tcp: t, controlPollMs: o.controlPollMs, requestRetryMs: o.requestRetryMs, onError: (e) => errors.push(e) });
    const x: Node = { link, dp, tcp: t, got: [] };
    link.onFrame = (from, h, p) => x.got.push([from, h.index, p.byteLength === h.total && p.every((v, i) => v === byteAt(from, h.index, i))]);
    return x;
  });
  return { nodes, errors };
}

const closeAll = (nodes: Node[]) => Promise.all(nodes.map((x) => x.link.close()));
const others = (node: number, n: number) => Array.from({ length: n }, (_, i) => i).filter((i) => i !== node);

/** Independent reference for power-of-two n: the peers whose circular rank distance is a power of two. */
function powerOfTwoDistancePeers(node: number, n: number): number[] {
  return others(node, n).filter((q) => {
    const d = Math.min(Math.abs(q - node), n - Math.abs(q - node));
    return (d & (d - 1)) === 0;
  });
}

describe('partialPeers and connectionsFor', () => {
  it('the partial set is the ±2^i set: 2·log2 N − 1 peers for power-of-two N', () => {
    for (const n of [2, 4, 8, 16, 32, 64]) for (let r = 0; r < n; r++) expect(partialPeers(r, n)).toEqual(powerOfTwoDistancePeers(r, n));
    expect(partialPeers(0, 16).length).toBe(7);
    expect(partialPeers(5, 32).length).toBe(9);
    expect(partialPeers(0, 6)).toEqual([1, 2, 4, 5]); // ±1, ±2, ±4 ≡ ∓2
    expect(partialPeers(0, 7)).toEqual([1, 2, 3, 4, 5, 6]); // +4 ≡ −3
    expect(partialPeers(0, 1)).toEqual([]);
    expect(partialPeers(1, 3)).toEqual([0, 2]);
    for (let r = 0; r < 12; r++) for (const q of partialPeers(r, 12)) expect(partialPeers(q, 12)).toContain(r); // symmetric
  });

  /** Dissemination barriers: round k sends i → i + 2^k. */
  const barriers = (n: number, count: number): [number, number][] => {
    const out: [number, number][] = [];
    for (let b = 0; b < count; b++) for (let d = 1; d < n; d *= 2) for (let i = 0; i < n; i++) out.push([i, (i + d) % n]);
    return out;
  };
  const alltoall = (n: number, rounds: number): [number, number][] => {
    const out: [number, number][] = [];
    for (let k = 0; k < rounds; k++) for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (i !== j) out.push([i, j]);
    return out;
  };

  it('EP-like (a few barriers): 0 on-demand, 2·log2 N − 1 partial, N − 1 static (Table 3.2, EP column)', () => {
    for (const [n, ps] of [
      [16, 7],
      [32, 9],
    ]) {
      const ep = barriers(n, 5);
      expect(connectionsFor('on-demand', n, ep).average).toBe(0);
      expect(connectionsFor('partial', n, ep).average).toBe(ps);
      expect(connectionsFor('static', n, ep).average).toBe(n - 1);
    }
  });

  it('all-to-all (IS-like): N − 1 under every policy once pairs pass the threshold', () => {
    for (const n of [16, 32]) {
      const is = alltoall(n, 9); // 18 messages per pair > 16
      for (const p of ['on-demand', 'partial', 'static'] as const) expect(connectionsFor(p, n, is).perNode).toEqual(Array(n).fill(n - 1));
      expect(connectionsFor('on-demand', n, alltoall(n, 8)).average).toBe(0); // exactly 16 per pair: not more than the threshold
      expect(connectionsFor('on-demand', n, alltoall(n, 8), 15).average).toBe(n - 1);
    }
  });

  it('random patterns: on-demand connects exactly the pairs counted here; partial is never below it', () => {
    const rng = new Rng(3);
    for (let t = 0; t < 20; t++) {
      const n = 2 + rng.int(30);
      const threshold = rng.int(20);
      const pattern: [number, number][] = [];
      for (let m = rng.int(2000); m > 0; m--) {
        const s = rng.int(n);
        pattern.push([s, rng.chance(0.7) ? (s + 1) % n : rng.int(n)]); // mostly a ring, some random
      }
      const counts = new Map<string, number>();
      for (const [s, d] of pattern) if (s !== d) counts.set(`${Math.min(s, d)},${Math.max(s, d)}`, (counts.get(`${Math.min(s, d)},${Math.max(s, d)}`) ?? 0) + 1);
      const od = connectionsFor('on-demand', n, pattern, threshold);
      const ps = connectionsFor('partial', n, pattern, threshold);
      for (let a = 0; a < n; a++) {
        expect(od.peers[a]).toEqual(others(a, n).filter((b) => (counts.get(`${Math.min(a, b)},${Math.max(a, b)}`) ?? 0) > threshold));
        expect(ps.perNode[a]).toBeGreaterThanOrEqual(od.perNode[a]);
        for (const b of od.peers[a]) expect(ps.peers[a]).toContain(b);
        for (const b of partialPeers(a, n)) expect(ps.peers[a]).toContain(b);
      }
    }
  });
});

describe('AdaptiveLink', () => {
  it('static: every node connects to the N − 1 others at start, one connection per pair dialled by the lower node', async () => {
    const n = 5;
    const { nodes, errors } = await cluster(n, 'static');
    await Promise.all(nodes.map((x) => x.link.start()));
    nodes.forEach((x, i) => {
      const c = x.link.counters();
      expect(c.peers).toEqual(others(i, n));
      expect(c.connections).toBe(n - 1);
      expect([c.connectionsDialled, c.connectionsAccepted]).toEqual([n - 1 - i, i]);
      expect(c.requestsSent).toBe(0);
    });
    // Frames now go over TCP only.
    nodes.forEach((x, i) => others(i, n).forEach((j) => x.link.send(j, header(i, j, 0, 100), payload(i, 0, 100))));
    await until(() => nodes.every((x) => x.got.length === n - 1), 5000);
    nodes.forEach((x, i) => expect(x.got.sort((a, b) => a[0] - b[0])).toEqual(others(i, n).map((j) => [j, 0, true])));
    expect(nodes.every((x) => x.link.counters().datagramFramesSent === 0 && x.link.counters().tcpFramesSent === n - 1)).toBe(true);
    expect(errors).toEqual([]);
    await closeAll(nodes);
  });

  it('partial (8 nodes): the ±2^i peers at start, a busy non-partial pair connects on demand', async () => {
    const n = 8;
    const { nodes, errors } = await cluster(n, 'partial', { threshold: 4 });
    await Promise.all(nodes.map((x) => x.link.start()));
    nodes.forEach((x, i) => {
      const c = x.link.counters();
      expect(c.peers).toEqual(powerOfTwoDistancePeers(i, n));
      expect(c.connections).toBe(5);
      expect(c.initialPeers).toEqual(c.peers);
    });
    const total = nodes.reduce((s, x) => s + x.tcp.counters().dialled, 0);
    expect(total).toBe((n * 5) / 2);
    expect(nodes.reduce((s, x) => s + x.tcp.counters().accepted, 0)).toBe(total);
    // Node 0 and node 3 (distance 3: not a partial pair) exchange 5 > 4 messages.
    for (let i = 0; i < 5; i++) nodes[0].link.send(3, header(0, 3, i, 10), payload(0, i, 10));
    await until(() => nodes[0].link.counters().peers.includes(3) && nodes[3].link.counters().peers.includes(0), 5000);
    expect(nodes[0].link.counters().peers).toEqual([1, 2, 3, 4, 6, 7]);
    expect(nodes[3].link.counters().peers).toEqual([0, 1, 2, 4, 5, 7]);
    expect(nodes[3].got).toEqual([0, 1, 2, 3, 4].map((i) => [0, i, true]));
    expect(nodes[0].link.counters().requestsSent).toBe(1);
    expect(nodes[0].link.counters().setups).toBe(1);
    expect(nodes[0].link.counters().setupUs).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    await closeAll(nodes);
  });

  it('on-demand: no connection until the pair has exchanged more than the threshold, both directions counted', async () => {
    const { nodes, errors } = await cluster(3, 'on-demand', { threshold: 16 });
    await Promise.all(nodes.map((x) => x.link.start()));
    expect(nodes.map((x) => x.link.counters().connections)).toEqual([0, 0, 0]);
    for (let i = 0; i < 10; i++) nodes[0].link.send(1, header(0, 1, i, 3), payload(0, i, 3));
    for (let i = 0; i < 6; i++) nodes[1].link.send(0, header(1, 0, i, 3), payload(1, i, 3));
    await until(() => nodes[1].got.length === 10 && nodes[0].got.length === 6, 5000);
    await new Promise((r) => setTimeout(r, 20)); // many control polls
    expect(nodes.map((x) => x.link.counters().connections)).toEqual([0, 0, 0]);
    expect(nodes.map((x) => x.link.counters().requestsSent)).toEqual([0, 0, 0]);
    expect(nodes.map((x) => x.tcp.counters().dialled + x.tcp.counters().accepted)).toEqual([0, 0, 0]);
    nodes[1].link.send(0, header(1, 0, 6, 3), payload(1, 6, 3)); // the 17th message of the pair
    await until(() => nodes[0].link.counters().connections === 1 && nodes[1].link.counters().connections === 1, 5000);
    expect(nodes.map((x) => x.link.counters().peers)).toEqual([[1], [0], []]);
    // Node 1 passed the threshold sending, node 0 on receiving that same message (before it polls node 1's request):
    // both asked, the lower node's request won, and only it dialled.
    expect(nodes.map((x) => x.link.counters().requestsSent)).toEqual([1, 1, 0]);
    expect([nodes[0].link.counters().negativeReplies, nodes[1].link.counters().positiveReplies]).toEqual([1, 1]);
    expect(nodes.map((x) => [x.tcp.counters().dialled, x.tcp.counters().accepted])).toEqual([[1, 0], [0, 1], [0, 0]]);
    expect(nodes[0].link.counters().traffic.find((t) => t.peer === 1)).toEqual({ peer: 1, messagesSent: 10, messagesReceived: 7, bytesSent: 30, bytesReceived: 21 });
    expect(errors).toEqual([]);
    await closeAll(nodes);
  });

  for (const [n, seed] of [
    [2, 5],
    [4, 9],
  ]) {
    it(`${n} nodes cross the threshold with every peer at once under datagram loss: one connection per pair, streams intact across the switch (seed ${seed})`, async () => {
      const { nodes, errors } = await cluster(n, 'on-demand', { threshold: 16, fault: { loss: 0.2, duplicate: 0.1, reorder: 0.1, seed } });
      const FRAMES = 400;
      const connected = () => nodes.every((x) => x.link.counters().connections === n - 1);
      // Every node sends to every other node in the same turns (all requests are simultaneous), in
      // small batches while the connections are being made, then the rest at once, right after the switch.
      for (let k = 0; k < FRAMES; k++) {
        const bytes = k % 7 === 0 ? 3000 : 40;
        nodes.forEach((x, i) => others(i, n).forEach((j) => x.link.send(j, header(i, j, k, bytes), payload(i, k, bytes))));
        if (k % 5 === 4 && k < FRAMES - 40 && !connected()) await new Promise((r) => setTimeout(r, 3));
      }
      await until(() => nodes.every((x) => x.got.length === FRAMES * (n - 1)), 10_000);
      nodes.forEach((x, i) => {
        for (const j of others(i, n)) expect(x.got.filter((g) => g[0] === j)).toEqual(Array.from({ length: FRAMES }, (_, k) => [j, k, true]));
        const c = x.link.counters();
        expect(c.peers).toEqual(others(i, n));
        // The lower node of each pair dialled, the higher accepted: exactly one connection per pair.
        expect([x.tcp.counters().dialled, x.tcp.counters().accepted]).toEqual([n - 1 - i, i]);
        expect(c.requestsSent).toBe(n - 1); // simultaneous: everyone asked every peer
        expect(c.negativeReplies).toBe(n - 1 - i); // refused the higher nodes' requests
        expect(c.positiveReplies).toBe(i); // accepted the lower nodes' requests
        expect(c.confirmsSent).toBe(n - 1 - i);
        expect(c.datagramFramesSent).toBeGreaterThan(0); // the switch happened mid-stream
        expect(c.tcpFramesSent).toBeGreaterThan(0);
        expect(c.datagramFramesSent + c.tcpFramesSent).toBe(FRAMES * (n - 1));
      });
      // Each pair exchanged more than 16 messages as datagrams before it switched (both directions counted).
      expect(nodes.reduce((t, x) => t + x.link.counters().datagramFramesSent, 0)).toBeGreaterThan((16 * n * (n - 1)) / 2);
      expect(nodes.some((x) => x.dp.counters().retransmissions > 0)).toBe(true);
      await new Promise((r) => setTimeout(r, 20));
      expect(nodes.every((x) => x.got.length === FRAMES * (n - 1))).toBe(true); // nothing duplicated late
      expect(errors).toEqual([]);
      await closeAll(nodes);
    });
  }

  it('repeated requests (retries before the responder polls, and an injected duplicate) make no second connection', async () => {
    // Requests are retried every 1 ms while the responder polls every 15 ms: it sees the same request several times.
    const { nodes, errors } = await cluster(2, 'on-demand', { threshold: 2, controlPollMs: 15, requestRetryMs: 1 });
    for (let i = 0; i < 3; i++) nodes[0].link.send(1, header(0, 1, i, 8), payload(0, i, 8));
    await until(() => nodes[0].link.counters().connections === 1 && nodes[1].link.counters().connections === 1, 5000);
    await new Promise((r) => setTimeout(r, 50)); // the last copies answered and their replies polled
    const c0 = nodes[0].link.counters();
    const c1 = nodes[1].link.counters();
    expect(c0.requestRetries).toBeGreaterThan(0);
    expect(c1.duplicateRequests).toBeGreaterThan(0);
    expect(c1.positiveReplies).toBe(c1.requestsReceived); // every copy answered yes ...
    expect(c0.staleReplies).toBe(c0.positiveRepliesReceived - 1); // ... and only the first acted on
    // A late copy of the same request, straight onto the datagram path.
    const seq = 1; // node 0's first request
    nodes[0].dp.send(1, controlHeader(CM_REQUEST, seq), new Uint8Array(0));
    nodes[0].dp.send(1, controlHeader(CM_REQUEST, seq), new Uint8Array(0));
    await until(() => nodes[1].link.counters().duplicateRequests >= c1.duplicateRequests + 2, 2000);
    await new Promise((r) => setTimeout(r, 40));
    expect(nodes[1].link.counters().duplicateRequests).toBe(c1.duplicateRequests + 2);
    expect([nodes[0].tcp.counters().dialled, nodes[0].tcp.counters().accepted, nodes[1].tcp.counters().dialled, nodes[1].tcp.counters().accepted]).toEqual([1, 0, 0, 1]);
    expect(nodes[0].link.counters().setups).toBe(1);
    // The stream is still intact and continues over TCP.
    for (let i = 3; i < 6; i++) nodes[0].link.send(1, header(0, 1, i, 8), payload(0, i, 8));
    await until(() => nodes[1].got.length === 6, 2000);
    expect(nodes[1].got).toEqual([0, 1, 2, 3, 4, 5].map((i) => [0, i, true]));
    expect(nodes[0].link.counters().tcpFramesSent).toBe(3);
    expect(errors).toEqual([]);
    await closeAll(nodes);
  });
});
