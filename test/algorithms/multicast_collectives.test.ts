/**
 * allgather/multicast and barrier/multicast (seed 003 ch. 5: allgather as concurrent
 * broadcasts, the barrier's release over the multicast): against the sequential
 * reference on many node placements, their exact multicast groups (who multicasts
 * what to whom), the barrier's synchronisation (every rank's exit follows every rank's
 * entry), no multicast on a single node, and the selection never choosing them.
 */
import { describe, expect, it } from 'vitest';
import { generateSchedule, listAlgorithms } from '../../src/algorithms/registry.js';
import { multicastAllgatherBcastRound } from '../../src/algorithms/allgather/multicast.js';
import { multicastBarrierReleaseRound } from '../../src/algorithms/barrier/multicast.js';
import { compileSchedule } from '../../src/exec/compiled.js';
import { selectAlgorithm } from '../../src/exec/selection.js';
import { topologyFromNodes, type Topology } from '../../src/schedule/topology.js';
import type { CollectiveKind, RankSchedule, Schedule, SendStep } from '../../src/schedule/types.js';
import { runCase } from '../helpers/harness.js';
import { placements } from '../helpers/placements.js';

/** Every rank on a node of its own, one node, block and cyclic placements, and seeded random uneven placements. */
const topologies = (P: number): Topology[] => placements(P, 11);

const lg = (n: number): number => (n <= 1 ? 0 : Math.ceil(Math.log2(n) - 1e-12));
const sends = (r: RankSchedule): SendStep[] => r.steps.filter((st): st is SendStep => st.kind === 'send');
const rounds = (s: Schedule): number => Math.max(0, ...s.map((r) => r.rounds));
const leaders = (t: Topology): number[] => Array.from({ length: t.nodeCount }, (_, n) => t.ranksOn(n)[0]).sort((a, b) => a - b);
/** The multicast groups of a rank as the executor forms them: [peers, region, deps] per group, in step order. */
function groups(r: RankSchedule): { peers: number[]; region: SendStep['region']; deps: readonly number[]; round: number }[] {
  return compileSchedule(r).mcastMembers.map((m) => {
    const st = Array.from(m).map((i) => r.steps[i] as SendStep);
    return { peers: st.map((s) => s.peer), region: st[0].region, deps: st[0].deps, round: st[0].round };
  });
}

/**
 * Which ranks' entries precede each rank's exit: a step is preceded by its rank's entry,
 * by its dependencies, and (a receive) by the matching send (the k-th send a→b matches
 * the k-th receive at b from a). Returns, per rank, the ranks whose entry precedes one
 * of its steps.
 */
function heardFrom(s: Schedule): Set<number>[] {
  const P = s.length;
  const sets = s.map((r, rank) => r.steps.map(() => new Set<number>([rank])));
  const sendOf = new Map<string, [number, number]>();
  const recvKey: (string | undefined)[][] = s.map((r) => r.steps.map(() => undefined));
  s.forEach((r, rank) => {
    const nSend = new Map<number, number>();
    const nRecv = new Map<number, number>();
    r.steps.forEach((st, i) => {
      if (st.kind === 'send') {
        const k = nSend.get(st.peer) ?? 0;
        nSend.set(st.peer, k + 1);
        sendOf.set(`${rank}>${st.peer}#${k}`, [rank, i]);
      } else if (st.kind === 'recv') {
        const k = nRecv.get(st.peer) ?? 0;
        nRecv.set(st.peer, k + 1);
        recvKey[rank][i] = `${st.peer}>${rank}#${k}`;
      }
    });
  });
  for (let changed = true; changed; ) {
    changed = false;
    s.forEach((r, rank) =>
      r.steps.forEach((st, i) => {
        const mine = sets[rank][i];
        const before = mine.size;
        for (const d of st.deps) for (const x of sets[rank][d]) mine.add(x);
        const key = recvKey[rank][i];
        if (key !== undefined) {
          const m = sendOf.get(key);
          expect(m, `rank ${rank} step ${i}: no matching send`).toBeDefined();
          if (m) for (const x of sets[m[0]][m[1]]) mine.add(x);
        }
        if (mine.size !== before) changed = true;
      }),
    );
  }
  return Array.from({ length: P }, (_, rank) => {
    const all = new Set<number>([rank]);
    for (const set of sets[rank]) for (const x of set) all.add(x);
    return all;
  });
}

