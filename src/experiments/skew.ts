/**
 * Skew-tolerance experiment (seed 003 A19, Fig. 6.10), the driver behind
 * `coll experiment skew`: one job per variant (skew-program.ts), then per collective,
 * variant and average skew the host CPU time each rank spends inside the call
 * (calibrated: the cost of an empty measured interval subtracted) and the wall time
 * in the call, as the median over repetitions of each repetition's mean over the
 * iterations. "cpu" is the mean over all ranks; the root (rank 0, no skew) and the
 * non-roots are also reported apart.
 */
import { formatTable } from '../core/table.js';
import { lineChartSvg } from '../plot/svg.js';
import { runProgram, type JobHooks, type JobLayout } from './job.js';
import type { SkewCalibrationRecord, SkewCollective, SkewProgramConfig, SkewRecord } from './skew-program.js';
import { median, round } from './stats.js';
import { variantEnv, noiseEnvValue, type NoiseOptions, type Variant } from './variants.js';

export interface SkewExperiment extends JobLayout, Omit<SkewProgramConfig, 'variant'> {
  readonly variants: readonly Variant[];
  readonly noise: NoiseOptions | undefined;
}

export interface SkewPoint {
  readonly variant: Variant;
  readonly collective: SkewCollective;
  readonly skewUs: number;
  /** CPU time in the call (µs, calibrated), mean over ranks and iterations; median over repetitions. */
  readonly cpuUs: number;
  readonly cpuRootUs: number;
  readonly cpuNonRootUs: number;
  /** The same before subtracting the measurement overhead. */
  readonly cpuRawUs: number;
  /** Wall time in the call (µs), mean over ranks and iterations; median over repetitions. */
  readonly wallUs: number;
  /** Median over ranks of each rank's median CPU time in the call (µs, calibrated). */
  readonly cpuMedianUs: number;
  /** Mean skew actually computed by the non-roots (µs per call). */
  readonly computedUs: number;
  readonly repetitions: number;
}

export interface SkewResult {
  readonly experiment: SkewExperiment;
  readonly points: SkewPoint[];
  /** Measurement overhead per variant (µs, median over ranks). */
  readonly overheadUs: Partial<Record<Variant, number>>;
  /** 1-minute load average before and after each variant's job. */
  readonly load: Partial<Record<Variant, readonly [number, number]>>;
  /** CPU busy fraction before each variant's job (NaN unless waited for idle). */
  readonly busyBefore: Partial<Record<Variant, number>>;
}

function mean(xs: readonly number[]): number {
  return xs.reduce((s, v) => s + v, 0) / xs.length;
}

/** Aggregate one variant's records (pure; exported for tests). */
export function skewPoints(records: readonly SkewRecord[], overheadUs: readonly number[]): SkewPoint[] {
  const groups = new Map<string, SkewRecord[]>();
  for (const r of records) {
    const key = `${r.collective}|${r.skewUs}`;
    const l = groups.get(key) ?? [];
    l.push(r);
    groups.set(key, l);
  }
  const out: SkewPoint[] = [];
  for (const reps of groups.values()) {
    const r0 = reps[0];
    const per = (f: (r: SkewRecord) => number): number => median(reps.map(f));
    const corrected = (xs: readonly number[]): number[] => xs.map((v, rank) => v - overheadUs[rank]);
    out.push({
      variant: r0.variant,
      collective: r0.collective,
      skewUs: r0.skewUs,
      cpuUs: per((r) => mean(corrected(r.cpuMeanUs))),
      cpuRootUs: per((r) => corrected(r.cpuMeanUs)[0]),
      cpuNonRootUs: per((r) => (r.cpuMeanUs.length > 1 ? mean(corrected(r.cpuMeanUs).slice(1)) : NaN)),
      cpuRawUs: per((r) => mean(r.cpuMeanUs)),
      wallUs: per((r) => mean(r.wallMeanUs)),
      cpuMedianUs: per((r) => median(corrected(r.cpuMedianUs))),
      computedUs: per((r) => (r.computedMeanUs.length > 1 ? mean(r.computedMeanUs.slice(1)) : 0)),
      repetitions: reps.length,
    });
  }
  return out;
}

export async function runSkewExperiment(e: SkewExperiment, hooks: JobHooks & { onVariant?(label: string, index: number, total: number): void } = {}): Promise<SkewResult> {
  const points: SkewPoint[] = [];
  const overheadUs: Partial<Record<Variant, number>> = {};
  const loads: Partial<Record<Variant, readonly [number, number]>> = {};
  const busy: Partial<Record<Variant, number>> = {};
  for (const [i, variant] of e.variants.entries()) {
    hooks.onVariant?.(variant, i, e.variants.length);
    const config: SkewProgramConfig = {
      variant,
      collectives: e.collectives,
      skewsUs: e.skewsUs,
      iterations: e.iterations,
      warmup: e.warmup,
      repetitions: e.repetitions,
      bytes: e.bytes,
      seed: e.seed,
    };
    const env: Record<string, string> = { ...variantEnv(variant), ...(e.noise ? { COLL_NOISE: noiseEnvValue(e.noise) } : {}) };
    const { records, load, busyBefore } = await runProgram('skew-program', config, e, env, hooks);
    loads[variant] = load;
    busy[variant] = busyBefore;
    const cal = (records.get('CALIBRATION') ?? [])[0] as SkewCalibrationRecord | undefined;
    if (!cal) throw new Error(`the skew job (${variant}) printed no calibration`);
    overheadUs[variant] = median(cal.overheadUs);
    points.push(...skewPoints((records.get('SKEW') ?? []) as SkewRecord[], cal.overheadUs));
  }
  return { experiment: e, points, overheadUs, load: loads, busyBefore: busy };
}

