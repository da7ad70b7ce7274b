/**
 * The catalogue test's body (test/catalogue.test.ts and test/catalogue.part2.test.ts):
 * every algorithm in the catalogue, checked against the sequential reference across
 * process counts (1..40 and larger), roots, counts, datatypes, operators, parameters,
 * topologies and delivery orders. The algorithms are dealt alternately to the two files
 * (listAlgorithms() order), so that vitest's two workers of the in-process project run
 * the halves side by side (vitest.config.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DATATYPE_NAMES, datatype, op as lookupOp, RestrictionError } from '../../src/core/index.js';
import { generateRankSchedule, generateSchedule, listAlgorithms } from '../../src/algorithms/registry.js';
import { algorithmId, type AlgorithmSpec } from '../../src/algorithms/types.js';
import { isReduction } from '../../src/schedule/context.js';
import { flatTopology } from '../../src/schedule/topology.js';
import { applicable, paramVariants, PERM_OP, rootsFor, runCase, topologiesFor, type CaseConfig } from './harness.js';

const SCALAR_OPS = ['sum', 'prod', 'min', 'max', 'land', 'lor', 'lxor', 'band', 'bor', 'bxor'];

function tryCase(spec: AlgorithmSpec, c: Omit<CaseConfig, 'collective' | 'algorithm'>): boolean {
  if (!applicable(spec, c)) return false;
  runCase({ ...c, collective: spec.collective, algorithm: spec.name });
  return true;
}

/** Total steps of the schedule at P ranks (rank 0 × P as an estimate). */
function estimatedSteps(spec: AlgorithmSpec, P: number, count: number): number {
  const topology = topologiesFor(spec, P)[0];
  try {
    return generateRankSchedule(spec, 0, { size: P, count, topology }).steps.length * P;
  } catch {
    return Infinity;
  }
}

/** The tests of the algorithms at positions part, part + parts, … of listAlgorithms(). */
export function catalogueTests(part: number, parts: number): void {
  const specs = listAlgorithms().filter((_, i) => i % parts === part);
  it('has algorithms in this part', () => expect(specs.length).toBeGreaterThan(0));
  for (const spec of specs) catalogueTestsOf(spec);
}

function catalogueTestsOf(spec: AlgorithmSpec): void {
  describe(algorithmId(spec), () => {
    it('matches the reference for P = 1..40, every root, counts 0, 1, 7', () => {
      let ran = 0;
      for (let P = 1; P <= 40; P++) {
        for (const topology of topologiesFor(spec, P)) {
          for (const root of rootsFor(spec.collective, P)) {
            for (const count of [0, 1, 7]) {
              if (tryCase(spec, { size: P, count, root, topology })) ran++;
            }
          }
        }
      }
      expect(ran).toBeGreaterThan(0);
    });

    it('matches the reference for every parameter variant', () => {
      let ran = 0;
      for (const params of paramVariants(spec)) {
        for (const P of [1, 2, 3, 5, 8, 13, 16, 27, 32]) {
          for (const topology of topologiesFor(spec, P)) {
            for (const count of [1, 7, 64]) {
              const roots = rootsFor(spec.collective, P);
              const root = roots[roots.length - 1];
              if (tryCase(spec, { size: P, count, root, topology, params })) ran++;
            }
          }
        }
      }
      expect(ran).toBeGreaterThan(0);
    });

    it('matches the reference at larger P (64, 100, 128, 1000 where cheap)', () => {
      let ran = 0;
      for (const P of [64, 100, 128, 1000]) {
        if (estimatedSteps(spec, P, P + 3) > 250_000) continue;
        const topology = topologiesFor(spec, P).at(-1);
        for (const root of P === 1000 ? [P - 1] : [0, P - 1]) {
          for (const count of P === 1000 ? [1] : [1, P + 3]) {
            if (tryCase(spec, { size: P, count, root, topology })) ran++;
          }
        }
      }
      if (!spec.topology || spec.topology === 'nodes') expect(ran).toBeGreaterThan(0);
    });

    it('handles every datatype (and every operator defined for it)', () => {
      let ran = 0;
      for (const P of [6, 8]) {
        const topology = topologiesFor(spec, P).at(-1);
        for (const dt of DATATYPE_NAMES) {
          const t = datatype(dt);
          const ops = !isReduction(spec.collective) ? ['sum'] : t.kind === 'pair' ? ['minloc', 'maxloc'] : [...SCALAR_OPS, 'noop'];
          for (const o of ops) {
            if (isReduction(spec.collective) && !lookupOp(o).supports(t)) continue;
            if (tryCase(spec, { size: P, count: 5, root: P - 1, topology, datatype: dt, op: o })) ran++;
          }
        }
      }
      expect(ran).toBeGreaterThan(0);
    });

    if (isReduction(spec.collective)) {
      if (spec.orderPreserving) {
        it('keeps rank order for a non-commutative operator', () => {
          for (let P = 1; P <= 24; P++) {
            for (const topology of topologiesFor(spec, P)) {
              for (const root of rootsFor(spec.collective, P)) {
                tryCase(spec, { size: P, count: 3, root, topology, op: PERM_OP.name, datatype: 'uint32' });
              }
            }
          }
        });
      } else {
        it('refuses a non-commutative operator with a RestrictionError', () => {
          const P = 8;
          const topology = topologiesFor(spec, P).at(-1) ?? flatTopology(P);
          expect(() =>
            generateSchedule(spec.collective, spec.name, { size: P, count: 16, commutative: false, topology }),
          ).toThrow(RestrictionError);
        });
      }
    }

    it('gives the reference result in random delivery orders (property)', () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 48 }),
          fc.integer({ min: 0, max: 47 }),
          fc.integer({ min: 0, max: 40 }),
          fc.integer({ min: 1, max: 1 << 30 }),
          (P, rootSeed, count, seed) => {
            const topologies = topologiesFor(spec, P);
            const topology = topologies[seed % topologies.length];
            const roots = rootsFor(spec.collective, P);
            tryCase(spec, { size: P, count, root: roots[rootSeed % roots.length], topology, order: 'random', seed });
          },
        ),
        { numRuns: 60, seed: 42 },
      );
    });
  });
}
