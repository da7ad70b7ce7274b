/**
 * Closed forms of seed 004's appendix (Littlefield 1992, §7.1): global vector
 * combining (sum + broadcast) on a W×H mesh with the NBL model, loosely synchronous
 * steps, N elements per vector, block size S elements, B = ⌈N/S⌉ blocks.
 *
 * Each algorithm is a timeline of (steps, active links L of the busiest node,
 * combine arity) rows, copied from the appendix; a step costs (form B)
 *   L·α + f(L)·β·S + c·S
 * with c = c2 or c3 in the steps that combine, β per element. The literal appendix
 * ("form A", `literal: true`) charges L·(α + f(L)·β·S) + c·S instead (see ../nbl.ts).
 *
 * Tree:  (⌈lg W⌉ + ⌈lg H⌉)·(2(α + f(1)βN) + c2·N)     (the seed assumes powers of two)
 * Snake: 1×(1, c2), (P−2)×(2, c2), 1×(3, c2), (B−3)×(4, c2), 1×(3, c2), (P−2)×(2), 1×(1)
 * Fence: 1×(1, c2), (H−1)×(2, c2), (W−2)×(3, c3), 1×(4, c3), (B−3)×(6, c3), 1×(4, c3),
 *        (W−2)×(3), (H−1)×(2), 1×(1)
 * The timelines assume B ≥ 3 (and W ≥ 2 for Fence, P ≥ 2 for Snake).
 * Note: in the Fence step where the first block "turns the corner", node (W−2, 0)
 * already receives from above and from the right (column W−2 starts one step after
 * column W−1) and combines 3 ways; the printed timeline charges c2 there. A schedule
 * costed round by round is therefore (c3 − c2)·S above the printed closed form.
 *
 * Optimum block size. Form B reproduces the printed Fence formula (Eq. 1) exactly;
 * the printed Snake formula lacks the factor 4 and the 2βf(1) term (erratum), the
 * consistent one is S_opt = sqrt(4Nα / ((P−2)(c2 + 2βf(2)) + β(2f(1) + 2f(3) − 3f(4)))).
 * All three are provided; `bestBlock` minimises T over integer S numerically, which is
 * what the regime maps use.
 */
import { ArgumentError, checkIntRange } from '../../core/errors.js';
import { checkNonNegative } from '../errors.js';

export interface LittlefieldParams {
  /** Latency per message (s). */
  readonly alpha: number;
  /** Transfer time per element (s/element; the seed's µs per double). */
  readonly beta: number;
  /** Per-element combine cost of 2 and 3 vectors (s/element). */
  readonly c2: number;
  readonly c3: number;
  /** f(L, S) with S in elements. */
  readonly f: (L: number, S: number) => number;
  /** Use the appendix as printed (form A) instead of form B. */
  readonly literal?: boolean;
}

export interface TimelineRow {
  readonly steps: number;
  readonly links: number;
  /** Operands combined in each of these steps (0: no combine). */
  readonly combine: 0 | 2 | 3;
}

export function snakeTimeline(P: number, B: number): TimelineRow[] {
  checkIntRange('P (Snake)', P, 2, 1 << 30);
  if (!Number.isInteger(B) || B < 3) throw new ArgumentError(`the Snake timeline needs B ≥ 3 blocks, got B = ${B}`, 'use a smaller block size S (B = ⌈N/S⌉)');
  return [
    { steps: 1, links: 1, combine: 2 },
    { steps: P - 2, links: 2, combine: 2 },
    { steps: 1, links: 3, combine: 2 },
    { steps: B - 3, links: 4, combine: 2 },
    { steps: 1, links: 3, combine: 2 },
    { steps: P - 2, links: 2, combine: 0 },
    { steps: 1, links: 1, combine: 0 },
  ];
}

export function fenceTimeline(W: number, H: number, B: number): TimelineRow[] {
  checkIntRange('W (Fence)', W, 2, 1 << 15);
  checkIntRange('H (Fence)', H, 1, 1 << 15);
  if (!Number.isInteger(B) || B < 3) throw new ArgumentError(`the Fence timeline needs B ≥ 3 blocks, got B = ${B}`, 'use a smaller block size S (B = ⌈N/S⌉)');
  return [
    { steps: 1, links: 1, combine: 2 },
    { steps: H - 1, links: 2, combine: 2 },
    { steps: W - 2, links: 3, combine: 3 },
    { steps: 1, links: 4, combine: 3 },
    { steps: B - 3, links: 6, combine: 3 },
    { steps: 1, links: 4, combine: 3 },
    { steps: W - 2, links: 3, combine: 0 },
    { steps: H - 1, links: 2, combine: 0 },
    { steps: 1, links: 1, combine: 0 },
  ];
}

