/**
 * Automatic selection never picks an algorithm whose restrictions fail (any P,
 * commutative or not, any node layout), honours a tuner decision table when its
 * rule applies, and falls back when the table's choice is not applicable.
 */
import { describe, expect, it } from 'vitest';
import { checkRestrictions } from '../../src/algorithms/registry.js';
import { COLLECTIVES } from '../../src/schedule/types.js';
import { flatTopology, nodeTopology } from '../../src/schedule/topology.js';
import { DECISION_FORMAT, type DecisionTable } from '../../src/tune/decision.js';
import { makePlan } from '../../src/exec/plan.js';
import { selectAlgorithm, setDecisionTable } from '../../src/exec/selection.js';
import { datatype, op } from '../../src/core/index.js';

describe('selectAlgorithm', () => {
  it('only picks applicable algorithms', () => {
    for (const collective of COLLECTIVES) {
      for (let P = 1; P <= 13; P++) {
        for (const topology of [flatTopology(P), nodeTopology(P, Math.min(3, P))]) {
          for (const commutative of [true, false]) {
            for (const count of [0, 1, P + 1, 100_000]) {
              const q = { collective, size: P, count, root: P - 1, commutative, elementSize: 8, topology, datatype: 'float64', op: 'sum', bytes: count * 8 };
              const c = selectAlgorithm(q);
              expect(() => checkRestrictions(c.spec, q), `${collective} P=${P} ${c.spec.name}`).not.toThrow();
            }
          }
        }
      }
    }
  });

  it('takes a node-aware allreduce (and barrier) for small calls across nodes with several ranks on a node, not on one node or one rank per node', () => {
    const q = (topology: ReturnType<typeof flatTopology>, bytes: number) => ({ collective: 'allreduce' as const, size: topology.size, count: bytes / 8, root: 0, commutative: true, elementSize: 8, topology, datatype: 'float64', op: 'sum', bytes });
    expect(selectAlgorithm(q(nodeTopology(4, 2), 8)).spec.name).toBe('smp');
    expect(selectAlgorithm(q(nodeTopology(12, 3), 1024)).spec.name).toBe('smp');
    expect(selectAlgorithm(q(flatTopology(4), 8)).spec.name).toBe('recursive_doubling');
    expect(selectAlgorithm(q(nodeTopology(4, 1), 8)).spec.name).toBe('recursive_doubling'); // one rank per node
    expect(selectAlgorithm(q(nodeTopology(4, 2), 1 << 20)).spec.name).toBe('smp'); // 2 nodes: the leaders' recursive doubling moves n bytes
    expect(selectAlgorithm(q(nodeTopology(16, 2), 1 << 20)).spec.name).toBe('rabenseifner'); // 8 nodes: lg N·n bytes, the size rules
    expect(selectAlgorithm(q(nodeTopology(4, 1), 1 << 20)).spec.name).toBe('rabenseifner'); // one rank per node
    const barrier = (topology: ReturnType<typeof flatTopology>) => selectAlgorithm({ collective: 'barrier', size: topology.size, count: 0, root: 0, commutative: true, elementSize: 1, topology, datatype: 'uint8', op: 'sum', bytes: 0 }).spec.name;
    expect(barrier(nodeTopology(6, 2))).toBe('smp');
    expect(barrier(nodeTopology(4, 4))).toBe('dissemination');
    const allgather = (topology: ReturnType<typeof flatTopology>) => selectAlgorithm({ collective: 'allgather', size: topology.size, count: 1, root: 0, commutative: true, elementSize: 8, topology, datatype: 'float64', op: 'sum', bytes: 8 }).spec.name;
    expect(allgather(nodeTopology(6, 2))).toBe('smp');
    expect(allgather(nodeTopology(5, 2))).not.toBe('smp'); // nodes of 2, 2 and 1 ranks: not applicable
  });

  it('sends a large broadcast or reduction down one binomial tree on fewer than 8 ranks, splits it on more; reduce_scatter reduces inside the nodes first on few ranks', () => {
    const pick = (collective: 'bcast' | 'reduce' | 'reduce_scatter' | 'allgather', topology: ReturnType<typeof flatTopology>, bytes: number) =>
      selectAlgorithm({ collective, size: topology.size, count: bytes / 8, root: 0, commutative: true, elementSize: 8, topology, datatype: 'float64', op: 'sum', bytes }).spec.name;
    expect(pick('bcast', nodeTopology(4, 2), 1 << 20)).toBe('binomial');
    expect(pick('bcast', flatTopology(7), 1 << 20)).toBe('binomial');
    expect(pick('bcast', flatTopology(8), 1 << 20)).toBe('scatter_allgather');
    expect(pick('reduce', nodeTopology(2, 1), 1 << 16)).toBe('binomial');
    expect(pick('reduce', flatTopology(16), 1 << 20)).toBe('rabenseifner');
    expect(pick('reduce_scatter', nodeTopology(4, 2), 8)).toBe('reduce_then_scatter');
    expect(pick('reduce_scatter', nodeTopology(4, 2), 4 << 20)).not.toBe('reduce_then_scatter');
    expect(pick('reduce_scatter', nodeTopology(16, 8), 8)).not.toBe('reduce_then_scatter');
    expect(pick('allgather', nodeTopology(4, 2), 1 << 20)).toBe('smp');
    expect(pick('allgather', nodeTopology(4, 2), 4 << 20)).toBe('ring');
  });

  it('uses a decision table when it applies, else falls back to the rules', () => {
    const rule = (algorithm: string, pMin: number, pMax: number | null) => ({
      collective: 'allreduce' as const, datatype: 'float64', op: 'sum', ppn: 1, pMin, pMax, bytesMin: 0, bytesMax: null, algorithm, params: {}, predicted: 1e-6,
    });
    const table: DecisionTable = {
      format: DECISION_FORMAT, machine: 'test', model: 'test', generated: '', grid: { procs: [2], bytes: [8], ppn: 1 },
      rules: [rule('ring', 1, 4), rule('recursive_doubling', 5, null)],
    };
    const q = (size: number, commutative = true) => ({ collective: 'allreduce' as const, size, count: 64, root: 0, commutative, elementSize: 8, topology: flatTopology(size), datatype: 'float64', op: 'sum', bytes: 512 });
    try {
      setDecisionTable(table);
      expect(selectAlgorithm(q(4))).toMatchObject({ reason: 'table', spec: { name: 'ring' } });
      expect(selectAlgorithm(q(6))).toMatchObject({ reason: 'table', spec: { name: 'recursive_doubling' } });
      // The table's ring needs a commutative operator: not applicable, so it is not used.
      expect(selectAlgorithm(q(4, false)).spec.name).not.toBe('ring');
    } finally {
      setDecisionTable(undefined);
    }
    expect(selectAlgorithm(q(4)).reason).toBe('rules');
  });
});

