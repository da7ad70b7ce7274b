/**
 * NIC barrier (seed 003 ch. 6, M3–M6) on the simulated lossy network: liveness and
 * safety of back-to-back barriers under loss, duplication, reordering and skew;
 * exact packet counts without loss, NACK-only vs ACK-based (claim 6); frames.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AckBarrier } from '../../src/offload/protocols/ack_barrier.js';
import { BARRIER_ALGORITHMS, barrierPattern, type BarrierAlgorithm } from '../../src/offload/protocols/barrier_pattern.js';
import { barrierCodec, type BarrierPacket } from '../../src/offload/protocols/barrier_packets.js';
import { NicBarrier, type BarrierStats } from '../../src/offload/protocols/nic_barrier.js';
import { Rng } from '../../src/core/random.js';
import { SimNetwork } from '../../src/offload/protocols/sim_network.js';
import { ceilLog, floorPow2 } from '../../src/schedule/partition.js';

interface BarrierRun {
  readonly P: number;
  readonly algorithm: BarrierAlgorithm;
  readonly seed: number;
  readonly barriers: number;
  readonly loss?: number;
  readonly duplicate?: number;
  readonly maxDelay?: number;
  /** Each rank computes U(0, skew) before each barrier. */
  readonly skew?: number;
  readonly timeout?: number;
  readonly reliability?: 'nack' | 'ack';
  /** NIC barrier: which missing messages a timeout NACKs. */
  readonly nack?: 'awaited' | 'all';
  /** Run over byte frames through the codec. */
  readonly framed?: boolean;
  /** Take the link a → b down during [0, until). */
  readonly linkDown?: { readonly from: number; readonly to: number; readonly until: number };
}

interface BarrierResult {
  readonly enter: number[][];
  readonly leave: number[][];
  readonly packets: Record<BarrierPacket['kind'], number>;
  readonly stats: BarrierStats[];
}

function runBarriers(c: BarrierRun): BarrierResult {
  const net = new SimNetwork<BarrierPacket>({
    size: c.P,
    seed: c.seed,
    loss: c.loss,
    duplicate: c.duplicate,
    minDelay: 1,
    maxDelay: c.maxDelay ?? 1,
    codec: c.framed ? barrierCodec : undefined,
  });
  const hostRng = new Rng(c.seed ^ 0x5bd1e995);
  const enter = Array.from({ length: c.barriers }, () => new Array<number>(c.P).fill(Number.NaN));
  const leave = Array.from({ length: c.barriers }, () => new Array<number>(c.P).fill(Number.NaN));
  const packets: Record<BarrierPacket['kind'], number> = { barrier: 0, 'barrier-nack': 0, 'barrier-ack': 0 };
  net.onSend((e) => packets[e.packet.kind]++);
  if (c.linkDown) {
    const { from, to, until } = c.linkDown;
    net.setLinkDown(from, to, true);
    net.at(until, () => net.setLinkDown(from, to, false));
  }
  const nodes: (NicBarrier | AckBarrier)[] = [];
  for (let r = 0; r < c.P; r++) {
    const start = (): void => {
      enter[node.completed][r] = net.now;
      node.enter();
    };
    const onComplete = (seq: number): void => {
      leave[seq][r] = net.now;
      if (seq + 1 < c.barriers) net.after(hostRng.between(0, c.skew ?? 0), start);
    };
    const o = { algorithm: c.algorithm, timeout: c.timeout ?? 30, nack: c.nack, onComplete };
    const node = c.reliability === 'ack' ? new AckBarrier(net.endpoint(r), o) : new NicBarrier(net.endpoint(r), o);
    nodes.push(node);
    net.attach(r, node);
    net.at(hostRng.between(0, c.skew ?? 0), start);
  }
  net.run({ maxTime: 1e7 });
  return { enter, leave, packets, stats: nodes.map((n) => n.stats) };
}

