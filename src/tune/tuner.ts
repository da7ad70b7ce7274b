/**
 * The tuner: for (collective, datatype, op, bytes, P, ppn, machine, model) rank every
 * applicable algorithm and parameter combination (candidates.ts grids, brute force)
 * by predicted time. Errors of the scenario (bad P, ppn, mesh, datatype) propagate;
 * an algorithm whose restrictions fail, or whose parameter value the generator
 * rejects, is listed as not applicable with the reason.
 */
import { CollectivesError } from '../core/errors.js';
import { listAlgorithms } from '../algorithms/registry.js';
import type { Machine } from '../model/machine.js';
import { parseModel } from '../model/models.js';
import { isApplicable, predictAlgorithm, resolveScenario, type AlgorithmPrediction, type NotApplicable, type ResolvedScenario, type Scenario } from '../model/predict.js';
import { parameterGrid, type GridOptions } from './candidates.js';

export interface TuneOptions {
  /** Model name (default 'dag'). */
  model?: string;
  /** Only these algorithms. */
  algorithms?: readonly string[];
  grid?: Omit<GridOptions, 'P' | 'count'>;
}

export interface TuneResult {
  readonly scenario: ResolvedScenario;
  /** Every evaluated (algorithm, params), fastest first. */
  readonly ranked: readonly AlgorithmPrediction[];
  /** The best parameter values of each algorithm, fastest first. */
  readonly bestPerAlgorithm: readonly AlgorithmPrediction[];
  readonly notApplicable: readonly NotApplicable[];
}

export function tune(sc: Scenario, machine: Machine, o: TuneOptions = {}): TuneResult {
  const model = parseModel(o.model ?? 'dag');
  const s = resolveScenario(sc, model);
  const ranked: AlgorithmPrediction[] = [];
  const notApplicable: NotApplicable[] = [];
  for (const spec of listAlgorithms(s.collective)) {
    if (o.algorithms && !o.algorithms.includes(spec.name)) continue;
    const grid = parameterGrid(spec, { ...o.grid, P: s.P, count: s.count });
    let any = false;
    let firstReason: string | undefined;
    for (const params of grid) {
      let r: AlgorithmPrediction | NotApplicable;
      try {
        r = predictAlgorithm(s, spec.name, machine, model, params);
      } catch (e) {
        if (!(e instanceof CollectivesError)) throw e;
        r = { algorithm: spec.name, reason: e.message.split('\n')[0] };
      }
      if (isApplicable(r)) {
        ranked.push(r);
        any = true;
      } else {
        firstReason ??= r.reason;
      }
    }
    if (!any) notApplicable.push({ algorithm: spec.name, reason: firstReason ?? 'no parameter value applies' });
  }
  // Stable order: time, then algorithm name (ties broken deterministically).
  ranked.sort((a, b) => a.time - b.time || a.algorithm.localeCompare(b.algorithm));
  const seen = new Set<string>();
  const bestPerAlgorithm = ranked.filter((r) => (seen.has(r.algorithm) ? false : (seen.add(r.algorithm), true)));
  return { scenario: s, ranked, bestPerAlgorithm, notApplicable };
}
