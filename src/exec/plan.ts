/**
 * Plans: how one collective call runs, decided once per call shape and cached per
 * communicator (small-message latency depends on not regenerating schedules).
 *
 * A plan is either the flat shared-memory path (calls on a one-node communicator
 * whose slot write fits a slot, no algorithm named; blocking or not) or a list of schedule
 * phases run one after another: the selected (or named) algorithm, plus for
 * allreduce algorithms not known to be bitwise identical on all ranks a broadcast
 * of rank 0's result. Reproducible mode replaces reductions by the rank-order
 * schedules of builtin.ts.
 */
import { checkRestrictions, generateRankSchedule, getAlgorithm } from '../algorithms/registry.js';
import { algorithmId, type AlgorithmSpec } from '../algorithms/types.js';
import type { Datatype } from '../core/datatypes.js';
import { ArgumentError, RestrictionError } from '../core/errors.js';
import type { Kernel, Op } from '../core/ops.js';
import type { Params } from '../schedule/context.js';
import { isReduction } from '../schedule/context.js';
import type { Topology } from '../schedule/topology.js';
import type { CollectiveKind } from '../schedule/types.js';
import { binomialBcast, REPRODUCIBLE } from './builtin.js';
import { compileSchedule, type CompiledSchedule } from './compiled.js';
import { RANK_CONSISTENT_ALLREDUCE, selectAlgorithm, tableRule } from './selection.js';
import { callSignature, type CallSignature } from './call-signature.js';
import { mpiCallUnsupported } from '../transport/mpi/collectives.js';
import type { MpiFlavour } from '../transport/mpi/binding.js';

export interface Phase {
  readonly compiled: CompiledSchedule;
  readonly algorithm: string;
  /** Whether buffer 0 is the call's input (else empty: a bcast phase). */
  readonly usesInput: boolean;
  /** Scratch buffer sets of finished calls, ready for reuse. */
  readonly spare: Uint8Array[][];
}

export interface Plan {
  readonly shm: boolean;
  /** MPI's own collective through the MPI transport (`{ algorithm: 'mpi' }`; transport/mpi/collectives.ts). */
  readonly mpi?: boolean;
  /**
   * The flat path's direct mode (runtime/shm-direct.ts): blocks that do not fit a slot,
   * moved between the users' buffers in place. `phases` then hold the schedule run
   * instead when some rank cannot share its buffer.
   */
  readonly direct: boolean;
  readonly phases: readonly Phase[];
  readonly kernel: Kernel | undefined;
  /** Human-readable algorithm description, e.g. "allreduce/ring + bcast/binomial". */
  readonly algorithm: string;
  /** What every rank's call must agree on, checked where the data is read (call-signature.ts). */
  readonly sig: CallSignature;
}

export interface CallShape {
  readonly kind: CollectiveKind;
  readonly count: number;
  readonly type: Datatype;
  readonly op: Op | undefined;
  readonly root: number;
  readonly algorithm: string | undefined;
  readonly params: Params | undefined;
  readonly reproducible: boolean;
  readonly blocking: boolean;
  readonly topology: Topology | undefined;
}

export interface PlanTarget {
  readonly rank: number;
  readonly size: number;
  readonly topology: Topology;
  /** Slot size of the communicator's flat shared-memory block (0: none). */
  readonly shmLimit: number;
  /** Largest block (count × element size) the flat path takes (default: the slot size). */
  readonly shmBlockLimit?: number;
  /** Whether MPI's own collectives can run on this communicator (the MPI transport, one rank per process). */
  readonly mpiReady?: boolean;
  /** Why they cannot, when not. */
  readonly mpiWhyNot?: string;
  /** The MPI under the MPI transport (some of its reductions are known wrong: collectives.ts). */
  readonly mpiFlavour?: MpiFlavour;
}

export function planKey(c: CallShape): string {
  return `${c.kind}|${c.count}|${c.type.name}|${c.op?.name ?? ''}|${c.root}|${c.algorithm ?? ''}|${c.params ? JSON.stringify(c.params) : ''}|${c.reproducible ? 1 : 0}|${c.blocking ? 1 : 0}|${c.topology?.label ?? ''}`;
}

/** Bytes one rank writes into its flat-path slot (runtime/shm-collectives.ts): all P blocks for scatter (root), alltoall and reduce_scatter, else one. */
export function flatSlotBytes(kind: CollectiveKind, count: number, elementSize: number, size: number): number {
  if (kind === 'barrier') return 0;
  return kind === 'scatter' || kind === 'alltoall' || kind === 'reduce_scatter' ? count * elementSize * size : count * elementSize;
}