describe("makePlan: MPI's own collectives ({ algorithm: 'mpi' })", () => {
  const shape = { kind: 'allreduce' as const, count: 4, type: datatype('float64'), op: op('sum'), root: 0, algorithm: 'mpi', params: undefined, reproducible: false, blocking: true, topology: undefined };
  const target = (mpiWhyNot?: string) => ({ rank: 0, size: 4, topology: flatTopology(4), shmLimit: 0, mpiReady: mpiWhyNot === undefined, mpiWhyNot });
  it('plans them where the target says MPI can run, refusing what MPI has no datatype or operator for', () => {
    expect(makePlan(target(), shape)).toMatchObject({ mpi: true, algorithm: 'allreduce/mpi', phases: [] });
    expect(makePlan(target(), { ...shape, kind: 'alltoall', op: undefined, algorithm: 'alltoall/mpi' }).mpi).toBe(true);
    expect(() => makePlan(target('this job does not run on the MPI transport'), shape)).toThrow(/does not run on the MPI transport/);
    expect(() => makePlan(target(), { ...shape, type: datatype('float64_int32'), op: op('minloc') })).toThrow(/no predefined datatype/);
    expect(() => makePlan(target(), { ...shape, reproducible: true })).toThrow(/reproducible mode/);
  });

  it('are the automatic choice where they can run, unless a decision table names another algorithm, the call is reproducible or MPI has no such datatype', () => {
    const auto = { ...shape, algorithm: undefined };
    expect(makePlan(target(), auto).algorithm).toBe('allreduce/mpi');
    expect(makePlan(target('not on the MPI transport'), auto).mpi).toBeFalsy();
    expect(makePlan(target(), { ...auto, reproducible: true }).mpi).toBeFalsy();
    expect(makePlan(target(), { ...auto, type: datatype('float64_int32'), op: op('minloc') }).mpi).toBeFalsy();
    const rule = (algorithm: string) => ({ collective: 'allreduce' as const, datatype: 'float64', op: 'sum', ppn: 1, pMin: 1, pMax: null, bytesMin: 0, bytesMax: null, algorithm, params: {}, predicted: 1e-6 });
    const table = (algorithm: string): DecisionTable => ({ format: DECISION_FORMAT, machine: 'test', model: 'test', generated: '', grid: { procs: [4], bytes: [32], ppn: 1 }, rules: [rule(algorithm)] });
    try {
      setDecisionTable(table('ring'));
      expect(makePlan(target(), auto).algorithm).toBe('allreduce/ring');
      setDecisionTable(table('mpi'));
      expect(makePlan(target(), auto).algorithm).toBe('allreduce/mpi');
    } finally {
      setDecisionTable(undefined);
    }
  });
});

