/**
 * Linear least squares with residuals: minimise ‖X·θ − y‖² by Householder QR
 * (numerically safer than the normal equations for badly scaled columns such as
 * [1, bytes]). Reports residuals, their RMS, the largest relative residual and R².
 */
import { ArgumentError } from '../core/errors.js';

export interface LinearFit {
  /** Coefficients, one per column of X. */
  readonly coef: readonly number[];
  /** y − X·θ per sample. */
  readonly residuals: readonly number[];
  /** Root mean square of the residuals. */
  readonly rms: number;
  /** Largest |residual| / |y| over samples with y ≠ 0. */
  readonly maxRelResidual: number;
  /** Coefficient of determination (1 = perfect; NaN when y is constant). */
  readonly r2: number;
}

export function leastSquares(X: readonly (readonly number[])[], y: readonly number[]): LinearFit {
  const m = X.length;
  const n = m > 0 ? X[0].length : 0;
  if (m !== y.length) throw new ArgumentError(`least squares: ${m} rows but ${y.length} observations`);
  if (n === 0 || m < n) throw new ArgumentError(`least squares needs at least ${Math.max(1, n)} samples for ${n} unknowns, got ${m}`);
  for (const row of X) if (row.length !== n) throw new ArgumentError('least squares: rows of X differ in length');
  // Column scaling keeps the QR well conditioned.
  const scale = Array.from({ length: n }, (_, j) => Math.max(...X.map((r) => Math.abs(r[j]))) || 1);
  const A = X.map((r) => r.map((v, j) => v / scale[j]));
  const b = [...y];
  for (let k = 0; k < n; k++) {
    let norm = 0;
    for (let i = k; i < m; i++) norm += A[i][k] * A[i][k];
    norm = Math.sqrt(norm);
    if (norm === 0) throw new ArgumentError(`least squares: column ${k} is zero or dependent on the others; vary the inputs`);
    const alpha = A[k][k] > 0 ? -norm : norm;
    const v = new Array<number>(m).fill(0);
    for (let i = k; i < m; i++) v[i] = A[i][k];
    v[k] -= alpha;
    const vv = v.reduce((s, x) => s + x * x, 0);
    if (vv === 0) continue;
    for (let j = k; j < n; j++) {
      let d = 0;
      for (let i = k; i < m; i++) d += v[i] * A[i][j];
      const f = (2 * d) / vv;
      for (let i = k; i < m; i++) A[i][j] -= f * v[i];
    }
    let d = 0;
    for (let i = k; i < m; i++) d += v[i] * b[i];
    const f = (2 * d) / vv;
    for (let i = k; i < m; i++) b[i] -= f * v[i];
  }
  const theta = new Array<number>(n).fill(0);
  for (let k = n - 1; k >= 0; k--) {
    let s = b[k];
    for (let j = k + 1; j < n; j++) s -= A[k][j] * theta[j];
    if (Math.abs(A[k][k]) < 1e-14) throw new ArgumentError(`least squares: the samples do not determine unknown ${k}; vary the inputs`);
    theta[k] = s / A[k][k];
  }
  const coef = theta.map((t, j) => t / scale[j]);
  const residuals = X.map((row, i) => y[i] - row.reduce((s, v, j) => s + v * coef[j], 0));
  const rms = Math.sqrt(residuals.reduce((s, r) => s + r * r, 0) / m);
  const mean = y.reduce((s, v) => s + v, 0) / m;
  const ssTot = y.reduce((s, v) => s + (v - mean) ** 2, 0);
  const ssRes = residuals.reduce((s, r) => s + r * r, 0);
  let maxRel = 0;
  residuals.forEach((r, i) => {
    if (y[i] !== 0) maxRel = Math.max(maxRel, Math.abs(r / y[i]));
  });
  return { coef, residuals, rms, maxRelResidual: maxRel, r2: ssTot > 0 ? 1 - ssRes / ssTot : NaN };
}

/** Fit y = a + b·x. */
export function fitLine(x: readonly number[], y: readonly number[]): LinearFit & { intercept: number; slope: number } {
  const f = leastSquares(
    x.map((v) => [1, v]),
    y,
  );
  return { ...f, intercept: f.coef[0], slope: f.coef[1] };
}

/**
 * Fit y = a + b·x minimising Σ (w_i·(y_i − a − b·x_i))². With w = 1/y this is a fit
 * of relative errors, so small times (latency) weigh as much as large ones
 * (bandwidth). Residuals, RMS and R² are reported in the units of y.
 */
export function fitLineWeighted(x: readonly number[], y: readonly number[], w: readonly number[]): LinearFit & { intercept: number; slope: number } {
  if (w.length !== y.length) throw new ArgumentError(`weighted fit: ${y.length} observations but ${w.length} weights`);
  const f = leastSquares(
    x.map((v, i) => [w[i], w[i] * v]),
    y.map((v, i) => w[i] * v),
  );
  const [a, b] = f.coef;
  const residuals = y.map((v, i) => v - a - b * x[i]);
  const m = y.length;
  const rms = Math.sqrt(residuals.reduce((s, r) => s + r * r, 0) / m);
  const mean = y.reduce((s, v) => s + v, 0) / m;
  const ssTot = y.reduce((s, v) => s + (v - mean) ** 2, 0);
  const ssRes = residuals.reduce((s, r) => s + r * r, 0);
  let maxRel = 0;
  residuals.forEach((r, i) => {
    if (y[i] !== 0) maxRel = Math.max(maxRel, Math.abs(r / y[i]));
  });
  return { coef: f.coef, residuals, rms, maxRelResidual: maxRel, r2: ssTot > 0 ? 1 - ssRes / ssTot : NaN, intercept: a, slope: b };
}