function checkParams(p: LittlefieldParams): void {
  for (const k of ['alpha', 'beta', 'c2', 'c3'] as const) checkNonNegative(k, p[k], 'seed 004 model');
}

/** Time of one step with L links, S elements per message, combining `combine` vectors. */
export function stepTime(p: LittlefieldParams, L: number, S: number, combine: 0 | 2 | 3): number {
  const f = p.f(L, S);
  const comm = p.literal ? L * (p.alpha + f * p.beta * S) : L * p.alpha + f * p.beta * S;
  const c = combine === 2 ? p.c2 : combine === 3 ? p.c3 : 0;
  return comm + c * S;
}

export function timelineTime(p: LittlefieldParams, rows: readonly TimelineRow[], S: number): number {
  checkParams(p);
  return rows.reduce((t, r) => t + r.steps * stepTime(p, r.links, S, r.combine), 0);
}

const lg = (x: number): number => Math.ceil(Math.log2(x) - 1e-12);

export function treeTime(p: LittlefieldParams, W: number, H: number, N: number): number {
  checkParams(p);
  return (lg(W) + lg(H)) * (2 * stepTime(p, 1, N, 0) + p.c2 * N);
}

export function snakeTime(p: LittlefieldParams, P: number, N: number, S: number): number {
  return timelineTime(p, snakeTimeline(P, Math.ceil(N / S)), S);
}

export function fenceTime(p: LittlefieldParams, W: number, H: number, N: number, S: number): number {
  return timelineTime(p, fenceTimeline(W, H, Math.ceil(N / S)), S);
}

/** Steps of each algorithm (extract §4): Tree 2(⌈lg W⌉+⌈lg H⌉), Snake 2P+B−3, Fence 2H+2W+B−5. */
export function stepCounts(W: number, H: number, B: number): { tree: number; snake: number; fence: number } {
  return { tree: 2 * (lg(W) + lg(H)), snake: 2 * W * H + B - 3, fence: 2 * H + 2 * W + B - 5 };
}

/** Printed Fence optimum (seed 004 Eq. 1), form B consistent. */
export function fenceSoptPrinted(p: LittlefieldParams, W: number, H: number, N: number, S = 1): number {
  const f = (L: number): number => p.f(L, S);
  const den = H * (p.c2 + 2 * p.beta * f(2)) + W * (p.c3 + 2 * p.beta * f(3)) - 3 * p.c3 + p.beta * (2 * f(1) - 2 * f(2) - 4 * f(3) + 2 * f(4) - 3 * f(6));
  return Math.sqrt((6 * N * p.alpha) / den);
}

/** Printed Snake optimum (erratum: lacks the factor 4 and 2βf(1)). */
export function snakeSoptPrinted(p: LittlefieldParams, P: number, N: number, S = 1): number {
  const f = (L: number): number => p.f(L, S);
  return Math.sqrt((N * p.alpha) / ((P - 2) * (p.c2 + 2 * p.beta * f(2)) + 2 * p.beta * f(3) - 3 * p.beta * f(4)));
}

/** Snake optimum consistent with form B (dT/dS = 0 with B = N/S). */
export function snakeSoptFormB(p: LittlefieldParams, P: number, N: number, S = 1): number {
  const f = (L: number): number => p.f(L, S);
  return Math.sqrt((4 * N * p.alpha) / ((P - 2) * (p.c2 + 2 * p.beta * f(2)) + p.beta * (2 * f(1) + 2 * f(3) - 3 * f(4))));
}

/**
 * The integer S in [sMin, sMax] minimising time(S) subject to B = ⌈N/S⌉ ≥ 3 (the
 * timelines' domain); undefined when no S qualifies. Ties go to the smaller S.
 */
export function bestBlock(
  N: number,
  time: (S: number) => number,
  o: { sMin?: number; sMax?: number } = {},
): { S: number; time: number } | undefined {
  const lo = o.sMin ?? 20;
  const hi = o.sMax ?? 600;
  let best: { S: number; time: number } | undefined;
  for (let S = lo; S <= hi; S++) {
    if (Math.ceil(N / S) < 3) break;
    const t = time(S);
    if (!best || t < best.time) best = { S, time: t };
  }
  return best;
}

/** Asymptotic Fence/Snake time ratio per block as S → ∞: (f(6)β + c3)/(f(4)β + c2). */
export function fenceOverSnakeAsymptote(p: LittlefieldParams, S = 1e9): number {
  return (p.f(6, S) * p.beta + p.c3) / (p.f(4, S) * p.beta + p.c2);
}