describe('allgather/multicast (concurrent multicasts, seed 003 ch. 5)', () => {
  it('matches the reference for P = 1..24 on every placement, counts 0, 1, 7 (and random delivery orders)', () => {
    let ran = 0;
    for (let P = 1; P <= 24; P++) {
      for (const topology of topologies(P)) {
        for (const count of [0, 1, 7]) {
          runCase({ collective: 'allgather', algorithm: 'multicast', size: P, count, topology });
          ran++;
        }
        for (const seed of [1, 2, 3]) runCase({ collective: 'allgather', algorithm: 'multicast', size: P, count: 5, topology, order: 'random', seed: P * 31 + seed });
      }
    }
    expect(ran).toBeGreaterThan(500);
  });

  it("each leader: one multicast group per block of its node, to every other leader, after only that block; nothing else crosses nodes", () => {
    for (const P of [1, 2, 3, 5, 8, 13, 24]) {
      for (const t of topologies(P)) {
        const count = 3;
        const s = generateSchedule('allgather', 'multicast', { size: P, count, topology: t });
        const N = t.nodeCount;
        const label = `P=${P} ${t.label}`;
        const ls = leaders(t);
        s.forEach((r, rank) => {
          const node = t.nodeOf(rank);
          const members = t.ranksOn(node);
          const g = groups(r);
          if (rank !== members[0] || N === 1) {
            expect(g, `${label} rank ${rank}`).toEqual([]);
          } else {
            const others = ls.filter((l) => l !== rank);
            expect(g.map((x) => x.peers), `${label} rank ${rank}`).toEqual(members.map(() => others));
            expect(g.map((x) => x.region), `${label} rank ${rank}`).toEqual(members.map((m) => ({ buf: 1, offset: m * count, count })));
            g.forEach((x, j) => {
              // The one step it waits for writes block j: the leader's own copy, or the receive from member j.
              expect(x.deps.length, label).toBe(1);
              const d = r.steps[x.deps[0]];
              if (j === 0) expect(d.kind, label).toBe('copy');
              else expect(d.kind === 'recv' && d.peer === members[j], `${label} rank ${rank} block ${j}`).toBe(true);
              expect(x.round, label).toBe(j);
            });
            // The other nodes' blocks: the j-th block of a node as the j-th message from its leader.
            for (const l of others) {
              const got = r.steps.filter((st) => st.kind === 'recv' && st.peer === l);
              expect(got.map((st) => (st.kind === 'recv' ? st.region.offset / count : -1)), label).toEqual([...t.ranksOn(t.nodeOf(l))]);
            }
          }
          // Every ordinary send stays inside the node.
          for (const st of sends(r)) if (!st.multicast) expect(t.nodeOf(st.peer), `${label} rank ${rank}`).toBe(node);
        });
        if (P > 1) expect(rounds(s), label).toBe(multicastAllgatherBcastRound(t) + lg(t.maxPpn));
        expect(multicastAllgatherBcastRound(t)).toBe(N > 1 ? t.maxPpn : t.maxPpn - 1);
      }
    }
  });

  it('on a single node: the gather and the node broadcast alone, no multicast-marked send', () => {
    for (const P of [1, 2, 5, 8]) {
      const t = topologyFromNodes(new Array<number>(P).fill(0), 'one node');
      const s = generateSchedule('allgather', 'multicast', { size: P, count: 2, topology: t });
      for (const r of s) {
        expect(sends(r).some((st) => st.multicast)).toBe(false);
        expect(compileSchedule(r).mcastGroup).toBeUndefined();
      }
      // P − 1 blocks in, the result out to P − 1 ranks.
      expect(s.reduce((n, r) => n + sends(r).length, 0)).toBe(2 * (P - 1));
    }
  });
});

