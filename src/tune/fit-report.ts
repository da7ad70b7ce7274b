/**
 * `coll fit --report FILE` (docs/view-formats.md#fit-report): every series `coll fit`
 * measured and fitted, as the viewer's model-vs-measurement source. Each series gives
 * its samples (x, measured seconds), the fitted model's prediction at each x and the
 * fit's statistics. Nothing is recomputed here: a linear fit's prediction at a sample is
 * the measurement less the fit's own residual there (lsq.ts: residual = y − model), so
 * the numbers are the fit's; series whose model is not a fit (LogGP's per-message
 * overheads, medians of the small sizes) give that constant as the prediction and no
 * fit statistics.
 */
import type { LinearFit } from './lsq.js';
import type { FitReport, LogGPFit } from './fit-machine.js';
import type { Sample } from './fit.js';

export const FIT_REPORT_FORMAT = 'collectives-fit-report';
export const FIT_REPORT_VERSION = 1;

export type FitSeriesKind = 'copy' | 'reduce' | 'ping-pong' | 'loggp' | 'serial-reduction' | 'nbl-testjig';

export interface FitSeries {
  /** Unique within the report, e.g. "reduce sum/float64", "ping-pong inter", "nbl-testjig inter L=4". */
  readonly name: string;
  readonly kind: FitSeriesKind;
  /** Link class of runtime measurements: 'intra' (threads of one node) or 'inter' (node processes over TCP). */
  readonly link?: 'intra' | 'inter';
  /** What x is: 'bytes', 'elements' (reduce: elements combined; NBL testjig: block size S in doubles) or 'processes' (serial reduction: P). */
  readonly x: 'bytes' | 'elements' | 'processes';
  /** What y is, in seconds: e.g. "seconds per call", "one-way seconds". */
  readonly y: string;
  /** The fitted model, e.g. "t(b) = α + β·b". */
  readonly model: string;
  /** The model's parameters (seconds, seconds per unit of x, or plain numbers as named). */
  readonly params: Readonly<Record<string, number>>;
  readonly samples: {
    readonly x: readonly number[];
    /** Measured seconds at each x. */
    readonly measured: readonly number[];
    /** The model's seconds at each x. */
    readonly predicted: readonly number[];
  };
  /** The least-squares fit's statistics (absent for a model that is not a fit); r2 is null where y is constant. */
  readonly fit?: { readonly weighting: 'ordinary' | 'relative'; readonly rms: number; readonly r2: number | null; readonly maxRelResidual: number };
}

export interface FitReportDocument {
  readonly format: typeof FIT_REPORT_FORMAT;
  readonly version: typeof FIT_REPORT_VERSION;
  /** The machine file's name and where its values come from ("measured on <host> <date> by coll fit …"). */
  readonly machine: string;
  readonly source: string;
  readonly description: string;
  readonly series: readonly FitSeries[];
  /** What was not measured and why. */
  readonly missing: readonly string[];
}

function stats(f: LinearFit, weighting: 'ordinary' | 'relative'): NonNullable<FitSeries['fit']> {
  return { weighting, rms: f.rms, r2: Number.isFinite(f.r2) ? f.r2 : null, maxRelResidual: f.maxRelResidual };
}

/** x, measured and predicted (measured − residual) of a linear fit over `samples`. */
function linear(samples: readonly Sample[], f: LinearFit): FitSeries['samples'] {
  if (f.residuals.length !== samples.length) throw new Error(`internal: ${samples.length} samples but ${f.residuals.length} residuals`);
  return { x: samples.map((s) => s.x), measured: samples.map((s) => s.seconds), predicted: samples.map((s, i) => s.seconds - f.residuals[i]) };
}

