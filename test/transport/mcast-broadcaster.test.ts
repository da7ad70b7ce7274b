/**
 * The multicast broadcaster's protocol (transport/mcast/broadcaster.ts) on a simulated
 * network in virtual time: multicast datagrams that each node's reception may lose,
 * duplicate, reorder or corrupt (seeded), reliable ordered control frames, and timers.
 * Every message must reach every destination whole and once, whatever the faults.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { McastBroadcaster, type McastEnv } from '../../src/transport/mcast/broadcaster.js';
import { DEFAULT_MCAST_OPTIONS, jobMcastGroup, parseMcastFaults, parseMcastGroup, parseMcastOptions, type McastOptions } from '../../src/transport/mcast/options.js';
import { Rng } from '../../src/core/random.js';
import type { FrameHeader } from '../../src/transport/types.js';

interface Faults {
  loss?: number;
  dup?: number;
  reorder?: number;
  corrupt?: number;
  /** Only this node's reception. */
  node?: number;
}

interface Received {
  key: string;
  bytes: number[];
}

/** N nodes, rank r on node r (so destinations are node numbers). */
class Net {
  time = 0;
  private readonly events: { t: number; seq: number; run: () => void }[] = [];
  private seq = 0;
  readonly nodes: McastBroadcaster[] = [];
  /** Per node: pieces received, keyed by message, reassembled. */
  readonly got: Map<string, { total: number; data: Uint8Array; filled: number; pieces: number }>[] = [];
  readonly delivered: Received[][] = [];
  readonly done: Set<string>[] = [];
  private readonly rng: Rng;
  datagrams = 0;

  constructor(
    readonly N: number,
    readonly options: McastOptions,
    readonly faults: Faults = {},
    seed = 1,
  ) {
    this.rng = new Rng(seed);
    const nodeOf = Array.from({ length: N }, (_, i) => i);
    for (let n = 0; n < N; n++) {
      this.got.push(new Map());
      this.delivered.push([]);
      this.done.push(new Set());
      const env: McastEnv = {
        nodeOf,
        multicast: (d) => this.multicast(n, d),
        control: (to, kind, context, sender, value, data) => {
          const copy = new Uint8Array(data);
          // Reliable and in order per pair: a fixed latency.
          this.at(this.time + 30, () => this.nodes[to].onControl(n, kind, context, sender, value, copy));
        },
        now: () => this.time,
        setTimer: (delay, cb) => {
          let live = true;
          this.at(this.time + delay, () => live && cb());
          return { cancel: () => (live = false) };
        },
        deliver: (h, payload) => this.deliver(n, h, payload),
      };
      this.nodes.push(new McastBroadcaster(n, options, env));
    }
  }

  at(t: number, run: () => void): void {
    this.events.push({ t, seq: this.seq++, run });
  }

  run(limit = 5e7): void {
    while (this.events.length > 0) {
      let best = 0;
      for (let i = 1; i < this.events.length; i++) {
        const e = this.events[i];
        const b = this.events[best];
        if (e.t < b.t || (e.t === b.t && e.seq < b.seq)) best = i;
      }
      const [e] = this.events.splice(best, 1);
      this.time = e.t;
      if (this.time > limit) throw new Error('virtual time limit');
      e.run();
    }
  }

  private multicast(from: number, d: Buffer): void {
    this.datagrams++;
    const bytes = Buffer.from(d);
    for (let to = 0; to < this.N; to++) {
      if (to === from) continue;
      const f = this.faults.node === undefined || this.faults.node === to ? this.faults : {};
      if (this.rng.next() < (f.loss ?? 0)) continue;
      const copies = this.rng.next() < (f.dup ?? 0) ? 2 : 1;
      for (let c = 0; c < copies; c++) {
        const b = Buffer.from(bytes);
        if (this.rng.next() < (f.corrupt ?? 0)) b[Math.floor(this.rng.next() * (b.length - 16))] ^= 0x5a;
        const delay = 10 + (this.rng.next() < (f.reorder ?? 0) ? 50 + this.rng.next() * 400 : 0);
        this.at(this.time + delay, () => this.nodes[to].onDatagram(b));
      }
    }
  }

  private deliver(n: number, h: FrameHeader, payload: Uint8Array): void {
    expect(h.dst).toBe(n);
    const key = `${h.src}/${h.tag}`;
    expect(this.done[n].has(key), `a piece of ${key} after it was complete`).toBe(false);
    let m = this.got[n].get(key);
    if (m === undefined) {
      m = { total: h.total, data: new Uint8Array(h.total), filled: 0, pieces: 0 };
      this.got[n].set(key, m);
    }
    expect(h.offset).toBe(m.filled); // in order, no gaps, no repeats
    m.data.set(payload, h.offset);
    m.filled += payload.byteLength;
    m.pieces++;
    if (m.filled === m.total) {
      this.delivered[n].push({ key, bytes: [...m.data] });
      this.done[n].add(key);
      this.got[n].delete(key);
    }
  }
}

