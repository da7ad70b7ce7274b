/**
 * Dependency-free SVG charts for benchmark, model and simulator results: line
 * charts (linear or log axes, several series), histograms, and categorical maps
 * ("which algorithm is fastest" over two axes). Output is a standalone SVG string.
 */

export interface Series {
  readonly name: string;
  readonly points: readonly (readonly [number, number])[];
}

export interface Axis {
  readonly label: string;
  readonly log?: boolean;
}

export interface LineChart {
  readonly title: string;
  readonly x: Axis;
  readonly y: Axis;
  readonly series: readonly Series[];
  readonly width?: number;
  readonly height?: number;
}

export interface Histogram {
  readonly title: string;
  readonly x: Axis;
  /** Bars: [left edge, right edge, count], one chart per group. */
  readonly groups: readonly { readonly name: string; readonly bins: readonly (readonly [number, number, number])[] }[];
  readonly width?: number;
  readonly height?: number;
}

export interface CategoryMap {
  readonly title: string;
  readonly x: Axis & { readonly values: readonly number[] };
  readonly y: Axis & { readonly values: readonly number[] };
  /** cells[j][i]: category at (x.values[i], y.values[j]). */
  readonly cells: readonly (readonly string[])[];
  /** Optional label per cell (e.g. the margin over the second best). */
  readonly notes?: readonly (readonly string[])[];
  /** Category order for colours and legend (default: order of first appearance), so colours stay stable across maps. */
  readonly categories?: readonly string[];
  readonly width?: number;
  readonly height?: number;
}

const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22'];

export function color(i: number): string {
  return PALETTE[i % PALETTE.length];
}

export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Compact number for tick labels: 1k, 2.5M, 0.001, 1e-6 ... */
export function formatTick(v: number): string {
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e9) return `${+(v / 1e9).toPrecision(3)}G`;
  if (a >= 1e6) return `${+(v / 1e6).toPrecision(3)}M`;
  if (a >= 1e4) return `${+(v / 1e3).toPrecision(3)}k`;
  if (a >= 0.01) return `${+v.toPrecision(3)}`;
  return v.toExponential(0);
}

interface Scale {
  map(v: number): number;
  ticks: number[];
}

function scale(lo: number, hi: number, log: boolean, from: number, to: number): Scale {
  if (log) {
    const l0 = Math.floor(Math.log10(Math.max(lo, Number.MIN_VALUE)));
    const l1 = Math.max(l0 + 1, Math.ceil(Math.log10(Math.max(hi, Number.MIN_VALUE))));
    const ticks: number[] = [];
    const step = Math.max(1, Math.ceil((l1 - l0) / 8));
    for (let e = l0; e <= l1; e += step) ticks.push(10 ** e);
    return { map: (v) => from + ((Math.log10(Math.max(v, 10 ** l0)) - l0) / (l1 - l0)) * (to - from), ticks };
  }
  if (hi === lo) hi = lo + 1;
  const span = hi - lo;
  const raw = span / 6;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? raw;
  const t0 = Math.floor(lo / step) * step;
  const t1 = Math.ceil(hi / step) * step;
  const ticks: number[] = [];
  for (let t = t0; t <= t1 + step / 2; t += step) ticks.push(+t.toPrecision(12));
  return { map: (v) => from + ((v - t0) / (t1 - t0)) * (to - from), ticks };
}

/** Room for a legend on the right: swatch, gap and the longest label (≈ 7 px per character at 12 px). */
function legendWidth(labels: readonly string[]): number {
  return Math.max(200, 48 + 7 * Math.max(0, ...labels.map((l) => l.length)));
}

function frame(w: number, h: number, title: string, body: string): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" font-family="sans-serif" font-size="12">\n` +
    `<rect width="${w}" height="${h}" fill="white"/>\n` +
    `<text x="${w / 2}" y="20" text-anchor="middle" font-size="15">${escapeXml(title)}</text>\n${body}</svg>\n`
  );
}

