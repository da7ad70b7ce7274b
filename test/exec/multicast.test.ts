/**
 * The runtime executor's multicast support, on an in-memory fake transport: a group of
 * multicast-marked sends (bcast/multicast's root) goes out as ONE `Endpoint.imcast`
 * to the leaders' world ranks when the endpoint has one, and as ordinary sends when it
 * has none or declines; the results are the root's data everywhere either way.
 */
import { describe, expect, it } from 'vitest';
import { getAlgorithm, generateRankSchedule } from '../../src/algorithms/registry.js';
import { compileSchedule } from '../../src/exec/compiled.js';
import { Execution } from '../../src/exec/executor.js';
import { flatTopology, nodeTopology, topologyFromNodes, type Topology } from '../../src/schedule/topology.js';
import { FakeWorld, type ImcastMode } from '../helpers/fake-multicast-world.js';

interface RunResult {
  outs: Uint8Array[];
  world: FakeWorld;
  errors: (Error | undefined)[];
}

/**
 * Run `algorithm` as a bcast on P communicator ranks whose world ranks are
 * worldOf[r] (not the identity, to check the mapping) over the fake world.
 */
function runBcast(algorithm: string, t: Topology, root: number, count: number, mode: ImcastMode): RunResult {
  const P = t.size;
  const worldOf = Int32Array.from({ length: P }, (_, r) => 2 * (P - 1 - r) + 1);
  const world = new FakeWorld(2 * P + 1, mode);
  const spec = getAlgorithm('bcast', algorithm);
  const es = 4;
  const outs: Uint8Array[] = [];
  const exs = Array.from({ length: P }, (_, r) => {
    const cs = compileSchedule(generateRankSchedule(spec, r, { size: P, count, root, topology: t, elementSize: es }));
    const out = new Uint8Array(count * es);
    if (r === root) for (let i = 0; i < out.length; i++) out[i] = (i * 7 + root + 1) & 255;
    outs.push(out);
    const bufs = [new Uint8Array(0), out, ...cs.scratch.map((n) => new Uint8Array(n * es))];
    return new Execution(cs, bufs, { endpoint: world.endpoints[worldOf[r]], worldOf, context: 3, seq: 9, elementSize: es, kernel: undefined, sig: 0 });
  });
  for (const ex of exs) ex.start();
  for (let it = 0; it < 1000 && !exs.every((e) => e.done); it++) {
    exs.forEach((ex, r) => {
      world.endpoints[worldOf[r]].progress();
      ex.advance();
    });
  }
  expect(exs.every((e) => e.done), 'every execution finished').toBe(true);
  return { outs, world, errors: exs.map((e) => e.error) };
}

const CASES: { t: Topology; roots: number[] }[] = [
  { t: nodeTopology(8, 2, 'block'), roots: [0, 5, 7] },
  { t: nodeTopology(7, 3, 'cyclic'), roots: [0, 4, 6] },
  { t: topologyFromNodes([2, 0, 1, 0, 2, 2, 1, 0, 2]), roots: [0, 3, 8] },
  { t: flatTopology(5), roots: [0, 2] },
  { t: topologyFromNodes([1, 0]), roots: [0, 1] },
];

function expectRootData(r: RunResult, root: number, label: string): void {
  expect(r.errors.every((e) => e === undefined), label).toBe(true);
  r.outs.forEach((o, rank) => expect(Array.from(o), `${label} rank ${rank}`).toEqual(Array.from(r.outs[root])));
}

describe('executor: multicast-marked sends as one Endpoint.imcast', () => {
  for (const { t, roots } of CASES) {
    for (const root of roots) {
      it(`bcast/multicast on ${t.label}, root ${root}: one imcast to the other nodes' leaders (world ranks); right results`, () => {
        const P = t.size;
        const worldOf = (r: number): number => 2 * (P - 1 - r) + 1;
        const leaders = Array.from({ length: t.nodeCount }, (_, n) => n).filter((n) => n !== t.nodeOf(root)).map((n) => t.ranksOn(n)[0]).sort((a, b) => a - b);
        for (const count of [0, 1, 13]) {
          for (const mode of ['multicast', 'sync'] as const) {
            const label = `${mode} count=${count}`;
            const r = runBcast('multicast', t, root, count, mode);
            expectRootData(r, root, label);
            expect(r.world.imcasts, label).toEqual([{ src: worldOf(root), dsts: leaders.map(worldOf), index: 0, bytes: count * 4 }]);
            // Nothing else crosses to another node: the other sends stay inside the nodes.
            for (const s of r.world.isends) {
              const from = P - 1 - (s.src - 1) / 2;
              const to = P - 1 - (s.dst - 1) / 2;
              expect(t.nodeOf(from), label).toBe(t.nodeOf(to));
            }
            expect(r.world.isends.length, label).toBe(P - 1 - leaders.length);
          }
        }
      });
    }
  }

  it('without imcast, or when the endpoint declines, the marked sends go as ordinary sends: the same results', () => {
    for (const { t, roots } of CASES) {
      for (const root of roots) {
        for (const mode of ['absent', 'decline'] as const) {
          for (const count of [0, 5]) {
            const label = `${t.label} root ${root} ${mode} count=${count}`;
            const r = runBcast('multicast', t, root, count, mode);
            expectRootData(r, root, label);
            expect(r.world.imcasts, label).toEqual([]);
            expect(r.world.isends.length, label).toBe(t.size - 1);
          }
        }
      }
    }
  });

  it('a schedule without marked sends never calls imcast', () => {
    const t = nodeTopology(8, 2, 'block');
    for (const name of ['binomial', 'linear']) {
      const r = runBcast(name, t, 3, 6, 'multicast');
      expectRootData(r, 3, name);
      expect(r.world.imcasts).toEqual([]);
      expect(r.world.isends.length).toBe(7);
    }
  });

  it('a failed multicast fails the root\'s execution', () => {
    const t = nodeTopology(4, 2, 'block');
    const P = t.size;
    const worldOf = Int32Array.from({ length: P }, (_, r) => 2 * (P - 1 - r) + 1);
    const world = new FakeWorld(2 * P + 1, 'fail');
    const cs = compileSchedule(generateRankSchedule(getAlgorithm('bcast', 'multicast'), 0, { size: P, count: 2, root: 0, topology: t, elementSize: 4 }));
    const ex = new Execution(cs, [new Uint8Array(0), new Uint8Array(8)], { endpoint: world.endpoints[worldOf[0]], worldOf, context: 1, seq: 0, elementSize: 4, kernel: undefined });
    ex.start();
    expect(ex.done).toBe(true);
    expect(ex.error?.message).toBe('multicast path down');
  });
});
