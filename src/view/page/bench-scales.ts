/**
 * Scales, colours and grouping for the bench and model views, without the DOM
 * (unit-tested in Node; bench.ts and model.ts draw with them):
 * - log axes for message bytes (base 2, with 0 B — a barrier — placed left of the
 *   smallest size) and for microseconds (base 10);
 * - the ratio colour: a diverging log scale centred at 1 (ColorBrewer RdBu, safe for
 *   the common colour-vision deficiencies): below 1 (collectives faster) blue, above 1
 *   red, saturating at 1/span and span;
 * - series styling (Okabe–Ito colours, markers), the heat maps' grid, and the lookups
 *   a tooltip needs (the peer's time at a size, the algorithm behind a ratio).
 */
import { color, interpolateRdBu, scaleLog } from 'd3';
import type { BenchRatio, BenchSeries, BenchView } from '../document.js';
import { formatBytes } from './format.js';

/** Okabe–Ito colours for lines on white (the yellow left out: too light for a line). */
export const SERIES_COLOURS: readonly string[] = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000'];
/** The peer MPI's lines: dark grey, dashed, square markers (see peerDash). */
export const PEER_COLOUR = '#3b3b3b';
const PEER_DASHES: readonly string[] = ['6 3', '2 2', '9 3 2 3'];

/** The dash pattern of the i-th peer's line. */
export function peerDash(i: number): string {
  return PEER_DASHES[((i % PEER_DASHES.length) + PEER_DASHES.length) % PEER_DASHES.length];
}

/** The colour of the i-th series of a panel (cycling). */
export function seriesColour(i: number): string {
  return SERIES_COLOURS[((i % SERIES_COLOURS.length) + SERIES_COLOURS.length) % SERIES_COLOURS.length];
}

// ------------------------------------------------------------------ axes

/** A log axis: position of a value, the ticks and their labels. */
export interface LogAxis {
  /** Pixel position of v (values ≤ 0 of a bytes axis go to the 0 slot). */
  at(v: number): number;
  readonly ticks: readonly number[];
  label(v: number): string;
  readonly domain: readonly [number, number];
}

/**
 * A base-2 axis over message sizes in bytes onto [r0, r1]. A size of 0 (a barrier)
 * is drawn at a quarter of the smallest positive size (at 1 B where every size is 0)
 * and labelled `name(0)` ("0 B"). Ticks, labelled by `name` (formatBytes unless
 * given): the powers of 2 (≥ 1) inside the domain — every one over up to 8 octaves,
 * every 2nd up to 16, every 4th up to 32, every 8th beyond — plus the 0 slot.
 */
export function bytesAxis(values: readonly number[], r0: number, r1: number, name: (v: number) => string = formatBytes): LogAxis {
  const pos = values.filter((v) => Number.isFinite(v) && v > 0);
  const hasZero = values.some((v) => v === 0);
  const lo = pos.length ? Math.min(...pos) : 1;
  const hi = pos.length ? Math.max(...pos) : 1;
  const zeroAt = pos.length ? lo / 4 : 1;
  const d0 = (hasZero ? zeroAt : lo) / 1.5;
  const d1 = hi * 1.5;
  const s = scaleLog().base(2).domain([d0, d1]).range([r0, r1]);
  const octaves = Math.log2(d1 / d0);
  const every = octaves <= 8 ? 1 : octaves <= 16 ? 2 : octaves <= 32 ? 4 : 8;
  const ticks: number[] = [];
  if (hasZero) ticks.push(0);
  for (let e = Math.ceil(Math.log2(d0)); 2 ** e <= d1; e++) if (e % every === 0 && 2 ** e > (hasZero ? zeroAt : 0) && 2 ** e >= 1) ticks.push(2 ** e);
  return {
    at: (v) => s(v > 0 ? v : zeroAt),
    ticks,
    label: name,
    domain: [d0, d1],
  };
}

/**
 * A base-10 axis over positive times (µs) onto [r0, r1] (r0 the bottom): the domain
 * padded by 20% either side (to a factor 2 at least); ticks at 1, 10, 100, … and,
 * while that gives fewer than three, at 2 and 5 times them too, then at every multiple.
 */
