import { describe, expect, it } from 'vitest';
import { categoryMapSvg, escapeXml, formatTick, histogramSvg, lineChartSvg } from '../../src/plot/svg.js';

describe('svg plots', () => {
  it('line chart: one path and legend entry per series, log axes, escaped text', () => {
    const svg = lineChartSvg({
      title: 'allreduce <float64>',
      x: { label: 'bytes', log: true },
      y: { label: 'latency (us)', log: true },
      series: [
        { name: 'ring', points: [[8, 2], [1024, 5], [1 << 20, 900]] },
        { name: 'rd & co', points: [[8, 1], [1024, 6], [1 << 20, 1500]] },
      ],
    });
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.match(/<path /g)).toHaveLength(2);
    expect(svg).toContain('allreduce &lt;float64&gt;');
    expect(svg).toContain('rd &amp; co');
    expect(svg.match(/<circle /g)).toHaveLength(6);
    expect(svg).toContain('>1M<');
  });

  it('histogram: one bar per bin and one panel per group', () => {
    const svg = histogramSvg({
      title: 'latency distribution',
      x: { label: 'us' },
      groups: [
        { name: 'host', bins: [[0, 10, 5], [10, 20, 3]] },
        { name: 'offload', bins: [[0, 10, 8]] },
      ],
    });
    expect(svg.match(/<rect x="[\d.]+" y="[\d.]+" width="[\d.]+" height="[\d.]+" fill="#/g)).toHaveLength(3);
    expect(svg).toContain('offload');
  });

  it('category map: a cell per grid point and a legend entry per category', () => {
    const svg = categoryMapSvg({
      title: 'fastest',
      x: { label: 'N', values: [100, 1000, 10000] },
      y: { label: 'P', values: [16, 256] },
      cells: [
        ['tree', 'fence', 'snake'],
        ['tree', 'fence', 'fence'],
      ],
    });
    expect(svg.match(/<title>N=/g)).toHaveLength(6);
    for (const c of ['tree', 'fence', 'snake']) expect(svg).toContain(`>${c}</text>`);
  });

  it('category map: a fixed category order keeps colours stable and lists absent categories', () => {
    const map = (cells: string[][]) =>
      categoryMapSvg({ title: 't', x: { label: 'N', values: [1, 2] }, y: { label: 'P', values: [1] }, cells, categories: ['tree', 'fence', 'snake'] });
    const a = map([['snake', 'snake']]);
    const b = map([['tree', 'snake']]);
    const fill = (svg: string) => svg.match(/fill="(#[0-9a-f]+)" fill-opacity="0.8" stroke="white"><title>N=2, P=1: snake/)?.[1];
    expect(fill(a)).toBeDefined();
    expect(fill(a)).toBe(fill(b));
    expect(a).toContain('>fence</text>');
  });

  it('formats ticks and escapes XML', () => {
    expect(formatTick(1_500_000)).toBe('1.5M');
    expect(formatTick(20_000)).toBe('20k');
    expect(formatTick(0.5)).toBe('0.5');
    expect(escapeXml('a<b>&"')).toBe('a&lt;b&gt;&amp;&quot;');
  });
});

describe('svg legend', () => {
  it('widens the chart so long series names fit', () => {
    const long = 'allreduce/recursive_doubling_with_a_long_name';
    const svg = lineChartSvg({ title: 't', x: { label: 'x' }, y: { label: 'y' }, series: [{ name: long, points: [[1, 1], [2, 2]] }] });
    const width = Number(/width="(\d+)"/.exec(svg)?.[1]);
    const legendX = Number(new RegExp(`<text x="([\\d.]+)" y="[\\d.]+">${long}</text>`).exec(svg)?.[1]);
    expect(legendX + 7 * long.length).toBeLessThanOrEqual(width);
  });
});
