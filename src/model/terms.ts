/**
 * Cost breakdown: every prediction splits its time into named terms so that
 * `coll model` can say what dominates.
 * - alpha: message latencies (α, L)
 * - beta: transfer time at the single-link / per-process rate (n·β)
 * - injection: extra transfer time from node limits (max-rate's R_N, NBL's f(L) > 1)
 * - gamma: reduction arithmetic
 * - cpu: per-message host overheads (o) and local copies
 * - constant: once-per-call constants (seed 000's C, seed 003's barrier adjustment)
 */
export const TERM_NAMES = ['alpha', 'beta', 'injection', 'gamma', 'cpu', 'constant'] as const;
export type TermName = (typeof TERM_NAMES)[number];
export type CostTerms = Record<TermName, number>;

export function zeroTerms(): CostTerms {
  return { alpha: 0, beta: 0, injection: 0, gamma: 0, cpu: 0, constant: 0 };
}

export function addTerms(into: CostTerms, t: Readonly<CostTerms>, scale = 1): CostTerms {
  for (const k of TERM_NAMES) into[k] += t[k] * scale;
  return into;
}

export function sumTerms(t: Readonly<CostTerms>): number {
  return TERM_NAMES.reduce((s, k) => s + t[k], 0);
}

/** Terms that make up at least `threshold` of the total, largest first (at least the largest one). */
export function dominantTerms(t: Readonly<CostTerms>, threshold = 0.2): { term: TermName; share: number }[] {
  const total = TERM_NAMES.reduce((s, k) => s + Math.abs(t[k]), 0);
  if (total <= 0) return [];
  const list = TERM_NAMES.map((term) => ({ term, share: Math.abs(t[term]) / total })).sort((a, b) => b.share - a.share);
  const out = list.filter((x) => x.share >= threshold);
  return out.length > 0 ? out : list.slice(0, 1);
}
