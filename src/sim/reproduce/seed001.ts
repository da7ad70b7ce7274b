/**
 * Seed 001 (Bienz et al., node-aware allreduce) checked by simulation on the
 * `bluewaters` preset (16 processes per node, 2 sockets, 3-D torus): NAP vs recursive
 * doubling vs SMP for 8-byte allreduces, the growth of NAP's advantage with process
 * count and at powers of ppn, and the NAP → SMP crossover at 32,768 processes.
 * Plot: time vs reduction size at 32,768 processes (Figs. 11/14 style).
 *
 * The paper prints no machine parameters; every Blue Waters value is ASSUMED, so
 * orderings are validation of the algorithms' structure under plausible costs and the
 * 2048-byte crossover cannot be matched without inventing parameters.
 */
import { lineChartSvg } from '../../plot/svg.js';
import { getPreset } from '../presets.js';
import { simulate } from '../simulate.js';
import { fmt, notMatchable, us, verdict, type SeedReproduction, type SimCheck } from './check.js';

const S = 'seed 001';
const pct = (x: number): string => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(0)}%`;
const ALGS = ['recursive_doubling', 'smp', 'nap'] as const;
type Alg = (typeof ALGS)[number];

export interface Seed001Options {
  /** Processes of the size sweep and the ordering check (default 32,768 as in the paper). */
  readonly procs?: number;
  /** Reduction sizes (bytes) of the sweep. */
  readonly sizes?: readonly number[];
  readonly plots?: boolean;
}

export function seed001(o: Seed001Options = {}): SeedReproduction {
  const P = o.procs ?? 32768;
  const sizes = o.sizes ?? [8, 1024, 2048, 4096];
  const bw = getPreset('bluewaters');
  const checks: SimCheck[] = [];
  const plots: { name: string; svg: string }[] = [];
  const cache = new Map<string, number>();
  const t = (a: Alg, procs: number, bytes: number): number => {
    const k = `${a}:${procs}:${bytes}`;
    let v = cache.get(k);
    if (v === undefined) {
      v = simulate({ collective: 'allreduce', algorithm: a, machine: bw, procs, ppn: 16, bytes }).first.time;
      cache.set(k, v);
    }
    return v;
  };
  const note = 'Blue Waters parameters ASSUMED (the paper prints none): a check of the algorithms’ structure';

  const at = (procs: number) => Object.fromEntries(ALGS.map((a) => [a, t(a, procs, 8)])) as Record<Alg, number>;
  const big = at(P);
  checks.push(
    verdict(
      S,
      `NAP fastest for 8-byte allreduce at ${P} processes (Figs. 10, 11, 15)`,
      'NAP < RD, SMP',
      `NAP ${fmt(big.nap / us, '')}, RD ${fmt(big.recursive_doubling / us, '')}, SMP ${fmt(big.smp / us, ' µs')}`,
      big.nap < big.recursive_doubling && big.nap < big.smp,
      'ordering',
      'validation',
      note,
    ),
  );
  const margin = (procs: number) => {
    const x = procs === P ? big : at(procs);
    return Math.min(x.recursive_doubling, x.smp) / x.nap - 1;
  };
  const grow = [32, 256, 4096].map(margin);
  checks.push(
    verdict(S, 'NAP’s advantage (8 B) grows with process count: 32, 256, 4096 (2, 16, 256 nodes)', 'growing (Fig. 10)', grow.map(pct).join(', '), grow[0] < grow[1] && grow[1] < grow[2], 'increasing', 'validation', note),
  );
  const pow = margin(4096);
  const above = margin(8192);
  checks.push(
    verdict(S, 'NAP speedup is largest at power-of-ppn process counts (4096 = 16^3 vs 8192)', 'peak at 4096 (Fig. 13)', `${pct(pow)} vs ${pct(above)}`, pow > above, '4096 > 8192', 'validation', note),
  );
  // Crossover NAP → SMP.
  const ratio = sizes.map((b) => ({ b, r: t('nap', P, b) / t('smp', P, b) }));
  let cross: number | undefined;
  for (let i = 1; i < ratio.length; i++) {
    const [a, b] = [ratio[i - 1], ratio[i]];
    if (a.r <= 1 && b.r > 1) {
      const w = (1 - a.r) / (b.r - a.r);
      cross = Math.round(2 ** (Math.log2(a.b) + w * (Math.log2(b.b) - Math.log2(a.b))));
      break;
    }
  }
  checks.push(
    notMatchable(
      S,
      `NAP faster up to 2048 bytes, SMP above, at ${P} processes (Fig. 15, measured)`,
      '2048 B',
      cross === undefined ? `no crossover in ${sizes[0]}–${sizes[sizes.length - 1]} B` : `crossover ≈ ${cross} B (NAP/SMP: ${ratio.map((x) => `${x.b} B ${x.r.toFixed(2)}`).join(', ')})`,
      'needs the Blue Waters α, β, intra-node costs and injection limit, which seed 001 does not print; ours come from the ASSUMED preset',
      'validation',
      cross === undefined ? undefined : Math.abs(cross - 2048) / 2048,
    ),
  );
  if (o.plots !== false) {
    plots.push({
      name: 'seed001-fig11-15-simulated-time-vs-bytes',
      svg: lineChartSvg({
        title: `Seed 001 Figs. 11/15 (simulated, bluewaters preset): allreduce at ${P} processes, 16 per node`,
        x: { label: 'reduction size (bytes)', log: true },
        y: { label: 'time (µs)', log: true },
        series: ALGS.map((a) => ({ name: a, points: sizes.map((b) => [b, t(a, P, b) / us] as [number, number]) })),
      }),
    });
  }
  return { seed: S, checks, plots, effort: `one deterministic run per point; size sweep ${sizes.join(', ')} B at ${P} processes` };
}
