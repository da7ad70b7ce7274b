/**
 * NIC allgathers (seed 003 ch. 6, M12–M15): recursive doubling and concurrent
 * broadcasting with hopping packets over two rotating channels, on the simulated
 * lossy network — results, the two-channel invariant (and a broken variant that
 * violates it), and packets per rank per op (claim 12).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateRankSchedule, getAlgorithm } from '../../src/algorithms/registry.js';
import { ConcurrentBcastAllgather } from '../../src/offload/protocols/allgather_cb.js';
import { RotatingChannels } from '../../src/offload/protocols/allgather_channels.js';
import type { NicAllgather } from '../../src/offload/protocols/allgather_node.js';
import { allgatherCodec, type AllgatherPacket } from '../../src/offload/protocols/allgather_packets.js';
import { doublingSteps, RecursiveDoublingAllgather } from '../../src/offload/protocols/allgather_rd.js';
import { hopParent, hopTargets } from '../../src/offload/protocols/hopping.js';
import { Rng } from '../../src/core/random.js';
import { SimNetwork } from '../../src/offload/protocols/sim_network.js';
import { ceilLog } from '../../src/schedule/partition.js';

type Algo = 'cb' | 'rd';

interface AllgatherRun {
  readonly algo: Algo;
  readonly P: number;
  readonly seed: number;
  readonly ops: number;
  readonly blockBytes?: number;
  readonly loss?: number;
  readonly duplicate?: number;
  readonly maxDelay?: number;
  /** Host compute time U(0, skew) before each post. */
  readonly skew?: number;
  readonly timeout?: number;
  /** Broken variant: post every op at once and let the NIC start one op early. */
  readonly broken?: boolean;
  readonly framed?: boolean;
}

interface AllgatherResult {
  /** results[r][op] */
  readonly results: Uint8Array[][];
  /** Data packets delivered to rank r for op: dataIn[r][op]. */
  readonly dataIn: number[][];
  readonly nacks: number;
  /** Deliveries of a packet of op s to a rank that had not completed op s − 2 (test-side check). */
  readonly invariantFailures: number;
  readonly nodes: NicAllgather[];
  /** The run did not go quiet by the time limit (only tolerated for the broken variant). */
  readonly stalled: boolean;
}

const blockOf = (op: number, rank: number, B: number): Uint8Array => Uint8Array.from({ length: B }, (_, i) => (op * 31 + rank * 7 + i) & 255);

function expected(op: number, P: number, B: number): Uint8Array {
  const out = new Uint8Array(P * B);
  for (let r = 0; r < P; r++) out.set(blockOf(op, r, B), r * B);
  return out;
}

function runAllgather(c: AllgatherRun): AllgatherResult {
  const B = c.blockBytes ?? 8;
  const net = new SimNetwork<AllgatherPacket>({
    size: c.P, seed: c.seed, loss: c.loss, duplicate: c.duplicate, minDelay: 1, maxDelay: c.maxDelay ?? 1,
    codec: c.framed ? allgatherCodec : undefined,
  });
  const host = new Rng(c.seed * 7 + 1);
  const results = Array.from({ length: c.P }, () => [] as Uint8Array[]);
  const dataIn = Array.from({ length: c.P }, () => new Array<number>(c.ops).fill(0));
  let nacks = 0;
  let invariantFailures = 0;
  const nodes: NicAllgather[] = [];
  net.onSend((e) => void (e.packet.kind === 'ag-nack' && nacks++));
  net.onDeliver((e) => {
    if (e.packet.kind === 'ag-nack') return;
    dataIn[e.to][e.packet.op]++;
    // The two-channel invariant, checked from outside: op s arrives only once op s − 2 is complete.
    if (nodes[e.to].completed < e.packet.op - 1) invariantFailures++;
  });
  for (let r = 0; r < c.P; r++) {
    const o = {
      blockBytes: B,
      timeout: c.timeout ?? 40,
      postAhead: c.broken ? 1 : 0,
      onComplete: (op: number, result: Uint8Array) => {
        results[r][op] = result;
        if (!c.broken && op + 1 < c.ops) net.after(host.between(0, c.skew ?? 0), () => node.post(blockOf(op + 1, r, B)));
      },
    };
    const node = c.algo === 'cb' ? new ConcurrentBcastAllgather(net.endpoint(r), o) : new RecursiveDoublingAllgather(net.endpoint(r), o);
    nodes.push(node);
    net.attach(r, node);
    net.at(host.between(0, c.skew ?? 0), () => {
      for (let op = 0; op < (c.broken ? c.ops : 1); op++) node.post(blockOf(op, r, B));
    });
  }
  let stalled = false;
  try {
    net.run({ maxTime: c.broken ? 2e4 : 1e7 });
  } catch (e) {
    if (!c.broken || !/still busy/.test(String(e))) throw e;
    stalled = true;
  }
  return { results, dataIn, nacks, invariantFailures, nodes, stalled };
}