export function usAxis(values: readonly number[], r0: number, r1: number): LogAxis {
  const pos = values.filter((v) => Number.isFinite(v) && v > 0);
  let lo = pos.length ? Math.min(...pos) : 1;
  let hi = pos.length ? Math.max(...pos) : 10;
  if (hi / lo < 2) {
    const mid = Math.sqrt(lo * hi);
    lo = mid / 1.5;
    hi = mid * 1.5;
  }
  const d0 = lo / 1.2;
  const d1 = hi * 1.2;
  const s = scaleLog().domain([d0, d1]).range([r0, r1]);
  const decades: number[] = [];
  for (let e = Math.floor(Math.log10(d0)); 10 ** e <= d1; e++) decades.push(10 ** e);
  let ticks: number[] = [];
  for (const steps of [[1], [1, 2, 5], [1, 2, 3, 4, 5, 6, 7, 8, 9]]) {
    ticks = decades.flatMap((t) => steps.map((k) => k * t)).filter((t) => t >= d0 && t <= d1);
    if (ticks.length >= 3) break;
  }
  if (ticks.length > 12) ticks = ticks.filter((_, i) => i % Math.ceil(ticks.length / 8) === 0);
  return { at: (v) => s(v), ticks: ticks.map((t) => +t.toPrecision(12)), label: usTick, domain: [d0, d1] };
}

/** A tick label for a time in µs: 0.1 µs, 5 µs, 20 µs, 1 ms, 10 ms, 1 s. */
export function usTick(us: number): string {
  if (us >= 1e6) return `${+(us / 1e6).toPrecision(3)} s`;
  if (us >= 1e3) return `${+(us / 1e3).toPrecision(3)} ms`;
  return `${+us.toPrecision(3)} µs`;
}

// ------------------------------------------------------------------ ratio colour

/**
 * The half-width of the ratio colour scale: the power of two at or above the largest
 * deviation from 1 (max(r, 1/r)) among `ratios`, between 2 and 16.
 */
export function ratioSpan(ratios: readonly number[]): number {
  let m = 1;
  for (const r of ratios) if (Number.isFinite(r) && r > 0) m = Math.max(m, r, 1 / r);
  return Math.min(16, Math.max(2, 2 ** Math.ceil(Math.log2(m) - 1e-9)));
}

/**
 * The colour of a ratio (ours / peer): log₂ ratio on a diverging scale, 1 white-ish,
 * 1/span and below full blue (we are faster), span and above full red. NaN, ≤ 0:
 * a neutral grey.
 */
export function ratioColour(ratio: number, span: number): string {
  if (!Number.isFinite(ratio) || ratio <= 0) return '#d0d0d0';
  const l = Math.log2(span);
  const t = Math.max(-1, Math.min(1, Math.log2(ratio) / (l > 0 ? l : 1)));
  // interpolateRdBu runs red (0) → white (0.5) → blue (1): blue for t < 0.
  return interpolateRdBu(0.5 - t / 2);
}

/** Black or white, whichever reads better on `background` (WCAG relative luminance). */
export function textOn(background: string): '#000000' | '#ffffff' {
  const c = color(background)?.rgb();
  if (!c) return '#000000';
  const lin = (v: number): number => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  const L = 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
  // Contrast with black (L + 0.05) / 0.05 against white 1.05 / (L + 0.05).
  return (L + 0.05) / 0.05 >= 1.05 / (L + 0.05) ? '#000000' : '#ffffff';
}

/** Stops of the legend bar: ratios from 1/span to span at every power of two. */
export function ratioLegendStops(span: number): number[] {
  const l = Math.round(Math.log2(span));
  const out: number[] = [];
  for (let e = -l; e <= l; e++) out.push(2 ** e);
  return out;
}

// ------------------------------------------------------------------ series and heat maps

/** A series' name in a legend: our algorithm (and variant), or the peer's name (and variant). */
export function seriesLabel(s: BenchSeries): string {
  const head = s.impl === 'collectives' ? s.algorithm || 'collectives' : s.impl;
  return s.variant ? `${head} ${s.variant}` : head;
}

export const isOurs = (s: BenchSeries): boolean => s.impl === 'collectives';

/** The distinct rank counts of the series, ascending. */
export function ranksOf(series: readonly BenchSeries[]): number[] {
  return [...new Set(series.map((s) => s.ranks))].sort((a, b) => a - b);
}

/** The collectives of the series in order of first appearance. */
export function collectivesOf(items: readonly { readonly collective: string }[]): string[] {
  return [...new Set(items.map((s) => s.collective))];
}

