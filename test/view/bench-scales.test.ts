/**
 * The bench and model views' pure parts: the log axes (bench-scales.ts), the ratio
 * colour (diverging log scale centred at 1, blue below, red above, saturating at the
 * span), the heat maps' grouping, the algorithm behind a ratio, label spreading, and
 * the model view's lines and agreement (model-data.ts).
 */
import { describe, expect, it } from 'vitest';
import { color } from 'd3';
import type { BenchRatio, BenchSeries, BenchView, ModelPoint } from '../../src/view/document.js';
import { bytesAxis, counterparts, heatMaps, ratioAlgorithm, ratioColour, ratioLegendStops, ratioSpan, seriesLabel, spreadLabels, textOn, usAxis, usTick } from '../../src/view/page/bench-scales.js';
import { agreement, countText, modelLines, pointRatio, processCounts, xText, xUnit } from '../../src/view/page/model-data.js';

const rgb = (c: string): { r: number; g: number; b: number } => {
  const x = color(c)?.rgb();
  if (!x) throw new Error(`not a colour: ${c}`);
  return { r: x.r, g: x.g, b: x.b };
};

describe('ratio colour', () => {
  it('is near white at 1, blue below (collectives faster), red above', () => {
    const one = rgb(ratioColour(1, 4));
    expect(Math.min(one.r, one.g, one.b)).toBeGreaterThan(230);
    const fast = rgb(ratioColour(0.5, 4));
    const slow = rgb(ratioColour(2, 4));
    expect(fast.b).toBeGreaterThan(fast.r + 60);
    expect(slow.r).toBeGreaterThan(slow.b + 60);
  });

  it('is symmetric in log ratio and saturates at 1/span and span', () => {
    expect(ratioColour(8, 4)).toBe(ratioColour(4, 4));
    expect(ratioColour(1 / 8, 4)).toBe(ratioColour(1 / 4, 4));
    expect(ratioColour(2, 4)).not.toBe(ratioColour(4, 4));
    // Same distance from the neutral in the scale: the same lightness on both sides (RdBu is balanced).
    const a = rgb(ratioColour(2, 4));
    const b = rgb(ratioColour(0.5, 4));
    const lum = (c: { r: number; g: number; b: number }): number => 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b;
    expect(Math.abs(lum(a) - lum(b))).toBeLessThan(40);
    expect(ratioColour(Number.NaN, 4)).toBe('#d0d0d0');
    expect(ratioColour(0, 4)).toBe('#d0d0d0');
  });

  it('spans the largest deviation from 1 as a power of two between 2 and 16', () => {
    expect(ratioSpan([1, 1.2, 0.9])).toBe(2);
    expect(ratioSpan([0.3, 1.5])).toBe(4);
    expect(ratioSpan([3.9])).toBe(4);
    expect(ratioSpan([4])).toBe(4);
    expect(ratioSpan([100])).toBe(16);
    expect(ratioSpan([])).toBe(2);
    expect(ratioLegendStops(4)).toEqual([0.25, 0.5, 1, 2, 4]);
  });

  it('writes black on light cells and white on dark ones', () => {
    expect(textOn(ratioColour(1, 4))).toBe('#000000');
    expect(textOn(ratioColour(0.25, 4))).toBe('#ffffff');
    expect(textOn(ratioColour(4, 4))).toBe('#ffffff');
    expect(textOn('#ffff00')).toBe('#000000');
  });
});

