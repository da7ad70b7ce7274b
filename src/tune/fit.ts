/**
 * Parameter fits from measurements (all least squares with residuals, see lsq.ts):
 *
 * - Ping-pong (per link class): one-way time t(b) = α + b·β over message sizes b.
 * - Reduce throughput: time to combine two vectors of n elements, t(n) = o + γ·n per
 *   (op, datatype); also kept as a c(op, n) table like seed 000 Table 4.3.
 * - Serial reduction (seed 000 §3.2.1 design): P−1 ranks send to a root at once, the
 *   root receives and combines them serially: T(P) = C + L + (P−1)·(r + c). A NOP
 *   series gives r (c = 0); each (op, n) series gives c = slope − r; the intercepts give
 *   C + L. L comes from a ping-pong (or `fitLC` on f-nomial tree timings), then C.
 * - f-nomial timings: T − (r + c)·(receives on the root's path) = C + L·(phases), a
 *   2-unknown fit of L and C given r and c (the thesis fitted L and C).
 * - NBL testjig (seed 004 Table 1 design: one node receives from 1 neighbour (L = 1)
 *   or exchanges with 1, 2, 3 (L = 2, 4, 6) for several block sizes S): per L, fit
 *   T_L(S) = a_L + b_L·S; f(L) = b_L / b_1 (least-squares slopes); also the table's own
 *   differences f(L) = dT(L)/dT(1) between adjacent S.
 */
import { ArgumentError } from '../core/errors.js';
import { ceilLogF, floorLog } from '../model/lrc.js';
import { fitLine, fitLineWeighted, leastSquares, type LinearFit } from './lsq.js';

export interface Sample {
  readonly x: number;
  readonly seconds: number;
}

export interface PingPongFit {
  readonly alpha: number;
  readonly beta: number;
  readonly fit: LinearFit;
}

/**
 * α, β from one-way times of messages of `x` bytes. `relative` fits relative errors
 * (weights 1/t), which keeps α meaningful when the sweep spans 0 B … MiB: in an
 * ordinary fit the large messages' absolute noise swamps the latency.
 */
export function fitPingPong(samples: readonly Sample[], o: { relative?: boolean } = {}): PingPongFit {
  const x = samples.map((s) => s.x);
  const y = samples.map((s) => s.seconds);
  const f = o.relative ? fitLineWeighted(x, y, y.map((t) => 1 / Math.max(t, 1e-12))) : fitLine(x, y);
  return { alpha: f.intercept, beta: f.slope, fit: f };
}

export interface ReduceFit {
  /** Seconds per element (slope). */
  readonly gamma: number;
  /** Per-call overhead (intercept). */
  readonly overhead: number;
  readonly fit: LinearFit;
}

/** γ and call overhead from times to combine two vectors of `x` elements. */
export function fitReduceThroughput(samples: readonly Sample[]): ReduceFit {
  const f = fitLine(
    samples.map((s) => s.x),
    samples.map((s) => s.seconds),
  );
  return { gamma: f.slope, overhead: f.intercept, fit: f };
}

export interface SerialPoint {
  /** Number of nodes P (≥ 2). */
  readonly P: number;
  readonly seconds: number;
}

export interface SerialReductionFit {
  /** Reception cost (slope of the NOP series). */
  readonly r: number;
  /** c per series key (slope − r). */
  readonly c: Readonly<Record<string, number>>;
  /** C + L per series key (intercept at P = 1). */
  readonly CplusL: Readonly<Record<string, number>>;
  readonly fits: Readonly<Record<string, LinearFit>>;
}

/**
 * Fit the serial-reduction series. `series` maps keys like "sum/float64/4" to points;
 * `nopKey` names the NOP series (c = 0).
 */
