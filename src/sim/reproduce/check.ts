/**
 * Checks of the seeds' quantitative claims against the simulator: the same fields as
 * `coll reproduce models` (published, ours, relative error, tolerance, status) plus
 * the basis of the comparison, so that calibration targets are never passed off as
 * validation:
 * - `calibrated`: a parameter was fitted to this very number (a check of the fit);
 * - `validation`: nothing was fitted to it;
 * - `input`: the number is a machine parameter taken from the seed;
 * - `derived`: compared with a value the extract derived from the seed's formulas.
 * Status `not-matchable` says why the number cannot be matched without inventing
 * parameters; `info` rows give context without a verdict.
 */
import type { Check } from '../../model/reproduce.js';

export type Basis = 'calibrated' | 'validation' | 'input' | 'derived';

export interface SimCheck extends Check {
  readonly basis: Basis;
}

/** A plot of a seed's figure from simulation (SVG text). */
export interface SimPlot {
  readonly name: string;
  readonly svg: string;
}

/** One seed's checks and plots, with the simulation effort spent on them. */
export interface SeedReproduction {
  readonly seed: string;
  readonly checks: readonly SimCheck[];
  readonly plots: readonly SimPlot[];
  /** How many runs the distributions used and what was reduced to keep `coll reproduce all` short. */
  readonly effort: string;
}

export const rel = (ours: number, pub: number): number => Math.abs(ours - pub) / Math.abs(pub);

/** Format a number with a unit at a precision suited to its size. */
export function fmt(x: number, unit: string): string {
  if (!Number.isFinite(x)) return `${x}${unit}`;
  const a = Math.abs(x);
  const d = a >= 100 ? 1 : a >= 10 ? 2 : a >= 1 ? 2 : 3;
  return `${x.toFixed(d)}${unit}`;
}

/** A numeric check: pass when the relative error is within `tol`. */
export function numeric(
  seed: string,
  claim: string,
  published: number,
  ours: number,
  tol: number,
  unit: string,
  basis: Basis,
  note?: string,
): SimCheck {
  const e = rel(ours, published);
  return {
    seed,
    claim,
    published: `${published}${unit}`,
    ours: fmt(ours, unit),
    relError: e,
    tolerance: `${(tol * 100).toPrecision(2)}%`,
    status: e <= tol ? 'pass' : 'fail',
    basis,
    ...(note ? { note } : {}),
  };
}

/** A qualitative check (ordering, sign, "about equal"). */
export function verdict(
  seed: string,
  claim: string,
  published: string,
  ours: string,
  ok: boolean,
  tolerance: string,
  basis: Basis,
  note?: string,
): SimCheck {
  return { seed, claim, published, ours, tolerance, status: ok ? 'pass' : 'fail', basis, ...(note ? { note } : {}) };
}

/** A number the simulation cannot match without invented parameters; ours is still shown. */
export function notMatchable(seed: string, claim: string, published: string, ours: string, why: string, basis: Basis = 'validation', relError?: number): SimCheck {
  return { seed, claim, published, ours, tolerance: '—', status: 'not-matchable', basis, note: why, ...(relError !== undefined ? { relError } : {}) };
}

/** Context without a verdict. */
export function info(seed: string, claim: string, published: string, ours: string, note?: string, basis: Basis = 'validation'): SimCheck {
  return { seed, claim, published, ours, tolerance: '—', status: 'info', basis, ...(note ? { note } : {}) };
}

export const us = 1e-6;