/** The runtime's flat shared-memory path (runtime/shm-collectives.ts), nameable as `{ algorithm: 'shm_flat' }` for every collective. */
export const SHM_FLAT = 'shm_flat';
export const SHM_FLAT_DESCRIPTION =
  'runtime path, not a schedule: every rank writes its block into its slot of the communicator\'s shared block and readers take what they need in place (reductions fold in rank order); ' +
  'the automatic choice on one node for blocks up to 64 KiB. Requires a communicator on one node whose slots hold the call.';

/** The flat path's direct mode, nameable as `{ algorithm: 'shm_direct' }` for every collective that moves data. */
export const SHM_DIRECT = 'shm_direct';
export const SHM_DIRECT_DESCRIPTION =
  'runtime path, not a schedule: every rank publishes where its buffers are in the node arena and copies (or folds, in rank order, one chunk per rank) straight between the users\' buffers, one copy in all; ' +
  'the automatic choice on one node for blocks that do not fit the flat path\'s slots. Requires a communicator on one node; buffers outside the arena are staged through it.';

/** MPI's own collectives, nameable as `{ algorithm: 'mpi' }` for every collective on the MPI transport. */
export const MPI_ALGORITHM = 'mpi';
export const MPI_ALGORITHM_DESCRIPTION =
  "the MPI library's own collective (MPI_Allreduce, MPI_Bcast, …; MPI_I… for nonblocking calls) on a communicator mirroring this one, called by the rank thread: the automatic choice where it can run (unless a decision table says otherwise), and the yardstick for this library's algorithms on the same job. " +
  'Requires the MPI transport (a job started by mpirun/mpiexec, or coll run --transport mpi) with one rank per MPI process, a scalar datatype and one of MPI\'s predefined operators.';

/** Collectives with a flat path (scan and exscan run schedules). */
export function hasFlat(kind: CollectiveKind): boolean {
  return kind !== 'scan' && kind !== 'exscan';
}

/** Collectives with a direct mode (barrier moves no data; scan and exscan run schedules). */
export function hasDirect(kind: CollectiveKind): boolean {
  return kind !== 'barrier' && kind !== 'scan' && kind !== 'exscan';
}

export function makePlan(t: PlanTarget, c: CallShape): Plan {
  const kernel = c.op && isReduction(c.kind) ? c.op.kernel(c.type) : undefined;
  const bytes = c.count * c.type.size;
  const flatFits = t.shmLimit > 0 && hasFlat(c.kind) && c.topology === undefined && flatSlotBytes(c.kind, c.count, c.type.size, t.size) <= t.shmLimit && bytes <= (t.shmBlockLimit ?? t.shmLimit);
  const directFits = t.shmLimit > 0 && hasDirect(c.kind) && c.topology === undefined;
  const named = (id: string): boolean => c.algorithm === id || c.algorithm === `${c.kind}/${id}`;
  if (named(SHM_DIRECT)) {
    if (!directFits) {
      throw new RestrictionError(
        SHM_DIRECT,
        'a communicator on one node and a collective that moves data',
        !hasDirect(c.kind) ? `${c.kind} has no direct mode` : t.shmLimit <= 0 ? 'this communicator has no shared-memory block (it spans nodes, has one rank, or its rank 0 had no arena room)' : 'a topology was given',
        'drop { algorithm } to let the library choose',
      );
    }
    return directPlan(t, c, kernel);
  }
  const mpiWhyNot = t.mpiReady ? mpiCallUnsupported(c.type, c.op, t.mpiFlavour) : (t.mpiWhyNot ?? 'this job does not run on the MPI transport');
  const mpiPlan = (): Plan => {
    const algorithm = `${c.kind}/${MPI_ALGORITHM}`;
    return { shm: false, mpi: true, direct: false, phases: [], kernel, algorithm, sig: callSignature(c.kind, c.count, c.type, c.op, c.root, algorithm) };
  };
  if (named(MPI_ALGORITHM)) {
    if (mpiWhyNot !== undefined) throw new RestrictionError(MPI_ALGORITHM, 'the MPI transport with one rank per MPI process, a scalar datatype and a predefined operator', mpiWhyNot, 'drop { algorithm } to let the library choose');
    if (c.reproducible && isReduction(c.kind)) {
      throw new ArgumentError("reproducible mode fixes the reduction order, so it cannot run MPI's own reduction", 'drop { algorithm } or turn reproducible mode off for this call ({ reproducible: false })');
    }
    return mpiPlan();
  }
  if (c.algorithm === undefined && mpiWhyNot === undefined && !(c.reproducible && isReduction(c.kind)) && c.topology === undefined) {
    // On the MPI transport with one rank per process, MPI's own collectives are the
    // automatic choice (measured 1.7x Open MPI from C against 17x for this library's
    // schedules over the same transport, docs/benchmarks.md) unless a decision table
    // names another algorithm for the call.
    const rule = tableRule({ collective: c.kind, size: t.size, count: c.count, root: c.root, commutative: c.op?.commutative ?? true, elementSize: c.type.size, topology: t.topology, datatype: c.type.name, op: c.op?.name ?? 'sum', bytes: c.count * c.type.size });
    if (rule === undefined || rule.algorithm === MPI_ALGORITHM) return mpiPlan();
  }
  if (named(SHM_FLAT)) {
    // Named: a rank-order fold like reproducible mode, so it is allowed there too.
    if (!flatFits) {
      throw new RestrictionError(
        SHM_FLAT,
        'a communicator on one node whose shared slots hold the call',
        !hasFlat(c.kind)
          ? `${c.kind} has no flat path (it runs a schedule)`
          : t.shmLimit <= 0
          ? 'this communicator has no shared-memory block (it spans nodes, has one rank, or its rank 0 had no arena room)'
          : `the call writes ${flatSlotBytes(c.kind, c.count, c.type.size, t.size)} bytes per rank (blocks of ${bytes}); the slots hold ${t.shmLimit} bytes and blocks of at most ${t.shmBlockLimit ?? t.shmLimit}`,
        'drop { algorithm } to let the library choose',
      );
    }
    const algorithm = `${c.kind}/${SHM_FLAT}`;
    return { shm: true, direct: false, phases: [], kernel, algorithm, sig: callSignature(c.kind, c.count, c.type, c.op, c.root, algorithm) };
  }
  if (c.reproducible && c.algorithm !== undefined && isReduction(c.kind)) {
    throw new ArgumentError(
      `reproducible mode fixes the reduction order, so it cannot run the named algorithm '${c.algorithm}'`,
      'drop { algorithm } or turn reproducible mode off for this call ({ reproducible: false })',
    );
  }
  if (flatFits && c.algorithm === undefined) {
    const algorithm = `${c.kind}/${SHM_FLAT}`;
    return { shm: true, direct: false, phases: [], kernel, algorithm, sig: callSignature(c.kind, c.count, c.type, c.op, c.root, algorithm) };
  }
  if (directFits && c.algorithm === undefined) return directPlan(t, c, kernel);
  return schedulePlan(t, c, kernel);
}

