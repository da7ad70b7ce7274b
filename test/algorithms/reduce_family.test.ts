/**
 * Closed-form checks on the schedules of the reduce family (reduce, gather,
 * scatter, reduce-scatter): message counts, sizes, partners and rounds read off the
 * generated schedules and compared with the formulas of the algorithms' headers.
 */
import { describe, expect, it } from 'vitest';
import { generateSchedule } from '../../src/algorithms/registry.js';
import { fnomialChildren, fnomialParent } from '../../src/algorithms/reduce/fnomial.js';
import { effectiveSplits } from '../../src/algorithms/reduce/fnomial_split.js';
import type { ParamValue } from '../../src/schedule/context.js';
import { ceilLog } from '../../src/schedule/partition.js';
import type { CollectiveKind, RankSchedule, RecvStep, Schedule, SendStep } from '../../src/schedule/types.js';

interface Opts {
  count: number;
  root?: number;
  commutative?: boolean;
  params?: Readonly<Record<string, ParamValue>>;
}

function gen(c: CollectiveKind, alg: string, P: number, o: Opts): Schedule {
  return generateSchedule(c, alg, { size: P, count: o.count, root: o.root ?? 0, commutative: o.commutative ?? true, params: o.params });
}

const sends = (s: RankSchedule, phase?: string): SendStep[] =>
  s.steps.filter((x): x is SendStep => x.kind === 'send' && (phase === undefined || x.phase === phase));
const recvs = (s: RankSchedule, phase?: string): RecvStep[] =>
  s.steps.filter((x): x is RecvStep => x.kind === 'recv' && (phase === undefined || x.phase === phase));
/** Rounds of the whole schedule; with P = 1 a local copy still occupies round 0. */
const rounds = (sch: Schedule): number => Math.max(0, ...sch.map((s) => s.rounds));
const atLeast1 = (k: number): number => Math.max(1, k);
const totalMessages = (sch: Schedule): number => sch.reduce((n, s) => n + sends(s).length, 0);

describe('reduce/linear', () => {
  it('the root receives P−1 whole vectors in one round and combines once per received vector', () => {
    for (const P of [1, 2, 5, 16, 33]) {
      for (const root of [0, P - 1, P >> 1]) {
        const sch = gen('reduce', 'linear', P, { count: 7, root, commutative: false });
        const r = sch[root];
        expect(recvs(r).length).toBe(P - 1);
        expect(new Set(recvs(r).map((x) => x.peer)).size).toBe(P - 1);
        expect(recvs(r).every((x) => x.region.count === 7)).toBe(true);
        expect(r.steps.filter((x) => x.kind === 'reduce').length).toBe(P - 1);
        for (const s of sch) if (s.rank !== root) expect(sends(s).map((x) => x.peer)).toEqual([root]);
        expect(rounds(sch)).toBe(1);
      }
    }
  });
});

describe('reduce/binomial', () => {
  it('takes ⌈lg P⌉ rounds and P−1 messages; the tree root receives ⌈lg P⌉ of them', () => {
    for (let P = 2; P <= 40; P++) {
      for (const root of [0, P - 1]) {
        const sch = gen('reduce', 'binomial', P, { count: 3, root });
        expect(rounds(sch)).toBe(ceilLog(P));
        expect(totalMessages(sch)).toBe(P - 1);
        expect(recvs(sch[root]).length).toBe(ceilLog(P));
        for (const s of sch) if (s.rank !== root) expect(sends(s).length).toBe(1);
      }
    }
  });

  it('non-commutative with root ≠ 0: tree at rank 0 plus one forwarding round', () => {
    const P = 13;
    const sch = gen('reduce', 'binomial', P, { count: 3, root: 5, commutative: false });
    expect(rounds(sch)).toBe(ceilLog(P) + 1);
    expect(totalMessages(sch)).toBe(P);
    expect(sends(sch[0]).map((x) => x.peer)).toEqual([5]);
  });
});

