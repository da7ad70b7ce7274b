/**
 * The model view's data, without the DOM (unit-tested in Node; model.ts draws it):
 * points grouped into lines per (collective, algorithm, role, P), the ratio of a point
 * (measured / predicted: above 1 the model is optimistic), a summary of the agreement,
 * and the labels the view prints.
 */
import type { ModelPoint } from '../document.js';

/** measured / predicted, or undefined where the model has no prediction (or it is not positive). */
export function pointRatio(p: ModelPoint): number | undefined {
  return p.predictedUs !== undefined && p.predictedUs > 0 && Number.isFinite(p.predictedUs) && Number.isFinite(p.measuredUs) ? p.measuredUs / p.predictedUs : undefined;
}

/** One line of a panel: the points of one algorithm in one role at one P, by size. */
export interface ModelLine {
  readonly collective: string;
  readonly algorithm: string;
  readonly role: ModelPoint['role'];
  readonly P: number;
  /** Indices into the view's points, ascending in bytes. */
  readonly points: readonly number[];
}

/** The points' lines, in order of first appearance (a repeated size keeps every point; the line goes through them in order). */
export function modelLines(points: readonly ModelPoint[], keep: (p: ModelPoint) => boolean = () => true): ModelLine[] {
  const groups = new Map<string, { line: Omit<ModelLine, 'points'>; idx: number[] }>();
  points.forEach((p, i) => {
    if (!keep(p)) return;
    const k = JSON.stringify([p.collective, p.algorithm, p.role, p.P]);
    let g = groups.get(k);
    if (!g) groups.set(k, (g = { line: { collective: p.collective, algorithm: p.algorithm, role: p.role, P: p.P }, idx: [] }));
    g.idx.push(i);
  });
  return [...groups.values()].map((g) => ({ ...g.line, points: [...g.idx].sort((a, b) => points[a].bytes - points[b].bytes || a - b) }));
}

/** How well the predictions match: the points with a ratio, its geometric mean, the share within a factor 2 and the extremes. */
export interface Agreement {
  readonly n: number;
  readonly geomean: number;
  readonly within2: number;
  readonly min: number;
  readonly max: number;
}

export function agreement(points: readonly ModelPoint[]): Agreement {
  const rs = points.map(pointRatio).filter((r): r is number => r !== undefined && r > 0);
  if (rs.length === 0) return { n: 0, geomean: Number.NaN, within2: Number.NaN, min: Number.NaN, max: Number.NaN };
  return {
    n: rs.length,
    geomean: Math.exp(rs.reduce((a, r) => a + Math.log(r), 0) / rs.length),
    within2: rs.filter((r) => r >= 0.5 && r <= 2).length / rs.length,
    min: Math.min(...rs),
    max: Math.max(...rs),
  };
}

/** The role as the view names it. */
export function roleText(role: ModelPoint['role']): string {
  return role === 'choice' ? "tuner's choice" : role === 'default' ? "runtime's default" : 'fitted series';
}

/** The distinct process counts of the collective points (role ≠ fit, P > 0), ascending. */
export function processCounts(points: readonly ModelPoint[]): number[] {
  return [...new Set(points.filter((p) => p.role !== 'fit' && p.P > 0).map((p) => p.P))].sort((a, b) => a - b);
}

/** A plain number for a kernel axis (elements): 512, 4096, 65536, 1.05e+6. */
export function countText(v: number): string {
  return Math.abs(v) < 1e6 ? String(+v.toPrecision(6)) : v.toExponential(2);
}

/** What a point's x counts. */
export type XUnit = 'bytes' | 'elements' | 'processes';

/**
 * The x unit of a point: bytes for a collective; for a fitted series (role 'fit', whose
 * `collective` is the series' kind in `coll fit --report`, src/tune/fit-report.ts) the
 * unit of that kind — copy, ping-pong and LogGP in bytes, reduce kernels and the NBL
 * test jig in elements, the serial reduction in processes; elements for a kind not
 * known here.
 */
export function xUnit(p: ModelPoint): XUnit {
  if (p.role !== 'fit') return 'bytes';
  switch (p.collective) {
    case 'copy':
    case 'ping-pong':
    case 'loggp':
      return 'bytes';
    case 'serial-reduction':
      return 'processes';
    default:
      return 'elements';
  }
}

/** An x as the tooltip shows it: "64 KiB (65536 B)", "4096 elements", "8 processes". */
export function xText(x: number, unit: XUnit, short: (b: number) => string): string {
  if (unit === 'bytes') return x < 1024 ? `${x} B` : `${short(x)} (${x} B)`;
  return `${countText(x)} ${unit === 'processes' ? (x === 1 ? 'process' : 'processes') : x === 1 ? 'element' : 'elements'}`;
}
