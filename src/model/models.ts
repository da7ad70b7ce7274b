/**
 * The cost models by name, and `costSchedule`, which puts any schedule under any of
 * them ("any schedule can be costed under any model"):
 *
 *   dag          DAG evaluation of docs/cost-semantics.md (default; the simulator's reference)
 *   loggp        DAG evaluation with LogGP parameters (machine.loggp, else L = α, o = oSend, G = β)
 *   hockney      round-synchronous, every message α + nβ (seed 001 Eq. 1)
 *   split        round-synchronous, intra/inter-node α, β (seed 001 Eq. 2)
 *   maxrate      round-synchronous, injection-limited inter-node sends (seed 001 Eq. 3)
 *   nbl[:F]      round-synchronous NBL, form B, F = standard | nominal | fitted | testjig
 *                (default: the machine's f, else nominal) (seed 004)
 *   nbl-literal[:F]  the seed 004 appendix as printed (form A), to show the discrepancy
 */
import type { Topology } from '../schedule/topology.js';
import type { Schedule } from '../schedule/types.js';
import { evaluateDag } from './dag.js';
import { UnknownModelError } from './errors.js';
import { loggpAsLinks, type LogGP } from './loggp.js';
import type { Machine } from './machine.js';
import { F_PRESETS, resolveF, type FPresetName } from './nbl.js';
import { evaluateRounds, type RoundCost, type RoundLaw } from './rounds.js';
import type { CostTerms } from './terms.js';

export type ModelBase = 'dag' | 'loggp' | RoundLaw;

export const MODELS: readonly { readonly name: ModelBase; readonly description: string }[] = Object.freeze([
  { name: 'dag', description: 'DAG evaluation (docs/cost-semantics.md): per-rank CPU, out-/in-port serialisation, contention-free' },
  { name: 'loggp', description: 'DAG evaluation with LogGP L, o, G (machine.loggp, else L = α_inter, o = oSend, G = β_inter)' },
  { name: 'hockney', description: 'round-synchronous postal α-β-γ, node-unaware (seed 001 Eq. 1)' },
  { name: 'split', description: 'round-synchronous, intra-/inter-node α, β (seed 001 Eq. 2)' },
  { name: 'maxrate', description: 'round-synchronous max-rate: injectors per node share R_N (seed 001 Eq. 3)' },
  { name: 'nbl', description: 'round-synchronous NBL L·α + f(L)·β·S, form B (seed 004); nbl:standard|nominal|fitted|testjig' },
  { name: 'nbl-literal', description: 'seed 004 appendix as printed, L·(α + f(L)·β·S) (form A, inconsistent; for comparison)' },
]);

/** All accepted model names, including the NBL presets. */
export function modelNames(): string[] {
  const out: string[] = [];
  for (const m of MODELS) {
    out.push(m.name);
    if (m.name === 'nbl' || m.name === 'nbl-literal') for (const p of F_PRESETS) out.push(`${m.name}:${p}`);
  }
  return out;
}

export interface ParsedModel {
  readonly base: ModelBase;
  readonly preset?: FPresetName;
  /** Canonical name, e.g. "nbl:fitted". */
  readonly label: string;
}

export function parseModel(name: string): ParsedModel {
  const [base, preset, ...extra] = name.split(':');
  const known = MODELS.find((m) => m.name === base);
  if (!known || extra.length > 0) throw new UnknownModelError(name, modelNames());
  if (preset !== undefined) {
    if ((base !== 'nbl' && base !== 'nbl-literal') || !(F_PRESETS as readonly string[]).includes(preset)) {
      throw new UnknownModelError(name, modelNames());
    }
    return { base: known.name, preset: preset as FPresetName, label: name };
  }
  return { base: known.name, label: name };
}

export interface CostOptions {
  topology?: Topology;
  elementSize?: number;
  op?: string;
  dtype?: string;
}

export interface Prediction {
  readonly model: string;
  readonly time: number;
  readonly terms: CostTerms;
  readonly perRank?: readonly number[];
  readonly rounds?: readonly RoundCost[];
}

export function loggpOf(m: Machine): LogGP {
  return m.loggp ?? { L: m.inter.alpha, o: m.oSend, g: 0, G: m.inter.beta };
}

export function costSchedule(schedule: Schedule, machine: Machine, model: string | ParsedModel, o: CostOptions = {}): Prediction {
  const pm = typeof model === 'string' ? parseModel(model) : model;
  if (pm.base === 'dag' || pm.base === 'loggp') {
    let links;
    if (pm.base === 'loggp') {
      const l = loggpAsLinks(loggpOf(machine));
      links = { intra: { alpha: l.alpha, beta: l.beta }, inter: { alpha: l.alpha, beta: l.beta }, oSend: l.oSend, oRecv: l.oRecv };
    }
    const r = evaluateDag(schedule, machine, { ...o, links });
    return { model: pm.label, time: r.time, terms: r.terms, perRank: r.perRank };
  }
  const f = pm.preset ? resolveF(pm.preset) : undefined;
  const r = evaluateRounds(schedule, machine, { ...o, law: pm.base, f });
  return { model: pm.label, time: r.time, terms: r.terms, rounds: r.rounds };
}
