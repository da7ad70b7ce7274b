/**
 * Chart helpers the bench and model views share: a log-log chart frame
 * (axes with grid lines and titles over the LogAxis scales of bench-scales.ts), line
 * paths that break at missing points, point markers, the colour legend bar of a
 * ratio scale, and one delegated hover handler per view.
 */
import './bench-chart.css';
import { line, symbol, symbolCircle, symbolDiamond, symbolSquare, symbolTriangle } from 'd3';
import { hideTooltip, showTooltip, type TooltipRow } from './tooltip.js';
import { ratioColour, ratioLegendStops, type LogAxis } from './bench-scales.js';
import { htmlEl, svgEl } from './dom.js';

/** The plot area of a chart inside its SVG. */
export interface Frame {
  readonly width: number;
  readonly height: number;
  readonly left: number;
  readonly top: number;
  readonly right: number;
  readonly bottom: number;
}

export const CHART_FRAME: Frame = { width: 400, height: 260, left: 58, top: 10, right: 12, bottom: 40 };

/** An SVG of the frame's size with grid lines, the two axes and their titles; resolves the group to draw the data in. */
export function chartSvg(f: Frame, x: LogAxis, y: LogAxis, xTitle: string, yTitle: string, label: string): { svg: SVGSVGElement; plot: SVGGElement } {
  const svg = svgEl('svg', { class: 'cv-chart', width: f.width, height: f.height, viewBox: `0 0 ${f.width} ${f.height}`, role: 'img', 'aria-label': label });
  const x0 = f.left;
  const x1 = f.width - f.right;
  const y0 = f.height - f.bottom;
  const y1 = f.top;
  const grid = svgEl('g', { class: 'cv-chart-grid' });
  const axes = svgEl('g', { class: 'cv-chart-axes' });
  for (const t of x.ticks) {
    const px = x.at(t);
    if (px < x0 - 0.5 || px > x1 + 0.5) continue;
    grid.append(svgEl('line', { x1: px, x2: px, y1, y2: y0 }));
    axes.append(svgEl('text', { x: px, y: y0 + 14, 'text-anchor': 'middle' }, x.label(t)));
  }
  for (const t of y.ticks) {
    const py = y.at(t);
    if (py < y1 - 0.5 || py > y0 + 0.5) continue;
    grid.append(svgEl('line', { x1: x0, x2: x1, y1: py, y2: py }));
    axes.append(svgEl('text', { x: x0 - 5, y: py, 'text-anchor': 'end', 'dominant-baseline': 'central' }, y.label(t)));
  }
  axes.append(svgEl('path', { class: 'cv-chart-frame', d: `M${x0},${y1} V${y0} H${x1}` }));
  axes.append(svgEl('text', { class: 'cv-chart-title', x: (x0 + x1) / 2, y: f.height - 6, 'text-anchor': 'middle' }, xTitle));
  axes.append(svgEl('text', { class: 'cv-chart-title', transform: `translate(12,${(y0 + y1) / 2}) rotate(-90)`, 'text-anchor': 'middle' }, yTitle));
  const plot = svgEl('g', { class: 'cv-chart-plot' });
  svg.append(grid, axes, plot);
  return { svg, plot };
}

/** The path through points (x, y); a point with a non-finite or non-positive y breaks the line. */
export function linePath(xs: readonly number[], ys: readonly number[], x: LogAxis, y: LogAxis): string {
  const pts = xs.map((b, i) => [b, ys[i]] as const);
  return (
    line<readonly [number, number]>()
      .defined((p) => Number.isFinite(p[1]) && p[1] > 0)
      .x((p) => x.at(p[0]))
      .y((p) => y.at(p[1]))(pts) ?? ''
  );
}

/** Marker shapes by index: circle, square, triangle, diamond. */
export type MarkerShape = 'circle' | 'square' | 'triangle' | 'diamond';

/** A marker's path at (0, 0) (translate it into place). */
export function markerPath(shape: MarkerShape, size = 30): string {
  const type = { circle: symbolCircle, square: symbolSquare, triangle: symbolTriangle, diamond: symbolDiamond }[shape];
  return symbol(type, size)() ?? '';
}