/** Direct mode, with the automatic schedule as the fallback. */
function directPlan(t: PlanTarget, c: CallShape, kernel: Kernel | undefined): Plan {
  const algorithm = `${c.kind}/${SHM_DIRECT}`;
  const fallback = schedulePlan(t, { ...c, algorithm: undefined, params: undefined }, kernel);
  return { ...fallback, direct: true, algorithm, sig: callSignature(c.kind, c.count, c.type, c.op, c.root, algorithm) };
}

/** The selected (or named) algorithm's schedule, plus a broadcast where allreduce needs one. */
function schedulePlan(t: PlanTarget, c: CallShape, kernel: Kernel | undefined): Plan {
  const bytes = c.count * c.type.size;
  const topology = c.topology ?? t.topology;
  const base = {
    size: t.size,
    count: c.count,
    root: c.root,
    commutative: c.op?.commutative ?? true,
    elementSize: c.type.size,
    topology,
  };
  let spec: AlgorithmSpec;
  let params: Params = c.params ?? {};
  const repro = c.reproducible ? REPRODUCIBLE[c.kind] : undefined;
  if (repro) spec = repro;
  else if (c.algorithm !== undefined) {
    spec = getAlgorithm(c.kind, c.algorithm);
    checkRestrictions(spec, { ...base, params });
  } else {
    const choice = selectAlgorithm({ ...base, collective: c.kind, datatype: c.type.name, op: c.op?.name ?? 'sum', bytes });
    spec = choice.spec;
    params = choice.params;
  }
  const phase = (s: AlgorithmSpec, p: Params, o: { root: number; usesInput: boolean }): Phase => ({
    compiled: compileSchedule(generateRankSchedule(s, t.rank, { ...base, root: o.root, params: p })),
    algorithm: algorithmId(s),
    usesInput: o.usesInput,
    spare: [],
  });
  const phases = [phase(spec, params, { root: c.root, usesInput: true })];
  if (c.kind === 'allreduce' && !RANK_CONSISTENT_ALLREDUCE.has(spec.name) && t.size > 1) {
    let bcast: AlgorithmSpec = binomialBcast;
    try {
      bcast = getAlgorithm('bcast', 'binomial');
    } catch {
      // the built-in binomial broadcast
    }
    phases.push(phase(bcast, {}, { root: 0, usesInput: false }));
  }
  const algorithm = phases.map((p) => p.algorithm).join(' + ');
  return { shm: false, direct: false, phases, kernel, algorithm, sig: callSignature(c.kind, c.count, c.type, c.op, c.root, algorithm) };
}