/** CPU(host variant) / CPU(other variant) at each skew (the target compares host and offload at 400 µs). */
export function cpuRatio(points: readonly SkewPoint[], collective: SkewCollective, skewUs: number, over: Variant, under: Variant): number {
  const a = points.find((p) => p.collective === collective && p.skewUs === skewUs && p.variant === over);
  const b = points.find((p) => p.collective === collective && p.skewUs === skewUs && p.variant === under);
  return a && b ? a.cpuUs / b.cpuUs : NaN;
}

function f(v: number, d = 1): string {
  return Number.isFinite(v) ? v.toFixed(d) : '-';
}

export function skewTable(r: SkewResult): string {
  // Ratios against each host baseline that ran: the library's host mode and the busy-polling one.
  const bases = (['host', 'host-poll'] as const).filter((b) => r.experiment.variants.includes(b));
  const head = ['collective', 'mode', 'skew us', 'cpu us', 'root', 'non-root', 'cpu med', 'raw', 'wall us', ...bases.map((b) => `${b}/mode`)];
  const pts = [...r.points].sort((a, b) => a.collective.localeCompare(b.collective) || a.skewUs - b.skewUs || r.experiment.variants.indexOf(a.variant) - r.experiment.variants.indexOf(b.variant));
  const rows = pts.map((p) => {
    const ratios = bases.map((b) => (b === p.variant ? '' : `${f(cpuRatio(r.points, p.collective, p.skewUs, b, p.variant), 2)}x`));
    return [p.collective, p.variant, String(p.skewUs), f(p.cpuUs), f(p.cpuRootUs), f(p.cpuNonRootUs), f(p.cpuMedianUs), f(p.cpuRawUs), f(p.wallUs), ...ratios];
  });
  const overhead = Object.entries(r.overheadUs).map(([v, us]) => `${v} ${f(us as number)}`).join(', ');
  return [
    ...formatTable([head, ...rows], { align: ['l', 'l'], others: 'r', rule: true }),
    `cpu: mean over ranks of the CPU time in the call, measurement overhead subtracted (${overhead} µs); 'B/mode' = cpu(B) / cpu(mode)`,
  ].join('\n');
}

function nullable(v: number): number | null {
  return Number.isFinite(v) ? round(v, 3) : null;
}

export function skewJson(r: SkewResult): object[] {
  const e = r.experiment;
  return r.points.map((p) => ({
    experiment: 'skew',
    ...Object.fromEntries(Object.entries(p).map(([k, v]) => [k, typeof v === 'number' ? round(v, 2) : v])),
    ranks: e.ranks,
    nodes: e.nodes,
    bytes: p.collective === 'bcast' ? e.bytes : 0,
    iterations: e.iterations,
    overheadUs: round(r.overheadUs[p.variant] ?? NaN, 2),
    loadavg: (r.load[p.variant] ?? []).map((x) => round(x, 2)),
    busyBefore: Number.isFinite(r.busyBefore[p.variant]) ? round(r.busyBefore[p.variant] as number, 3) : null,
    cpuRatioHostOverThis: p.variant === 'host' ? null : nullable(cpuRatio(r.points, p.collective, p.skewUs, 'host', p.variant)),
    cpuRatioHostPollOverThis: p.variant === 'host-poll' ? null : nullable(cpuRatio(r.points, p.collective, p.skewUs, 'host-poll', p.variant)),
  }));
}

/** CPU time in the call vs average skew, one curve per (collective, variant). */
export function skewPlot(r: SkewResult): string {
  const e = r.experiment;
  const series = e.collectives.flatMap((k) =>
    e.variants.map((v) => ({
      name: `${k} ${v}`,
      points: r.points
        .filter((p) => p.collective === k && p.variant === v)
        .sort((a, b) => a.skewUs - b.skewUs)
        .map((p) => [p.skewUs, Math.max(0, p.cpuUs)] as [number, number]),
    })),
  );
  return lineChartSvg({
    title: `host CPU time in the call under skew: ${e.ranks} ranks on ${e.nodes} node(s)${e.collectives.includes('bcast') ? `, bcast ${e.bytes} B` : ''}`,
    x: { label: 'average skew (µs; max = 3 × average)' },
    y: { label: 'CPU time in the call (µs, mean over ranks)' },
    series,
  });
}