function axes(x0: number, y0: number, x1: number, y1: number, xs: Scale, ys: Scale, x: Axis, y: Axis): string {
  let s = `<rect x="${x0}" y="${y1}" width="${x1 - x0}" height="${y0 - y1}" fill="none" stroke="#444"/>\n`;
  for (const t of xs.ticks) {
    const px = xs.map(t);
    if (px < x0 - 0.5 || px > x1 + 0.5) continue;
    s += `<line x1="${px}" y1="${y0}" x2="${px}" y2="${y1}" stroke="#ddd"/><text x="${px}" y="${y0 + 16}" text-anchor="middle">${formatTick(t)}</text>\n`;
  }
  for (const t of ys.ticks) {
    const py = ys.map(t);
    if (py > y0 + 0.5 || py < y1 - 0.5) continue;
    s += `<line x1="${x0}" y1="${py}" x2="${x1}" y2="${py}" stroke="#ddd"/><text x="${x0 - 6}" y="${py + 4}" text-anchor="end">${formatTick(t)}</text>\n`;
  }
  s += `<text x="${(x0 + x1) / 2}" y="${y0 + 36}" text-anchor="middle">${escapeXml(x.label)}</text>\n`;
  s += `<text transform="translate(${x0 - 52},${(y0 + y1) / 2}) rotate(-90)" text-anchor="middle">${escapeXml(y.label)}</text>\n`;
  return s;
}

/** Lines with markers, one per series, and a legend on the right. */
export function lineChartSvg(c: LineChart): string {
  const legend = legendWidth(c.series.map((s) => s.name));
  const w = c.width ?? 660 + legend;
  const h = c.height ?? 480;
  const [x0, x1, y1, y0] = [70, w - legend, 36, h - 56];
  const pts = c.series.flatMap((s) => s.points).filter(([px, py]) => Number.isFinite(px) && Number.isFinite(py));
  const pos = (v: number, log?: boolean): boolean => !log || v > 0;
  const xsV = pts.map((p) => p[0]).filter((v) => pos(v, c.x.log));
  const ysV = pts.map((p) => p[1]).filter((v) => pos(v, c.y.log));
  const xs = scale(Math.min(...xsV, Infinity) || 0, Math.max(...xsV, -Infinity) || 1, !!c.x.log, x0, x1);
  const ys = scale(c.y.log ? Math.min(...ysV) : Math.min(0, ...ysV), Math.max(...ysV, -Infinity) || 1, !!c.y.log, y0, y1);
  let body = axes(x0, y0, x1, y1, xs, ys, c.x, c.y);
  c.series.forEach((s, i) => {
    const p = s.points.filter(([px, py]) => Number.isFinite(px) && Number.isFinite(py) && pos(px, c.x.log) && pos(py, c.y.log));
    const d = p.map(([px, py], k) => `${k ? 'L' : 'M'}${xs.map(px).toFixed(1)},${ys.map(py).toFixed(1)}`).join(' ');
    body += `<path d="${d}" fill="none" stroke="${color(i)}" stroke-width="2"/>\n`;
    for (const [px, py] of p) body += `<circle cx="${xs.map(px).toFixed(1)}" cy="${ys.map(py).toFixed(1)}" r="2.5" fill="${color(i)}"><title>${escapeXml(`${s.name}: (${px}, ${py})`)}</title></circle>\n`;
    body += `<rect x="${x1 + 14}" y="${y1 + 8 + i * 18}" width="12" height="12" fill="${color(i)}"/><text x="${x1 + 32}" y="${y1 + 18 + i * 18}">${escapeXml(s.name)}</text>\n`;
  });
  return frame(w, h, c.title, body);
}

