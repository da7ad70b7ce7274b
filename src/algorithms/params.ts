/** Parameter resolution: fill defaults, check types and ranges, reject unknown names. */
import { ArgumentError } from '../core/errors.js';
import type { ParamValue, ScheduleContext } from '../schedule/context.js';
import { flatTopology } from '../schedule/topology.js';
import type { CollectiveKind } from '../schedule/types.js';
import { algorithmId, type AlgorithmSpec } from './types.js';

export function resolveParams(
  spec: AlgorithmSpec,
  ctx: ScheduleContext,
  given: Readonly<Record<string, ParamValue>> = {},
): Record<string, ParamValue> {
  const out: Record<string, ParamValue> = {};
  const known = new Set(spec.params.map((p) => p.name));
  for (const k of Object.keys(given)) {
    if (!known.has(k)) {
      throw new ArgumentError(
        `algorithm '${algorithmId(spec)}' has no parameter '${k}'`,
        spec.params.length ? `its parameters: ${spec.params.map((p) => p.name).join(', ')}` : 'it takes no parameters',
      );
    }
  }
  for (const p of spec.params) {
    const v = given[p.name] ?? (typeof p.default === 'function' ? p.default(ctx) : p.default);
    switch (p.type) {
      case 'int':
        if (typeof v !== 'number' || !Number.isSafeInteger(v) || (p.min !== undefined && v < p.min) || (p.max !== undefined && v > p.max)) {
          throw new ArgumentError(
            `parameter '${p.name}' of '${algorithmId(spec)}' must be an integer in [${p.min ?? '-inf'}, ${p.max ?? 'inf'}], got ${String(v)}`,
          );
        }
        break;
      case 'bool':
        if (typeof v !== 'boolean') throw new ArgumentError(`parameter '${p.name}' of '${algorithmId(spec)}' must be true or false, got ${String(v)}`);
        break;
      case 'enum':
        if (typeof v !== 'string' || !(p.values ?? []).includes(v)) {
          throw new ArgumentError(
            `parameter '${p.name}' of '${algorithmId(spec)}' must be one of ${(p.values ?? []).join(', ')}, got ${String(v)}`,
          );
        }
        break;
    }
    out[p.name] = v;
  }
  return out;
}

export interface SubContextOptions {
  collective?: CollectiveKind;
  rank: number;
  size: number;
  count: number;
  root?: number;
  params?: Readonly<Record<string, ParamValue>>;
}

/**
 * Context for generating a building-block schedule over a sub-group of ranks (for
 * composite algorithms): same operator and element size, a flat topology unless
 * given, and the block algorithm's defaults for parameters not passed.
 */
export function subSchedule(spec: AlgorithmSpec, parent: ScheduleContext, o: SubContextOptions) {
  const ctx: ScheduleContext = {
    collective: o.collective ?? spec.collective,
    rank: o.rank,
    size: o.size,
    count: o.count,
    root: o.root ?? 0,
    commutative: parent.commutative,
    elementSize: parent.elementSize,
    topology: flatTopology(o.size),
    params: {},
  };
  return spec.generate({ ...ctx, params: resolveParams(spec, ctx, o.params ?? {}) });
}