function checkResults(c: AllgatherRun, res: AllgatherResult): void {
  const B = c.blockBytes ?? 8;
  for (let op = 0; op < c.ops; op++) {
    const want = Buffer.from(expected(op, c.P, B));
    for (let r = 0; r < c.P; r++) {
      const got = res.results[r][op];
      expect(got !== undefined && want.equals(Buffer.from(got)), `rank ${r} op ${op}`).toBe(true);
    }
  }
  expect(res.invariantFailures).toBe(0);
  for (const n of res.nodes) {
    expect(n.stats.violations).toBe(0);
    expect(n.stats.unexpected).toBe(0);
  }
}

const POW2 = [1, 2, 4, 8, 16, 32];

describe('allgather patterns', () => {
  it('hopping packets follow the catalogue concurrent_bcast schedule (mod-N rule), reach every rank once, use rank ± 2^k peers', () => {
    const spec = getAlgorithm('allgather', 'concurrent_bcast');
    for (let N = 1; N <= 40; N++) {
      // Packets per (sender → receiver) from the hop rule, over all origins' trees.
      const edges = new Map<string, number>();
      for (let i = 0; i < N; i++) {
        const reached = new Set<number>([i]);
        const queue: [number, number][] = [[i, -1]];
        while (queue.length > 0) {
          const [r, hop] = queue.shift() as [number, number];
          for (const t of hopTargets(r, i, hop, N)) {
            expect(reached.has(t.to)).toBe(false);
            reached.add(t.to);
            expect(hopParent(t.to, i, N)).toBe(r);
            const k = `${r}>${t.to}`;
            edges.set(k, (edges.get(k) ?? 0) + 1);
            queue.push([t.to, t.hop]);
          }
        }
        expect(reached.size).toBe(N);
      }
      const fromSchedule = new Map<string, number>();
      for (let r = 0; r < N; r++) {
        for (const st of generateRankSchedule(spec, r, { size: N, count: 1 }).steps) {
          if (st.kind !== 'send') continue;
          const k = `${r}>${st.peer}`;
          fromSchedule.set(k, (fromSchedule.get(k) ?? 0) + 1);
          const d = (st.peer - r + N) % N;
          expect(d & (d - 1)).toBe(0); // a power-of-two distance
        }
      }
      expect(edges).toEqual(fromSchedule);
    }
  });

  it('recursive-doubling steps come from the catalogue: partner r XOR 2^k, 2^k blocks each way', () => {
    for (const N of POW2) {
      for (let r = 0; r < N; r++) {
        const steps = doublingSteps(r, N);
        expect(steps.length).toBe(Math.log2(N));
        steps.forEach((s, k) => {
          expect(s.partner).toBe(r ^ (1 << k));
          expect(s.count).toBe(1 << k);
          expect(s.sendFirst).toBe(r & ~((1 << k) - 1));
          expect(s.recvFirst).toBe(s.partner & ~((1 << k) - 1));
        });
      }
    }
    expect(() => doublingSteps(0, 6)).toThrow(/power-of-two/);
  });

  it('two rotating channels: op s + 2 may only claim a channel whose op is complete', () => {
    const ch = new RotatingChannels(4, 2, 4);
    const s0 = ch.acquire(0);
    ch.acquire(1);
    expect(() => ch.acquire(2)).toThrow(/still busy with op 0/);
    s0.complete = true;
    expect(ch.acquire(2)).toBe(s0);
    expect(ch.lookup(0)).toBeUndefined();
    expect(() => ch.acquire(0)).toThrow(/already holds op 2/);
  });
});