/** The time of series s at `bytes`, or undefined. */
export function usAt(s: BenchSeries, bytes: number): number | undefined {
  const i = s.bytes.indexOf(bytes);
  return i >= 0 && Number.isFinite(s.us[i]) ? s.us[i] : undefined;
}

/** The series of the other side at the same point: for one of ours, the peers (same collective, ranks, nodes, variant); for a peer's, ours. */
export function counterparts(all: readonly BenchSeries[], s: BenchSeries): BenchSeries[] {
  return all.filter((o) => o !== s && isOurs(o) !== isOurs(s) && o.collective === s.collective && o.ranks === s.ranks && o.nodes === s.nodes && o.variant === s.variant);
}

/** One heat map: the ratios against one peer at one rank count. */
export interface HeatMap {
  readonly peer: string;
  readonly ranks: number;
  /** Row labels (collectives, first-appearance order) and column sizes (ascending). */
  readonly rows: readonly string[];
  readonly columns: readonly number[];
  readonly cells: readonly BenchRatio[];
  /** Geometric mean of the cells' ratios. */
  readonly geomean: number;
}

/** The ratios grouped into one heat map per (peer, ranks), in first-appearance order; a repeated (collective, bytes) keeps its first ratio. */
export function heatMaps(ratios: readonly BenchRatio[]): HeatMap[] {
  const groups = new Map<string, BenchRatio[]>();
  for (const r of ratios) {
    const k = `${r.peer}\u0000${r.ranks}`;
    const g = groups.get(k);
    if (g) g.push(r);
    else groups.set(k, [r]);
  }
  return [...groups.values()].map((g) => {
    const seen = new Set<string>();
    const cells = g.filter((r) => {
      const k = `${r.collective}\u0000${r.bytes}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
    const good = cells.filter((c) => Number.isFinite(c.ratio) && c.ratio > 0);
    const geomean = good.length ? Math.exp(good.reduce((a, c) => a + Math.log(c.ratio), 0) / good.length) : Number.NaN;
    return {
      peer: g[0].peer,
      ranks: g[0].ranks,
      rows: collectivesOf(cells),
      columns: [...new Set(cells.map((c) => c.bytes))].sort((a, b) => a - b),
      cells,
      geomean,
    };
  });
}

/**
 * The algorithm behind a ratio's "ours": among our plain series (no variant) of the
 * cell's collective and ranks, the one whose time at the size is the cell's (the
 * loaders take it from one of them); several equal: their names joined; none: ''.
 */
export function ratioAlgorithm(view: BenchView, r: BenchRatio): string {
  const mine = view.series.filter((s) => isOurs(s) && s.variant === '' && s.collective === r.collective && s.ranks === r.ranks);
  const at = mine.map((s) => ({ s, us: usAt(s, r.bytes) })).filter((x): x is { s: BenchSeries; us: number } => x.us !== undefined);
  if (at.length === 0) return '';
  const exact = at.filter((x) => Math.abs(x.us - r.oursUs) <= 1e-9 * Math.max(1, Math.abs(r.oursUs)));
  const pick = exact.length ? exact : [at.reduce((a, b) => (Math.abs(b.us - r.oursUs) < Math.abs(a.us - r.oursUs) ? b : a))];
  return [...new Set(pick.map((x) => x.s.algorithm || 'collectives'))].join(', ');
}

/**
 * Positions for labels wanted at `ys` that keep them at least `gap` apart: sorted
 * top-down, each pushed below the previous, then the block shifted up as far as the
 * pushes allow so it stays centred on the wanted positions. Resolves the positions in
 * the input's order.
 */
export function spreadLabels(ys: readonly number[], gap: number): number[] {
  const order = ys.map((y, i) => ({ y, i })).sort((a, b) => a.y - b.y);
  const out = order.map((o) => o.y);
  for (let k = 1; k < out.length; k++) out[k] = Math.max(out[k], out[k - 1] + gap);
  const shift = order.reduce((a, o, k) => a + (out[k] - o.y), 0) / Math.max(1, out.length);
  for (let k = 0; k < out.length; k++) out[k] -= shift;
  // The shift may break the ordering against a neighbour above that did not move: re-push.
  for (let k = 1; k < out.length; k++) out[k] = Math.max(out[k], out[k - 1] + gap);
  const res = new Array<number>(ys.length);
  order.forEach((o, k) => (res[o.i] = out[k]));
  return res;
}
