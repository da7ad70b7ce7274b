/**
 * Noise-immunity experiment (seed 000 §5.4.1, Fig. 5.5, Table 5.1), the driver behind
 * `coll experiment noise`: the same injected OS noise on every rank thread, a large
 * number of individually timed allreduce calls with a barrier between calls (see
 * noise-program.ts), one job per variant (host, offload, ...), and per variant the
 * seed's statistics of the samples: mean and σ over all samples and after dropping the
 * highest 1%, min, median, p99, the share inside a window, and a histogram.
 *
 * The reported samples are rank 0's (the thesis times each invocation at one
 * process); the same statistics pooled over all ranks are in `pooled`.
 */
import { histogramSvg } from '../plot/svg.js';
import { decodeSamples, runProgram, type JobHooks, type JobLayout } from './job.js';
import type { NoiseDoneRecord, NoiseProgramConfig, NoiseSamplesRecord } from './noise-program.js';
import { histogram, quantileSorted, round, sampleStats, sorted, type SampleStats } from './stats.js';
import { noiseEnvValue, variantEnv, type NoiseOptions, type Variant } from './variants.js';

export interface NoiseExperiment extends JobLayout {
  readonly variants: readonly Variant[];
  readonly iterations: number;
  readonly warmup: number;
  /** Bytes per rank of the allreduce (float64 elements × 8). */
  readonly bytes: number;
  /** Injected noise; undefined = none. */
  readonly noise: NoiseOptions | undefined;
  /** Window widths (µs) for the window-share statistic. */
  readonly windowsUs: readonly number[];
  /** Share of the largest samples dropped before the trimmed mean and σ (seed: 0.01). */
  readonly trimFraction: number;
}

export interface NoiseVariantResult {
  readonly variant: Variant;
  readonly algorithm: string;
  readonly seconds: number;
  /** Rank 0's samples (µs). */
  readonly samples: Float64Array;
  /** Statistics of rank 0's samples. */
  readonly stats: SampleStats;
  /** Statistics of all ranks' samples pooled. */
  readonly pooled: SampleStats;
}

export interface NoiseResult {
  readonly experiment: NoiseExperiment;
  readonly variants: NoiseVariantResult[];
}

export async function runNoiseExperiment(e: NoiseExperiment, hooks: JobHooks & { onVariant?(v: Variant, index: number): void } = {}): Promise<NoiseResult> {
  const out: NoiseVariantResult[] = [];
  const count = Math.max(1, Math.floor(e.bytes / 8));
  for (const [i, variant] of e.variants.entries()) {
    hooks.onVariant?.(variant, i);
    const config: NoiseProgramConfig = { variant, iterations: e.iterations, warmup: e.warmup, count };
    const env: Record<string, string> = { ...variantEnv(variant), ...(e.noise ? { COLL_NOISE: noiseEnvValue(e.noise) } : {}) };
    const records = await runProgram('noise-program', config, e, env, hooks);
    const samples = (records.get('SAMPLES') ?? []) as NoiseSamplesRecord[];
    const done = (records.get('DONE') ?? [])[0] as NoiseDoneRecord | undefined;
    const mine = samples.find((s) => s.rank === 0);
    if (!mine || !done) throw new Error(`the noise job (${variant}) printed no samples`);
    const r0 = decodeSamples(mine.samples);
    const pooled = new Float64Array(r0.length * samples.length);
    samples.forEach((s, k) => pooled.set(decodeSamples(s.samples), k * r0.length));
    const o = { trimFraction: e.trimFraction, windowsUs: e.windowsUs };
    out.push({ variant, algorithm: done.algorithm, seconds: done.seconds, samples: r0, stats: sampleStats(r0, o), pooled: sampleStats(pooled, o) });
  }
  return { experiment: e, variants: out };
}

/** σ_a / σ_b after trimming (the target compares σ_host with σ_offload). */
export function sdRatio(a: SampleStats, b: SampleStats): number {
  return a.trimmedSd / b.trimmedSd;
}

function f(v: number, d = 2): string {
  return Number.isFinite(v) ? v.toFixed(d) : '-';
}

