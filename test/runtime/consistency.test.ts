/**
 * Every allreduce algorithm the runtime trusts to leave bitwise-identical results on
 * all ranks (RANK_CONSISTENT_ALLREDUCE) does so: random floats with a wide range of
 * exponents (so any change of grouping shows), P = 2..12, several counts and
 * topologies, through the reference executor. The reproducible schedules also equal
 * the sequential rank-order fold exactly.
 */
import { describe, expect, it } from 'vitest';
import { executeSchedule, prng } from '../../src/reference/executor.js';
import { referenceOutputs } from '../../src/reference/sequential.js';
import { generateRankSchedule, getAlgorithm, listAlgorithms } from '../../src/algorithms/registry.js';
import type { AlgorithmSpec } from '../../src/algorithms/types.js';
import { meshTopology, nodeTopology, type Topology } from '../../src/schedule/topology.js';
import { REPRODUCIBLE } from '../../src/exec/builtin.js';
import { RANK_CONSISTENT_ALLREDUCE } from '../../src/exec/selection.js';
import { checkRestrictions } from '../../src/algorithms/registry.js';

function topologies(spec: AlgorithmSpec, P: number): (Topology | undefined)[] {
  if (spec.topology === 'mesh') {
    let w = Math.floor(Math.sqrt(P));
    while (P % w !== 0) w--;
    return [meshTopology(P / w, w)];
  }
  if (spec.topology === 'nodes') return [nodeTopology(P, 2), nodeTopology(P, Math.min(3, P), 'cyclic')];
  return [undefined];
}

function randomInputs(P: number, count: number, seed: number): Uint8Array[] {
  const rand = prng(seed);
  return Array.from({ length: P }, () => {
    const a = new Float64Array(count);
    for (let i = 0; i < count; i++) a[i] = (rand() - 0.5) * 10 ** Math.floor(rand() * 12 - 6);
    return new Uint8Array(a.buffer);
  });
}

function run(spec: AlgorithmSpec, P: number, count: number, topology: Topology | undefined, inputs: Uint8Array[], root = 0, op = 'sum'): Uint8Array[] | undefined {
  const o = { size: P, count, root, elementSize: 8, topology };
  try {
    checkRestrictions(spec, o);
  } catch {
    return undefined;
  }
  const schedule = Array.from({ length: P }, (_, r) => generateRankSchedule(spec, r, o));
  return executeSchedule(schedule, { datatype: 'float64', op, inputs }).outputs;
}

describe('rank-consistent allreduce algorithms', () => {
  const trusted = [...RANK_CONSISTENT_ALLREDUCE].filter((n) => n !== 'reproducible');
  for (const name of trusted) {
    const spec = listAlgorithms('allreduce').find((a) => a.name === name);
    it.skipIf(!spec)(`${name}: identical results on all ranks`, () => {
      const s = getAlgorithm('allreduce', name);
      let ran = 0;
      for (let P = 2; P <= 12; P++) {
        for (const count of [1, 5, 64, 999]) {
          for (const topology of topologies(s, P)) {
            const out = run(s, P, count, topology, randomInputs(P, count, P * 7919 + count));
            if (!out) continue;
            ran++;
            for (let r = 1; r < P; r++) expect(Buffer.from(out[r]).equals(Buffer.from(out[0])), `${name} P=${P} count=${count} rank ${r}`).toBe(true);
          }
        }
      }
      expect(ran).toBeGreaterThan(0);
    });
  }
});

describe('reproducible schedules', () => {
  for (const [collective, spec] of Object.entries(REPRODUCIBLE)) {
    it(`${collective}: equal to the sequential rank-order fold, bit for bit`, () => {
      for (let P = 1; P <= 9; P++) {
        for (const count of [0, 1, 3, 50]) {
          for (const root of collective === 'reduce' ? [0, P - 1] : [0]) {
            const n = collective === 'reduce_scatter' ? count * P : count;
            const inputs = randomInputs(P, n, P * 31 + count);
            const out = run(spec as AlgorithmSpec, P, count, undefined, inputs, root) as Uint8Array[];
            const want = referenceOutputs({ collective: collective as 'allreduce', datatype: 'float64', op: 'sum', size: P, count, root, inputs });
            for (let r = 0; r < P; r++) {
              const w = want[r];
              if (w) expect(Buffer.from(out[r].subarray(0, w.byteLength)).equals(Buffer.from(w)), `${collective} P=${P} count=${count} rank ${r}`).toBe(true);
            }
          }
        }
      }
    });
  }
});

describe("noop: per element, some rank's value", () => {
  // Rank r's element i is r·10^6 + i, so every result element names the rank it came from.
  const inputs = (P: number, count: number): Uint8Array[] => Array.from({ length: P }, (_, r) => new Uint8Array(Float64Array.from({ length: count }, (_, i) => r * 1e6 + i).buffer));
  const fromSomeRank = (out: Uint8Array, P: number, count: number): boolean => {
    const v = new Float64Array(out.buffer, out.byteOffset, count);
    return v.every((x, i) => Number.isInteger((x - i) / 1e6) && (x - i) / 1e6 >= 0 && (x - i) / 1e6 < P);
  };
  for (const collective of ['allreduce', 'reduce'] as const) {
    for (const spec of listAlgorithms(collective)) {
      it(`${collective}/${spec.name}`, () => {
        let ran = 0;
        for (const P of [2, 3, 4, 5, 8]) {
          for (const count of [1, 7, 64]) {
            for (const topology of topologies(spec, P)) {
              const root = collective === 'reduce' ? P - 1 : 0;
              const out = run(spec, P, count, topology, inputs(P, count), root, 'noop');
              if (!out) continue;
              ran++;
              const ranks = collective === 'reduce' ? [root] : Array.from({ length: P }, (_, r) => r);
              for (const r of ranks) expect(fromSomeRank(out[r], P, count), `${spec.name} P=${P} count=${count} rank ${r}`).toBe(true);
              // Trusted algorithms leave identical bytes on every rank; the runtime appends a broadcast to the others.
              if (collective === 'allreduce' && RANK_CONSISTENT_ALLREDUCE.has(spec.name)) {
                for (const r of ranks) expect(Buffer.from(out[r]).equals(Buffer.from(out[0])), `${spec.name} P=${P} count=${count} rank ${r}`).toBe(true);
              }
            }
          }
        }
        expect(ran).toBeGreaterThan(0);
      });
    }
  }
});
