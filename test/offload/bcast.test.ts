/**
 * NIC broadcast (seed 003 ch. 6, M7–M10): catalogue-derived ID-ordered trees,
 * multisend, forwarding with per-child Go-back-N on the simulated lossy network.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assertIdOrdered,
  broadcastTree,
  idOrderViolations,
  receiveTokenCycle,
  type BroadcastTree,
} from '../../src/offload/protocols/bcast_tree.js';
import { bcastCodec, type BcastPacket } from '../../src/offload/protocols/bcast_packets.js';
import { Rng } from '../../src/core/random.js';
import { SimNetwork, type PacketEvent } from '../../src/offload/protocols/sim_network.js';
import { TreeBroadcast, type TreeBroadcastStats } from '../../src/offload/protocols/tree_broadcast.js';
import type { ParamValue } from '../../src/schedule/context.js';

/** Tree algorithms of the catalogue used here, with parameters. */
const TREES: readonly { algorithm: string; params?: Record<string, ParamValue> }[] = [
  { algorithm: 'binomial' },
  { algorithm: 'postal', params: { lambda: 1 } },
  { algorithm: 'postal', params: { lambda: 3 } },
  { algorithm: 'postal', params: { lambda: 6 } },
  { algorithm: 'knomial', params: { k: 3 } },
  { algorithm: 'kary', params: { k: 2 } },
  { algorithm: 'chain' },
  { algorithm: 'linear' },
];

interface BcastRun {
  readonly P: number;
  readonly tree: (typeof TREES)[number];
  readonly root: number;
  readonly seed: number;
  readonly sizes: readonly number[];
  readonly mtu: number;
  readonly loss?: number;
  readonly duplicate?: number;
  readonly maxDelay?: number;
  /** FIFO links (jitter without reordering). */
  readonly fifo?: boolean;
  readonly rto?: number;
  readonly window?: number;
  /** Time between the root's broadcast calls (0: all at once). */
  readonly gap?: number;
  readonly framed?: boolean;
  readonly faults?: (net: SimNetwork<BcastPacket>) => void;
}

interface BcastResult {
  readonly sent: Uint8Array[];
  /** received[r][msg] */
  readonly received: Uint8Array[][];
  readonly released: number[][];
  readonly data: number;
  readonly acks: number;
  readonly retransmits: [node: number, child: number, seq: number][];
  /** Independent checks that failed (retransmission to a child that had ACKed, copy dropped early). */
  readonly violations: string[];
  readonly stats: TreeBroadcastStats[];
  readonly tree: BroadcastTree;
}

function runBcast(c: BcastRun): BcastResult {
  const tree = broadcastTree({ algorithm: c.tree.algorithm, params: c.tree.params, size: c.P, root: c.root });
  const net = new SimNetwork<BcastPacket>({
    size: c.P, seed: c.seed, loss: c.loss, duplicate: c.duplicate, minDelay: 1, maxDelay: c.maxDelay ?? 1, fifo: c.fifo,
    codec: c.framed ? bcastCodec : undefined,
  });
  c.faults?.(net);
  const rng = new Rng(c.seed + 17);
  const sent = c.sizes.map((n) => Uint8Array.from({ length: n }, () => rng.int(256)));
  const received = Array.from({ length: c.P }, () => [] as Uint8Array[]);
  const released = Array.from({ length: c.P }, () => [] as number[]);
  const retransmits: [number, number, number][] = [];
  const violations: string[] = [];
  let data = 0;
  let acks = 0;
  // Ground truth seen by the network: ACKs delivered to each sender, packets sent to each child.
  const ackTruth = Array.from({ length: c.P }, () => new Map<number, number>());
  const seen = Array.from({ length: c.P }, () => new Set<string>());
  net.onDeliver((e: PacketEvent<BcastPacket>) => {
    if (e.packet.kind === 'bcast-ack') ackTruth[e.to].set(e.from, Math.max(ackTruth[e.to].get(e.from) ?? 0, e.packet.seq + 1));
  });
  net.onSend((e) => {
    if (e.packet.kind === 'bcast-ack') {
      acks++;
      return;
    }
    data++;
    const key = `${e.to}:${e.packet.seq}`;
    if (seen[e.from].has(key) && e.packet.seq < (ackTruth[e.from].get(e.to) ?? 0)) {
      violations.push(`${e.from} resent seq ${e.packet.seq} to ${e.to}, which had ACKed it`);
    }
    seen[e.from].add(key);
  });
  const nodes: TreeBroadcast[] = [];
  for (let r = 0; r < c.P; r++) {
    const node = new TreeBroadcast(net.endpoint(r), {
      group: 7,
      tree,
      mtu: c.mtu,
      rto: c.rto ?? 25,
      window: c.window,
      onMessage: (msg, bytes) => (received[r][msg] = bytes.slice()),
      onReleased: (msg) => released[r].push(msg),
      onRetransmit: (child, seq) => retransmits.push([r, child, seq]),
      onRecordReleased: (seq) => {
        for (const ch of tree.children[r]) {
          if ((ackTruth[r].get(ch) ?? 0) <= seq) violations.push(`${r} dropped the copy of seq ${seq} before ${ch} ACKed it`);
        }
      },
    });
    nodes.push(node);
    net.attach(r, node);
  }
  sent.forEach((m, i) => net.at(i * (c.gap ?? 0), () => nodes[c.root].broadcast(m)));
  net.run({ maxTime: 1e7 });
  return { sent, received, released, data, acks, retransmits, violations, stats: nodes.map((n) => n.stats), tree };
}

