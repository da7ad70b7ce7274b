/**
 * The runtime executor running allgather/multicast and barrier/multicast on an
 * in-memory fake transport (test/helpers/fake-multicast-world.ts, as multicast.test.ts):
 * each marked group goes out as ONE `Endpoint.imcast` to the other leaders' world ranks
 * when the endpoint has one (every leader one per block of its node for allgather,
 * rank 0 one zero-byte release for barrier), and as ordinary sends when it has none or
 * declines; the results are the same either way, and no rank leaves the barrier before
 * every rank has entered it.
 */
import { describe, expect, it } from 'vitest';
import { getAlgorithm, generateRankSchedule } from '../../src/algorithms/registry.js';
import { compileSchedule } from '../../src/exec/compiled.js';
import { Execution } from '../../src/exec/executor.js';
import { flatTopology, nodeTopology, topologyFromNodes, type Topology } from '../../src/schedule/topology.js';
import { FakeWorld, type ImcastCall, type ImcastMode } from '../helpers/fake-multicast-world.js';

const ES = 4;
/** World rank of communicator rank r (not the identity, to check the mapping). */
const worldRank = (P: number, r: number): number => 2 * (P - 1 - r) + 1;
const commRank = (P: number, w: number): number => P - 1 - (w - 1) / 2;
/** Rank r's allgather input: count elements of 4 bytes, distinct per rank and position. */
const input = (r: number, count: number): Uint8Array => Uint8Array.from({ length: count * ES }, (_, i) => (r * 37 + i * 5 + 1) & 255);

interface RunResult {
  outs: Uint8Array[];
  world: FakeWorld;
  errors: (Error | undefined)[];
  exs: Execution[];
  /** Rounds of progress() + advance() over all ranks until every execution was done (after the held rank started). */
  iterations: number;
}

/**
 * Executions of `collective`/`algorithm` on P communicator ranks over the fake world,
 * started in the order of `startOrder` (default: all at once), every rank driven in
 * turn until all are done (or `maxIterations` ran).
 */
function run(
  collective: 'allgather' | 'barrier',
  algorithm: string,
  t: Topology,
  count: number,
  mode: ImcastMode,
  o: { hold?: number; holdIterations?: number } = {},
): RunResult {
  const P = t.size;
  const worldOf = Int32Array.from({ length: P }, (_, r) => worldRank(P, r));
  const world = new FakeWorld(2 * P + 1, mode);
  const spec = getAlgorithm(collective, algorithm);
  const outs: Uint8Array[] = [];
  const exs = Array.from({ length: P }, (_, r) => {
    const cs = compileSchedule(generateRankSchedule(spec, r, { size: P, count, topology: t, elementSize: ES }));
    const n = collective === 'allgather' ? count : 0;
    const out = new Uint8Array(collective === 'allgather' ? P * count * ES : 0);
    outs.push(out);
    const bufs = [input(r, n), out, ...cs.scratch.map((k) => new Uint8Array(k * ES))];
    return new Execution(cs, bufs, { endpoint: world.endpoints[worldOf[r]], worldOf, context: 3, seq: 9, elementSize: ES, kernel: undefined, sig: 0 });
  });
  const step = (): void =>
    exs.forEach((ex, r) => {
      world.endpoints[worldOf[r]].progress();
      ex.advance();
    });
  exs.forEach((ex, r) => {
    if (r !== o.hold) ex.start();
  });
  if (o.hold !== undefined) {
    for (let it = 0; it < (o.holdIterations ?? 50); it++) step();
    exs.forEach((ex, r) => expect(ex.done, `rank ${r} left the barrier before rank ${o.hold} entered it`).toBe(false));
    exs[o.hold].start();
  }
  let iterations = 0;
  for (; iterations < 1000 && !exs.every((e) => e.done); iterations++) step();
  expect(exs.every((e) => e.done), 'every execution finished').toBe(true);
  return { outs, world, errors: exs.map((e) => e.error), exs, iterations };
}

const CASES: Topology[] = [
  nodeTopology(8, 2, 'block'),
  nodeTopology(7, 3, 'cyclic'),
  topologyFromNodes([2, 0, 1, 0, 2, 2, 1, 0, 2], '3 nodes (2,0,1,0,2,2,1,0,2)'),
  topologyFromNodes([1, 0, 1, 1, 2], '3 nodes (1,0,1,1,2)'),
  flatTopology(5),
  topologyFromNodes([1, 0], '2 nodes (1,0)'),
  topologyFromNodes([0, 0, 0, 0], 'one node'),
  flatTopology(1),
];

const leadersOf = (t: Topology): number[] => Array.from({ length: t.nodeCount }, (_, n) => t.ranksOn(n)[0]).sort((a, b) => a - b);
const sortCalls = (c: ImcastCall[]): ImcastCall[] => [...c].sort((a, b) => a.src - b.src || a.index - b.index);

function expectGathered(r: RunResult, count: number, label: string): void {
  expect(r.errors.every((e) => e === undefined), label).toBe(true);
  const P = r.outs.length;
  const want: number[] = [];
  for (let q = 0; q < P; q++) want.push(...input(q, count));
  r.outs.forEach((o, rank) => expect(Array.from(o), `${label} rank ${rank}`).toEqual(want));
}

