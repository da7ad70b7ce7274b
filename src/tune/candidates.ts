/**
 * Parameter grids the tuner searches by brute force, per parameter name:
 * - tree degrees / radices / fan-outs (`f`, `k`, `lambda`): every integer from the
 *   parameter's minimum to min(P, 16) (and P − 1 when larger than that: the flat tree);
 * - vector splits (`splits`): 0 … min(⌊lg P⌋, ⌊lg count⌋, 8);
 * - segment and block sizes in elements (`segment`, `block`): powers of two from 1
 *   to count, and count itself, keeping at most `maxSegments` pieces;
 * - enum and bool parameters: every value; any other int parameter: its default.
 * The grid is the Cartesian product, truncated at `maxCombinations`.
 */
import type { AlgorithmSpec, ParamSpec } from '../algorithms/types.js';
import type { ParamValue } from '../schedule/context.js';

export interface GridOptions {
  readonly P: number;
  readonly count: number;
  readonly maxSegments?: number;
  readonly maxDegree?: number;
  readonly maxCombinations?: number;
}

export function paramValues(p: ParamSpec, o: GridOptions): ParamValue[] | undefined {
  const lo = p.min ?? 1;
  const hi = p.max ?? Number.MAX_SAFE_INTEGER;
  const within = (v: number): boolean => v >= lo && v <= hi;
  if (p.type === 'bool') return [false, true];
  if (p.type === 'enum') return [...(p.values ?? [])];
  switch (p.name) {
    case 'f':
    case 'k':
    case 'lambda': {
      const top = Math.min(Math.max(o.P - 1, lo), o.maxDegree ?? 16);
      const out: number[] = [];
      for (let v = lo; v <= top; v++) if (within(v)) out.push(v);
      if (o.P - 1 > top && within(o.P - 1)) out.push(o.P - 1);
      return out.length > 0 ? out : undefined;
    }
    case 'splits': {
      const top = Math.min(Math.floor(Math.log2(Math.max(1, o.P))), Math.floor(Math.log2(Math.max(1, o.count))), 8);
      const out: number[] = [];
      for (let v = Math.max(0, lo); v <= top; v++) if (within(v)) out.push(v);
      return out.length > 0 ? out : undefined;
    }
    case 'segment':
    case 'block': {
      const maxSeg = o.maxSegments ?? 256;
      const n = Math.max(1, o.count);
      const set = new Set<number>();
      for (let v = 1; v <= n; v *= 2) if (Math.ceil(n / v) <= maxSeg && within(v)) set.add(v);
      if (within(n)) set.add(n);
      return set.size > 0 ? [...set].sort((a, b) => a - b) : undefined;
    }
    default:
      return undefined;
  }
}

/** Parameter combinations to try for an algorithm (at least one: {} meaning all defaults). */
export function parameterGrid(spec: AlgorithmSpec, o: GridOptions): Record<string, ParamValue>[] {
  let combos: Record<string, ParamValue>[] = [{}];
  const cap = o.maxCombinations ?? 512;
  for (const p of spec.params) {
    const vals = paramValues(p, o);
    if (!vals) continue;
    const next: Record<string, ParamValue>[] = [];
    for (const c of combos) for (const v of vals) if (next.length < cap) next.push({ ...c, [p.name]: v });
    combos = next;
  }
  return combos;
}