/** Byte equality (expect().toEqual on large typed arrays is slow). */
const sameBytes = (a: Uint8Array | undefined, b: Uint8Array): boolean => a !== undefined && Buffer.from(a).equals(Buffer.from(b));

const piecesOf = (n: number, mtu: number): number => Math.max(1, Math.ceil(n / mtu));

function checkDelivery(c: BcastRun, res: BcastResult): void {
  for (let r = 0; r < c.P; r++) {
    if (r === c.root) continue;
    expect(res.received[r].length).toBe(c.sizes.length);
    res.sent.forEach((m, i) => expect(sameBytes(res.received[r][i], m), `rank ${r}, message ${i}`).toBe(true));
  }
  // Every rank eventually released every message's copy (its children all ACKed).
  for (let r = 0; r < c.P; r++) expect([...res.released[r]].sort((a, b) => a - b)).toEqual(c.sizes.map((_, i) => i));
  expect(res.violations).toEqual([]);
  for (const s of res.stats) expect(s.unexpected).toBe(0);
}

describe('broadcast trees from the catalogue', () => {
  it('are spanning trees, ID-ordered for every root when sorted by ID, and keep the catalogue shape', () => {
    for (const t of TREES) {
      for (const P of [1, 2, 3, 7, 8, 13, 16, 33]) {
        for (let root = 0; root < P; root++) {
          const tree = broadcastTree({ ...t, size: P, root });
          assertIdOrdered(tree);
          expect(tree.parent.filter((p) => p >= 0).length).toBe(P - 1);
          // Same shape as the catalogue's own placement: equal fan-out multisets.
          const rotated = broadcastTree({ ...t, size: P, root, order: 'rotated' });
          const fanouts = (x: BroadcastTree): number[] => x.children.map((ch) => ch.length).sort((a, b) => a - b);
          expect(fanouts(tree)).toEqual(fanouts(rotated));
        }
      }
    }
  });

  it('postal λ = 1 is the binomial tree, and larger λ gives a wider root', () => {
    for (const P of [5, 16, 33]) {
      const binomial = broadcastTree({ algorithm: 'binomial', size: P, root: 0 });
      const postal1 = broadcastTree({ algorithm: 'postal', params: { lambda: 1 }, size: P, root: 0 });
      expect(postal1.parent).toEqual(binomial.parent);
      const fan = (lambda: number): number => broadcastTree({ algorithm: 'postal', params: { lambda }, size: P, root: 0 }).children[0].length;
      expect(fan(4)).toBeGreaterThan(fan(1));
    }
  });

  it('rotated trees break the ID order and close a receive-token cycle across roots; ID-sorted ones never do (M10)', () => {
    let checked = 0;
    for (const t of TREES) {
      const P = 8;
      const roots = Array.from({ length: P }, (_, r) => r);
      const rotated = roots.map((root) => broadcastTree({ ...t, size: P, root, order: 'rotated' }));
      const sorted = roots.map((root) => broadcastTree({ ...t, size: P, root }));
      if (rotated.every((x) => x.parent.every((p) => p === -1 || p === x.root))) continue; // a star (postal λ = 6 over 8): only root edges
      expect(rotated.some((x) => idOrderViolations(x).length > 0)).toBe(true);
      expect(receiveTokenCycle(rotated)).toBeDefined();
      expect(receiveTokenCycle(sorted)).toBeUndefined();
      checked++;
    }
    expect(checked).toBe(TREES.length - 2);
    expect(() => broadcastTree({ algorithm: 'nope', size: 8, root: 0 })).toThrow();
  });
});