/** Liveness, safety and clean bookkeeping of a run. */
function checkRun(c: BarrierRun, res: BarrierResult): void {
  for (let s = 0; s < c.barriers; s++) {
    // Every rank entered and left every barrier…
    expect(res.leave[s].every((t) => Number.isFinite(t))).toBe(true);
    // …and nobody left barrier s before the last rank entered it. Tighter: a rank
    // leaves at least one packet delay (≥ 1) after the last entry, except the last
    // entrant itself when it found every message already there (early arrivals).
    const lastEnter = Math.max(...res.enter[s]);
    const lastEntrants = res.enter[s].filter((t) => t === lastEnter).length;
    for (let r = 0; r < c.P; r++) {
      const alone = lastEntrants === 1 && res.enter[s][r] === lastEnter;
      expect(res.leave[s][r]).toBeGreaterThanOrEqual(alone ? lastEnter : lastEnter + 1);
    }
  }
  for (const st of res.stats) {
    expect(st.violations).toBe(0);
    expect(st.unexpected).toBe(0);
  }
}

/** Barrier messages per barrier over all ranks, in closed form. */
function messagesPerBarrier(algorithm: BarrierAlgorithm, P: number): number {
  if (algorithm === 'dissemination') return P * ceilLog(P);
  const p2 = floorPow2(P);
  return p2 * Math.log2(p2) + 2 * (P - p2);
}

describe('barrier pattern (from the catalogue schedules)', () => {
  it('has the closed-form message counts and P·rounds for DS and power-of-two PE', () => {
    for (const algorithm of BARRIER_ALGORITHMS) {
      for (let P = 1; P <= 64; P++) {
        let sends = 0;
        let recvs = 0;
        let rounds = 0;
        for (let r = 0; r < P; r++) {
          const pat = barrierPattern(algorithm, r, P);
          sends += pat.steps.filter((s) => s.kind === 'send').length;
          recvs += pat.steps.filter((s) => s.kind === 'recv').length;
          rounds = Math.max(rounds, pat.rounds);
        }
        expect(sends).toBe(messagesPerBarrier(algorithm, P));
        expect(recvs).toBe(sends);
        if (algorithm === 'dissemination' || floorPow2(P) === P) expect(sends).toBe(P * rounds);
      }
    }
  });

  it('every send has exactly one matching receive, keyed by (sender, round)', () => {
    for (const algorithm of BARRIER_ALGORITHMS) {
      for (const P of [2, 3, 5, 6, 7, 8, 12, 33]) {
        const pats = Array.from({ length: P }, (_, r) => barrierPattern(algorithm, r, P));
        for (const pat of pats) {
          for (const s of pat.steps) {
            if (s.kind === 'send') expect(pats[s.peer].recvStep(pat.rank, s.round)).toBeDefined();
            else expect(pats[s.peer].sendStep(pat.rank, s.round)).toBeDefined();
          }
        }
      }
    }
  });
});