/** Histograms stacked vertically, one panel per group, sharing the x axis. */
export function histogramSvg(c: Histogram): string {
  const w = c.width ?? 860;
  const panel = 200;
  const h = c.height ?? 60 + panel * c.groups.length + 40;
  const [x0, x1] = [70, w - 30];
  const edges = c.groups.flatMap((g) => g.bins.flatMap(([a, b]) => [a, b]));
  const xs = scale(Math.min(...edges), Math.max(...edges), !!c.x.log, x0, x1);
  let body = '';
  c.groups.forEach((g, i) => {
    const top = 40 + i * panel;
    const bottom = top + panel - 40;
    const ys = scale(0, Math.max(1, ...g.bins.map((b) => b[2])), false, bottom, top);
    body += axes(x0, bottom, x1, top, xs, ys, i === c.groups.length - 1 ? c.x : { label: '' }, { label: 'count' });
    body += `<text x="${x1 - 4}" y="${top + 14}" text-anchor="end" font-weight="bold">${escapeXml(g.name)}</text>\n`;
    for (const [a, b, n] of g.bins) {
      const px = xs.map(a);
      const pw = Math.max(0.5, xs.map(b) - px);
      const py = ys.map(n);
      body += `<rect x="${px.toFixed(1)}" y="${py.toFixed(1)}" width="${pw.toFixed(1)}" height="${(bottom - py).toFixed(1)}" fill="${color(i)}" fill-opacity="0.75"><title>[${a}, ${b}): ${n}</title></rect>\n`;
    }
  });
  return frame(w, h, c.title, body);
}

/** A grid of cells coloured by category with a legend (regime maps). */
export function categoryMapSvg(c: CategoryMap): string {
  const cats = [...new Set([...(c.categories ?? []), ...c.cells.flat()])];
  const legend = legendWidth(cats);
  const w = c.width ?? 660 + legend;
  const h = c.height ?? 480;
  const [x0, x1, y1, y0] = [90, w - legend, 36, h - 56];
  const nx = c.x.values.length;
  const ny = c.y.values.length;
  const cw = (x1 - x0) / nx;
  const ch = (y0 - y1) / ny;
  let body = '';
  for (let j = 0; j < ny; j++) {
    for (let i = 0; i < nx; i++) {
      const cat = c.cells[j][i];
      const px = x0 + i * cw;
      const py = y0 - (j + 1) * ch;
      const note = c.notes?.[j]?.[i] ?? '';
      body += `<rect x="${px.toFixed(1)}" y="${py.toFixed(1)}" width="${cw.toFixed(1)}" height="${ch.toFixed(1)}" fill="${color(cats.indexOf(cat))}" fill-opacity="0.8" stroke="white"><title>${escapeXml(`${c.x.label}=${c.x.values[i]}, ${c.y.label}=${c.y.values[j]}: ${cat} ${note}`)}</title></rect>\n`;
      if (note && cw > 34 && ch > 14) body += `<text x="${(px + cw / 2).toFixed(1)}" y="${(py + ch / 2 + 4).toFixed(1)}" text-anchor="middle" font-size="10" fill="white">${escapeXml(note)}</text>\n`;
    }
  }
  const every = (n: number): number => Math.max(1, Math.ceil(n / 10));
  c.x.values.forEach((v, i) => {
    if (i % every(nx) === 0) body += `<text x="${(x0 + (i + 0.5) * cw).toFixed(1)}" y="${y0 + 16}" text-anchor="middle">${formatTick(v)}</text>\n`;
  });
  c.y.values.forEach((v, j) => {
    if (j % every(ny) === 0) body += `<text x="${x0 - 6}" y="${(y0 - (j + 0.5) * ch + 4).toFixed(1)}" text-anchor="end">${formatTick(v)}</text>\n`;
  });
  body += `<text x="${(x0 + x1) / 2}" y="${y0 + 36}" text-anchor="middle">${escapeXml(c.x.label)}</text>\n`;
  body += `<text transform="translate(${x0 - 60},${(y0 + y1) / 2}) rotate(-90)" text-anchor="middle">${escapeXml(c.y.label)}</text>\n`;
  cats.forEach((cat, k) => {
    body += `<rect x="${x1 + 14}" y="${y1 + 8 + k * 18}" width="12" height="12" fill="${color(k)}"/><text x="${x1 + 32}" y="${y1 + 18 + k * 18}">${escapeXml(cat)}</text>\n`;
  });
  return frame(w, h, c.title, body);
}