describe('NIC broadcast with per-child Go-back-N', () => {
  it('delivers the exact bytes of back-to-back messages to every rank under loss, duplication and reordering', () => {
    let retransmissions = 0;
    fc.assert(
      fc.property(
        fc.record({
          P: fc.integer({ min: 1, max: 33 }),
          tree: fc.constantFrom(...TREES),
          rootSeed: fc.nat(),
          seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
          sizes: fc.array(fc.integer({ min: 0, max: 700 }), { minLength: 1, maxLength: 4 }),
          mtu: fc.constantFrom(64, 128, 256),
          loss: fc.double({ min: 0, max: 0.3, noNaN: true }),
          duplicate: fc.double({ min: 0, max: 0.2, noNaN: true }),
          maxDelay: fc.integer({ min: 1, max: 8 }),
          fifo: fc.boolean(),
          window: fc.constantFrom(undefined, 2, 8),
          gap: fc.constantFrom(0, 5, 50),
        }),
        (c) => {
          const run: BcastRun = { ...c, root: c.rootSeed % c.P };
          const res = runBcast(run);
          checkDelivery(run, res);
          retransmissions += res.retransmits.length;
        },
      ),
      { numRuns: 100, seed: 5 },
    );
    expect(retransmissions).toBeGreaterThan(100);
  });

  it('without loss (FIFO links with jitter) sends (tree edges) × (packets per message) data packets and as many ACKs', () => {
    for (const t of TREES) {
      for (const P of [1, 2, 5, 8, 16, 33]) {
        const sizes = [0, 100, 1000, 4096];
        const mtu = 256;
        const run: BcastRun = { P, tree: t, root: P >> 1, seed: P, sizes, mtu, maxDelay: 5, fifo: true, rto: 1000 };
        const res = runBcast(run);
        checkDelivery(run, res);
        const packets = sizes.reduce((n, s) => n + piecesOf(s, mtu), 0); // 1 + 1 + 4 + 16
        expect(res.data).toBe((P - 1) * packets);
        expect(res.acks).toBe((P - 1) * packets);
        expect(res.retransmits).toEqual([]);
        // Multisend: one send record per packet per sender, whatever its number of children.
        for (let r = 0; r < P; r++) {
          expect(res.stats[r].records).toBe(res.tree.children[r].length > 0 ? packets : 0);
          expect(res.stats[r].transmissions).toBe(res.tree.children[r].length * packets);
        }
      }
    }
  });

  it('pipelines a message longer than the MTU: a forwarder passes piece 0 on before piece k arrives', () => {
    let firstForward = Number.NaN;
    let lastArrival = Number.NaN;
    const run: BcastRun = {
      // Window 1 at the root: piece k leaves the root at t = 2k (after rank 1's ACK of k − 1).
      P: 4, tree: { algorithm: 'chain' }, root: 0, seed: 1, sizes: [1000], mtu: 100, rto: 1000, window: 1,
      faults: (net) => {
        net.onSend((e) => void (e.from === 1 && e.packet.kind === 'bcast-data' && Number.isNaN(firstForward) && (firstForward = net.now)));
        net.onDeliver((e) => void (e.to === 1 && e.packet.kind === 'bcast-data' && (lastArrival = net.now)));
      },
    };
    const res = runBcast(run);
    checkDelivery(run, res);
    expect(firstForward).toBe(1); // piece 0 arrives at t = 1 and moves on at once…
    expect(lastArrival).toBe(19); // …long before piece 9 arrives (store-and-forward would wait for it)
  });

  it('resends the lost packet and all later ones only to the child that did not ACK it', () => {
    // Root 0 multisends 6 packets to 1, 2, 3 (linear tree); the first copy of seq 2 to rank 2 is lost.
    let dropped = false;
    const run: BcastRun = {
      P: 4, tree: { algorithm: 'linear' }, root: 0, seed: 1, sizes: [600], mtu: 100, rto: 20,
      faults: (net) =>
        net.dropWhen((e) => {
          if (dropped || e.to !== 2 || e.packet.kind !== 'bcast-data' || e.packet.seq !== 2) return false;
          return (dropped = true);
        }),
    };
    const res = runBcast(run);
    checkDelivery(run, res);
    expect(res.retransmits).toEqual([[0, 2, 2], [0, 2, 3], [0, 2, 4], [0, 2, 5]]);
    expect(res.stats[2].outOfOrder).toBe(3); // seqs 3, 4, 5 dropped, never ACKed
    expect(res.acks).toBe(3 * 6);
  });

  it('forwarders hold their copy until all children ACK, and go back per child down the tree', () => {
    // Binomial over 8 from root 0: rank 4 forwards to 6 and 5; its link to 6 is down for a while.
    const run: BcastRun = {
      P: 8, tree: { algorithm: 'binomial' }, root: 0, seed: 2, sizes: [1000], mtu: 100, rto: 20, maxDelay: 2, fifo: true,
      faults: (net) => {
        net.setLinkDown(4, 6);
        net.at(200, () => net.setLinkDown(4, 6, false));
      },
    };
    const res = runBcast(run);
    checkDelivery(run, res);
    expect(res.tree.children[4]).toEqual([6, 5]);
    expect(res.retransmits.length).toBeGreaterThan(0);
    expect(res.retransmits.every(([node, child]) => node === 4 && child === 6)).toBe(true);
  });

  it('runs several groups (roots) concurrently over one network, each with its own queue', () => {
    const P = 9;
    const net = new SimNetwork<BcastPacket>({ size: P, seed: 3, loss: 0.15, duplicate: 0.05, minDelay: 1, maxDelay: 6, codec: bcastCodec });
    const roots = [0, 4, 8];
    const got = new Map<string, Uint8Array>();
    const groups = roots.map((root) => {
      const tree = broadcastTree({ algorithm: 'postal', params: { lambda: 2 }, size: P, root });
      return Array.from({ length: P }, (_, r) =>
        new TreeBroadcast(net.endpoint(r), { group: root, tree, mtu: 32, rto: 30, onMessage: (_m, b) => got.set(`${root}>${r}`, b.slice()) }),
      );
    });
    for (let r = 0; r < P; r++) net.attach(r, { onPacket: (from, p) => groups[roots.indexOf(p.group)][r].onPacket(from, p) });
    const msg = (root: number): Uint8Array => Uint8Array.from({ length: 200 }, (_, i) => (i * 7 + root) & 255);
    roots.forEach((root, g) => groups[g][root].broadcast(msg(root)));
    net.run({ maxTime: 1e6 });
    for (const root of roots) for (let r = 0; r < P; r++) if (r !== root) expect(got.get(`${root}>${r}`)).toEqual(msg(root));
  });

  it('round-trips its frames', () => {
    const d: BcastPacket = { kind: 'bcast-data', group: 3, seq: 9, msg: 2, offset: 128, length: 300, payload: Uint8Array.of(1, 2, 3) };
    const a: BcastPacket = { kind: 'bcast-ack', group: 3, seq: 9 };
    expect(bcastCodec.decode(bcastCodec.encode(d))).toEqual(d);
    expect(bcastCodec.decode(bcastCodec.encode(a))).toEqual(a);
    expect(() => bcastCodec.decode(Uint8Array.of(0x10, 1))).toThrow(/not a broadcast frame/);
  });
});
