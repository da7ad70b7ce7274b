/**
 * Predicting a collective call: a scenario (collective, datatype, op, bytes per rank,
 * P ranks, ppn per node or a W×H mesh) → for an algorithm and parameter values, the
 * schedule the catalogue generates → its cost under a model on a machine.
 *
 * Placement: algorithms that read the mesh (`topology: 'mesh'`) get a W×H mesh
 * with one rank per mesh node (the given --mesh, else the most nearly square W ≤ H
 * factorisation of P) and need ppn = 1; every other algorithm gets P ranks in blocks
 * of ppn per node. Restriction violations make an algorithm "not applicable" with the
 * reason; bad scenarios (P not divisible by ppn where the model needs full nodes, a
 * mesh that does not hold P, bytes not a multiple of the element size) throw typed
 * errors naming the value and the accepted range.
 */
import { ArgumentError, RestrictionError, checkIntRange } from '../core/errors.js';
import { datatype as lookupDatatype, op as lookupOp } from '../core/index.js';
import { checkRestrictions, generateSchedule, getAlgorithm, listAlgorithms } from '../algorithms/registry.js';
import { squarestMesh } from '../algorithms/allreduce/mesh_tree.js';
import { algorithmId, type AlgorithmSpec } from '../algorithms/types.js';
import type { ParamValue } from '../schedule/context.js';
import { meshTopology, nodeTopology, type Topology } from '../schedule/topology.js';
import type { CollectiveKind, Schedule } from '../schedule/types.js';
import type { Machine } from './machine.js';
import { costSchedule, parseModel, type ParsedModel, type Prediction } from './models.js';
import { dominantTerms, type TermName } from './terms.js';

export interface Scenario {
  readonly collective: CollectiveKind;
  /** Ranks. */
  readonly P: number;
  /** Ranks per node (block mapping). */
  readonly ppn: number;
  /** Bytes per rank (the vector for bcast/reduce/allreduce, the block for allgather-like collectives). */
  readonly bytes: number;
  readonly datatype?: string;
  readonly op?: string;
  readonly root?: number;
  /** Mesh shape for mesh algorithms (W·H must equal P). */
  readonly mesh?: { readonly W: number; readonly H: number };
}

export interface ResolvedScenario extends Required<Omit<Scenario, 'mesh'>> {
  readonly count: number;
  readonly elementSize: number;
  readonly commutative: boolean;
  readonly mesh: { readonly W: number; readonly H: number };
}

/** Check a scenario; throws ArgumentError naming the offending value and the accepted range. */
export function resolveScenario(s: Scenario, model?: ParsedModel): ResolvedScenario {
  checkIntRange('P (ranks)', s.P, 1, 1 << 24);
  checkIntRange('ppn (ranks per node)', s.ppn, 1, s.P);
  if (model?.base === 'maxrate' && s.P % s.ppn !== 0) {
    throw new ArgumentError(`P = ${s.P} is not divisible by ppn = ${s.ppn}; the max-rate model counts injectors on full nodes`, `use P a multiple of ${s.ppn} (e.g. ${Math.max(s.ppn, Math.floor(s.P / s.ppn) * s.ppn)})`);
  }
  if (!Number.isSafeInteger(s.bytes) || s.bytes < 0) throw new ArgumentError(`bytes must be a non-negative integer, got ${String(s.bytes)}`);
  const dt = lookupDatatype((s.datatype ?? 'float64') as Parameters<typeof lookupDatatype>[0]);
  if (s.bytes % dt.size !== 0) {
    throw new ArgumentError(`${s.bytes} bytes is not a whole number of ${dt.name} elements (${dt.size} bytes each)`, `use a multiple of ${dt.size}`);
  }
  const o = lookupOp(s.op ?? 'sum');
  const root = s.root ?? 0;
  checkIntRange('root', root, 0, s.P - 1);
  let mesh = s.mesh;
  if (mesh) {
    checkIntRange('mesh width W', mesh.W, 1, 1 << 15);
    checkIntRange('mesh height H', mesh.H, 1, 1 << 15);
    if (mesh.W * mesh.H !== s.P) {
      throw new ArgumentError(`a ${mesh.W}x${mesh.H} mesh holds ${mesh.W * mesh.H} ranks, not P = ${s.P}`, `use a mesh with W·H = ${s.P} (e.g. ${squarestMesh(s.P).W}x${squarestMesh(s.P).H})`);
    }
  } else {
    mesh = squarestMesh(s.P);
  }
  return {
    collective: s.collective,
    P: s.P,
    ppn: s.ppn,
    bytes: s.bytes,
    datatype: dt.name,
    op: o.name,
    root,
    count: s.bytes / dt.size,
    elementSize: dt.size,
    commutative: o.commutative,
    mesh,
  };
}

