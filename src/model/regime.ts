/**
 * Regime maps: the fastest algorithm over (vector length × machine size), from the
 * seeds' closed forms (which the schedule-costing tests tie to the catalogue's
 * schedules):
 * - seed 004 Figs. 5/8 style: Tree, Snake, Fence on W×H meshes of the DELTA under an
 *   f(L) preset (standard = Fig. 5 left, nominal = Fig. 5 right, fitted ≈ the
 *   empirical Fig. 8), Snake/Fence at their best integer block S ∈ [20, 600] with
 *   B ≥ 3 (unavailable when no S qualifies);
 * - seed 001 Figs. 10/11 style: RD, SMP, NAP over bytes × process count at a fixed
 *   ppn (Eqs. 4–6; NAP with ⌈log_ppn n⌉ steps and SMP with 2·lg ppn intra-node steps,
 *   as their schedules have; the injectors option selects ppn (printed) or ppn − 1).
 * Each cell records the winner, every algorithm's time and the margin of the winner
 * (second best / best − 1).
 */
import { categoryMapSvg, lineChartSvg } from '../plot/svg.js';
import { napTime, rdTime, smpTime, type BienzParams } from './closed/bienz.js';
import { bestBlock, fenceTime, snakeTime, treeTime, type LittlefieldParams } from './closed/littlefield.js';
import type { Machine } from './machine.js';
import { resolveF, type FPresetName } from './nbl.js';

export interface RegimeMap {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly xs: readonly number[];
  readonly ys: readonly number[];
  /** Optional names of the rows (e.g. "16x16"). */
  readonly yNames?: readonly string[];
  /** winners[j][i] at (xs[i], ys[j]). */
  readonly winners: readonly (readonly string[])[];
  readonly margins: readonly (readonly number[])[];
  readonly times: Readonly<Record<string, readonly (readonly number[])[]>>;
}

function build(
  title: string,
  xLabel: string,
  yLabel: string,
  xs: readonly number[],
  ys: readonly number[],
  algs: readonly string[],
  time: (alg: string, x: number, j: number) => number,
  yNames?: readonly string[],
): RegimeMap {
  const times: Record<string, number[][]> = {};
  for (const a of algs) times[a] = ys.map((_, j) => xs.map((x) => time(a, x, j)));
  const winners: string[][] = [];
  const margins: number[][] = [];
  ys.forEach((_, j) => {
    winners.push([]);
    margins.push([]);
    xs.forEach((_, i) => {
      const sorted = algs.map((a) => ({ a, t: times[a][j][i] })).sort((p, q) => p.t - q.t);
      winners[j].push(sorted[0].a);
      margins[j].push(sorted.length > 1 ? sorted[1].t / sorted[0].t - 1 : 0);
    });
  });
  return { title, xLabel, yLabel, xs, ys, yNames, winners, margins, times };
}

/** Seed 004 parameters from a machine (DELTA): α, β per element (8-byte doubles), c2, c3. */
export function littlefieldParams(m: Machine, f: FPresetName, literal = false): LittlefieldParams {
  return {
    alpha: m.inter.alpha,
    beta: m.inter.beta * 8,
    c2: m.combine?.[2] ?? m.gamma,
    c3: m.combine?.[3] ?? 2 * m.gamma,
    f: resolveF(f).f,
    literal,
  };
}

export const LITTLEFIELD_MESHES: readonly { W: number; H: number }[] = [
  { W: 2, H: 2 },
  { W: 4, H: 2 },
  { W: 4, H: 4 },
  { W: 8, H: 4 },
  { W: 8, H: 8 },
  { W: 16, H: 8 },
  { W: 16, H: 16 },
  { W: 32, H: 16 },
  { W: 32, H: 32 },
];

/** N = 10^2 … 5·10^5 at 4 points per decade. */
export function littlefieldLengths(): number[] {
  const out: number[] = [];
  for (let e = 2; e <= 5.7; e += 0.25) out.push(Math.round(10 ** e));
  return out.filter((n) => n <= 5e5).concat([5e5]);
}

/** Times of Tree, Snake, Fence (best S) at one point; Infinity when the timeline does not apply. */
export function littlefieldTimes(p: LittlefieldParams, W: number, H: number, N: number): { tree: number; snake: number; fence: number; snakeS?: number; fenceS?: number } {
  const sn = W * H >= 2 ? bestBlock(N, (S) => snakeTime(p, W * H, N, S)) : undefined;
  const fe = W >= 2 ? bestBlock(N, (S) => fenceTime(p, W, H, N, S)) : undefined;
  return { tree: treeTime(p, W, H, N), snake: sn?.time ?? Infinity, fence: fe?.time ?? Infinity, snakeS: sn?.S, fenceS: fe?.S };
}

