/**
 * The timeline renderer's index (src/view/timeline/spatial.ts): rows per lane and
 * nesting (a run's call spans outside, steps inside; the simulator's zero-length copy
 * next to a send is not nested), the visible-window search against a linear scan on
 * random rows, the hit test, and the axis ticks.
 */
import { describe, expect, it } from 'vitest';
import type { TimelineView } from '../../src/view/document.js';
import { buildSpatial, firstVisible, hitRow, tickLabel, ticks, tickStep } from '../../src/view/timeline/spatial.js';

function view(spans: [lane: number, kind: string, start: number, dur: number][], lanes = 2, marks: [number, number, number][] = []): TimelineView {
  const kinds = [...new Set(spans.map((s) => s[1]))];
  const sorted = [...spans].sort((a, b) => a[0] - b[0] || a[2] - b[2] || b[3] - a[3]);
  return {
    kind: 'timeline',
    source: 'run',
    ranks: lanes,
    lanes: Array.from({ length: lanes }, (_, l) => `rank ${l}`),
    laneRank: Array.from({ length: lanes }, (_, l) => l),
    kinds,
    spans: {
      lane: sorted.map((s) => s[0]),
      kind: sorted.map((s) => kinds.indexOf(s[1])),
      start: sorted.map((s) => s[2]),
      dur: sorted.map((s) => s[3]),
      peer: sorted.map(() => -1),
      bytes: sorted.map(() => -1),
      match: sorted.map(() => -1),
      label: sorted.map(() => ''),
    },
    critical: [0],
    marks: { lane: marks.map((m) => m[0]), start: marks.map((m) => m[1]), dur: marks.map((m) => m[2]), label: marks.map(() => 'noise') },
    meta: {},
  };
}

describe('buildSpatial', () => {
  it('nests the steps of a call span, not a zero-length span at a step start; overlapping steps on tracks', () => {
    const v = view([
      [0, 'collective', 0, 50],
      [0, 'send', 5, 10],
      [0, 'recv', 8, 20],
      [0, 'reduce', 30, 5],
      [0, 'collective', 60, 10],
      [0, 'reduce', 61, 2],
      [1, 'copy', 0, 0],
      [1, 'send', 0, 2],
      [1, 'recv', 2, 3],
    ]);
    const sp = buildSpatial(v);
    expect([...sp.nested]).toEqual([1, 0]);
    expect([...sp.laneRows]).toEqual([0, 3, 4]);
    const round = (x: number): number => Math.round(x * 1e6) / 1e6;
    const rowKinds = sp.rows.map((r) => [r.lane, r.depth, r.track, round(r.y0), round(r.y1), [...r.idx].map((i) => v.kinds[v.spans.kind[i]]).join(' ')]);
    expect(rowKinds).toEqual([
      [0, 0, 0, 0, 0.3, 'collective collective'],
      [0, 1, 0, 0.3, 0.65, 'send reduce reduce'],
      [0, 1, 1, 0.65, 1, 'recv'],
      [1, 0, 0, 0, 1, 'send copy recv'],
    ]);
    v.spans.lane.forEach((_, i) => expect(sp.rows[sp.spanRow[i]].idx).toContain(i));
    expect(sp.end).toBe(70);
    expect(sp.onPath[0]).toBe(1);
    expect(sp.onPath.reduce((a, b) => a + b, 0)).toBe(1);
  });

  it('finds the visible spans and hits like a linear scan, on random rows', () => {
    let seed = 7;
    const rnd = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const spans: [number, string, number, number][] = [];
    for (let i = 0; i < 400; i++) spans.push([0, 'x', Math.floor(rnd() * 1000), rnd() < 0.05 ? Math.floor(rnd() * 300) : Math.floor(rnd() * 5)]);
    const v = view(spans, 1);
    const sp = buildSpatial(v);
    const rows = sp.rows;
    for (let q = 0; q < 300; q++) {
      const t0 = rnd() * 1100 - 50;
      const t1 = t0 + rnd() * 100;
      const got = new Set<number>();
      for (const row of rows) {
        for (let p = firstVisible(row, t0); p < row.idx.length && row.start[p] <= t1; p++) {
          const i = row.idx[p];
          if (v.spans.start[i] + v.spans.dur[i] >= t0) got.add(i);
        }
      }
      // Every span overlapping (t0, t1] is found, and nothing that ends before t0.
      for (let i = 0; i < v.spans.start.length; i++) {
        const s = v.spans.start[i];
        const e = s + v.spans.dur[i];
        if (s <= t1 && e > t0) expect(got.has(i)).toBe(true);
        if (got.has(i)) expect(s <= t1 && e >= t0).toBe(true);
      }
      const t = rnd() * 1000;
      const tol = rnd() * 3;
      for (const row of rows) {
        const h = hitRow(row, v.spans.dur, t, tol);
        const dist = (i: number): number => Math.max(0, v.spans.start[i] - t, t - v.spans.start[i] - v.spans.dur[i]);
        const cands = [...row.idx].filter((i) => dist(i) <= tol);
        if (!cands.length) expect(h).toBe(-1);
        else {
          const best = Math.min(...cands.map(dist));
          expect(dist(h)).toBe(best);
          expect(v.spans.dur[h]).toBe(Math.min(...cands.filter((i) => dist(i) === best).map((i) => v.spans.dur[i])));
        }
      }
    }
  });

  it('indexes marks per lane', () => {
    const sp = buildSpatial(view([[0, 'send', 0, 1]], 2, [[1, 5, 2], [1, 1, 1]]));
    expect(sp.marks[0]).toBeUndefined();
    expect([...(sp.marks[1]?.start ?? [])]).toEqual([1, 5]);
    expect(sp.end).toBe(7);
  });
});

describe('axis ticks', () => {
  it('steps of 1, 2, 5 × 10^k at least the given pixels apart', () => {
    expect(tickStep(1, 90)).toBe(100);
    expect(tickStep(0.1, 90)).toBe(1000);
    expect(tickStep(3, 90)).toBe(50);
    expect(tickStep(1000, 90)).toBe(0.1);
    expect(ticks(0, 1000, 1).at).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]);
  });

  it('labels in the unit of the step', () => {
    expect(tickLabel(0, 100)).toBe('0 µs');
    expect(tickLabel(250, 50)).toBe('250 µs');
    expect(tickLabel(2000, 1000)).toBe('2 ms');
    expect(tickLabel(2500, 500)).toBe('2500 µs');
    expect(tickLabel(3e6, 1e6)).toBe('3 s');
    expect(tickLabel(0.25, 0.05)).toBe('250 ns');
    expect(tickLabel(1.5, 0.5)).toBe('1.5 µs');
  });
});