/** The topology an algorithm runs on in this scenario, or why it cannot. */
export function placementFor(spec: AlgorithmSpec, s: ResolvedScenario): { topology: Topology } | { reason: string } {
  if (spec.topology === 'mesh') {
    if (s.ppn !== 1) return { reason: `needs one rank per mesh node (ppn = 1), got ppn = ${s.ppn}` };
    return { topology: meshTopology(s.mesh.W, s.mesh.H) };
  }
  return { topology: nodeTopology(s.P, s.ppn) };
}

export interface AlgorithmPrediction extends Prediction {
  readonly algorithm: string;
  readonly params: Readonly<Record<string, ParamValue>>;
  readonly dominant: readonly { term: TermName; share: number }[];
}

export interface NotApplicable {
  readonly algorithm: string;
  readonly reason: string;
}

/** Generate the schedule of one algorithm for the scenario (restrictions checked). */
export function scenarioSchedule(
  spec: AlgorithmSpec,
  s: ResolvedScenario,
  topology: Topology,
  params: Readonly<Record<string, ParamValue>>,
): Schedule {
  return generateSchedule(s.collective, spec.name, {
    size: s.P,
    count: s.count,
    root: s.root,
    commutative: s.commutative,
    elementSize: s.elementSize,
    topology,
    params,
    validate: false,
  });
}

/** Predict one algorithm with given parameters (defaults for the rest). */
export function predictAlgorithm(
  s: ResolvedScenario,
  name: string,
  machine: Machine,
  model: string | ParsedModel,
  params: Readonly<Record<string, ParamValue>> = {},
): AlgorithmPrediction | NotApplicable {
  const spec = getAlgorithm(s.collective, name);
  const place = placementFor(spec, s);
  if ('reason' in place) return { algorithm: spec.name, reason: place.reason };
  try {
    checkRestrictions(spec, { size: s.P, count: s.count, root: s.root, commutative: s.commutative, elementSize: s.elementSize, topology: place.topology, params });
  } catch (e) {
    if (e instanceof RestrictionError) return { algorithm: spec.name, reason: e.message.split('\n')[0] };
    throw e;
  }
  const sched = scenarioSchedule(spec, s, place.topology, params);
  const p = costSchedule(sched, machine, model, { topology: place.topology, elementSize: s.elementSize, op: s.op, dtype: s.datatype });
  return { ...p, algorithm: spec.name, params, dominant: dominantTerms(p.terms) };
}

export function isApplicable(x: AlgorithmPrediction | NotApplicable): x is AlgorithmPrediction {
  return 'time' in x;
}

/** Every algorithm of the collective with its default parameters, best first. */
export function predictAll(
  sc: Scenario,
  machine: Machine,
  model: string,
): { scenario: ResolvedScenario; predictions: AlgorithmPrediction[]; notApplicable: NotApplicable[] } {
  const pm = parseModel(model);
  const s = resolveScenario(sc, pm);
  const predictions: AlgorithmPrediction[] = [];
  const notApplicable: NotApplicable[] = [];
  for (const spec of listAlgorithms(s.collective)) {
    const r = predictAlgorithm(s, spec.name, machine, pm);
    if (isApplicable(r)) predictions.push(r);
    else notApplicable.push(r);
  }
  predictions.sort((a, b) => a.time - b.time);
  return { scenario: s, predictions, notApplicable };
}

export { algorithmId };
