/**
 * Closed-form checks of the barrier and broadcast algorithms, computed directly
 * from their (validated) schedules: rounds, messages per rank, tree shapes and the
 * postal-model completion time; bcast/multicast also against the sequential
 * reference on many node placements (the catalogue test covers it too).
 */
import { describe, expect, it } from 'vitest';
import { generateSchedule } from '../../src/algorithms/registry.js';
import type { ParamValue } from '../../src/schedule/context.js';
import { describeStep, type CollectiveKind, type RankSchedule, type RecvStep, type Schedule, type SendStep } from '../../src/schedule/types.js';
import { multicastRounds } from '../../src/algorithms/bcast/multicast.js';
import { compileSchedule } from '../../src/exec/compiled.js';
import { ScheduleBuilder } from '../../src/schedule/builder.js';
import { makeContext } from '../../src/schedule/context.js';
import { topologyFromNodes, type Topology } from '../../src/schedule/topology.js';
import { runCase } from '../helpers/harness.js';
import { placements } from '../helpers/placements.js';

const ceilLogK = (P: number, k: number): number => {
  let L = 0;
  for (let s = 1; s < P; s *= k) L++;
  return L;
};
const lg = (P: number): number => ceilLogK(P, 2);
const isPow2 = (P: number): boolean => (P & (P - 1)) === 0;

function gen(
  collective: CollectiveKind,
  name: string,
  P: number,
  o: { count?: number; root?: number; params?: Record<string, ParamValue> } = {},
): Schedule {
  return generateSchedule(collective, name, { size: P, count: o.count ?? 0, root: o.root ?? 0, params: o.params });
}
const rounds = (s: Schedule): number => Math.max(0, ...s.map((r) => r.steps.reduce((m, st) => Math.max(m, st.round + 1), 0)));
const sends = (r: RankSchedule): SendStep[] => r.steps.filter((st): st is SendStep => st.kind === 'send');
const recvs = (r: RankSchedule): RecvStep[] => r.steps.filter((st): st is RecvStep => st.kind === 'recv');
const totalSends = (s: Schedule): number => s.reduce((n, r) => n + sends(r).length, 0);
/** Parent of every rank in a tree broadcast: the peer of its only receive (−1 at the root). */
function parents(s: Schedule): number[] {
  return s.map((r) => {
    const rs = recvs(r);
    expect(rs.length).toBeLessThanOrEqual(1);
    return rs.length ? rs[0].peer : -1;
  });
}
/** Postal model: N(t) = 1 for t < λ, N(t−1) + N(t−λ) otherwise; T = min{t : N(t) ≥ P}. */
function postalT(P: number, lambda: number): number {
  const N: number[] = [];
  for (let t = 0; ; t++) {
    N.push(t < lambda ? 1 : N[t - 1] + N[t - lambda]);
    if (N[t] >= P) return t;
  }
}

const PS = [...Array.from({ length: 40 }, (_, i) => i + 1), 63, 64, 65, 100, 127, 128, 129];
/** A lighter set for the costlier checks. */
const PS_SMALL = [...Array.from({ length: 17 }, (_, i) => i + 1), 27, 31, 32, 33, 64, 100, 129];