describe('makePlan', () => {
  const target = (size: number, shm: boolean, slot = 4096) => ({ rank: 0, size, topology: flatTopology(size), shmLimit: shm ? slot : 0 });
  const shape = { kind: 'allreduce' as const, count: 4, type: datatype('float64'), op: op('sum'), root: 0, algorithm: undefined, params: undefined, reproducible: false, blocking: true, topology: undefined };
  it('takes the shared-memory path for small calls on one node only, blocking or not, when one rank writes at most a slot', () => {
    expect(makePlan(target(4, true), shape).shm).toBe(true);
    expect(makePlan(target(4, true), { ...shape, blocking: false }).shm).toBe(true);
    expect(makePlan(target(4, true), { ...shape, count: 100_000 }).shm).toBe(false);
    // alltoall, scatter and reduce_scatter write all P blocks: 4 ranks × 128 float64 = 4 KiB fits, 129 does not.
    for (const kind of ['alltoall', 'scatter', 'reduce_scatter'] as const) {
      expect(makePlan(target(4, true), { ...shape, kind, count: 128 }).shm).toBe(true);
      expect(makePlan(target(4, true), { ...shape, kind, count: 129 }).shm).toBe(false);
    }
    expect(makePlan(target(4, true), { ...shape, kind: 'gather', count: 512 }).shm).toBe(true);
    expect(makePlan(target(4, true), { ...shape, kind: 'gather', count: 513 }).shm).toBe(false);
    expect(makePlan(target(4, false), shape).shm).toBe(false);
    expect(makePlan(target(4, true), { ...shape, algorithm: 'ring' }).algorithm).toBe('allreduce/ring');
    // The world's 64 KiB slots: 8192 float64 per rank, alltoall 2048 per block at 4 ranks.
    expect(makePlan(target(4, true, 65536), { ...shape, count: 8192 }).shm).toBe(true);
    expect(makePlan(target(4, true, 65536), { ...shape, count: 8193 }).shm).toBe(false);
    expect(makePlan(target(4, true, 65536), { ...shape, kind: 'alltoall', count: 2048 }).shm).toBe(true);
    expect(makePlan(target(4, true, 65536), { ...shape, kind: 'alltoall', count: 2049 }).shm).toBe(false);
  });
  it('reproducible mode uses the rank-order schedules and refuses a named algorithm', () => {
    expect(makePlan(target(4, false), { ...shape, reproducible: true }).algorithm).toBe('allreduce/reproducible');
    expect(() => makePlan(target(4, false), { ...shape, reproducible: true, algorithm: 'ring' })).toThrow(/reproducible mode fixes the reduction order/);
  });
});