function message(seed: number, bytes: number): Uint8Array {
  const r = new Rng(seed);
  return Uint8Array.from({ length: bytes }, () => Math.floor(r.next() * 256));
}

/** Root node `root` multicasts `sizes` (tags 0..) to every other node; all must arrive intact. */
function broadcastAll(net: Net, plan: { root: number; bytes: number }[], gapUs = 0): void {
  plan.forEach((p, tag) => {
    net.at(tag * gapUs, () => {
      const dsts = Array.from({ length: net.N }, (_, i) => i).filter((i) => i !== p.root);
      net.nodes[p.root].send({ context: 7, space: 0, tag, src: p.root, index: 0, sig: 0 }, dsts, message(tag, p.bytes));
    });
  });
  net.run();
  for (let n = 0; n < net.N; n++) {
    expect([...net.got[n].keys()], `node ${n}: messages left incomplete`).toEqual([]);
    const expected = plan
      .map((p, tag) => ({ p, tag }))
      .filter(({ p }) => p.root !== n)
      .map(({ p, tag }) => ({ key: `${p.root}/${tag}`, bytes: [...message(tag, p.bytes)] }));
    const got = [...net.delivered[n]].sort((a, b) => Number(a.key.split('/')[1]) - Number(b.key.split('/')[1]));
    expect(got.map((g) => g.key)).toEqual(expected.map((e) => e.key));
    for (let i = 0; i < got.length; i++) expect(got[i].bytes).toEqual(expected[i].bytes);
  }
}

const small: McastOptions = { ...DEFAULT_MCAST_OPTIONS, fragmentBytes: 256, channels: 8, sets: 4, rtoUs: 2000, nackUs: 500, idleUs: 300 };