describe('barrier', () => {
  it('dissemination: ⌈lg P⌉ rounds, one send per rank per round', () => {
    for (const P of PS) {
      const s = gen('barrier', 'dissemination', P);
      expect(rounds(s)).toBe(lg(P));
      for (const r of s) expect(sends(r).length).toBe(lg(P));
    }
  });

  it('pairwise_exchange: lg P rounds for powers of two, ⌊lg P⌋ + 2 otherwise (extra signal + release)', () => {
    for (const P of PS) {
      const s = gen('barrier', 'pairwise_exchange', P);
      const p2 = 2 ** Math.floor(Math.log2(P));
      const m = Math.log2(p2);
      const rem = P - p2;
      expect(rounds(s)).toBe(isPow2(P) ? m : m + 2);
      if (!isPow2(P)) expect(rounds(s)).toBe(lg(P) + 1);
      s.forEach((r, rank) => {
        const want = rank >= p2 ? 1 : rank < rem ? m + 1 : m;
        expect(sends(r).length).toBe(want);
        expect(recvs(r).length).toBe(want);
      });
      expect(totalSends(s)).toBe(p2 * m + 2 * rem);
    }
  });

  it('kary_tree: 2(P−1) messages, rounds (2D−1)·k + c for depth D', () => {
    for (const k of [2, 3, 4, 7]) {
      for (const P of PS) {
        const s = gen('barrier', 'kary_tree', P, { params: { k } });
        expect(totalSends(s)).toBe(2 * (P - 1));
        if (P === 1) {
          expect(rounds(s)).toBe(0);
          continue;
        }
        // Depth of the heap and the children c of the first rank at depth D − 1.
        let D = 0;
        let first = 0; // first heap index at depth D
        while (first * k + 1 < P) {
          first = first * k + 1;
          D++;
        }
        const prevFirst = (first - 1) / k;
        const c = Math.min(k, P - 1 - k * prevFirst);
        expect(rounds(s)).toBe((2 * D - 1) * k + c);
        s.forEach((r, rank) => expect(sends(r).length).toBe((rank === 0 ? 0 : 1) + Math.max(0, Math.min(k, P - 1 - k * rank))));
      }
    }
  });

  it('linear: rank 0 gets P−1 signals and sends P−1 releases; 2(P−1) rounds', () => {
    for (const P of PS) {
      const s = gen('barrier', 'linear', P);
      expect(rounds(s)).toBe(2 * (P - 1));
      expect(sends(s[0]).length).toBe(P - 1);
      expect(recvs(s[0]).length).toBe(P - 1);
      for (let r = 1; r < P; r++) expect(sends(s[r]).length).toBe(1);
    }
  });
});