describe.each([
  ['concurrent broadcasting (NIC-CB)', 'cb' as const],
  ['recursive doubling (NIC-RD)', 'rd' as const],
])('NIC allgather: %s', (_name, algo) => {
  const sizes = algo === 'cb' ? fc.integer({ min: 1, max: 33 }) : fc.constantFrom(...POW2);

  it('gives every rank the right result in back-to-back ops under random delays, loss, duplicates and skew', () => {
    let nacks = 0;
    fc.assert(
      fc.property(
        fc.record({
          P: sizes,
          seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
          loss: fc.double({ min: 0, max: 0.3, noNaN: true }),
          duplicate: fc.double({ min: 0, max: 0.2, noNaN: true }),
          maxDelay: fc.integer({ min: 1, max: 12 }),
          skew: fc.integer({ min: 0, max: 150 }),
          blockBytes: fc.constantFrom(0, 1, 8, 24),
        }),
        (c) => {
          const run: AllgatherRun = { ...c, algo, ops: 5 };
          const res = runAllgather(run);
          checkResults(run, res);
          nacks += res.nacks;
        },
      ),
      { numRuns: 60, seed: algo === 'cb' ? 11 : 12 },
    );
    expect(nacks).toBeGreaterThan(50);
  });

  it(`each rank receives ${algo === 'cb' ? 'N − 1' : 'lg N'} data packets per op without loss, and never scans its bit vector`, () => {
    for (const P of algo === 'cb' ? [1, 2, 3, 5, 8, 13, 16, 33] : POW2) {
      const run: AllgatherRun = { algo, P, seed: P, ops: 4, maxDelay: 10, skew: 30, timeout: 1e6 };
      const res = runAllgather(run);
      checkResults(run, res);
      const perOp = algo === 'cb' ? P - 1 : ceilLog(P);
      for (let r = 0; r < P; r++) expect(res.dataIn[r]).toEqual(new Array<number>(4).fill(perOp));
      expect(res.nacks).toBe(0);
      for (const n of res.nodes) {
        expect(n.stats.scans).toBe(0);
        expect(n.stats.dataReceived).toBe(4 * perOp);
      }
    }
  });

  it('runs over byte frames', () => {
    const run: AllgatherRun = { algo, P: 8, seed: 4, ops: 3, loss: 0.2, duplicate: 0.1, maxDelay: 6, skew: 20, framed: true };
    checkResults(run, runAllgather(run));
  });

  it('the invariant check catches a broken variant that lets ranks start op s + 1 early (so op s + 2 can arrive during op s)', () => {
    let failures = 0;
    let violations = 0;
    let stalls = 0;
    for (let seed = 0; seed < 12; seed++) {
      const P = algo === 'cb' ? 9 : 8;
      const common: AllgatherRun = { algo, P, seed, ops: 6, loss: 0.1, maxDelay: 15, skew: 60 };
      // The correct protocol on the same faults never trips the check…
      checkResults(common, runAllgather(common));
      // …the broken one does, and then a channel can be recycled while a slow rank still
      // needs its data: the NACKs find nothing and the run stalls.
      const res = runAllgather({ ...common, broken: true });
      failures += res.invariantFailures;
      violations += res.nodes.reduce((n, x) => n + x.stats.violations, 0);
      if (res.stalled) stalls++;
    }
    expect(failures).toBeGreaterThan(0);
    expect(violations).toBe(failures); // the nodes' own check agrees with the outside one
    expect(stalls).toBeGreaterThan(0);
  });
});

describe('allgather frames', () => {
  it('round-trip', () => {
    const ps: AllgatherPacket[] = [
      { kind: 'ag-cb', op: 5, origin: 3, hop: 2, block: Uint8Array.of(9, 8) },
      { kind: 'ag-rd', op: 6, step: 1, first: 2, blocks: Uint8Array.of(1, 2, 3, 4) },
      { kind: 'ag-nack', op: 7, index: 12 },
    ];
    for (const p of ps) expect(allgatherCodec.decode(allgatherCodec.encode(p))).toEqual(p);
    expect(() => allgatherCodec.decode(Uint8Array.of(0x32))).toThrow(/not an allgather frame/);
  });
});
