/**
 * LogGP (Alexandrov et al. 1995): L latency, o CPU overhead per message (send and
 * receive), g gap between messages, G gap per byte. One k-byte message takes
 * o + (k−1)·G + L + o; a processor starts messages at most every max(g, o + (k−1)G).
 *
 * Mapping onto the DAG evaluation (docs/cost-semantics.md): alpha = L, beta = G,
 * oSend = oRecv = o. The DAG charges k·G where LogGP charges (k−1)·G (LogGP's L
 * covers the first byte), and it has no g: a rank's sends are spaced by their
 * out-port transfer time only, which is LogGP when g ≤ o + (k−1)·G.
 */
export interface LogGP {
  readonly L: number;
  readonly o: number;
  readonly g: number;
  readonly G: number;
}

/** Point-to-point time of a k-byte message. */
export function loggpMessage(p: LogGP, k: number): number {
  return p.o + Math.max(0, k - 1) * p.G + p.L + p.o;
}

/** Interval between two successive sends of k bytes by one processor. */
export function loggpSendInterval(p: LogGP, k: number): number {
  return Math.max(p.g, p.o + Math.max(0, k - 1) * p.G);
}

/** Binomial broadcast / dissemination barrier with small messages: ⌈lg P⌉·(L + 2o + (k−1)G). */
export function loggpBinomial(p: LogGP, P: number, k: number): number {
  return Math.ceil(Math.log2(Math.max(1, P))) * loggpMessage(p, k);
}

/** Linear (flat) broadcast: the root starts P−1 messages one interval apart. */
export function loggpLinearBcast(p: LogGP, P: number, k: number): number {
  if (P <= 1) return 0;
  return (P - 2) * loggpSendInterval(p, k) + loggpMessage(p, k);
}

/** DAG-evaluation parameters equivalent to a LogGP set (see header). */
export function loggpAsLinks(p: LogGP): { alpha: number; beta: number; oSend: number; oRecv: number } {
  return { alpha: p.L, beta: p.G, oSend: p.o, oRecv: p.o };
}