describe('barrier/multicast (multicast release, seed 003 ch. 5)', () => {
  it('matches the reference for P = 1..24 on every placement (and random delivery orders)', () => {
    let ran = 0;
    for (let P = 1; P <= 24; P++) {
      for (const topology of topologies(P)) {
        runCase({ collective: 'barrier', algorithm: 'multicast', size: P, count: 0, topology });
        runCase({ collective: 'barrier', algorithm: 'multicast', size: P, count: 0, topology, order: 'random', seed: P * 7 + 1 });
        ran++;
      }
    }
    expect(ran).toBeGreaterThan(200);
  });

  it("synchronises: every rank's exit follows every rank's entry (checked to catch a broken barrier: linear minus a signal fails)", () => {
    for (let P = 1; P <= 24; P++) {
      for (const t of topologies(P)) {
        const heard = heardFrom(generateSchedule('barrier', 'multicast', { size: P, count: 0, topology: t }));
        heard.forEach((h, rank) => expect(h.size, `P=${P} ${t.label} rank ${rank}`).toBe(P));
      }
    }
    // The check itself: drop rank P−1's signal from the linear barrier, and rank 0 never hears from it.
    const s = generateSchedule('barrier', 'linear', { size: 4, count: 0 });
    const broken = s.map((r) => (r.rank === 3 ? { ...r, steps: [r.steps[1]].map((st) => ({ ...st, deps: [] })) } : r.rank === 0 ? { ...r, steps: r.steps.filter((st) => !(st.kind === 'recv' && st.peer === 3)).map((st) => ({ ...st, deps: st.deps.filter((d) => d < 2) })) } : r));
    expect(heardFrom(broken)[0].has(3)).toBe(false);
  });

  it('one zero-byte multicast group, at rank 0, to every other leader in ascending order, after its whole fan-in; 2(P − 1) messages', () => {
    for (let P = 1; P <= 24; P++) {
      for (const t of topologies(P)) {
        const s = generateSchedule('barrier', 'multicast', { size: P, count: 0, topology: t });
        const N = t.nodeCount;
        const label = `P=${P} ${t.label}`;
        const others = leaders(t).filter((l) => l !== 0);
        const R1 = lg(t.maxPpn);
        s.forEach((r, rank) => {
          const g = groups(r);
          if (rank !== 0 || N === 1) {
            expect(g, `${label} rank ${rank}`).toEqual([]);
            return;
          }
          expect(g.map((x) => x.peers), label).toEqual([others]);
          expect(g[0].region, label).toEqual({ buf: 0, offset: 0, count: 0 });
          expect(g[0].round, label).toBe(R1 + lg(N));
          // After every receive of rank 0 (its fan-in, inside the node and from the leaders).
          const recvIds = r.steps.flatMap((st, i) => (st.kind === 'recv' ? [i] : []));
          expect([...g[0].deps].sort((a, b) => a - b), label).toEqual(recvIds);
        });
        s.forEach((r, rank) => {
          for (const st of sends(r)) {
            if (st.multicast) continue;
            // Across nodes only the leaders' fan-in, from leader to leader.
            if (t.nodeOf(st.peer) !== t.nodeOf(rank)) expect(t.localRank(rank) === 0 && t.localRank(st.peer) === 0, `${label} rank ${rank}`).toBe(true);
          }
          for (const st of r.steps) if (st.kind === 'send' || st.kind === 'recv') expect(st.region.count, label).toBe(0);
        });
        expect(s.reduce((n, r) => n + sends(r).length, 0), label).toBe(2 * (P - 1));
        expect(rounds(s), label).toBe(P > 1 ? multicastBarrierReleaseRound(t) + R1 : 0);
        expect(multicastBarrierReleaseRound(t), label).toBe(N > 1 ? R1 + lg(N) + 1 : R1);
      }
    }
  });

  it('on a single node: the node fan-in and release alone, no multicast-marked send', () => {
    for (const P of [1, 2, 5, 8]) {
      const t = topologyFromNodes(new Array<number>(P).fill(0), 'one node');
      const s = generateSchedule('barrier', 'multicast', { size: P, count: 0, topology: t });
      for (const r of s) {
        expect(sends(r).some((st) => st.multicast)).toBe(false);
        expect(compileSchedule(r).mcastGroup).toBeUndefined();
      }
      expect(rounds(s)).toBe(2 * lg(P));
    }
  });
});

describe('the multicast schedules are only ever named', () => {
  it('listed after the existing algorithms of their collective (the catalogue fallback takes those first)', () => {
    for (const c of ['barrier', 'allgather', 'bcast'] as const) {
      const names = listAlgorithms(c).map((a) => a.name);
      expect(names.at(-1), c).toBe('multicast');
      expect(names.filter((n) => n === 'multicast').length).toBe(1);
    }
  });

  it('the built-in selection never picks them (any P, placement and size)', () => {
    for (const collective of ['barrier', 'allgather', 'bcast'] as CollectiveKind[]) {
      for (let P = 1; P <= 13; P++) {
        for (const topology of topologies(P)) {
          for (const count of [0, 1, 100, 1 << 17, 1 << 20]) {
            const q = { collective, size: P, count, root: P - 1, commutative: true, elementSize: 8, topology, datatype: 'float64', op: 'sum', bytes: count * 8 };
            expect(selectAlgorithm(q).spec.name, `${collective} P=${P} ${topology.label} count=${count}`).not.toBe('multicast');
          }
        }
      }
    }
  });
});