/** A horizontal legend bar of the ratio colour scale from 1/span to span, with its reading. */
export function ratioLegend(span: number, peerText: string): HTMLElement {
  const stops = ratioLegendStops(span);
  const w = 320;
  const h = 46;
  const pad = 16;
  const svg = svgEl('svg', { class: 'cv-ratio-legend', width: w, height: h, role: 'img', 'aria-label': `Colour scale of the ratio from ${1 / span} to ${span}` });
  const n = 24;
  const at = (r: number): number => pad + ((Math.log2(r) / Math.log2(span) + 1) / 2) * (w - 2 * pad);
  for (let i = 0; i < n; i++) {
    const r0 = span ** ((2 * i) / n - 1);
    const r1 = span ** ((2 * (i + 1)) / n - 1);
    svg.append(svgEl('rect', { x: at(r0), y: 4, width: at(r1) - at(r0) + 0.5, height: 14, fill: ratioColour(Math.sqrt(r0 * r1), span) }));
  }
  svg.append(svgEl('rect', { x: pad, y: 4, width: w - 2 * pad, height: 14, fill: 'none', stroke: '#8c959f' }));
  for (const r of stops) {
    const px = at(r);
    svg.append(svgEl('line', { x1: px, x2: px, y1: 18, y2: 22, stroke: '#59636e' }));
    svg.append(svgEl('text', { x: px, y: 34, 'text-anchor': 'middle' }, r >= 1 ? `${r}×` : `1/${1 / r}`));
  }
  return htmlEl(
    'div',
    { class: 'cv-ratio-legend-box' },
    svg,
    htmlEl('span', { class: 'cv-ratio-legend-text' }, `ratio = collectives time / ${peerText} time: blue below 1 (collectives faster), red above 1 (slower), log scale`),
  );
}

/**
 * One delegated hover for a view: `pick` names the hoverable element under the
 * pointer (or undefined), `rows` its tooltip, `on`/`off` (optional) light it up and
 * back. Resolves a function that removes the listeners.
 */
/**
 * Hover highlighting: `on` marks the hovered element active and lights the elements
 * `related` gives for it (other than itself); `off` undoes both.
 */
export function hoverHighlight(related: (e: Element) => Iterable<Element>): { on(e: Element): void; off(e: Element): void } {
  const lit: Element[] = [];
  return {
    on(e) {
      e.classList.add('active');
      for (const x of related(e)) {
        if (x === e) continue;
        x.classList.add('lit');
        lit.push(x);
      }
    },
    off(e) {
      e.classList.remove('active');
      for (const x of lit) x.classList.remove('lit');
      lit.length = 0;
    },
  };
}

export function delegateHover(
  root: HTMLElement,
  pick: (t: Element) => Element | undefined,
  rows: (e: Element) => readonly TooltipRow[],
  on?: (e: Element) => void,
  off?: (e: Element) => void,
): () => void {
  let active: Element | undefined;
  const clear = (): void => {
    if (active) off?.(active);
    active = undefined;
    hideTooltip();
  };
  const target = (t: EventTarget | null): Element | undefined => (t instanceof Element ? pick(t) : undefined);
  const over = (ev: PointerEvent): void => {
    const e = target(ev.target);
    if (!e) return;
    if (e !== active) {
      clear();
      active = e;
      on?.(e);
    }
    showTooltip(ev.clientX, ev.clientY, rows(e));
  };
  const out = (ev: PointerEvent): void => {
    if (active && target(ev.relatedTarget) !== active) clear();
  };
  root.addEventListener('pointerover', over);
  root.addEventListener('pointermove', over);
  root.addEventListener('pointerout', out);
  return () => {
    clear();
    root.removeEventListener('pointerover', over);
    root.removeEventListener('pointermove', over);
    root.removeEventListener('pointerout', out);
  };
}

/** The file's metadata as a collapsed key/value list. */
export function metaBox(meta: Readonly<Record<string, string | number | boolean>>): HTMLElement {
  const dl = htmlEl('dl', { class: 'cv-meta-list' });
  for (const [k, v] of Object.entries(meta)) dl.append(htmlEl('dt', {}, k), htmlEl('dd', {}, String(v)));
  return htmlEl('details', { class: 'cv-meta' }, htmlEl('summary', {}, 'About this file'), dl);
}