describe('multicast broadcaster', () => {
  it('delivers every message once, whole and in order, without faults, and syncs only used-up sets', () => {
    const net = new Net(5, small);
    broadcastAll(net, Array.from({ length: 40 }, (_, i) => ({ root: 0, bytes: i % 3 === 0 ? 8 : 700 })));
    const c = net.nodes[0].counters;
    expect(c.retransmissions).toBe(0);
    expect(c.failovers).toBe(0);
    // 40 messages of 1 or 3 fragments: 14·1 + 26·3 = 92 fragments in sets of 2 → 46 syncs, no more.
    expect(c.fragmentsSent).toBe(92);
    expect(c.setsSynced).toBe(46);
    expect(net.nodes.slice(1).reduce((a, n) => a + n.counters.nacksSent, 0)).toBe(0);
  });

  it('keeps several roots in flight at once on one communicator', () => {
    const net = new Net(4, small);
    broadcastAll(net, Array.from({ length: 30 }, (_, i) => ({ root: i % 4, bytes: 100 + 37 * i })));
  });

  it('survives loss, duplication, reordering and corruption (NACK → resync → rebroadcast)', () => {
    const net = new Net(6, small, { loss: 0.2, dup: 0.05, reorder: 0.1, corrupt: 0.05 }, 7);
    broadcastAll(net, Array.from({ length: 30 }, (_, i) => ({ root: i % 2, bytes: 50 + 97 * i })), 200);
    const all = net.nodes.map((n) => n.counters);
    expect(all.reduce((a, c) => a + c.nacksSent, 0)).toBeGreaterThan(0);
    expect(all.reduce((a, c) => a + c.retransmissions, 0)).toBeGreaterThan(0);
    expect(all.reduce((a, c) => a + c.resyncs, 0)).toBeGreaterThan(0);
    expect(all.reduce((a, c) => a + c.corrupt, 0)).toBeGreaterThan(0);
    expect(all.reduce((a, c) => a + c.duplicates, 0)).toBeGreaterThan(0);
  });

  it('fails over to the point-to-point tree when a node receives nothing', () => {
    const net = new Net(5, small, { loss: 1, node: 3 });
    broadcastAll(net, Array.from({ length: 12 }, () => ({ root: 0, bytes: 300 })));
    expect(net.nodes[0].counters.failovers).toBe(1);
    expect(net.nodes[0].counters.treeFrames).toBeGreaterThan(0);
  });

  it('with one set (split phase off) blocks on every sync; four sets never stall while a set lasts longer than a sync', () => {
    // 8 nodes: a sync takes about 3 tree levels × 30 µs; a message every 80 µs uses a set of 2 channels in 160 µs.
    const run = (sets: number): { stalls: number; stallMs: number } => {
      const net = new Net(8, { ...small, channels: 8, sets });
      broadcastAll(net, Array.from({ length: 64 }, () => ({ root: 0, bytes: 8 })), 80);
      return net.nodes[0].counters;
    };
    expect(run(1).stalls).toBeGreaterThanOrEqual(7);
    expect(run(4)).toMatchObject({ stalls: 0, stallMs: 0 });
  });

  it('unreliable mode sends no checksums, NACKs or polls and still delivers on a clean network', () => {
    const net = new Net(4, { ...small, reliable: false });
    broadcastAll(net, Array.from({ length: 10 }, (_, i) => ({ root: i % 4, bytes: 600 })));
    expect(net.nodes.reduce((a, n) => a + n.counters.polls + n.counters.nacksSent, 0)).toBe(0);
  });

  it('every message arrives under random faults, node counts, sizes and roots (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 7 }),
        fc.array(fc.tuple(fc.nat(6), fc.integer({ min: 0, max: 5000 })), { minLength: 1, maxLength: 16 }),
        fc.record({ loss: fc.double({ min: 0, max: 0.3, noNaN: true }), dup: fc.double({ min: 0, max: 0.1, noNaN: true }), reorder: fc.double({ min: 0, max: 0.2, noNaN: true }), corrupt: fc.double({ min: 0, max: 0.1, noNaN: true }) }),
        fc.integer({ min: 1, max: 1000 }),
        (N, msgs, faults, seed) => {
          const net = new Net(N, small, faults, seed);
          broadcastAll(net, msgs.map(([r, b]) => ({ root: r % N, bytes: b })), 100);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('rejects a group too large for the channel layout', () => {
    const net = new Net(3, { ...small, fragmentBytes: 64 });
    expect(() => net.nodes[0].send({ context: 1, space: 0, tag: 0, src: 0, index: 0, sig: 0 }, Array.from({ length: 17 }, (_, i) => i + 1), new Uint8Array(1))).toThrow(/does not fit the channel layout/);
  });
});

describe('multicast settings (COLL_MCAST, COLL_MCAST_FAULTS, COLL_MCAST_GROUP)', () => {
  it('parses the defaults, off, and overrides; rejects bad layouts with a hint', () => {
    expect(parseMcastOptions(undefined)).toEqual(DEFAULT_MCAST_OPTIONS);
    expect(parseMcastOptions('off')).toBeUndefined();
    expect(parseMcastOptions('channels=16,sets=1,reliable=0')).toMatchObject({ channels: 16, sets: 1, reliable: false, fragmentBytes: DEFAULT_MCAST_OPTIONS.fragmentBytes });
    expect(() => parseMcastOptions('channels=10,sets=4')).toThrow(/channels=10 must be a positive multiple of sets=4/);
    expect(() => parseMcastOptions('fragment=65500')).toThrow(/above the datagram limit/);
    expect(() => parseMcastOptions('sets=0')).toThrow(/sets=0 must be at least 1/);
    expect(() => parseMcastOptions('channels=-2')).toThrow(/not key=non-negative integer/);
  });

  it('parses faults (any subset, node=K) and rejects probabilities out of range', () => {
    expect(parseMcastFaults('')).toBeUndefined();
    expect(parseMcastFaults('loss=1,node=2')).toEqual({ loss: 1, dup: 0, reorder: 0, corrupt: 0, seed: 1, node: 2 });
    expect(parseMcastFaults('loss=0.2,dup=0.05,reorder=0.1,corrupt=0.05,seed=7')).toMatchObject({ loss: 0.2, corrupt: 0.05, seed: 7 });
    expect(() => parseMcastFaults('loss=1.5')).toThrow(/not a probability/);
    expect(() => parseMcastFaults('drop=0.1')).toThrow(/unknown key 'drop'/);
  });

  it('a group is an IPv4 multicast address and port; the job default is derived from the secret', () => {
    expect(parseMcastGroup('239.1.2.3:4000')).toEqual({ address: '239.1.2.3', port: 4000 });
    expect(() => parseMcastGroup('10.0.0.1:4000')).toThrow(/not an IPv4 multicast address/);
    const g = jobMcastGroup(Buffer.from('00112233445566778899aabbccddeeff', 'hex'));
    expect(g.address).toMatch(/^239\.77\.\d+\.\d+$/);
    expect(g.port).toBeGreaterThanOrEqual(20000);
    expect(g.port).toBeLessThan(60000);
  });
});