export function littlefieldRegime(
  m: Machine,
  f: FPresetName,
  o: { meshes?: readonly { W: number; H: number }[]; lengths?: readonly number[]; literal?: boolean } = {},
): RegimeMap {
  const meshes = o.meshes ?? LITTLEFIELD_MESHES;
  const xs = o.lengths ?? littlefieldLengths();
  const p = littlefieldParams(m, f, o.literal);
  const cache = new Map<string, ReturnType<typeof littlefieldTimes>>();
  const at = (j: number, N: number): ReturnType<typeof littlefieldTimes> => {
    const k = `${j}/${N}`;
    let v = cache.get(k);
    if (!v) cache.set(k, (v = littlefieldTimes(p, meshes[j].W, meshes[j].H, N)));
    return v;
  };
  return build(
    `Fastest global combine (seed 004 ${o.literal ? 'literal appendix' : 'form B'}, ${f} f(L), ${m.name})`,
    'vector length N (doubles)',
    'mesh nodes P = W·H',
    xs,
    meshes.map((x) => x.W * x.H),
    ['Tree', 'Snake', 'Fence'],
    (a, N, j) => {
      const t = at(j, N);
      return a === 'Tree' ? t.tree : a === 'Snake' ? t.snake : t.fence;
    },
    meshes.map((x) => `${x.W}x${x.H}`),
  );
}

/** Seed 001 parameters from a machine with injection bandwidths (γ per byte for elementSize-byte values). */
export function bienzParams(m: Machine, elementSize = 8): BienzParams {
  if (!m.injection) throw new Error(`machine '${m.name}' has no injection bandwidths (R_N, R_b) for seed 001's max-rate model`);
  return { alphaL: m.intra.alpha, betaL: m.intra.beta, alpha: m.inter.alpha, Rb: m.injection.Rb, RN: m.injection.RN, gamma: m.gamma / elementSize };
}

export function bienzRegime(
  m: Machine,
  o: { ppn?: number; procs?: readonly number[]; bytes?: readonly number[]; injectors?: 'ppn' | 'ppn-1' } = {},
): RegimeMap {
  const ppn = o.ppn ?? 16;
  const procs = o.procs ?? [32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536].filter((p) => p % ppn === 0 && p > ppn);
  const bytes = o.bytes ?? Array.from({ length: 17 }, (_, i) => 8 * 2 ** i);
  const p = bienzParams(m);
  const inj = o.injectors === 'ppn' ? ppn : ppn - 1;
  return build(
    `Fastest allreduce (seed 001 Eqs. 4–6, ${ppn} ppn, ${m.name})`,
    'bytes per process',
    'processes',
    bytes,
    procs,
    ['RD', 'SMP', 'NAP'],
    (a, s, j) => {
      const P = procs[j];
      if (a === 'RD') return rdTime(p, P, ppn, s);
      if (a === 'SMP') return smpTime(p, P, ppn, s, { smpIntraSteps: 2 });
      return napTime(p, P, ppn, s, { napSteps: 'ceil', injectors: inj });
    },
  );
}

/** SVG of a regime map (margins as cell notes, in %). */
export function regimeSvg(r: RegimeMap): string {
  return categoryMapSvg({
    title: r.title,
    x: { label: r.xLabel, log: true, values: r.xs },
    y: { label: r.yLabel, log: true, values: r.ys },
    cells: r.winners,
    // Every candidate in a fixed order (the times' keys), so an algorithm keeps its colour across maps.
    categories: Object.keys(r.times),
    notes: r.margins.map((row) => row.map((v) => (Number.isFinite(v) ? `${Math.round(v * 100)}%` : ''))),
  });
}

/**
 * Seed 001 Figs. 10 and 11 as line charts (µs, log axes): allreduce time of RD, SMP
 * and NAP versus process count at `bytes` (Fig. 10), and versus size at `procs`
 * processes (Fig. 11), from Eqs. 4–6 as in `bienzRegime`.
 */
export function bienzCharts(m: Machine, o: { ppn?: number; bytes?: number; procs?: number } = {}): { fig10: string; fig11: string } {
  const ppn = o.ppn ?? 16;
  const s0 = o.bytes ?? 8;
  const P0 = o.procs ?? 32768;
  const p = bienzParams(m);
  const f = (a: string, P: number, s: number): number =>
    (a === 'RD' ? rdTime(p, P, ppn, s) : a === 'SMP' ? smpTime(p, P, ppn, s, { smpIntraSteps: 2 }) : napTime(p, P, ppn, s, { napSteps: 'ceil', injectors: ppn - 1 })) * 1e6;
  const procs = [32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536].filter((x) => x % ppn === 0 && x > ppn);
  const sizes = Array.from({ length: 17 }, (_, i) => 8 * 2 ** i);
  const algs = ['RD', 'SMP', 'NAP'];
  return {
    fig10: lineChartSvg({
      title: `Allreduce of ${s0} B per process, ${ppn} ppn (seed 001 Fig. 10 style, ${m.name})`,
      x: { label: 'processes', log: true },
      y: { label: 'time (µs)', log: true },
      series: algs.map((a) => ({ name: a, points: procs.map((P) => [P, f(a, P, s0)] as const) })),
    }),
    fig11: lineChartSvg({
      title: `Allreduce at ${P0} processes, ${ppn} ppn (seed 001 Fig. 11 style, ${m.name})`,
      x: { label: 'bytes per process', log: true },
      y: { label: 'time (µs)', log: true },
      series: algs.map((a) => ({ name: a, points: sizes.map((s) => [s, f(a, P0, s)] as const) })),
    }),
  };
}
