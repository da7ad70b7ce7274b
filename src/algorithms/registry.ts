/**
 * The algorithm catalogue: every algorithm of every collective, looked up by
 * collective and name, with restriction checking and whole-schedule generation.
 */
import { RestrictionError, UnknownAlgorithmError } from '../core/errors.js';
import { makeContext, type ContextOptions, type ParamValue } from '../schedule/context.js';
import { assertValidSchedule } from '../schedule/validate.js';
import { COLLECTIVES, type CollectiveKind, type RankSchedule, type Schedule } from '../schedule/types.js';
import { ALLGATHER_ALGORITHMS } from './allgather/index.js';
import { ALLREDUCE_ALGORITHMS } from './allreduce/index.js';
import { ALLTOALL_ALGORITHMS } from './alltoall/index.js';
import { BARRIER_ALGORITHMS } from './barrier/index.js';
import { BCAST_ALGORITHMS } from './bcast/index.js';
import { GATHER_ALGORITHMS } from './gather/index.js';
import { REDUCE_ALGORITHMS } from './reduce/index.js';
import { REDUCE_SCATTER_ALGORITHMS } from './reduce_scatter/index.js';
import { SCATTER_ALGORITHMS } from './scatter/index.js';
import { EXSCAN_ALGORITHMS, SCAN_ALGORITHMS } from './scan/index.js';
import { firstViolation } from './restrictions.js';
import { resolveParams } from './params.js';
import { algorithmId, type AlgorithmSpec } from './types.js';

const ALL: readonly AlgorithmSpec[] = Object.freeze([
  ...BARRIER_ALGORITHMS,
  ...BCAST_ALGORITHMS,
  ...REDUCE_ALGORITHMS,
  ...ALLREDUCE_ALGORITHMS,
  ...ALLGATHER_ALGORITHMS,
  ...REDUCE_SCATTER_ALGORITHMS,
  ...GATHER_ALGORITHMS,
  ...SCATTER_ALGORITHMS,
  ...ALLTOALL_ALGORITHMS,
  ...SCAN_ALGORITHMS,
  ...EXSCAN_ALGORITHMS,
]);

const BY_ID = new Map(ALL.map((a) => [algorithmId(a), a]));

/** Every algorithm, or those of one collective, in catalogue order. */
export function listAlgorithms(collective?: CollectiveKind): readonly AlgorithmSpec[] {
  return collective ? ALL.filter((a) => a.collective === collective) : ALL;
}

export function isCollective(name: string): name is CollectiveKind {
  return (COLLECTIVES as readonly string[]).includes(name);
}

/** Look up an algorithm by collective and name (or by full id "collective/name"). */
export function getAlgorithm(collective: CollectiveKind, name: string): AlgorithmSpec {
  const id = name.includes('/') ? name : `${collective}/${name}`;
  const spec = BY_ID.get(id);
  if (!spec || spec.collective !== collective) {
    throw new UnknownAlgorithmError(name, collective, listAlgorithms(collective).map((a) => a.name));
  }
  return spec;
}

export interface GenerateOptions extends Omit<ContextOptions, 'rank' | 'params'> {
  params?: Readonly<Record<string, ParamValue>>;
  /** Validate the whole schedule (default true). */
  validate?: boolean;
}

/** Throw RestrictionError if the configuration violates a restriction of the algorithm. */
export function checkRestrictions(spec: AlgorithmSpec, o: Omit<ContextOptions, 'rank'>): void {
  const ctx = makeContext(spec.collective, { ...o, rank: 0 });
  const v = firstViolation(spec.restrictions, ctx);
  if (v) {
    throw new RestrictionError(
      algorithmId(spec),
      v.restriction.description,
      v.detail,
      spec.fallback ? `use '${spec.fallback}' instead, or let the library choose` : 'choose another algorithm, or let the library choose',
    );
  }
}

/** One rank's schedule. */
export function generateRankSchedule(
  spec: AlgorithmSpec,
  rank: number,
  o: Omit<GenerateOptions, 'validate'>,
): RankSchedule {
  const ctx = makeContext(spec.collective, { ...o, rank, params: {} });
  return spec.generate({ ...ctx, params: resolveParams(spec, ctx, o.params ?? {}) });
}

/** The schedules of all ranks, restriction-checked and (by default) validated. */
export function generateSchedule(collective: CollectiveKind, name: string, o: GenerateOptions): Schedule {
  const spec = getAlgorithm(collective, name);
  checkRestrictions(spec, o);
  const schedule: RankSchedule[] = [];
  for (let r = 0; r < o.size; r++) schedule.push(generateRankSchedule(spec, r, o));
  if (o.validate ?? true) assertValidSchedule(schedule);
  return schedule;
}
