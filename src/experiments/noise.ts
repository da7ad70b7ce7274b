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
import { formatTable } from '../core/table.js';
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
  /**
   * Also run every variant without injected noise, to separate the machine's own
   * jitter from the noise's effect: σ_noise = sqrt(σ² − σ²_quiet) (trimmed σ).
   */
  readonly baseline?: boolean;
  /**
   * Jobs per mode: the iterations are split over this many jobs, run interleaved
   * (host, offload, host, offload, ...) so that slow drifts of the machine's load hit
   * every mode alike; statistics are over all samples of a mode (default 1).
   */
  readonly repetitions?: number;
}

export interface NoiseVariantResult {
  readonly variant: Variant;
  /** Whether this run had the injected noise (false: a baseline run, or no noise configured). */
  readonly noisy: boolean;
  /** Row label: the variant, with ", no noise" for baseline runs. */
  readonly label: string;
  readonly algorithm: string;
  /** Run time of the jobs (s, summed over repetitions). */
  readonly seconds: number;
  /** 1-minute load average of the machine before the first and after the last job. */
  readonly load: readonly [number, number];
  /** CPU busy fraction before each job (NaN unless the driver waited for an idle machine). */
  readonly busyBefore: readonly number[];
  /** Trimmed σ of rank 0's samples in each repetition (µs). */
  readonly repetitionSd: readonly number[];
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

export async function runNoiseExperiment(e: NoiseExperiment, hooks: JobHooks & { onVariant?(label: string, index: number, total: number): void } = {}): Promise<NoiseResult> {
  const count = Math.max(1, Math.floor(e.bytes / 8));
  const reps = e.repetitions ?? 1;
  const perJob = Math.ceil(e.iterations / reps);
  const kinds = e.variants.flatMap((variant) => [...(e.baseline && e.noise ? [{ variant, noisy: false }] : []), { variant, noisy: e.noise !== undefined }]);
  const o = { trimFraction: e.trimFraction, windowsUs: e.windowsUs };
  interface Acc {
    rank0: Float64Array[];
    all: Float64Array[];
    sds: number[];
    busy: number[];
    seconds: number;
    load: [number, number];
    algorithm: string;
  }
  const acc = kinds.map((): Acc => ({ rank0: [], all: [], sds: [], busy: [], seconds: 0, load: [NaN, NaN], algorithm: '' }));
  let job = 0;
  for (let rep = 0; rep < reps; rep++) {
    const iterations = Math.min(perJob, e.iterations - rep * perJob);
    if (iterations <= 0) break;
    for (const [k, { variant, noisy }] of kinds.entries()) {
      hooks.onVariant?.(`${label(variant, noisy, e)}${reps > 1 ? ` (repetition ${rep + 1}/${reps})` : ''}`, job++, kinds.length * reps);
      const config: NoiseProgramConfig = { variant, iterations, warmup: e.warmup, count };
      const env: Record<string, string> = { ...variantEnv(variant), ...(noisy && e.noise ? { COLL_NOISE: noiseEnvValue(e.noise) } : {}) };
      const { records, load, busyBefore } = await runProgram('noise-program', config, e, env, hooks);
      const samples = (records.get('SAMPLES') ?? []) as NoiseSamplesRecord[];
      const done = (records.get('DONE') ?? [])[0] as NoiseDoneRecord | undefined;
      const mine = samples.find((s) => s.rank === 0);
      if (!mine || !done) throw new Error(`the noise job (${variant}) printed no samples`);
      const a = acc[k];
      const r0 = decodeSamples(mine.samples);
      a.rank0.push(r0);
      for (const s of samples) a.all.push(decodeSamples(s.samples));
      a.sds.push(sampleStats(r0, { trimFraction: e.trimFraction }).trimmedSd);
      a.seconds += done.seconds;
      a.busy.push(busyBefore);
      a.algorithm = done.algorithm;
      if (rep === 0) a.load[0] = load[0];
      a.load[1] = load[1];
    }
  }
  const variants = kinds.map(({ variant, noisy }, k): NoiseVariantResult => {
    const a = acc[k];
    const samples = concat(a.rank0);
    return {
      variant,
      noisy,
      label: label(variant, noisy, e),
      algorithm: a.algorithm,
      seconds: a.seconds,
      load: a.load,
      busyBefore: a.busy,
      repetitionSd: a.sds,
      samples,
      stats: sampleStats(samples, o),
      pooled: sampleStats(concat(a.all), o),
    };
  });
  return { experiment: e, variants };
}

function label(variant: Variant, noisy: boolean, e: NoiseExperiment): string {
  return noisy || !e.noise ? variant : `${variant}, no noise`;
}

function concat(parts: readonly Float64Array[]): Float64Array {
  const out = new Float64Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The noise-induced part of σ: sqrt(σ² − σ²_quiet) of the trimmed samples (0 when the noisy run varied less). */
export function noiseInducedSd(noisy: SampleStats, quiet: SampleStats): number {
  return Math.sqrt(Math.max(0, noisy.trimmedSd ** 2 - quiet.trimmedSd ** 2));
}

/** The noisy run of a variant and its baseline, if both ran. */
function pair(r: NoiseResult, v: Variant): { noisy?: NoiseVariantResult; quiet?: NoiseVariantResult } {
  return { noisy: r.variants.find((x) => x.variant === v && x.noisy), quiet: r.variants.find((x) => x.variant === v && !x.noisy) };
}

/** σ_a / σ_b after trimming (the issue's target compares σ_host with σ_offload). */
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
  const perJob = (r.experiment.repetitions ?? 1) > 1;
  const head = ['mode', 'n', 'mean', 'sd', `mean-${pct}%`, `sd-${pct}%`, ...(perJob ? [`sd-${pct}% per job`] : []), 'min', 'median', 'p99', 'max', ...windows.map((w) => `in ${w}us`)];
  const rows = r.variants.map((v) => {
    const s = v.stats;
    const jobs = perJob ? [`${f(Math.min(...v.repetitionSd))}..${f(Math.max(...v.repetitionSd))}`] : [];
    return [v.label, String(s.n), f(s.mean), f(s.sd), f(s.trimmedMean), f(s.trimmedSd), ...jobs, f(s.min), f(s.median), f(s.p99), f(s.max), ...s.windows.map((w) => `${f(w.densest * 100, 1)}%`)];
  });
  const lines = formatTable([head, ...rows], { align: ['l'], others: 'r', rule: true });
  const host = pair(r, 'host');
  for (const v of r.experiment.variants) {
    if (v === 'host') continue;
    const other = pair(r, v);
    const a = host.noisy ?? host.quiet;
    const b = other.noisy ?? other.quiet;
    if (a && b && a.noisy === b.noisy) {
      lines.push(`sd(host)/sd(${v})${a.noisy ? ' under noise' : ''}, top ${pct}% dropped: ${f(sdRatio(a.stats, b.stats))} (all samples: ${f(a.stats.sd / b.stats.sd)})`);
    }
    if (host.noisy && host.quiet && other.noisy && other.quiet) {
      const sh = noiseInducedSd(host.noisy.stats, host.quiet.stats);
      const so = noiseInducedSd(other.noisy.stats, other.quiet.stats);
      lines.push(`noise-induced sd = sqrt(sd^2 - sd_quiet^2): host ${f(sh)}, ${v} ${f(so)}, ratio ${f(sh / so)}`);
    }
  }
  return lines.join('\n');
}

/** JSON-lines records, one per variant (no raw samples; histogram bins included). */
export function noiseJson(r: NoiseResult): object[] {
  const { lo, hi, bins } = histogramRange(r);
  const e = r.experiment;
  return r.variants.map((v) => {
    const h = histogram(v.samples, lo, hi, bins);
    const host = pair(r, 'host')[v.noisy ? 'noisy' : 'quiet'];
    const quiet = v.noisy ? pair(r, v.variant).quiet : undefined;
    return {
      experiment: 'noise',
      variant: v.variant,
      noisy: v.noisy,
      algorithm: v.algorithm,
      ranks: e.ranks,
      nodes: e.nodes,
      bytes: Math.max(1, Math.floor(e.bytes / 8)) * 8,
      iterations: e.iterations,
      noise: v.noisy ? e.noise : null,
      seconds: round(v.seconds, 1),
      repetitionTrimmedSd: v.repetitionSd.map((x) => round(x, 3)),
      loadavg: v.load.map((x) => round(x, 2)),
      busyBefore: v.busyBefore.map((x) => (Number.isFinite(x) ? round(x, 3) : null)),
      stats: roundStats(v.stats),
      pooled: roundStats(v.pooled),
      sdRatioHostOverThis: host && host !== v ? round(sdRatio(host.stats, v.stats), 3) : null,
      noiseInducedSd: quiet ? round(noiseInducedSd(v.stats, quiet.stats), 3) : null,
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
        name: `${v.label}: σ ${v.stats.trimmedSd.toFixed(1)} µs (top ${Math.round(e.trimFraction * 1000) / 10}% dropped)${inWin}, ${h.above} beyond ${hi} µs`,
        bins: h.bins,
      };
    }),
  });
}