describe('axes', () => {
  it('places sizes on a base-2 log scale and 0 B left of the smallest size', () => {
    const x = bytesAxis([0, 8, 1024], 0, 100);
    expect(x.at(0)).toBeLessThan(x.at(8));
    expect(x.at(8)).toBeLessThan(x.at(1024));
    expect(x.at(16) - x.at(8)).toBeCloseTo(x.at(1024) - x.at(512), 9);
    expect(x.ticks[0]).toBe(0);
    expect(x.label(0)).toBe('0 B');
    expect(x.label(1024)).toBe('1 KiB');
    expect(x.ticks.every((t) => t === 0 || Number.isInteger(Math.log2(t)))).toBe(true);
    const only0 = bytesAxis([0], 0, 100);
    expect(only0.ticks).toEqual([0]);
    expect(Number.isFinite(only0.at(0))).toBe(true);
  });

  it('thins the size ticks on long ranges', () => {
    expect(bytesAxis([8, 4 << 20], 0, 100).ticks.length).toBeLessThanOrEqual(12);
    expect(bytesAxis([1, 1 << 30], 0, 100).ticks.length).toBeLessThanOrEqual(9);
    expect(bytesAxis([64, 4096], 0, 100, (v) => `${v} el`).label(64)).toBe('64 el');
  });

  it('puts times on a base-10 scale with 1-2-5 ticks on short ranges', () => {
    const y = usAxis([12, 3000], 100, 0);
    expect(y.at(12)).toBeGreaterThan(y.at(3000));
    expect(y.ticks).toEqual([10, 100, 1000]);
    expect(usAxis([3, 7], 100, 0).ticks).toEqual([3, 4, 5, 6, 7, 8]);
    expect(usAxis([30, 200], 100, 0).ticks).toEqual([50, 100, 200]);
    expect([0.5, 20, 1500, 2.5e6].map(usTick)).toEqual(['0.5 µs', '20 µs', '1.5 ms', '2.5 s']);
  });
});

const series = (impl: string, collective: string, ranks: number, algorithm: string, bytes: number[], us: number[], variant = ''): BenchSeries => ({ impl, collective, ranks, nodes: 1, algorithm, variant, bytes, us });
const ratio = (peer: string, ranks: number, collective: string, bytes: number, oursUs: number, peerUs: number): BenchRatio => ({ peer, ranks, collective, bytes, ratio: oursUs / peerUs, oursUs, peerUs });

describe('heat maps and lookups', () => {
  it('groups ratios per (peer, ranks), rows by collective, columns by size, one cell per pair', () => {
    const rs = [ratio('openmpi', 2, 'bcast', 64, 1, 2), ratio('openmpi', 2, 'allreduce', 8, 3, 2), ratio('openmpi', 4, 'bcast', 8, 1, 1), ratio('openmpi', 2, 'bcast', 8, 2, 2), ratio('openmpi', 2, 'bcast', 64, 9, 9)];
    const m = heatMaps(rs);
    expect(m.map((x) => [x.peer, x.ranks, x.cells.length])).toEqual([['openmpi', 2, 3], ['openmpi', 4, 1]]);
    expect(m[0].rows).toEqual(['bcast', 'allreduce']);
    expect(m[0].columns).toEqual([8, 64]);
    expect(m[0].cells[0].ratio).toBe(0.5);
    expect(m[0].geomean).toBeCloseTo(Math.cbrt(0.5 * 1.5 * 1), 12);
  });

  it('finds the algorithm whose time a ratio took, and the counterpart series', () => {
    const auto = series('collectives', 'allreduce', 4, 'auto', [8, 64], [10, 20]);
    const ring = series('collectives', 'allreduce', 4, 'ring', [8, 64], [12, 15]);
    const nb = series('collectives', 'allreduce', 4, 'auto', [8], [11], 'nonblocking');
    const peer = series('openmpi', 'allreduce', 4, '', [8, 64], [9, 18]);
    const view: BenchView = { kind: 'bench', series: [auto, ring, nb, peer], ratios: [], meta: {} };
    expect(ratioAlgorithm(view, ratio('openmpi', 4, 'allreduce', 64, 15, 18))).toBe('ring');
    expect(ratioAlgorithm(view, ratio('openmpi', 4, 'allreduce', 8, 10, 9))).toBe('auto');
    expect(ratioAlgorithm(view, ratio('openmpi', 8, 'allreduce', 8, 10, 9))).toBe('');
    expect(counterparts(view.series, auto)).toEqual([peer]);
    expect(counterparts(view.series, peer)).toEqual([auto, ring]);
    expect([auto, nb, peer].map(seriesLabel)).toEqual(['auto', 'auto nonblocking', 'openmpi']);
  });

  it('keeps labels apart, in their order, near where they were wanted', () => {
    expect(spreadLabels([50, 10, 100], 10)).toEqual([50, 10, 100]);
    const y = spreadLabels([20, 21, 22], 10);
    expect(y[1] - y[0]).toBeGreaterThanOrEqual(10);
    expect(y[2] - y[1]).toBeGreaterThanOrEqual(10);
    expect((y[0] + y[1] + y[2]) / 3).toBeCloseTo(21, 9);
  });
});