function logGPSeries(lg: LogGPFit, link: 'intra' | 'inter'): FitSeries[] {
  const x = lg.samples.map((s) => s.bytes);
  const gaps = lg.samples.map((s) => ({ x: s.bytes, seconds: s.gap }));
  const constant = (name: 'oSend' | 'oRecv', what: string): FitSeries => ({
    name: `loggp ${link} ${name}`,
    kind: 'loggp',
    link,
    x: 'bytes',
    y: `seconds ${what} per message`,
    model: `${name === 'oSend' ? 'o_s' : 'o_r'} = the median over the sizes ≤ 1 KiB`,
    params: { [name]: lg[name] },
    samples: { x, measured: lg.samples.map((s) => s[name]), predicted: x.map(() => lg[name]) },
  });
  return [
    {
      name: `loggp ${link} gap`,
      kind: 'loggp',
      link,
      x: 'bytes',
      y: 'seconds between messages of a burst',
      model: 'g(b) = g + G·b (relative least squares; the machine file clamps g ≥ 0 and takes G from the slope)',
      params: { intercept: lg.fit.coef[0], slope: lg.fit.coef[1], g: lg.g, G: lg.G },
      samples: linear(gaps, lg.fit),
      fit: stats(lg.fit, 'relative'),
    },
    constant('oSend', 'in send'),
    constant('oRecv', 'in recv of an arrived message'),
  ];
}

/** The report document of a fit (the file `coll fit --report` writes). */
export function fitReportDocument(r: FitReport): FitReportDocument {
  const series: FitSeries[] = [];
  series.push({
    name: 'copy',
    kind: 'copy',
    x: 'bytes',
    y: 'seconds per copy',
    model: 't(b) = overhead + copyPerByte·b',
    params: { overhead: r.copy.overhead, copyPerByte: r.copy.gamma },
    samples: linear(r.copy.samples, r.copy.fit),
    fit: stats(r.copy.fit, 'ordinary'),
  });
  for (const [key, f] of Object.entries(r.reduce)) {
    series.push({
      name: `reduce ${key}`,
      kind: 'reduce',
      x: 'elements',
      y: 'seconds per call combining two vectors',
      model: 't(n) = overhead + γ·n',
      params: { overhead: f.overhead, gamma: f.gamma },
      samples: linear(f.samples, f.fit),
      fit: stats(f.fit, 'ordinary'),
    });
  }
  for (const [link, pp] of [['intra', r.intra], ['inter', r.inter]] as const) {
    if (!pp) continue;
    series.push({
      name: `ping-pong ${link}`,
      kind: 'ping-pong',
      link,
      x: 'bytes',
      y: 'one-way seconds (half the median round trip)',
      model: 't(b) = α + β·b (relative least squares)',
      params: { alpha: pp.alpha, beta: pp.beta },
      samples: linear(pp.samples, pp.fit),
      fit: stats(pp.fit, 'relative'),
    });
  }
  if (r.loggp) series.push(...logGPSeries(r.loggp, r.loggpLink ?? 'inter'));
  if (r.loggpIntra) series.push(...logGPSeries(r.loggpIntra, 'intra'));
  if (r.serial && r.serialSamples) {
    for (const [key, pts] of Object.entries(r.serialSamples)) {
      const f = r.serial.fits[key];
      if (!f) continue;
      series.push({
        name: `serial-reduction ${key}`,
        kind: 'serial-reduction',
        link: 'intra',
        x: 'processes',
        y: 'seconds of a serial reduction onto one root',
        model: 'T(P) = (C + L) + (P − 1)·(r + c)',
        params: { CplusL: r.serial.CplusL[key], r: r.serial.r, c: r.serial.c[key] },
        samples: linear(
          pts.map((p) => ({ x: p.P, seconds: p.seconds })),
          f,
        ),
        fit: stats(f, 'ordinary'),
      });
    }
  }
  for (const [link, tj] of [['inter', r.testjig], ['intra', r.testjigIntra]] as const) {
    if (!tj) continue;
    for (const [L, f] of Object.entries(tj.fit.fits)) {
      const pts = tj.points.filter((p) => p.L === Number(L));
      series.push({
        name: `nbl-testjig ${link} L=${L}`,
        kind: 'nbl-testjig',
        link,
        x: 'elements',
        y: 'seconds per step with L active links, blocks of S doubles',
        model: 'T_L(S) = a_L + b_L·S; f(L) = b_L / b_1',
        params: { L: Number(L), a: f.intercept, b: f.slope, f: tj.fit.f[Number(L)] },
        samples: linear(
          pts.map((p) => ({ x: p.S, seconds: p.seconds })),
          f,
        ),
        fit: stats(f, 'ordinary'),
      });
    }
  }
  const m = r.machine;
  return { format: FIT_REPORT_FORMAT, version: FIT_REPORT_VERSION, machine: m.name, source: m.source, description: m.description, series, missing: [...r.missing] };
}