export interface HeatMap {
  readonly title: string;
  readonly columns: readonly string[];
  readonly rows: readonly string[];
  /** values[row][column]; NaN = no value (drawn grey). */
  readonly values: readonly (readonly number[])[];
  /** Colour scale: log-ratio diverging around `neutral` (green below, red above), saturating at `neutral`·`span` and `neutral`/`span`. */
  readonly neutral: number;
  readonly span: number;
  /** Cell label (default: the value to 2 significant digits). */
  readonly format?: (v: number) => string;
  readonly legend?: string;
}

/** A diverging colour for v on a log scale around `neutral` (white), green below, red above. */
export function divergingColor(v: number, neutral: number, span: number): string {
  if (!Number.isFinite(v) || v <= 0) return '#d0d0d0';
  const t = Math.max(-1, Math.min(1, Math.log(v / neutral) / Math.log(span)));
  const mix = (a: number, b: number, f: number): number => Math.round(a + (b - a) * f);
  const [r, g, b] = t < 0 ? [mix(255, 26, -t), mix(255, 152, -t), mix(255, 80, -t)] : [mix(255, 215, t), mix(255, 48, t), mix(255, 39, t)];
  return `rgb(${r},${g},${b})`;
}

/** A grid of numbers coloured on a diverging log scale (e.g. time ratios against a peer, 1 = white). */
export function heatMapSvg(c: HeatMap): string {
  const fmt = c.format ?? ((v: number) => `${+v.toPrecision(2)}`);
  const labelW = 16 + 7 * Math.max(8, ...c.rows.map((r) => r.length));
  const cw = 64;
  const ch = 22;
  const x0 = labelW;
  const y0 = 56;
  const steps = 9;
  const w = Math.max(x0 + cw * c.columns.length + 24, x0 + steps * 28 + 24 + 7 * (c.legend?.length ?? 0), 40 + 8 * c.title.length);
  const h = y0 + ch * c.rows.length + 56;
  let body = '';
  c.columns.forEach((col, i) => {
    body += `<text x="${x0 + (i + 0.5) * cw}" y="${y0 - 8}" text-anchor="middle">${escapeXml(col)}</text>\n`;
  });
  c.rows.forEach((row, j) => {
    const y = y0 + j * ch;
    body += `<text x="${x0 - 8}" y="${y + ch / 2 + 4}" text-anchor="end">${escapeXml(row)}</text>\n`;
    c.columns.forEach((col, i) => {
      const v = c.values[j]?.[i] ?? Number.NaN;
      const x = x0 + i * cw;
      const label = Number.isFinite(v) ? fmt(v) : '';
      body += `<rect x="${x}" y="${y}" width="${cw}" height="${ch}" fill="${divergingColor(v, c.neutral, c.span)}" stroke="white"><title>${escapeXml(`${row}, ${col}: ${label || 'no value'}`)}</title></rect>\n`;
      if (label) body += `<text x="${x + cw / 2}" y="${y + ch / 2 + 4}" text-anchor="middle" font-size="11">${escapeXml(label)}</text>\n`;
    });
  });
  // Legend: the scale from neutral/span to neutral·span.
  const ly = y0 + ch * c.rows.length + 20;
  for (let k = 0; k < steps; k++) {
    const v = c.neutral * c.span ** ((2 * k) / (steps - 1) - 1);
    body += `<rect x="${x0 + k * 28}" y="${ly}" width="28" height="12" fill="${divergingColor(v, c.neutral, c.span)}"/>\n`;
    if (k % 2 === 0) body += `<text x="${x0 + k * 28 + 14}" y="${ly + 26}" text-anchor="middle" font-size="10">${formatTick(+v.toPrecision(2))}</text>\n`;
  }
  if (c.legend) body += `<text x="${x0 + steps * 28 + 10}" y="${ly + 10}" font-size="11">${escapeXml(c.legend)}</text>\n`;
  return frame(w, h, c.title, body);
}