describe('model data', () => {
  const p = (collective: string, P: number, bytes: number, algorithm: string, role: ModelPoint['role'], measuredUs: number, predictedUs?: number): ModelPoint => ({ collective, P, bytes, algorithm, role, measuredUs, ...(predictedUs !== undefined ? { predictedUs } : {}) });
  const pts = [
    p('allreduce', 4, 1024, 'ring', 'choice', 20, 10),
    p('allreduce', 4, 8, 'ring', 'choice', 5, 10),
    p('allreduce', 4, 8, 'rd', 'default', 6),
    p('allreduce', 8, 8, 'ring', 'choice', 7, 7),
    p('copy', 0, 64, 'copy', 'fit', 1, 1.1),
  ];

  it('measures a point against its prediction', () => {
    expect(pts.map(pointRatio)).toEqual([2, 0.5, undefined, 1, 1 / 1.1]);
  });

  it('draws one line per (collective, algorithm, role, P), by size', () => {
    const ls = modelLines(pts);
    expect(ls.map((l) => [l.collective, l.algorithm, l.role, l.P, l.points])).toEqual([
      ['allreduce', 'ring', 'choice', 4, [1, 0]],
      ['allreduce', 'rd', 'default', 4, [2]],
      ['allreduce', 'ring', 'choice', 8, [3]],
      ['copy', 'copy', 'fit', 0, [4]],
    ]);
    expect(modelLines(pts, (x) => x.P === 8).length).toBe(1);
    expect(processCounts(pts)).toEqual([4, 8]);
  });

  it('summarises the agreement over the points with a prediction', () => {
    const a = agreement(pts);
    expect(a.n).toBe(4);
    expect(a.geomean).toBeCloseTo((2 * 0.5 * 1 * (1 / 1.1)) ** 0.25, 12);
    expect(a.within2).toBe(1);
    expect(a.min).toBe(0.5);
    expect(a.max).toBe(2);
    expect(agreement([pts[2]]).n).toBe(0);
    expect([512, 65536, 2 ** 21].map(countText)).toEqual(['512', '65536', '2.10e+6']);
  });
});

describe('model x units', () => {
  const fit = (collective: string): ModelPoint => ({ collective, P: 0, bytes: 8, algorithm: collective, role: 'fit', measuredUs: 1 });
  it('reads bytes for collectives and the unit of a fitted series\' kind', () => {
    expect(xUnit({ ...fit('allreduce'), role: 'choice', P: 4 })).toBe('bytes');
    expect(['copy', 'ping-pong', 'loggp', 'reduce', 'nbl-testjig', 'serial-reduction', 'new-kind'].map((k) => xUnit(fit(k)))).toEqual(['bytes', 'bytes', 'bytes', 'elements', 'elements', 'processes', 'elements']);
    expect(xText(65536, 'bytes', (b) => `${b / 1024} KiB`)).toBe('64 KiB (65536 B)');
    expect(xText(512, 'bytes', String)).toBe('512 B');
    expect(xText(4096, 'elements', String)).toBe('4096 elements');
    expect(xText(1, 'processes', String)).toBe('1 process');
  });
});
