/**
 * The timeline renderer's index over a TimelineView (pure code, shared by the page
 * and the unit tests): spans grouped into rows (a lane's outer spans, and the spans
 * nested inside them, such as the steps of a measured run's collective call), each
 * row sorted by start with the running maximum of its ends, so the spans visible in a
 * time window are found by binary search and walked in order; the same for marks; the
 * span under a point; and the time axis's ticks.
 */
import type { TimelineView } from '../document.js';

/** One row: spans of one lane at one nesting depth class (0: outer, 1: nested). */
export interface Row {
  readonly lane: number;
  readonly depth: 0 | 1;
  /** Span indices, sorted by start. */
  readonly idx: Int32Array;
  readonly start: Float64Array;
  /** Running maximum of the ends (non-decreasing). */
  readonly maxEnd: Float64Array;
}

export interface Spatial {
  /** rows[lane * 2 + depth], undefined when empty. */
  readonly rows: readonly (Row | undefined)[];
  /** Whether lane l has nested spans (it is then drawn in two bands). */
  readonly nested: Uint8Array;
  /** Per span: 1 when nested inside another span of its lane (its row's depth). */
  readonly depth: Uint8Array;
  /** Marks per lane, sorted by start, with running max end (undefined: none). */
  readonly marks: readonly (Row | undefined)[];
  /** End of the last span or mark (µs), at least a tiny positive width. */
  readonly end: number;
  readonly onPath: Uint8Array;
}

function makeRow(lane: number, depth: 0 | 1, ids: readonly number[], start: ArrayLike<number>, dur: ArrayLike<number>): Row {
  const n = ids.length;
  const idx = Int32Array.from(ids);
  const s = new Float64Array(n);
  const m = new Float64Array(n);
  let mx = -Infinity;
  for (let k = 0; k < n; k++) {
    const i = idx[k];
    s[k] = start[i];
    const e = start[i] + dur[i];
    if (e > mx) mx = e;
    m[k] = mx;
  }
  return { lane, depth, idx, start: s, maxEnd: m };
}

/** Build the index. Spans must be sorted by lane, then start (the loader's order). */
export function buildSpatial(v: TimelineView): Spatial {
  const L = v.lanes.length;
  const { lane, start, dur } = v.spans;
  const n = lane.length;
  const outer: number[][] = Array.from({ length: L }, () => []);
  const inner: number[][] = Array.from({ length: L }, () => []);
  const nested = new Uint8Array(L);
  const depth = new Uint8Array(n);
  // Nesting per lane: a span inside the open outer span is nested (a zero-length span
  // at the outer span's start is not: the simulator's zero-length copy before a send).
  let curLane = -1;
  let openStart = -Infinity;
  let openEnd = -Infinity;
  let end = 0;
  const eps = (t: number): number => 1e-9 * Math.max(1, Math.abs(t));
  for (let i = 0; i < n; i++) {
    const l = lane[i];
    const s = start[i];
    const e = s + dur[i];
    if (e > end) end = e;
    if (l !== curLane) {
      curLane = l;
      openStart = -Infinity;
      openEnd = -Infinity;
    }
    if (s < openEnd - eps(openEnd) && e <= openEnd + eps(openEnd) && (dur[i] > 0 || s > openStart + eps(openStart))) {
      inner[l].push(i);
      nested[l] = 1;
      depth[i] = 1;
    } else {
      outer[l].push(i);
      if (e > openEnd) {
        openStart = s;
        openEnd = e;
      }
    }
  }
  const rows: (Row | undefined)[] = new Array<Row | undefined>(2 * L).fill(undefined);
  for (let l = 0; l < L; l++) {
    if (outer[l].length) rows[2 * l] = makeRow(l, 0, outer[l], start, dur);
    if (inner[l].length) rows[2 * l + 1] = makeRow(l, 1, inner[l], start, dur);
  }
  const byLane: number[][] = Array.from({ length: L }, () => []);
  v.marks.lane.forEach((l, i) => {
    if (l >= 0 && l < L) byLane[l].push(i);
    const e = v.marks.start[i] + v.marks.dur[i];
    if (e > end) end = e;
  });
  const marks = byLane.map((ids, l) => (ids.length ? makeRow(l, 0, ids.sort((a, b) => v.marks.start[a] - v.marks.start[b]), v.marks.start, v.marks.dur) : undefined));
  const onPath = new Uint8Array(n);
  for (const i of v.critical) onPath[i] = 1;
  return { rows, nested, depth, marks, end: end > 0 ? end : 1, onPath };
}

/** First position in the row whose span may end after t (all before it end at or before t). */
export function firstVisible(row: Row, t: number): number {
  let lo = 0;
  let hi = row.maxEnd.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (row.maxEnd[mid] > t) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Number of positions whose span starts at or before t. */
export function startsUpTo(row: Row, t: number): number {
  let lo = 0;
  let hi = row.start.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (row.start[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The span of `row` nearest to time t within `tol` µs (0 inside a span), preferring
 * the shortest among those containing t; −1 when none. Looks at most `limit` spans.
 */
export function hitRow(row: Row, dur: ArrayLike<number>, t: number, tol: number, limit = 4096): number {
  let best = -1;
  let bestDist = Infinity;
  let bestDur = Infinity;
  let k = startsUpTo(row, t + tol) - 1;
  for (let seen = 0; k >= 0 && seen < limit; k--, seen++) {
    if (row.maxEnd[k] < t - tol) break;
    const i = row.idx[k];
    const s = row.start[k];
    const e = s + dur[i];
    const d = t < s ? s - t : t > e ? t - e : 0;
    if (d > tol) continue;
    if (d < bestDist || (d === bestDist && dur[i] < bestDur)) {
      best = i;
      bestDist = d;
      bestDur = dur[i];
    }
  }
  return best;
}

/** A tick step of 1, 2 or 5 × 10^k µs giving ticks at least `minPx` apart at `pxPerUs`. */
export function tickStep(pxPerUs: number, minPx: number): number {
  const raw = minPx / pxPerUs;
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

/** The tick label of time t (µs) for a given step: the unit follows the step (ns below 0.1 µs, µs, ms from 1 ms, s from 1 s). */
export function tickLabel(t: number, step: number): string {
  const [div, unit] = step >= 1e6 ? [1e6, 's'] : step >= 1e3 ? [1e3, 'ms'] : step >= 0.1 ? [1, 'µs'] : [1e-3, 'ns'];
  const s = step / div;
  const decimals = s >= 1 ? 0 : Math.min(6, Math.ceil(-Math.log10(s) - 1e-9));
  const v = t / div;
  return `${(Math.abs(v) < 1e-12 ? 0 : v).toFixed(decimals)} ${unit}`;
}

/** Ticks in [t0, t1]. */
export function ticks(t0: number, t1: number, pxPerUs: number, minPx = 90): { step: number; at: number[] } {
  const step = tickStep(pxPerUs, minPx);
  const at: number[] = [];
  for (let k = Math.ceil(t0 / step); k * step <= t1 && at.length < 1000; k++) at.push(k * step);
  return { step, at };
}