describe('NIC barrier (NACK-only reliability)', () => {
  it('completes every barrier of a back-to-back sequence, safely, under loss, duplicates, reordering and skew', () => {
    let resent = 0;
    fc.assert(
      fc.property(
        fc.record({
          P: fc.integer({ min: 1, max: 33 }),
          algorithm: fc.constantFrom(...BARRIER_ALGORITHMS),
          seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
          loss: fc.double({ min: 0, max: 0.3, noNaN: true }),
          duplicate: fc.double({ min: 0, max: 0.2, noNaN: true }),
          maxDelay: fc.integer({ min: 1, max: 10 }),
          skew: fc.integer({ min: 0, max: 100 }),
          nack: fc.constantFrom<'awaited' | 'all'>('awaited', 'all'),
        }),
        (c) => {
          const run: BarrierRun = { ...c, barriers: 4 };
          const res = runBarriers(run);
          checkRun(run, res);
          for (const st of res.stats) resent += st.resent;
        },
      ),
      { numRuns: 120, seed: 3 },
    );
    expect(resent).toBeGreaterThan(100); // the faults did bite
  });

  it('sends exactly one packet per barrier message without loss: P·⌈lg P⌉ for DS, no NACKs', () => {
    for (const algorithm of BARRIER_ALGORITHMS) {
      for (let P = 1; P <= 33; P++) {
        const run: BarrierRun = { P, algorithm, seed: P, barriers: 3, maxDelay: 4, timeout: 1000 };
        const res = runBarriers(run);
        checkRun(run, res);
        expect(res.packets.barrier).toBe(3 * messagesPerBarrier(algorithm, P));
        expect(res.packets['barrier-nack']).toBe(0);
        expect(res.packets['barrier-ack']).toBe(0);
        if (algorithm === 'dissemination') expect(res.packets.barrier).toBe(3 * P * ceilLog(P));
      }
    }
  });

  it('keeps early arrivals: skewed entries need no retransmission when the timeout exceeds the skew', () => {
    const run: BarrierRun = { P: 13, algorithm: 'dissemination', seed: 9, barriers: 5, maxDelay: 5, skew: 200, timeout: 10_000 };
    const res = runBarriers(run);
    checkRun(run, res);
    expect(res.packets.barrier).toBe(5 * 13 * 4);
    expect(res.stats.reduce((n, s) => n + s.resent + s.control, 0)).toBe(0);
  });

  it('recovers from a link that is down, with NACKs, and nobody passes the barrier before the link is back', () => {
    for (const algorithm of BARRIER_ALGORITHMS) {
      const run: BarrierRun = { P: 8, algorithm, seed: 1, barriers: 2, maxDelay: 3, timeout: 20, linkDown: { from: 0, to: 1, until: 500 } };
      const res = runBarriers(run);
      checkRun(run, res);
      // Rank 1 needs rank 0's round-0 message in both algorithms (DS: 0 = 1 − 2^0; PE: 0 = 1 XOR 2^0).
      expect(res.leave[0][1]).toBeGreaterThan(500);
      expect(res.packets['barrier-nack']).toBeGreaterThan(0);
      expect(res.stats[0].resent).toBeGreaterThan(0);
    }
  });

  it('NACKing only awaited messages costs fewer packets than NACKing every clear bit', () => {
    const total = (nack: 'awaited' | 'all'): number => {
      const run: BarrierRun = { P: 16, algorithm: 'dissemination', seed: 5, barriers: 50, loss: 0.1, maxDelay: 3, timeout: 10, nack };
      const res = runBarriers(run);
      checkRun(run, res);
      return res.packets.barrier + res.packets['barrier-nack'];
    };
    expect(total('awaited')).toBeLessThan(total('all'));
  });

  it('runs unchanged over byte frames through the codec', () => {
    const run: BarrierRun = { P: 11, algorithm: 'pairwise_exchange', seed: 5, barriers: 3, loss: 0.2, duplicate: 0.1, maxDelay: 6, framed: true };
    checkRun(run, runBarriers(run));
    const p: BarrierPacket = { kind: 'barrier-nack', seq: 123456, round: 7 };
    expect(barrierCodec.decode(barrierCodec.encode(p))).toEqual(p);
    expect(() => barrierCodec.decode(new Uint8Array([0x99, 0, 0, 0, 0, 0, 0, 0, 0]))).toThrow(/not a barrier frame/);
  });
});

describe('ACK-based barrier (comparison)', () => {
  it('sends twice the packets of the NIC barrier without loss: 2·P·⌈lg P⌉ for DS', () => {
    for (const algorithm of BARRIER_ALGORITHMS) {
      for (let P = 1; P <= 33; P++) {
        const run: BarrierRun = { P, algorithm, seed: P, barriers: 3, maxDelay: 4, timeout: 1000, reliability: 'ack' };
        const res = runBarriers(run);
        checkRun(run, res);
        const nack = runBarriers({ ...run, reliability: 'nack' });
        expect(res.packets.barrier).toBe(3 * messagesPerBarrier(algorithm, P));
        expect(res.packets['barrier-ack']).toBe(res.packets.barrier);
        const total = res.packets.barrier + res.packets['barrier-ack'];
        expect(total).toBe(2 * (nack.packets.barrier + nack.packets['barrier-nack']));
        if (algorithm === 'dissemination') expect(total).toBe(3 * 2 * P * ceilLog(P));
      }
    }
  });

  it('is also correct under loss (so the comparison is between working protocols)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.constantFrom(...BARRIER_ALGORITHMS),
        fc.integer({ min: 0, max: 1e6 }),
        (P, algorithm, seed) => {
          const run: BarrierRun = { P, algorithm, seed, barriers: 3, loss: 0.2, duplicate: 0.1, maxDelay: 5, skew: 30, reliability: 'ack' };
          checkRun(run, runBarriers(run));
        },
      ),
      { numRuns: 30, seed: 4 },
    );
  });
});