describe('reduce/fnomial (seed 000 Appendix A)', () => {
  it('4-nomial over 16 nodes: node 0 receives from 1,2,3 in phase 1 and 4,8,12 in phase 2', () => {
    const sch = gen('reduce', 'fnomial', 16, { count: 1, params: { f: 4 } });
    const byRound = (r: number, round: number): number[] => recvs(sch[r]).filter((x) => x.round === round).map((x) => x.peer);
    expect(byRound(0, 0)).toEqual([1, 2, 3]);
    expect(byRound(0, 1)).toEqual([4, 8, 12]);
    expect(byRound(4, 0)).toEqual([5, 6, 7]);
    expect(byRound(12, 0)).toEqual([13, 14, 15]);
    expect(rounds(sch)).toBe(2);
  });

  it('⌈log_f P⌉ phases, ≤ f−1 receives per parent per phase, child_num slots as in Appendix A', () => {
    for (const f of [2, 3, 4, 5]) {
      for (const P of [1, 2, 7, 16, 25, 40]) {
        const count = 2;
        const sch = gen('reduce', 'fnomial', P, { count, params: { f } });
        expect(rounds(sch)).toBe(atLeast1(ceilLog(P, f)));
        expect(fnomialChildren(0, P, f).length).toBe(ceilLog(P, f));
        for (const s of sch) {
          const perRound = new Map<number, number>();
          for (const r of recvs(s)) perRound.set(r.round, (perRound.get(r.round) ?? 0) + 1);
          for (const n of perRound.values()) expect(n).toBeLessThanOrEqual(f - 1);
          // Appendix A: child id writes slot child_num = phase·(f−1) + (⌊id/stride⌋ mod f) − 1 of its parent.
          for (const r of recvs(s)) {
            const id = r.peer;
            expect(fnomialParent(id, f)).toBe(s.rank);
            let stride = 1;
            let phase = 0;
            while (Math.floor(id / stride) % f === 0) {
              stride *= f;
              phase++;
            }
            expect(r.round).toBe(phase);
            expect(r.region.offset / count).toBe(phase * (f - 1) + (Math.floor(id / stride) % f) - 1);
          }
        }
      }
    }
  });
});

describe('reduce/fnomial_split', () => {
  it('with s splits every rank exchanges s messages of n/2, n/4, … with partners u XOR 2^l', () => {
    const P = 16;
    const n = 64;
    for (const s of [1, 2, 3, 4]) {
      const sch = gen('reduce', 'fnomial_split', P, { count: n, params: { splits: s, f: 2 } });
      for (const r of sch) {
        const sp = sends(r, 'split');
        expect(sp.map((x) => x.region.count)).toEqual(Array.from({ length: s }, (_, l) => n >> (l + 1)));
        expect(sp.map((x) => x.peer)).toEqual(Array.from({ length: s }, (_, l) => r.rank ^ (1 << l)));
        expect(recvs(r, 'split').map((x) => x.region.count)).toEqual(sp.map((x) => x.region.count));
      }
      // The root gathers 2^s − 1 pieces of n/2^s (it keeps piece 0).
      const g = recvs(sch[0], 'gather');
      expect(g.length).toBe((1 << s) - 1);
      expect(g.every((x) => x.region.count === n >> s)).toBe(true);
      // Inside each group of P/2^s ranks: a 2-nomial (binomial) tree.
      const groupRounds = ceilLog(P >> s, 2);
      expect(rounds(sch)).toBe(s + groupRounds + (s > 0 ? 1 : 0));
    }
  });

  it('degrades to fewer splits when count or P is too small', () => {
    expect(effectiveSplits(3, 16, 2)).toBe(1);
    expect(effectiveSplits(5, 8, 1000)).toBe(3);
    expect(effectiveSplits(2, 12, 64)).toBe(2);
    expect(effectiveSplits(2, 7, 0)).toBe(0);
    const sch = gen('reduce', 'fnomial_split', 16, { count: 2, params: { splits: 3 } });
    for (const r of sch) expect(sends(r, 'split').map((x) => x.region.count)).toEqual([1]);
  });

  it('non-powers of two fold odd virtual ranks into their even neighbours first', () => {
    const P = 12; // rem = 4
    const sch = gen('reduce', 'fnomial_split', P, { count: 16, params: { splits: 2 } });
    for (const r of sch) {
      const fold = sends(r, 'fold');
      if (r.rank < 8 && r.rank % 2 === 1) expect(fold.map((x) => [x.peer, x.region.count])).toEqual([[r.rank - 1, 16]]);
      else expect(fold.length).toBe(0);
    }
  });
});

