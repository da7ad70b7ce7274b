/**
 * Hockney / postal α-β-γ point-to-point laws (seed 001 Eqs. 1–2):
 *
 *   Eq. 1 (postal):            T = α·t + β·s + γ·c
 *   Eq. 2 (intra/inter split): T = α_ℓ·t_ℓ + β_ℓ·s_ℓ + α·t + β·s + γ·c
 *
 * t, s, c: messages, bytes and element combinations on the critical path; the ℓ
 * terms are intra-node. A single message of n bytes costs α + n·β (Hockney).
 */
export interface AlphaBeta {
  readonly alpha: number;
  readonly beta: number;
}

/** One message of n bytes: α + nβ. */
export function hockney(link: AlphaBeta, n: number): number {
  return link.alpha + n * link.beta;
}

/** Seed 001 Eq. 1. */
export function postalTime(p: AlphaBeta & { gamma: number }, t: number, s: number, c: number): number {
  return p.alpha * t + p.beta * s + p.gamma * c;
}

/** Seed 001 Eq. 2: intra-node (t_ℓ, s_ℓ) and inter-node (t, s) counts priced separately. */
export function splitTime(
  p: { intra: AlphaBeta; inter: AlphaBeta; gamma: number },
  counts: { tIntra: number; sIntra: number; tInter: number; sInter: number; c: number },
): number {
  return (
    p.intra.alpha * counts.tIntra +
    p.intra.beta * counts.sIntra +
    p.inter.alpha * counts.tInter +
    p.inter.beta * counts.sInter +
    p.gamma * counts.c
  );
}
