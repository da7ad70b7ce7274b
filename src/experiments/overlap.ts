/**
 * Overlap experiment, the driver behind `coll experiment overlap`: one job per
 * variant (overlap-program.ts); per variant and message size the share of the
 * communication hidden behind the computation,
 *
 *   overlap = 1 − (t_total − t_compute) / t_comm,
 *
 * from the medians over the iterations (t_comm measured alone). It is computed per
 * rank; the table gives the mean over ranks (and the worst rank in JSON). 1 = the
 * collective cost nothing beyond the computation; 0 = none of it was hidden; values
 * below 0 mean posting it slowed the computation or the wait down by more than the
 * collective takes alone (e.g. an engine thread competing for the cores).
 */
import { formatTable } from '../core/table.js';
import { lineChartSvg } from '../plot/svg.js';
import { runProgram, type JobHooks, type JobLayout } from './job.js';
import type { OverlapProgramConfig, OverlapRecord } from './overlap-program.js';
import { round } from './stats.js';
import { noiseEnvValue, variantEnv, type NoiseOptions, type Variant } from './variants.js';

export interface OverlapExperiment extends JobLayout {
  readonly variants: readonly Variant[];
  readonly bytes: readonly number[];
  readonly computeUs: number;
  readonly iterations: number;
  readonly warmup: number;
  readonly noise: NoiseOptions | undefined;
}

export interface OverlapPoint {
  readonly variant: Variant;
  readonly bytes: number;
  /** Medians over iterations, mean over ranks (µs). */
  readonly commUs: number;
  readonly computeUs: number;
  readonly totalUs: number;
  readonly postUs: number;
  readonly overlappedComputeUs: number;
  readonly waitUs: number;
  /** Overlap share, mean over ranks of each rank's share. */
  readonly overlap: number;
  /** The smallest share of any rank. */
  readonly overlapMin: number;
  /** The share from the means over the iterations instead of the medians (mean over ranks). */
  readonly overlapOfMeans: number;
  /** 1-minute load average before and after the variant's job (set by the driver). */
  readonly load?: readonly [number, number];
  /** CPU busy fraction before the variant's job (NaN unless waited for idle; set by the driver). */
  readonly busyBefore?: number;
}

export interface OverlapResult {
  readonly experiment: OverlapExperiment;
  readonly points: OverlapPoint[];
}

/** 1 − (t_total − t_compute) / t_comm. */
export function overlapShare(commUs: number, computeUs: number, totalUs: number): number {
  return 1 - (totalUs - computeUs) / commUs;
}

function mean(xs: readonly number[]): number {
  return xs.reduce((s, v) => s + v, 0) / xs.length;
}

/** One point from a rank program record (pure; exported for tests). */
export function overlapPoint(r: OverlapRecord): OverlapPoint {
  const shares = r.commUs.map((c, k) => overlapShare(c, r.computeUs[k], r.totalUs[k]));
  return {
    variant: r.variant,
    bytes: r.bytes,
    commUs: mean(r.commUs),
    computeUs: mean(r.computeUs),
    totalUs: mean(r.totalUs),
    postUs: mean(r.postUs),
    overlappedComputeUs: mean(r.overlappedComputeUs),
    waitUs: mean(r.waitUs),
    overlap: mean(shares),
    overlapMin: Math.min(...shares),
    overlapOfMeans: mean(r.meanCommUs.map((c, k) => overlapShare(c, r.meanComputeUs[k], r.meanTotalUs[k]))),
  };
}

export async function runOverlapExperiment(e: OverlapExperiment, hooks: JobHooks & { onVariant?(label: string, index: number, total: number): void } = {}): Promise<OverlapResult> {
  const points: OverlapPoint[] = [];
  for (const [i, variant] of e.variants.entries()) {
    hooks.onVariant?.(variant, i, e.variants.length);
    const config: OverlapProgramConfig = { variant, bytes: e.bytes, computeUs: e.computeUs, iterations: e.iterations, warmup: e.warmup };
    const env: Record<string, string> = { ...variantEnv(variant), ...(e.noise ? { COLL_NOISE: noiseEnvValue(e.noise) } : {}) };
    const { records, load, busyBefore } = await runProgram('overlap-program', config, e, env, hooks);
    points.push(...((records.get('OVERLAP') ?? []) as OverlapRecord[]).map((r) => ({ ...overlapPoint(r), load, busyBefore })));
  }
  return { experiment: e, points };
}

function f(v: number, d = 1): string {
  return Number.isFinite(v) ? v.toFixed(d) : '-';
}

export function overlapTable(r: OverlapResult): string {
  const head = ['mode', 'bytes', 'comm us', 'compute us', 'total us', 'post us', 'compute|posted', 'wait us', 'overlap', 'of means'];
  const pts = [...r.points].sort((a, b) => a.bytes - b.bytes || r.experiment.variants.indexOf(a.variant) - r.experiment.variants.indexOf(b.variant));
  const rows = pts.map((p) => [p.variant, String(p.bytes), f(p.commUs), f(p.computeUs), f(p.totalUs), f(p.postUs), f(p.overlappedComputeUs), f(p.waitUs), `${f(p.overlap * 100)}%`, `${f(p.overlapOfMeans * 100)}%`]);
  return [
    ...formatTable([head, ...rows], { align: ['l'], others: 'r', rule: true }),
    "medians over iterations, mean over ranks; overlap = 1 - (total - compute) / comm from the medians ('of means': from the means); compute|posted = the computation while the collective is in flight",
  ].join('\n');
}

export function overlapJson(r: OverlapResult): object[] {
  const e = r.experiment;
  return r.points.map((p) => ({
    experiment: 'overlap',
    ...Object.fromEntries(Object.entries(p).map(([k, v]) => [k === 'load' ? 'loadavg' : k, typeof v === 'number' ? (Number.isFinite(v) ? round(v, k.startsWith('overlap') || k === 'busyBefore' ? 4 : 2) : null) : Array.isArray(v) ? v.map((x: number) => round(x, 2)) : v])),
    ranks: e.ranks,
    nodes: e.nodes,
    targetComputeUs: e.computeUs,
    iterations: e.iterations,
  }));
}

/** Overlap share vs message size, one curve per variant. */
export function overlapPlot(r: OverlapResult): string {
  const e = r.experiment;
  return lineChartSvg({
    title: `iallreduce overlapped with ${e.computeUs} µs of computation: ${e.ranks} ranks on ${e.nodes} node(s)`,
    x: { label: 'message size (bytes per rank)', log: true },
    y: { label: 'overlap (%): 1 − (t_total − t_compute) / t_comm' },
    series: e.variants.map((v) => ({
      name: v,
      points: r.points
        .filter((p) => p.variant === v)
        .sort((a, b) => a.bytes - b.bytes)
        .map((p) => [p.bytes, p.overlap * 100] as [number, number]),
    })),
  });
}
