/**
 * What the catalogue knows about an algorithm: identity, restrictions, parameters,
 * a closed-form cost, and the schedule generator itself.
 */
import type { ParamValue, ScheduleContext } from '../schedule/context.js';
import type { CollectiveKind, RankSchedule } from '../schedule/types.js';

export interface ParamSpec {
  readonly name: string;
  readonly description: string;
  readonly type: 'int' | 'enum' | 'bool';
  /** Default value, or a rule computing it from the context (described in `defaultText`). */
  readonly default: ParamValue | ((ctx: ScheduleContext) => ParamValue);
  readonly defaultText?: string;
  readonly min?: number;
  readonly max?: number;
  readonly values?: readonly string[];
}

export interface Restriction {
  /** Short id, e.g. 'commutative', 'power-of-two'. */
  readonly id: string;
  /** What the algorithm requires, as a phrase: "a commutative operator". */
  readonly description: string;
  /** Returns why `ctx` violates the restriction, or undefined when it holds. */
  check(ctx: ScheduleContext): string | undefined;
}

/** Inputs of a closed-form Hockney (α-β-γ) estimate. */
export interface CostInputs {
  /** Number of ranks. */
  readonly P: number;
  /** Bytes of one rank's vector (count × element size); the block size for allgather-like collectives. */
  readonly n: number;
  /** Per-message latency (s). */
  readonly alpha: number;
  /** Per-byte transfer time (s/B). */
  readonly beta: number;
  /** Per-byte reduction time (s/B). */
  readonly gamma: number;
  /** Bytes per element (default 8), to turn parameters given in elements into bytes. */
  readonly elementSize?: number;
  readonly params: Readonly<Record<string, ParamValue>>;
}

export interface CostFormula {
  /** Human-readable formula, e.g. "⌈lg P⌉·(α + nβ + nγ)". */
  readonly formula: string;
  /** The same formula evaluated. */
  estimate(x: CostInputs): number;
}

export interface AlgorithmSpec {
  /** Name within its collective, e.g. 'recursive_doubling'. */
  readonly name: string;
  readonly collective: CollectiveKind;
  readonly description: string;
  /** Where the algorithm comes from (seed section or library). */
  readonly source: string;
  readonly restrictions: readonly Restriction[];
  readonly params: readonly ParamSpec[];
  readonly cost: CostFormula;
  /**
   * For reductions: combines operands in rank order, so non-commutative operators
   * give v0 ∘ v1 ∘ … ∘ vP−1. Algorithms that reorder declare the 'commutative' restriction.
   */
  readonly orderPreserving: boolean;
  /** What the generator reads from the topology: node membership, or the mesh placement. */
  readonly topology?: 'nodes' | 'mesh';
  /** Algorithm to use instead when a restriction fails under automatic selection. */
  readonly fallback?: string;
  /** Generate this rank's schedule; params are complete and validated. */
  generate(ctx: ScheduleContext): RankSchedule;
}

/** Full id as listed: "<collective>/<name>". */
export function algorithmId(a: Pick<AlgorithmSpec, 'collective' | 'name'>): string {
  return `${a.collective}/${a.name}`;
}
