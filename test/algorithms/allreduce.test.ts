/**
 * Closed-form checks of the allreduce schedules: message counts and sizes per rank,
 * inter-node messages of the node-aware algorithms, and seed 001's NAP examples.
 * (Correctness against the reference for every algorithm is in catalogue.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { RestrictionError } from '../../src/core/index.js';
import { napGroup, napPartnerRank, napStepCount, napStepSizes } from '../../src/algorithms/allreduce/nap.js';
import { generateRankSchedule, generateSchedule, getAlgorithm } from '../../src/algorithms/registry.js';
import { blockCount, ceilLog, floorPow2 } from '../../src/schedule/partition.js';
import { flatTopology, nodeTopology, topologyFromNodes, type Topology } from '../../src/schedule/topology.js';
import type { RankSchedule, Schedule, SendStep } from '../../src/schedule/types.js';
import { PERM_OP, runCase } from '../helpers/harness.js';

const sends = (s: RankSchedule): SendStep[] => s.steps.filter((st): st is SendStep => st.kind === 'send');
const interSends = (s: RankSchedule, t: Topology): number =>
  sends(s).filter((st) => t.nodeOf(st.peer) !== t.nodeOf(s.rank)).length;
const elementsSent = (s: RankSchedule, phase?: string): number =>
  sends(s)
    .filter((st) => phase === undefined || st.phase === phase)
    .reduce((sum, st) => sum + st.region.count, 0);
const lg = (x: number): number => Math.log2(x);
const allreduce = (name: string, size: number, count: number, topology?: Topology): Schedule =>
  generateSchedule('allreduce', name, { size, count, topology });

describe('allreduce/recursive_doubling', () => {
  it('sends lg P whole vectors per rank for powers of two', () => {
    for (const P of [2, 4, 8, 16, 32, 64]) {
      for (const s of allreduce('recursive_doubling', P, 5)) {
        expect(sends(s).length).toBe(lg(P));
        expect(sends(s).every((st) => st.region.count === 5)).toBe(true);
      }
    }
  });

  it("sends 1 / ⌊lg P⌋+1 / ⌊lg P⌋ messages (folded even, folding odd, other ranks) otherwise", () => {
    for (let P = 3; P <= 40; P++) {
      const p2 = floorPow2(P);
      const rem = P - p2;
      if (rem === 0) continue;
      allreduce('recursive_doubling', P, 3).forEach((s, r) => {
        const want = r < 2 * rem ? (r % 2 === 0 ? 1 : lg(p2) + 1) : lg(p2);
        expect(sends(s).length, `P=${P} rank ${r}`).toBe(want);
      });
    }
  });
});

describe('allreduce/ring', () => {
  it('sends 2(P−1) messages of ⌊n/P⌋ or ⌈n/P⌉ elements, 2n minus two blocks in all', () => {
    for (const P of [2, 3, 5, 8, 13]) {
      for (const n of [0, 1, P - 1, 4 * P, 4 * P + 3]) {
        allreduce('ring', P, n).forEach((s, r) => {
          const m = sends(s);
          expect(m.length).toBe(2 * (P - 1));
          for (const st of m) expect([Math.floor(n / P), Math.ceil(n / P)]).toContain(st.region.count);
          // Reduce-scatter sends every block but (r+1), allgather every block but (r+2).
          expect(elementsSent(s)).toBe(2 * n - blockCount(n, P, (r + 1) % P) - blockCount(n, P, (r + 2) % P));
        });
      }
    }
  });

  it('sends exactly 2(P−1)/P·n elements per rank when P divides n', () => {
    for (const P of [4, 6, 16]) {
      for (const s of allreduce('ring', P, 3 * P)) {
        expect(elementsSent(s, 'reduce-scatter')).toBe(3 * (P - 1));
        expect(elementsSent(s, 'allgather')).toBe(3 * (P - 1));
      }
    }
  });
});

describe('allreduce/rabenseifner', () => {
  it('sends 2 lg P messages and (P−1)/P·n elements in each phase for powers of two', () => {
    for (const P of [2, 4, 8, 16, 32]) {
      const n = 5 * P;
      for (const s of allreduce('rabenseifner', P, n)) {
        expect(sends(s).length).toBe(2 * lg(P));
        expect(elementsSent(s, 'reduce-scatter')).toBe(((P - 1) / P) * n);
        expect(elementsSent(s, 'allgather')).toBe(((P - 1) / P) * n);
      }
    }
  });

  it("adds MPICH's fold for other P: 1 send (folded), 2⌊lg P⌋+1 (folding) or 2⌊lg P⌋", () => {
    for (let P = 3; P <= 24; P++) {
      const p2 = floorPow2(P);
      const rem = P - p2;
      if (rem === 0) continue;
      allreduce('rabenseifner', P, 2 * P).forEach((s, r) => {
        const want = r < 2 * rem ? (r % 2 === 0 ? 1 : 2 * lg(p2) + 1) : 2 * lg(p2);
        expect(sends(s).length, `P=${P} rank ${r}`).toBe(want);
      });
    }
  });

  it('works with fewer elements than ranks (empty blocks) and keeps rank order', () => {
    for (const P of [5, 8, 12]) {
      for (const count of [0, 1, 3]) {
        runCase({ collective: 'allreduce', algorithm: 'rabenseifner', size: P, count, op: PERM_OP.name, datatype: 'uint32', order: 'random', seed: P });
      }
    }
  });
});

describe('allreduce/reduce_bcast', () => {
  it('sends P−1 messages up the tree and P−1 down, in 2⌈log_f P⌉ rounds', () => {
    for (const f of [2, 3, 4, 5]) {
      for (const P of [1, 2, 7, 16, 27, 30]) {
        const sch = generateSchedule('allreduce', 'reduce_bcast', { size: P, count: 4, params: { f } });
        const up = sch.reduce((sum, r) => sum + sends(r).filter((st) => st.phase === 'reduce').length, 0);
        const down = sch.reduce((sum, r) => sum + sends(r).filter((st) => st.phase === 'bcast').length, 0);
        expect(up).toBe(P - 1);
        expect(down).toBe(P - 1);
        expect(Math.max(...sch.map((r) => r.rounds))).toBe(P === 1 ? 1 : 2 * ceilLog(P, f));
        // Every non-root sends exactly once in the reduce.
        sch.forEach((r) => expect(sends(r).filter((st) => st.phase === 'reduce').length).toBe(r.rank === 0 ? 0 : 1));
      }
    }
  });
});

describe('allreduce/smp', () => {
  it('sends inter-node messages only from local rank 0, lg n of them for n a power of two', () => {
    for (const ppn of [2, 3, 4]) {
      for (const n of [1, 2, 4, 8, 16]) {
        const t = nodeTopology(n * ppn, ppn);
        for (const s of allreduce('smp', n * ppn, 3, t)) {
          expect(interSends(s, t)).toBe(t.localRank(s.rank) === 0 ? lg(n) : 0);
        }
      }
    }
  });

  it('sends at most ⌊lg n⌋+1 inter-node messages per leader otherwise, also on uneven nodes', () => {
    for (const [P, ppn] of [
      [21, 4],
      [30, 3],
      [11, 2],
    ] as const) {
      for (const t of [nodeTopology(P, ppn, 'block'), nodeTopology(P, ppn, 'cyclic')]) {
        const n = t.nodeCount;
        const counts = allreduce('smp', P, 3, t).map((s) => interSends(s, t));
        counts.forEach((c, r) => (t.localRank(r) === 0 ? expect(c).toBeGreaterThan(0) : expect(c).toBe(0)));
        expect(Math.max(...counts)).toBe(Math.floor(lg(n)) + 1);
      }
    }
  });

  it('keeps rank order when nodes hold contiguous ranks in any node numbering, refuses otherwise', () => {
    const t = topologyFromNodes([2, 2, 2, 0, 0, 1, 1, 1, 1, 3]);
    runCase({ collective: 'allreduce', algorithm: 'smp', size: 10, count: 3, topology: t, op: PERM_OP.name, datatype: 'uint32' });
    const cyclic = nodeTopology(12, 3, 'cyclic');
    expect(() => generateSchedule('allreduce', 'smp', { size: 12, count: 3, topology: cyclic, commutative: false })).toThrow(
      RestrictionError,
    );
  });
});

describe('allreduce/nap', () => {
  it("reproduces seed 001's worked examples", () => {
    // Fig. 6: 4 nodes x 4, step 0: P9 (node 2, local rank 1) <-> P6 (node 1, local rank 2).
    expect(napPartnerRank(nodeTopology(16, 4), 9, 0)).toEqual({ kind: 'exchange', peer: 6 });
    expect(napPartnerRank(nodeTopology(16, 4), 6, 0)).toEqual({ kind: 'exchange', peer: 9 });
    // Idle at step 0: local rank == node index in the group (P0, P5, P10, P15).
    const idle = Array.from({ length: 16 }, (_, r) => r).filter((r) => napPartnerRank(nodeTopology(16, 4), r, 0).kind === 'idle');
    expect(idle).toEqual([0, 5, 10, 15]);
    // Fig. 7: 16 nodes x 4, step 1: P9 <-> P24.
    expect(napPartnerRank(nodeTopology(64, 4), 9, 1)).toEqual({ kind: 'exchange', peer: 24 });
    expect(napPartnerRank(nodeTopology(64, 4), 24, 1)).toEqual({ kind: 'exchange', peer: 9 });
    // Fig. 9: 11 nodes x 4, final step: orphan P14 receives from the idle P34.
    const t11 = nodeTopology(44, 4);
    expect(napGroup(11, 4, 3, 1)).toMatchObject({ start: 0, size: 11, subgroups: 3, subgroup: 0, position: 3 });
    expect(napPartnerRank(t11, 14, 1)).toEqual({ kind: 'recv', peer: 34 });
    expect(napPartnerRank(t11, 34, 1)).toEqual({ kind: 'send', peer: 14 });
    const sch = allreduce('nap', 44, 2, t11);
    expect(sch[14].steps.some((st) => st.kind === 'recv' && st.peer === 34 && st.phase === 'inter')).toBe(true);
    expect(sends(sch[34]).some((st) => st.peer === 14 && st.phase === 'inter')).toBe(true);
    // Fig. 8 and §3.4 step sizes.
    expect(napStepSizes(12, 4)).toEqual([4, 3]);
    expect(napStepSizes(2048, 16)).toEqual([16, 16, 8]);
    expect(napStepSizes(64, 16)).toEqual([16, 4]);
    expect(napStepSizes(512, 16)).toEqual([16, 16, 2]);
  });

  it('sends at most ⌈log_ppn n⌉ inter-node messages per rank, and some rank exactly that (n 1..40, ppn 2..5)', () => {
    for (let ppn = 2; ppn <= 5; ppn++) {
      for (let n = 1; n <= 40; n++) {
        const t = nodeTopology(n * ppn, ppn);
        const sch = allreduce('nap', n * ppn, 1, t);
        const counts = sch.map((s) => interSends(s, t));
        expect(Math.max(...counts), `n=${n} ppn=${ppn}`).toBe(ceilLog(n, ppn));
        expect(napStepCount(n, ppn)).toBe(ceilLog(n, ppn));
        // The schedule does what the helper says.
        sch.forEach((s, r) => {
          let want = 0;
          for (let step = 0; step < napStepCount(n, ppn); step++) {
            const k = napPartnerRank(t, r, step).kind;
            if (k === 'exchange' || k === 'send') want++;
          }
          expect(counts[r]).toBe(want);
        });
      }
    }
  });

  it("matches seed 001's table at ppn 16 (n = 2, 16, 64, 256, 512, 2048 → 1, 1, 2, 2, 3, 3)", () => {
    const spec = getAlgorithm('allreduce', 'nap');
    const table: [number, number][] = [
      [2, 1],
      [16, 1],
      [64, 2],
      [256, 2],
      [512, 3],
      [2048, 3],
    ];
    for (const [n, steps] of table) {
      const P = n * 16;
      const t = nodeTopology(P, 16);
      let max = 0;
      for (let r = 0; r < P; r++) max = Math.max(max, interSends(generateRankSchedule(spec, r, { size: P, count: 1, topology: t }), t));
      expect(max, `n=${n}`).toBe(steps);
    }
  });

  it('takes lg P + log_ppn n rounds for n a power of ppn (ppn a power of two)', () => {
    for (const [n, ppn] of [
      [4, 4],
      [16, 4],
      [8, 2],
      [16, 16],
    ] as const) {
      const t = nodeTopology(n * ppn, ppn);
      const sch = allreduce('nap', n * ppn, 1, t);
      expect(Math.max(...sch.map((s) => s.rounds))).toBe(lg(n * ppn) + ceilLog(n, ppn));
    }
  });

  it('gives exact sums for any node count, block and cyclic mappings', () => {
    for (let ppn = 2; ppn <= 5; ppn++) {
      for (let n = 1; n <= 40; n += ppn === 2 ? 1 : 3) {
        for (const mapping of ['block', 'cyclic'] as const) {
          const t = nodeTopology(n * ppn, ppn, mapping);
          runCase({ collective: 'allreduce', algorithm: 'nap', size: n * ppn, count: 3, topology: t, order: 'random', seed: n + ppn });
        }
      }
    }
  });

  it('requires uniform nodes and a commutative operator; one rank per node is recursive doubling', () => {
    expect(() => generateSchedule('allreduce', 'nap', { size: 10, count: 1, topology: nodeTopology(10, 4) })).toThrow(RestrictionError);
    expect(() => generateSchedule('allreduce', 'nap', { size: 8, count: 1, topology: nodeTopology(8, 4), commutative: false })).toThrow(
      RestrictionError,
    );
    expect(getAlgorithm('allreduce', 'nap').fallback).toBe('smp');
    const flat = allreduce('nap', 8, 2, flatTopology(8));
    for (const s of flat) expect(sends(s).length).toBe(3);
  });
});
