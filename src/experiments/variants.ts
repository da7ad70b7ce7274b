/**
 * What an experiment compares: execution modes of the library, plus 'host-poll', the
 * host mode with waits that never park (COLL_SPIN_US set to 10^9 µs). The library's
 * host mode polls for a bounded, adaptive time and then parks (docs/runtime.md);
 * 'host-poll' is the host-based baseline of the seeds, whose MPI libraries (MPICH-GM,
 * the Quadrics Elan library) busy-poll for as long as a call waits.
 *
 * Also the job environment for injected OS noise (src/runtime/noise.ts, COLL_NOISE).
 */
import { ArgumentError } from '../core/errors.js';
import { EXECUTION_MODES, type ExecutionMode } from '../runtime/communicator.js';

export type Variant = ExecutionMode | 'host-poll';

export const VARIANTS: readonly Variant[] = [...EXECUTION_MODES, 'host-poll'];

/** COLL_SPIN_US of the 'host-poll' variant: 1000 s, i.e. never park. */
export const HOST_POLL_SPIN_US = 1e9;

export function isVariant(v: string): v is Variant {
  return (VARIANTS as readonly string[]).includes(v);
}

export function parseVariants(values: readonly string[], fallback: readonly Variant[]): Variant[] {
  for (const v of values) if (!isVariant(v)) throw new ArgumentError(`unknown --mode '${v}'`, `use ${VARIANTS.join(', ')}`);
  const list = values.length > 0 ? (values as Variant[]) : [...fallback];
  return [...new Set(list)];
}

/** The library execution mode a variant runs its collectives in. */
export function variantMode(v: Variant): ExecutionMode {
  return v === 'host-poll' ? 'host' : v;
}

/** Extra job environment of a variant. */
export function variantEnv(v: Variant): Record<string, string> {
  return v === 'host-poll' ? { COLL_SPIN_US: String(HOST_POLL_SPIN_US) } : {};
}

export interface NoiseOptions {
  /** Mean time between noise events per rank thread (µs). */
  readonly periodUs: number;
  /** Time an event takes from a running rank thread (µs). */
  readonly durationUs: number;
  /** Exponential gaps instead of a fixed period (random phase per rank). */
  readonly poisson: boolean;
  readonly seed: number;
}

/** The COLL_NOISE value of a noise configuration. */
export function noiseEnvValue(n: NoiseOptions): string {
  return `period=${n.periodUs},duration=${n.durationUs}${n.poisson ? ',poisson' : ''},seed=${n.seed}`;
}

/** Check a noise configuration the way the injector will (0 <= duration < period). */
export function checkNoise(n: NoiseOptions): void {
  if (!(n.periodUs > 0) || !(n.durationUs >= 0) || !(n.durationUs < n.periodUs)) {
    throw new ArgumentError(`noise needs 0 <= duration < period, got period ${n.periodUs} µs, duration ${n.durationUs} µs`);
  }
  if (!Number.isInteger(n.seed)) throw new ArgumentError(`the noise seed must be an integer, got ${n.seed}`);
}
