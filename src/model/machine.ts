/**
 * Machine parameter sets: the numbers every model and the simulator put on a
 * schedule, with the provenance of each value.
 *
 * All values are SI: seconds, seconds per byte, bytes per second. `sources` maps the
 * dotted path of every numeric field ("inter.alpha", "reduceTable.rows.sum/float64",
 * "injection.RN", ...) to where it comes from: a seed table, "assumed: <why>", or
 * "measured: coll fit <date> on <host>". `validateMachine` checks ranges (no negative
 * latency, ...) and that every value has a source.
 *
 * Field meanings follow docs/cost-semantics.md (alpha/beta per link class, oSend,
 * oRecv, gamma, copyPerByte). Model-specific extras are optional:
 * - `reduceTable`: c(op, dtype, n), seconds to combine two vectors of n elements
 *   (seed 000 Table 4.3). Used instead of γ·n when present for the (op, dtype).
 * - `startup`: a constant paid once per collective (seed 000's C; seed 003's barrier
 *   T_init − T_trig + T_adj).
 * - `injection`: max-rate model (seed 001 Eq. 3): R_N node injection bandwidth, R_b
 *   per-process bandwidth (B/s).
 * - `nbl`: the f(L) of the NBL model (seed 004).
 * - `combine`: per-element cost of a k-operand combine (seed 004's c2, c3) used by the
 *   round-synchronous evaluator instead of (k−1)·γ.
 * - `lrc`: seed 000's L, r, C in seconds (the closed forms read them).
 * - `loggp`: L, o, g, G (LogGP).
 * - `barrier`: seed 003's NIC barrier constants T_init, T_trig, T_adj.
 */
import { MachineFormatError, ParameterRangeError, checkNonNegative, checkPositive } from './errors.js';
import { F_PRESETS, type FSpec } from './nbl.js';

export type LinkClass = 'intra' | 'inter';

export interface LinkCost {
  /** Latency of one message (s). */
  readonly alpha: number;
  /** Transfer time per byte (s/B). */
  readonly beta: number;
}

/** Seconds to combine two vectors of n elements, tabulated at some n (seed 000 Table 4.3). */
export interface ReduceCostTable {
  /** Element counts of the columns, ascending. */
  readonly counts: readonly number[];
  /** Key "op/dtype" (e.g. "sum/float64"), values in seconds, one per column. */
  readonly rows: Readonly<Record<string, readonly number[]>>;
}

export interface Machine {
  readonly name: string;
  readonly description: string;
  /** Overall provenance (paper, measurement). */
  readonly source: string;
  /** Dotted path of each numeric value → its source, or "assumed: ...". */
  readonly sources: Readonly<Record<string, string>>;
  readonly intra: LinkCost;
  readonly inter: LinkCost;
  readonly oSend: number;
  readonly oRecv: number;
  /** Default seconds per element combination. */
  readonly gamma: number;
  /** γ by "op/dtype", "op" or "dtype" (most specific first). */
  readonly gammaBy?: Readonly<Record<string, number>>;
  readonly reduceTable?: ReduceCostTable;
  /** Seconds per byte of a local copy. */
  readonly copyPerByte: number;
  /** Constant paid once per collective (s). */
  readonly startup?: number;
  readonly injection?: { readonly RN: number; readonly Rb: number };
  readonly nbl?: { readonly f: FSpec };
  readonly combine?: Readonly<Record<number, number>>;
  readonly lrc?: { readonly L: number; readonly r: number; readonly C: number };
  readonly loggp?: { readonly L: number; readonly o: number; readonly g: number; readonly G: number };
  readonly barrier?: { readonly Tinit: number; readonly Ttrig: number; readonly Tadj: number };
  /** Processes per node the parameters were taken with (informational). */
  readonly ppn?: number;
}

/** Dotted paths of every numeric leaf of a machine (what `sources` must cover). */
export function numericPaths(m: Machine): string[] {
  const out: string[] = [];
  const walk = (v: unknown, path: string): void => {
    if (typeof v === 'number') out.push(path);
    else if (Array.isArray(v)) {
      if (v.every((x) => typeof x === 'number')) out.push(path);
      else v.forEach((x, i) => walk(x, `${path}.${i}`));
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) if (k !== 'sources') walk(x, path ? `${path}.${k}` : k);
    }
  };
  walk(m, '');
  return out.filter((p) => p !== 'ppn' && !p.startsWith('reduceTable.counts'));
}

/** The source of a value: the entry for its path or the nearest parent path. */
export function sourceOf(m: Machine, path: string): string | undefined {
  let p = path;
  while (p) {
    const s = m.sources[p];
    if (s !== undefined) return s;
    const i = p.lastIndexOf('.');
    p = i < 0 ? '' : p.slice(0, i);
  }
  return undefined;
}