/** The ordinary sends that cross nodes (communicator ranks). */
function crossNodeSends(r: RunResult, t: Topology): { src: number; dst: number }[] {
  const P = t.size;
  return r.world.isends.map((s) => ({ src: commRank(P, s.src), dst: commRank(P, s.dst) })).filter((s) => t.nodeOf(s.src) !== t.nodeOf(s.dst));
}

describe('executor: allgather/multicast', () => {
  for (const t of CASES) {
    it(`${t.label}: every leader one imcast per block of its node to the other leaders (world ranks); right results`, () => {
      const P = t.size;
      const N = t.nodeCount;
      const leaders = leadersOf(t);
      for (const count of [0, 1, 13]) {
        for (const mode of ['multicast', 'sync'] as const) {
          const label = `${mode} count=${count}`;
          const r = run('allgather', 'multicast', t, count, mode);
          expectGathered(r, count, label);
          const want: ImcastCall[] = [];
          if (N > 1 && count > 0) {
            for (const l of leaders) {
              const dsts = leaders.filter((x) => x !== l).map((x) => worldRank(P, x));
              t.ranksOn(t.nodeOf(l)).forEach((_, j) => want.push({ src: worldRank(P, l), dsts, index: j, bytes: count * ES }));
            }
          }
          expect(sortCalls(r.world.imcasts), label).toEqual(sortCalls(want));
          expect(crossNodeSends(r, t), label).toEqual([]);
          // Inside each node: the blocks in, the result out.
          expect(r.world.isends.length, label).toBe(count > 0 ? 2 * (P - N) : 0);
        }
      }
    });
  }

  it('without imcast, or when the endpoint declines, the marked sends go as ordinary sends: the same results', () => {
    for (const t of CASES) {
      for (const mode of ['absent', 'decline'] as const) {
        for (const count of [0, 5]) {
          const label = `${t.label} ${mode} count=${count}`;
          const r = run('allgather', 'multicast', t, count, mode);
          expectGathered(r, count, label);
          expect(r.world.imcasts, label).toEqual([]);
          // Each leader sends its node's blocks to the N − 1 other leaders: (N − 1)·P in all.
          expect(r.world.isends.length, label).toBe(count > 0 ? 2 * (t.size - t.nodeCount) + (t.nodeCount - 1) * t.size : 0);
        }
      }
    }
  });

  it("a failed multicast fails the leader's execution", () => {
    const t = nodeTopology(4, 2, 'block');
    const P = t.size;
    const worldOf = Int32Array.from({ length: P }, (_, r) => worldRank(P, r));
    const world = new FakeWorld(2 * P + 1, 'fail');
    const cs = compileSchedule(generateRankSchedule(getAlgorithm('allgather', 'multicast'), 0, { size: P, count: 2, topology: t, elementSize: ES }));
    const ex = new Execution(cs, [input(0, 2), new Uint8Array(P * 2 * ES), ...cs.scratch.map((k) => new Uint8Array(k * ES))], { endpoint: world.endpoints[worldOf[0]], worldOf, context: 1, seq: 0, elementSize: ES, kernel: undefined });
    ex.start();
    expect(ex.done).toBe(true);
    expect(ex.error?.message).toBe('multicast path down');
  });
});

describe('executor: barrier/multicast', () => {
  for (const t of CASES) {
    it(`${t.label}: one zero-byte imcast from rank 0 to the other leaders; nobody leaves before everybody entered`, () => {
      const P = t.size;
      const others = leadersOf(t).filter((l) => l !== 0);
      for (const mode of ['multicast', 'sync'] as const) {
        const r = run('barrier', 'multicast', t, 0, mode);
        expect(r.errors.every((e) => e === undefined), mode).toBe(true);
        expect(r.world.imcasts, mode).toEqual(t.nodeCount > 1 ? [{ src: worldRank(P, 0), dsts: others.map((x) => worldRank(P, x)), index: 0, bytes: 0 }] : []);
        // Across nodes only the leaders' fan-in to rank 0 (N − 1 signals, leader to leader).
        const cross = crossNodeSends(r, t);
        expect(cross.length, mode).toBe(t.nodeCount - 1);
        for (const s of cross) expect(t.localRank(s.src) === 0 && t.localRank(s.dst) === 0 && s.src !== 0, mode).toBe(true);
        expect(r.world.isends.length, mode).toBe(2 * (P - 1) - others.length);
        // Held back for 50 iterations, a rank holds back a barrier that needs far fewer.
        expect(r.iterations, mode).toBeLessThan(25);
      }
      if (P > 1) {
        for (const hold of new Set([0, 1, P - 1, leadersOf(t).at(-1) as number])) {
          for (const mode of ['multicast', 'absent'] as const) {
            const r = run('barrier', 'multicast', t, 0, mode, { hold });
            expect(r.errors.every((e) => e === undefined), `${mode} hold ${hold}`).toBe(true);
          }
        }
      }
    });
  }

  it('without imcast, or when the endpoint declines: the release as ordinary sends from rank 0', () => {
    for (const t of CASES) {
      for (const mode of ['absent', 'decline'] as const) {
        const r = run('barrier', 'multicast', t, 0, mode);
        expect(r.errors.every((e) => e === undefined), `${t.label} ${mode}`).toBe(true);
        expect(r.world.imcasts).toEqual([]);
        expect(r.world.isends.length).toBe(2 * (t.size - 1));
      }
    }
  });
});