describe('bcast', () => {
  it('binomial: ⌈lg P⌉ rounds; every non-root receives once', () => {
    for (const P of PS) {
      const s = gen('bcast', 'binomial', P, { count: 3, root: P - 1 });
      expect(rounds(s)).toBe(lg(P));
      expect(totalSends(s)).toBe(P - 1);
    }
  });

  it('knomial: (⌈log_k P⌉ − 1)(k − 1) + min(k − 1, P − 1) rounds (= ⌈log_k P⌉·(k − 1) for P ≥ k); k = 2 is binomial', () => {
    for (const k of [2, 3, 4, 5, 8]) {
      for (const P of PS) {
        const root = P >> 1;
        const s = gen('bcast', 'knomial', P, { count: 2, root, params: { k } });
        const L = ceilLogK(P, k);
        const want = P === 1 ? 0 : (L - 1) * (k - 1) + Math.min(k - 1, P - 1);
        expect(rounds(s)).toBe(want);
        if (P >= k) expect(rounds(s)).toBe(L * (k - 1));
        expect(totalSends(s)).toBe(P - 1);
        // The root sends (k−1) per stage, cut short at P.
        let rootSends = 0;
        for (let st = 1; st < P; st *= k) for (let j = 1; j < k && j * st < P; j++) rootSends++;
        expect(sends(s[root]).length).toBe(rootSends);
        if (k === 2) expect(parents(s)).toEqual(parents(gen('bcast', 'binomial', P, { count: 2, root })));
      }
    }
  });

  it('kary: heap tree, (D−1)·k + c rounds; k = 1 is a chain of P−1 rounds', () => {
    for (const k of [1, 2, 3, 4]) {
      for (const P of PS) {
        const root = P - 1;
        const s = gen('bcast', 'kary', P, { count: 1, root, params: { k } });
        const par = parents(s);
        s.forEach((_, rank) => {
          const v = (rank - root + P) % P;
          expect(par[rank]).toBe(v === 0 ? -1 : (Math.floor((v - 1) / k) + root) % P);
        });
        if (P === 1) continue;
        if (k === 1) {
          expect(rounds(s)).toBe(P - 1);
          continue;
        }
        let D = 0;
        let first = 0;
        while (first * k + 1 < P) {
          first = first * k + 1;
          D++;
        }
        const prevFirst = (first - 1) / k;
        expect(rounds(s)).toBe((D - 1) * k + Math.min(k, P - 1 - k * prevFirst));
      }
    }
  });

  it('postal: λ = 1 builds the binomial tree; completion time is min{t : N(t) ≥ P}; ID-ordered', () => {
    for (const P of PS_SMALL) {
      for (const root of [0, P >> 1, P - 1]) {
        const s1 = gen('bcast', 'postal', P, { count: 2, root, params: { lambda: 1 } });
        expect(parents(s1)).toEqual(parents(gen('bcast', 'binomial', P, { count: 2, root })));
        expect(rounds(s1)).toBe(lg(P));
      }
      for (const lambda of [1, 2, 3, 4, 7, 50]) {
        const root = P >> 2;
        const s = gen('bcast', 'postal', P, { count: 1, root, params: { lambda } });
        const v = (r: number): number => (r - root + P) % P;
        // Time each rank is informed: its receive's send time + λ (the root at 0).
        const informed = s.map((r) => {
          const rs = recvs(r);
          return rs.length ? rs[0].round + lambda : 0;
        });
        expect(Math.max(...informed)).toBe(postalT(P, lambda));
        s.forEach((r, rank) => {
          // Sends start when the rank is informed and go out one per time unit.
          sends(r).forEach((st, i) => {
            expect(st.round).toBe(informed[rank] + i);
            expect(v(st.peer)).toBeGreaterThan(v(rank));
          });
        });
        expect(totalSends(s)).toBe(P - 1);
      }
    }
  });

  it('chain: P − 2 + S rounds for S segments; each rank but the last forwards S segments', () => {
    for (const P of PS_SMALL.filter((p) => p >= 2)) {
      for (const [count, segment] of [[1, 1], [7, 1], [7, 2], [64, 5], [100, 100], [1000, 64]]) {
        const root = P >> 1;
        const s = gen('bcast', 'chain', P, { count, root, params: { segment } });
        const S = Math.ceil(count / segment);
        expect(rounds(s)).toBe(P - 2 + S);
        s.forEach((r, rank) => {
          const v = (rank - root + P) % P;
          expect(sends(r).length).toBe(v === P - 1 ? 0 : S);
          expect(recvs(r).length).toBe(v === 0 ? 0 : S);
        });
      }
    }
    expect(rounds(gen('bcast', 'chain', 5, { count: 0, params: { segment: 3 } }))).toBe(0);
  });

  it('scatter_allgather: ⌈lg P⌉ + P − 1 rounds; scatter hands each subtree its blocks, the ring every foreign block once', () => {
    for (const P of PS_SMALL.filter((p) => p <= 64)) {
      const count = 3 * P + 1;
      const root = 1 % P;
      const s = gen('bcast', 'scatter_allgather', P, { count, root });
      expect(rounds(s)).toBe(P === 1 ? 0 : lg(P) + P - 1);
      // Scatter: P − 1 messages overall; ring: P − 1 messages per rank.
      expect(totalSends(s)).toBe(P === 1 ? 0 : P * (P - 1) + (P - 1));
      const base = Math.floor(count / P);
      const blk = (i: number): number => base + (i < count % P ? 1 : 0);
      s.forEach((r, rank) => {
        const v = (rank - root + P) % P;
        const got = (phase: string): number => recvs(r).filter((st) => st.phase === phase).reduce((n, st) => n + st.region.count, 0);
        expect(got('allgather')).toBe(count - blk(v));
        // The binomial subtree of v ≠ 0 is [v, min(v + lowbit(v), P)).
        let sub = 0;
        if (v !== 0) for (let i = v; i < Math.min(v + (v & -v), P); i++) sub += blk(i);
        expect(got('scatter')).toBe(sub);
      });
    }
  });

  it('linear: the root sends P − 1 messages, every other rank receives one', () => {
    for (const P of PS) {
      const root = P - 1;
      const s = gen('bcast', 'linear', P, { count: 4, root });
      expect(sends(s[root]).length).toBe(P - 1);
      expect(rounds(s)).toBe(P - 1);
      s.forEach((r, rank) => {
        if (rank !== root) {
          expect(sends(r).length).toBe(0);
          expect(recvs(r).length).toBe(1);
        }
      });
    }
  });
});