/** Check ranges and provenance; throws ParameterRangeError / MachineFormatError. */
export function validateMachine(m: Machine): Machine {
  const ctx = `machine '${m.name}'`;
  if (typeof m.name !== 'string' || m.name === '') throw new MachineFormatError('a machine needs a non-empty name');
  for (const c of ['intra', 'inter'] as const) {
    if (!m[c] || typeof m[c] !== 'object') throw new MachineFormatError(`${ctx} has no '${c}' link parameters {alpha, beta}`);
    checkNonNegative(`${c}.alpha`, m[c].alpha, ctx);
    checkNonNegative(`${c}.beta`, m[c].beta, ctx);
  }
  checkNonNegative('oSend', m.oSend, ctx);
  checkNonNegative('oRecv', m.oRecv, ctx);
  checkNonNegative('gamma', m.gamma, ctx);
  checkNonNegative('copyPerByte', m.copyPerByte, ctx);
  if (m.startup !== undefined && !Number.isFinite(m.startup)) throw new ParameterRangeError('startup', m.startup, 'a finite number (s)', ctx);
  for (const [k, v] of Object.entries(m.gammaBy ?? {})) checkNonNegative(`gammaBy.${k}`, v, ctx);
  if (m.reduceTable) {
    const { counts, rows } = m.reduceTable;
    if (!Array.isArray(counts) || counts.length === 0 || counts.some((c, i) => !(c > 0) || (i > 0 && c <= counts[i - 1]))) {
      throw new ParameterRangeError('reduceTable.counts', JSON.stringify(counts), 'a non-empty ascending list of positive element counts', ctx);
    }
    for (const [k, row] of Object.entries(rows)) {
      if (!Array.isArray(row) || row.length !== counts.length) {
        throw new MachineFormatError(`${ctx}: reduceTable row '${k}' needs ${counts.length} values (one per count)`);
      }
      row.forEach((v, i) => checkNonNegative(`reduceTable.rows.${k}[${i}]`, v, ctx));
    }
  }
  if (m.injection) {
    checkPositive('injection.RN', m.injection.RN, ctx);
    checkPositive('injection.Rb', m.injection.Rb, ctx);
  }
  if (m.nbl) {
    const f = m.nbl.f;
    if (typeof f === 'string' ? !F_PRESETS.includes(f) : !f || typeof f.table !== 'object') {
      throw new ParameterRangeError('nbl.f', typeof f === 'string' ? f : JSON.stringify(f), `${F_PRESETS.join(', ')} or { table, source }`, ctx);
    }
  }
  for (const [k, v] of Object.entries(m.combine ?? {})) {
    if (!(Number(k) >= 2)) throw new ParameterRangeError(`combine.${k}`, k, 'operand counts ≥ 2', ctx);
    checkNonNegative(`combine.${k}`, v, ctx);
  }
  if (m.lrc) for (const k of ['L', 'r', 'C'] as const) checkNonNegative(`lrc.${k}`, m.lrc[k], ctx);
  if (m.loggp) for (const k of ['L', 'o', 'g', 'G'] as const) checkNonNegative(`loggp.${k}`, m.loggp[k], ctx);
  if (m.barrier) {
    checkNonNegative('barrier.Tinit', m.barrier.Tinit, ctx);
    checkNonNegative('barrier.Ttrig', m.barrier.Ttrig, ctx);
    if (!Number.isFinite(m.barrier.Tadj)) throw new ParameterRangeError('barrier.Tadj', m.barrier.Tadj, 'a finite number (s; may be negative)', ctx);
  }
  const missing = numericPaths(m).filter((p) => sourceOf(m, p) === undefined);
  if (missing.length > 0) {
    throw new MachineFormatError(`${ctx}: no source for ${missing.join(', ')}`, "add an entry to 'sources' (a citation, \"assumed: ...\" or \"measured: ...\")");
  }
  return m;
}

/** Seconds to combine two vectors of `count` elements of `dtype` with `op` on machine m. */
export function reduceTime(m: Machine, op: string, dtype: string, count: number): number {
  if (count <= 0) return 0;
  const row = m.reduceTable?.rows[`${op}/${dtype}`];
  if (row && m.reduceTable) return interpolateRow(m.reduceTable.counts, row, count);
  const g = m.gammaBy?.[`${op}/${dtype}`] ?? m.gammaBy?.[op] ?? m.gammaBy?.[dtype] ?? m.gamma;
  return g * count;
}

/**
 * Piecewise-linear c(n) through the table; below the first column proportional to n,
 * above the last extrapolated with the slope of the last two columns.
 */
export function interpolateRow(counts: readonly number[], row: readonly number[], n: number): number {
  if (n <= counts[0]) return (row[0] * n) / counts[0];
  for (let i = 1; i < counts.length; i++) {
    if (n <= counts[i]) return row[i - 1] + ((row[i] - row[i - 1]) * (n - counts[i - 1])) / (counts[i] - counts[i - 1]);
  }
  const k = counts.length - 1;
  if (k === 0) return (row[0] * n) / counts[0];
  const slope = (row[k] - row[k - 1]) / (counts[k] - counts[k - 1]);
  return row[k] + slope * (n - counts[k]);
}

/** Seconds per element for a k-operand combine in the round-synchronous models (seed 004 c2/c3 if given). */
export function combineTime(m: Machine, operands: number, op: string, dtype: string, count: number): number {
  const c = m.combine?.[operands];
  if (c !== undefined) return c * count;
  return (operands - 1) * reduceTime(m, op, dtype, count);
}