export function fitSerialReduction(series: Readonly<Record<string, readonly SerialPoint[]>>, nopKey: string): SerialReductionFit {
  if (!series[nopKey]) throw new ArgumentError(`serial-reduction fit needs the NOP series '${nopKey}'`, `series given: ${Object.keys(series).join(', ')}`);
  const fits: Record<string, LinearFit> = {};
  const slope: Record<string, number> = {};
  const CplusL: Record<string, number> = {};
  for (const [k, pts] of Object.entries(series)) {
    const f = fitLine(
      pts.map((p) => p.P - 1),
      pts.map((p) => p.seconds),
    );
    fits[k] = f;
    slope[k] = f.slope;
    CplusL[k] = f.intercept;
  }
  const r = slope[nopKey];
  const c: Record<string, number> = {};
  for (const k of Object.keys(series)) c[k] = slope[k] - r;
  return { r, c, CplusL, fits };
}

export interface TreePoint {
  readonly P: number;
  readonly f: number;
  /** c(op, n) of the series (0 for NOP). */
  readonly c: number;
  readonly seconds: number;
}

/** L and C from f-nomial tree timings, given r (refined formula of seed 000). */
export function fitLC(points: readonly TreePoint[], r: number): { L: number; C: number; fit: LinearFit } {
  const X = points.map((p) => [1, ceilLogF(p.P, p.f)]);
  const y = points.map((p) => {
    const lo = floorLog(p.P, p.f);
    const recvs = (p.f - 1) * lo + Math.ceil(p.P / p.f ** lo) - 1;
    return p.seconds - (r + p.c) * recvs;
  });
  const fit = leastSquares(X, y);
  return { C: fit.coef[0], L: fit.coef[1], fit };
}

export interface TestjigPoint {
  /** Active links: 1 (receive only), 2, 4, 6 (exchange with 1, 2, 3 neighbours). */
  readonly L: number;
  /** Block size in elements. */
  readonly S: number;
  readonly seconds: number;
}

export interface TestjigFit {
  /** f(L) = b_L / b_1 from least-squares slopes. */
  readonly f: Readonly<Record<number, number>>;
  /** Per-L fits T_L(S) = a + b·S. */
  readonly fits: Readonly<Record<number, LinearFit & { intercept: number; slope: number }>>;
  /** Table 1 style: f(L) = dT(L)/dT(1) between adjacent S (keyed by the lower S). */
  readonly differences: readonly { S: number; f: Readonly<Record<number, number>> }[];
}

export function fitTestjig(points: readonly TestjigPoint[]): TestjigFit {
  const byL = new Map<number, TestjigPoint[]>();
  for (const p of points) {
    const l = byL.get(p.L) ?? [];
    l.push(p);
    byL.set(p.L, l);
  }
  const one = byL.get(1);
  if (!one) throw new ArgumentError('the NBL testjig fit needs L = 1 samples (one neighbour, receive only)');
  const fits: Record<number, LinearFit & { intercept: number; slope: number }> = {};
  for (const [L, pts] of byL) {
    fits[L] = fitLine(
      pts.map((p) => p.S),
      pts.map((p) => p.seconds),
    );
  }
  const f: Record<number, number> = {};
  for (const L of byL.keys()) f[L] = fits[L].slope / fits[1].slope;
  // Differences between adjacent S where every L was measured at both.
  const sizes = [...new Set(points.map((p) => p.S))].sort((a, b) => a - b);
  const at = (L: number, S: number): number | undefined => byL.get(L)?.find((p) => p.S === S)?.seconds;
  const differences: { S: number; f: Record<number, number> }[] = [];
  for (let i = 0; i + 1 < sizes.length; i++) {
    const d1a = at(1, sizes[i]);
    const d1b = at(1, sizes[i + 1]);
    if (d1a === undefined || d1b === undefined) continue;
    const row: Record<number, number> = {};
    for (const L of byL.keys()) {
      const a = at(L, sizes[i]);
      const b = at(L, sizes[i + 1]);
      if (a !== undefined && b !== undefined) row[L] = (b - a) / (d1b - d1a);
    }
    differences.push({ S: sizes[i], f: row });
  }
  return { f, fits, differences };
}


