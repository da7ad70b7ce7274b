/**
 * The timeline renderer's index over a TimelineView (pure code, shared by the page
 * and the unit tests): spans grouped into rows (a lane's outer spans, and the spans
 * nested inside them, such as the steps of a measured run's collective call; spans
 * that overlap without nesting, steps in flight together, on side-by-side tracks),
 * each row sorted by start with the running maximum of its ends, so the spans visible
 * in a time window are found by binary search and walked in order; the same for
 * marks; the span under a point; and the time axis's ticks.
 */
import type { TimelineView } from '../document.js';

/** One row: spans of one lane at one nesting depth on one track, sorted by start. */
export interface Row {
  readonly lane: number;
  /** 0: outer spans; 1: spans nested inside them (the steps of a call). */
  readonly depth: 0 | 1;
  /** Track within the depth: overlapping spans (steps in flight together) go side by side. */
  readonly track: number;
  /** The row's band within its lane, as fractions of the lane's height. */
  readonly y0: number;
  readonly y1: number;
  /** Span (or mark) indices, sorted by start. */
  readonly idx: Int32Array;
  readonly start: Float64Array;
  /** Running maximum of the ends (non-decreasing). */
  readonly maxEnd: Float64Array;
}

export interface Spatial {
  /** All rows; lane l's are rows[laneRows[l]] … rows[laneRows[l + 1] − 1], top to bottom. */
  readonly rows: readonly Row[];
  readonly laneRows: Int32Array;
  /** Per span: the index of its row. */
  readonly spanRow: Int32Array;
  /** Whether lane l has nested spans (calls above, their steps below). */
  readonly nested: Uint8Array;
  /** Marks per lane (band: the whole lane), undefined where there are none. */
  readonly marks: readonly (Row | undefined)[];
  /** End of the last span or mark (µs); 1 when everything has zero length. */
  readonly end: number;
  readonly onPath: Uint8Array;
}

/** Tracks per depth at most; further overlapping spans share the track that frees first. */
export const MAX_TRACKS = 3;
/** Share of a nested lane's height taken by its outer (call) band. */
export const OUTER_BAND = 0.3;

function makeRow(lane: number, depth: 0 | 1, track: number, y0: number, y1: number, ids: readonly number[], start: ArrayLike<number>, dur: ArrayLike<number>): Row {
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
  return { lane, depth, track, y0, y1, idx, start: s, maxEnd: m };
}

const eps = (t: number): number => 1e-9 * Math.max(1, Math.abs(t));

/** Greedy interval packing: the first track free at the span's start (zero-length spans stay on track 0). */
function pack(ids: readonly number[], start: ArrayLike<number>, dur: ArrayLike<number>): number[][] {
  const tracks: number[][] = [];
  const free: number[] = [];
  for (const i of ids) {
    const s = start[i];
    let t = 0;
    if (dur[i] > 0) {
      t = free.findIndex((f) => f <= s + eps(s));
      if (t < 0) {
        if (tracks.length < MAX_TRACKS) t = tracks.length;
        else t = free.indexOf(Math.min(...free));
      }
    }
    if (t === tracks.length) {
      tracks.push([]);
      free.push(-Infinity);
    }
    tracks[t].push(i);
    free[t] = Math.max(free[t], s + dur[i]);
  }
  return tracks;
}

/** Build the index. Spans must be sorted by lane, then start (the loader's order). */
export function buildSpatial(v: TimelineView): Spatial {
  const L = v.lanes.length;
  const { lane, start, dur } = v.spans;
  const n = lane.length;
  const outer: number[][] = Array.from({ length: L }, () => []);
  const inner: number[][] = Array.from({ length: L }, () => []);
  const nested = new Uint8Array(L);
  // Nesting per lane: a span inside the open outer span is nested (a zero-length span
  // at the outer span's start is not: the simulator's zero-length copy before a send).
  let curLane = -1;
  let openStart = -Infinity;
  let openEnd = -Infinity;
  let end = 0;
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
    } else {
      outer[l].push(i);
      if (e > openEnd) {
        openStart = s;
        openEnd = e;
      }
    }
  }
  const rows: Row[] = [];
  const laneRows = new Int32Array(L + 1);
  const spanRow = new Int32Array(n).fill(-1);
  for (let l = 0; l < L; l++) {
    laneRows[l] = rows.length;
    const o = pack(outer[l], start, dur);
    const m = pack(inner[l], start, dur);
    const bands: [0 | 1, number[][], number, number][] = m.length ? [[0, o, 0, OUTER_BAND], [1, m, OUTER_BAND, 1]] : [[0, o, 0, 1]];
    for (const [depth, tracks, a, b] of bands) {
      const h = (b - a) / Math.max(1, tracks.length);
      tracks.forEach((ids, t) => {
        for (const i of ids) spanRow[i] = rows.length;
        rows.push(makeRow(l, depth, t, a + t * h, a + (t + 1) * h, ids, start, dur));
      });
    }
  }
  laneRows[L] = rows.length;
  const byLane: number[][] = Array.from({ length: L }, () => []);
  v.marks.lane.forEach((l, i) => {
    if (l >= 0 && l < L) byLane[l].push(i);
    const e = v.marks.start[i] + v.marks.dur[i];
    if (e > end) end = e;
  });
  const marks = byLane.map((ids, l) => (ids.length ? makeRow(l, 0, 0, 0, 1, ids.sort((a, b) => v.marks.start[a] - v.marks.start[b]), v.marks.start, v.marks.dur) : undefined));
  const onPath = new Uint8Array(n);
  for (const i of v.critical) onPath[i] = 1;
  return { rows, laneRows, spanRow, nested, marks, end: end > 0 ? end : 1, onPath };
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