describe('reduce/rabenseifner', () => {
  it('P = 2^k: lg P halving messages of n/2, n/4, …, a binomial gather, 2 lg P rounds', () => {
    for (const P of [2, 4, 8, 32]) {
      const n = 4 * P;
      const sch = gen('reduce', 'rabenseifner', P, { count: n, root: 1 });
      expect(rounds(sch)).toBe(2 * Math.log2(P));
      for (const r of sch) {
        const hv = sends(r, 'reduce-scatter');
        expect(hv.map((x) => x.region.count)).toEqual(Array.from({ length: Math.log2(P) }, (_, l) => n >> (l + 1)));
      }
      const g = recvs(sch[1], 'gather');
      expect(g.length).toBe(Math.log2(P));
      expect(g.reduce((a, x) => a + x.region.count, 0)).toBe(n - n / P);
    }
  });

  it('count < P works with empty blocks', () => {
    const sch = gen('reduce', 'rabenseifner', 20, { count: 3, root: 7 });
    expect(rounds(sch)).toBe(2 * 4 + 1);
  });
});

describe('reduce_scatter', () => {
  it('recursive_halving, P = 2^k: lg P messages per rank, (P−1)/P·n elements in total per rank', () => {
    for (const P of [2, 4, 8, 16, 64]) {
      const count = 3;
      const n = count * P;
      const sch = gen('reduce_scatter', 'recursive_halving', P, { count });
      expect(rounds(sch)).toBe(Math.log2(P));
      for (const r of sch) {
        const s = sends(r);
        expect(s.length).toBe(ceilLog(P));
        expect(s.map((x) => x.region.count)).toEqual(Array.from({ length: Math.log2(P) }, (_, l) => n >> (l + 1)));
        expect(s.reduce((a, x) => a + x.region.count, 0)).toBe(((P - 1) / P) * n);
      }
    }
  });

  it('recursive_halving, P ≠ 2^k: fold, ⌊lg P⌋ halving steps, hand-back', () => {
    const P = 6; // rem = 2
    const sch = gen('reduce_scatter', 'recursive_halving', P, { count: 2 });
    expect(rounds(sch)).toBe(2 + 2);
    expect(sends(sch[0]).length).toBe(1); // folded out
    expect(sends(sch[1]).length).toBe(2 + 1);
    expect(sends(sch[5]).length).toBe(2);
  });

  it('pairwise: P−1 messages of one block per rank to rank + i in round i−1', () => {
    for (const P of [1, 2, 5, 12]) {
      const sch = gen('reduce_scatter', 'pairwise', P, { count: 4, commutative: false });
      expect(rounds(sch)).toBe(atLeast1(P - 1));
      for (const r of sch) {
        const s = sends(r);
        expect(s.map((x) => x.peer)).toEqual(Array.from({ length: P - 1 }, (_, i) => (r.rank + i + 1) % P));
        expect(s.map((x) => x.round)).toEqual(Array.from({ length: P - 1 }, (_, i) => i));
        expect(s.every((x) => x.region.count === 4)).toBe(true);
        expect(r.steps.filter((x) => x.kind === 'reduce').length).toBe(P - 1);
      }
    }
  });
});

describe('gather and scatter', () => {
  it('binomial: ⌈lg P⌉ rounds, P−1 messages, the root moves (P−1)·count elements in ⌈lg P⌉ messages', () => {
    for (const P of [1, 2, 3, 8, 13, 32]) {
      for (const root of [0, P - 1]) {
        const count = 2;
        const g = gen('gather', 'binomial', P, { count, root });
        const s = gen('scatter', 'binomial', P, { count, root });
        for (const [sch, rootMsgs] of [
          [g, recvs(g[root])],
          [s, sends(s[root])],
        ] as const) {
          expect(rounds(sch)).toBe(atLeast1(ceilLog(P)));
          expect(totalMessages(sch)).toBe(P - 1);
          expect(rootMsgs.length).toBe(ceilLog(P));
          expect(rootMsgs.reduce((a, x) => a + x.region.count, 0)).toBe((P - 1) * count);
        }
      }
    }
  });

  it('linear: the root exchanges P−1 messages in one round', () => {
    const P = 9;
    const g = gen('gather', 'linear', P, { count: 2, root: 4 });
    const s = gen('scatter', 'linear', P, { count: 2, root: 4 });
    expect(recvs(g[4]).length).toBe(P - 1);
    expect(sends(s[4]).length).toBe(P - 1);
    expect(rounds(g)).toBe(1);
    expect(rounds(s)).toBe(1);
  });
});