/** One row per variant (µs). */
export function noiseTable(r: NoiseResult): string {
  const windows = r.experiment.windowsUs;
  const pct = Math.round(r.experiment.trimFraction * 100 * 100) / 100;
  const head = ['mode', 'n', 'mean', 'sd', `mean-${pct}%`, `sd-${pct}%`, 'min', 'median', 'p99', 'max', ...windows.map((w) => `in ${w}us`)];
  const rows = r.variants.map((v) => {
    const s = v.stats;
    return [v.variant, String(s.n), f(s.mean), f(s.sd), f(s.trimmedMean), f(s.trimmedSd), f(s.min), f(s.median), f(s.p99), f(s.max), ...s.windows.map((w) => `${f(w.densest * 100, 1)}%`)];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const fmt = (cells: string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  const lines = [fmt(head), fmt(widths.map((w) => '-'.repeat(w))), ...rows.map(fmt)];
  const host = r.variants.find((v) => v.variant === 'host');
  for (const v of r.variants) {
    if (!host || v === host) continue;
    lines.push(`sd(host)/sd(${v.variant}) after dropping the top ${pct}%: ${f(sdRatio(host.stats, v.stats))} (all samples: ${f(host.stats.sd / v.stats.sd)})`);
  }
  return lines.join('\n');
}

/** JSON-lines records, one per variant (no raw samples; histogram bins included). */
export function noiseJson(r: NoiseResult): object[] {
  const { lo, hi, bins } = histogramRange(r);
  const e = r.experiment;
  const host = r.variants.find((v) => v.variant === 'host');
  return r.variants.map((v) => {
    const h = histogram(v.samples, lo, hi, bins);
    return {
      experiment: 'noise',
      variant: v.variant,
      algorithm: v.algorithm,
      ranks: e.ranks,
      nodes: e.nodes,
      bytes: Math.max(1, Math.floor(e.bytes / 8)) * 8,
      iterations: e.iterations,
      noise: e.noise ?? null,
      seconds: round(v.seconds, 1),
      stats: roundStats(v.stats),
      pooled: roundStats(v.pooled),
      sdRatioHostOverThis: host && host !== v ? round(sdRatio(host.stats, v.stats), 3) : null,
      histogram: { lo: round(lo, 3), hi: round(hi, 3), counts: h.bins.map((b) => b[2]), below: h.below, above: h.above },
    };
  });
}

function roundStats(s: SampleStats): object {
  return {
    ...Object.fromEntries(Object.entries(s).filter(([k]) => k !== 'windows').map(([k, v]) => [k, typeof v === 'number' ? round(v, 3) : v])),
    windows: s.windows.map((w) => ({ widthUs: w.widthUs, densest: round(w.densest, 4), densestFromUs: round(w.densestFromUs, 2), aroundMedian: round(w.aroundMedian, 4) })),
  };
}

/**
 * Common bins for every variant: from the smallest sample to the largest p99 (the
 * seed's Fig. 5.5 also cuts the host's long tail at its right-hand limit); samples
 * beyond are counted as `above`.
 */
export function histogramRange(r: NoiseResult, bins = 100): { lo: number; hi: number; bins: number } {
  const lo = Math.max(0, Math.min(...r.variants.map((v) => v.stats.min)));
  let hi = Math.max(...r.variants.map((v) => quantileSorted(sorted(v.samples), 0.99)));
  if (!(hi > lo)) hi = lo + 1;
  return { lo: Math.floor(lo), hi: Math.ceil(hi), bins };
}

/** Histograms of rank 0's samples, one panel per variant on a shared axis. */
export function noisePlot(r: NoiseResult): string {
  const { lo, hi, bins } = histogramRange(r);
  const e = r.experiment;
  const noise = e.noise ? `noise ${e.noise.durationUs} µs every ${e.noise.periodUs} µs${e.noise.poisson ? ' (Poisson)' : ''}` : 'no injected noise';
  return histogramSvg({
    title: `allreduce ${Math.max(1, Math.floor(e.bytes / 8)) * 8} B, ${e.ranks} ranks on ${e.nodes} node(s), ${e.iterations} calls per mode, ${noise}`,
    x: { label: 'time in the call, rank 0 (µs)' },
    groups: r.variants.map((v) => {
      const h = histogram(v.samples, lo, hi, bins);
      const w = v.stats.windows[v.stats.windows.length - 1];
      const inWin = w ? `, ${(w.densest * 100).toFixed(1)}% within ${w.widthUs} µs` : '';
      return {
        name: `${v.variant}: σ ${v.stats.trimmedSd.toFixed(1)} µs (top ${Math.round(e.trimFraction * 1000) / 10}% dropped)${inWin}, ${h.above} beyond ${hi} µs`,
        bins: h.bins,
      };
    }),
  });
}