describe('bcast/multicast (SMP broadcast over a multicast, seed 003 B11)', () => {
  /** Every rank on a node of its own, one node, block and cyclic placements, and seeded random uneven placements. */
  const topologies = (P: number): Topology[] => placements(P, 5);
  const leaderOf = (t: Topology, root: number, node: number): number => (node === t.nodeOf(root) ? root : t.ranksOn(node)[0]);

  it('matches the reference for P = 1..24 on every placement, every root, counts 0, 1, 7 (and random delivery orders)', () => {
    let ran = 0;
    for (let P = 1; P <= 24; P++) {
      for (const topology of topologies(P)) {
        for (let root = 0; root < P; root++) {
          for (const count of [0, 1, 7]) {
            runCase({ collective: 'bcast', algorithm: 'multicast', size: P, count, root, topology });
            ran++;
          }
          runCase({ collective: 'bcast', algorithm: 'multicast', size: P, count: 5, root, topology, order: 'random', seed: P * 31 + root });
        }
      }
    }
    expect(ran).toBeGreaterThan(4000);
  });

  it('one multicast group, at the root, to the other nodes\' leaders in ascending order; a tree of P − 1 messages; 1 + ⌈lg ppn⌉ rounds', () => {
    for (const P of [1, 2, 3, 5, 8, 13, 24]) {
      for (const t of topologies(P)) {
        for (const root of new Set([0, Math.floor(P / 2), P - 1])) {
          const s = generateSchedule('bcast', 'multicast', { size: P, count: 3, root, topology: t });
          const N = t.nodeCount;
          const label = `P=${P} root=${root} ${t.label}`;
          const targets = Array.from({ length: N }, (_, n) => n).filter((n) => n !== t.nodeOf(root)).map((n) => t.ranksOn(n)[0]).sort((a, b) => a - b);
          const marked = sends(s[root]).filter((st) => st.multicast);
          expect(marked.map((st) => st.peer), label).toEqual(targets);
          for (const st of marked) {
            expect(st.deps, label).toEqual([]);
            expect(st.round, label).toBe(0);
            expect(st.region, label).toEqual({ buf: 1, offset: 0, count: 3 });
          }
          // The root's node broadcast does not wait for the multicast.
          for (const st of sends(s[root])) expect(st.deps, label).toEqual([]);
          const groups = compileSchedule(s[root]).mcastMembers;
          expect(groups.length, label).toBe(N > 1 ? 1 : 0);
          if (N > 1) expect(Array.from(groups[0]).map((i) => (s[root].steps[i] as SendStep).peer), label).toEqual(targets);
          s.forEach((r, rank) => {
            if (rank !== root) expect(sends(r).some((st) => st.multicast), `${label} rank ${rank}`).toBe(false);
          });
          // A tree: every non-root receives once, leaders from the root, the others inside their node.
          expect(totalSends(s), label).toBe(P - 1);
          parents(s).forEach((p, rank) => {
            const node = t.nodeOf(rank);
            if (rank === root) expect(p).toBe(-1);
            else if (rank === leaderOf(t, root, node)) expect(p, `${label} rank ${rank}`).toBe(root);
            else expect(t.nodeOf(p), `${label} rank ${rank}`).toBe(node);
          });
          expect(rounds(s), label).toBe(multicastRounds(t));
          expect(multicastRounds(t)).toBe((N > 1 ? 1 : 0) + lg(t.maxPpn));
        }
      }
    }
  });

  it('on a single node it is the node broadcast alone: no multicast-marked send', () => {
    for (const P of [1, 2, 5, 8]) {
      const t = topologyFromNodes(new Array<number>(P).fill(0), 'one node');
      for (let root = 0; root < P; root++) {
        const s = generateSchedule('bcast', 'multicast', { size: P, count: 2, root, topology: t });
        for (const r of s) {
          expect(sends(r).some((st) => st.multicast)).toBe(false);
          expect(compileSchedule(r).mcastGroup).toBeUndefined();
        }
        expect(rounds(s)).toBe(lg(P));
      }
    }
  });

  it('the builder marks multicast sends, embed keeps the mark, and describeStep shows it', () => {
    const ctx = makeContext('bcast', { rank: 0, size: 4, count: 2 });
    const b = new ScheduleBuilder(ctx, 'x');
    const ids = b.multicast([1, 2], b.out(0, 2));
    b.send(3, b.out(0, 2));
    const sub = b.build();
    expect(ids).toEqual([0, 1]);
    expect(sub.steps.map((st) => (st as SendStep).multicast)).toEqual([true, true, undefined]);
    expect(describeStep(sub.steps[0])).toBe('send b1[0..2) -> 1 (multicast)');
    const outer = new ScheduleBuilder(ctx, 'y');
    outer.embed(sub, { peer: (r) => r, output: { buf: 1, offset: 0 } });
    expect(outer.build().steps.map((st) => (st as SendStep).multicast)).toEqual([true, true, undefined]);
  });
});
