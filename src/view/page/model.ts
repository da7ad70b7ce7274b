/**
 * The model view: predicted against measured time, from `coll tune --report` (the
 * tuner's choice and the runtime's default at every verified point) and `coll fit
 * --report` (fitted series, role 'fit'):
 * - per collective, time against message bytes (log-log): per algorithm and role the
 *   measured times as a solid line with markers (● choice, ■ default) and the predicted
 *   times dashed, in the algorithm's colour; a fitted series is its measured samples
 *   (◆, no line) against the fitted line (solid);
 * - a scatter of predicted (x) against measured (y) with the y = x line and the ×2 and
 *   ×½ lines, and the agreement (geometric mean of measured / predicted, share within 2×).
 * A P selector chooses the process count of the collective panels; hovering a marker
 * shows the algorithm, P, bytes, predicted, measured and their ratio, and lights the
 * same point in the other chart.
 *
 * For tests the element carries data-points (measured markers drawn in the panels),
 * data-points-total, data-scatter (scatter markers drawn), data-predicted (points of the
 * view with a prediction), data-panels and data-p-selected; markers are
 * `.model-point` / `.scatter-point` with data-index (into the view's points),
 * data-collective, data-algorithm, data-role, data-p, data-bytes, data-measured and
 * data-predicted; lines `.model-line[data-kind=measured|predicted]`, the diagonal
 * `.identity-line`.
 */
import './model.css';
import type { ModelPoint, ModelView } from '../document.js';
import { formatBytes, formatRatio, formatUs } from './format.js';
import type { TooltipRow } from './tooltip.js';
import { CHART_FRAME, chartSvg, delegateHover, hoverHighlight, linePath, markerPath, metaBox, type Frame, type MarkerShape } from './bench-chart.js';
import { htmlEl, svgEl } from './dom.js';
import { bytesAxis, collectivesOf, SERIES_COLOURS, seriesColour, usAxis } from './bench-scales.js';
import { agreement, countText, modelLines, pointRatio, processCounts, roleText, xText, xUnit, type ModelLine } from './model-data.js';

const ROLE_MARKER: Record<ModelPoint['role'], MarkerShape> = { choice: 'circle', default: 'square', fit: 'diamond' };

/** Fitted series cycle through these markers, every seven series (the colours' period). */
const FIT_MARKERS: readonly MarkerShape[] = ['diamond', 'circle', 'square', 'triangle'];

export function mountModel(el: HTMLElement, view: ModelView): { destroy(): void } {
  const points = view.points;
  const Ps = processCounts(points);
  const collPoints = points.filter((p) => p.role !== 'fit');
  const fitPoints = points.filter((p) => p.role === 'fit');

  const root = htmlEl('div', { class: 'cv-model' });
  const pSel = htmlEl('select', { 'data-control': 'P', 'aria-label': 'Process count' });
  for (const P of Ps) pSel.append(htmlEl('option', { value: String(P) }, `P = ${P}`));
  if (Ps.length > 1) pSel.append(htmlEl('option', { value: 'all' }, 'every P'));
  pSel.value = Ps.length ? String(Ps[Ps.length - 1]) : 'all';
  const controls = htmlEl(
    'div',
    { class: 'cv-model-controls' },
    ...(Ps.length ? [htmlEl('label', {}, 'Show ', pSel)] : []),
    htmlEl(
      'span',
      { class: 'cv-model-note' },
      [
        ...(collPoints.length ? ['solid: measured · dashed: predicted · ● choice ■ default'] : []),
        ...(fitPoints.length ? ['fitted series: markers measured, line fitted'] : []),
        'colour per algorithm or series',
      ].join(' · '),
    ),
  );
  const panelSection = htmlEl('section', { class: 'cv-model-panels', 'aria-label': 'Time against size' });
  const fitSection = htmlEl('section', { class: 'cv-model-fits', 'aria-label': 'Fitted series' });
  root.append(controls, panelSection, fitSection, metaBox(view.meta));
  el.replaceChildren(root);
  el.dataset.pointsTotal = String(points.length);
  el.dataset.predicted = String(points.filter((p) => pointRatio(p) !== undefined).length);

  /** A point's marker: at (bytes, measured) in a panel, at (predicted, measured) in the scatter. */
  const marker = (i: number, cls: string, x: number, y: number, colour: string, shape: MarkerShape = ROLE_MARKER[points[i].role]): SVGPathElement => {
    const p = points[i];
    const attrs: Record<string, string | number> = {
      class: `${cls} role-${p.role}`,
      d: markerPath(shape, p.role === 'fit' ? 28 : 30),
      transform: `translate(${x.toFixed(2)},${y.toFixed(2)})`,
      fill: colour,
      'data-index': i,
      'data-collective': p.collective,
      'data-algorithm': p.algorithm,
      'data-role': p.role,
      'data-p': p.P,
      'data-bytes': p.bytes,
      'data-measured': p.measuredUs,
    };
    if (p.predictedUs !== undefined) attrs['data-predicted'] = p.predictedUs;
    return svgEl('path', attrs);
  };

  /** One panel: the lines of one collective (or fitted series) against size. */
  function drawPanel(title: string, lines: readonly ModelLine[], fit: boolean): HTMLElement {
    const f = CHART_FRAME;
    const idx = lines.flatMap((l) => l.points);
    const units = new Set(idx.map((i) => xUnit(points[i])));
    const unit = units.size === 1 ? [...units][0] : undefined;
    const x = bytesAxis(idx.map((i) => points[i].bytes), f.left + 8, f.width - f.right - 8, unit === 'bytes' ? formatBytes : countText);
    const xTitle = unit === 'bytes' ? 'message size' : unit ?? 'x';
    const y = usAxis(idx.flatMap((i) => [points[i].measuredUs, points[i].predictedUs ?? Number.NaN]), f.height - f.bottom, f.top);
    const { svg, plot } = chartSvg(f, x, y, xTitle, 'time', `${title}: predicted and measured time against size, log-log`);
    const algs = [...new Set(lines.map((l) => l.algorithm))];
    const colour = (a: string): string => seriesColour(algs.indexOf(a));
    const shapeOf = (a: string): MarkerShape => FIT_MARKERS[Math.floor(algs.indexOf(a) / SERIES_COLOURS.length) % FIT_MARKERS.length];
    const g = svgEl('g', { class: 'cv-model-lines' });
    const m = svgEl('g', { class: 'cv-model-markers' });
    const many = new Set(lines.map((l) => l.P)).size > 1;
    for (const l of lines) {
      const c = colour(l.algorithm);
      const bx = l.points.map((i) => points[i].bytes);
      const common = { 'data-collective': l.collective, 'data-algorithm': l.algorithm, 'data-role': l.role, 'data-p': l.P, stroke: c };
      const predicted = l.points.map((i) => points[i].predictedUs ?? Number.NaN);
      if (predicted.some((v) => Number.isFinite(v) && v > 0)) {
        g.append(svgEl('path', { class: `model-line predicted${fit ? ' fitted' : ''}`, d: linePath(bx, predicted, x, y), 'data-kind': 'predicted', ...common }));
      }
      if (!fit) g.append(svgEl('path', { class: 'model-line measured', d: linePath(bx, l.points.map((i) => points[i].measuredUs), x, y), 'data-kind': 'measured', ...common }));
      for (const i of l.points) {
        const p = points[i];
        if (!(p.measuredUs > 0)) continue;
        const e = marker(i, 'model-point', x.at(p.bytes), y.at(p.measuredUs), c, fit ? shapeOf(l.algorithm) : undefined);
        m.append(e);
        drawn.push(e);
      }
      if (many && l.points.length) {
        const last = points[l.points[l.points.length - 1]];
        if (last.measuredUs > 0) plot.append(svgEl('text', { class: 'cv-curve-end', x: x.at(last.bytes) + 6, y: y.at(last.measuredUs), 'dominant-baseline': 'central', fill: c }, `P=${l.P}`));
      }
    }
    plot.append(g, m);
    const legend = htmlEl('ul', { class: 'cv-legend' });
    for (const a of algs) {
      const sw = svgEl('svg', { width: 30, height: 12, 'aria-hidden': 'true' });
      sw.append(svgEl('line', { x1: 1, x2: 29, y1: 6, y2: 6, stroke: colour(a), 'stroke-width': 2 }));
      if (fit) sw.append(svgEl('path', { d: markerPath(shapeOf(a), 28), transform: 'translate(15,6)', fill: colour(a) }));
      legend.append(htmlEl('li', { 'data-label': a }, sw, a));
    }
    return htmlEl('figure', { class: 'cv-chart-panel cv-model-panel', 'data-collective': title }, htmlEl('figcaption', {}, title), svg, legend);
  }

  /** The scatter of predicted against measured over the selected points. */
  function drawScatter(sel: readonly number[]): HTMLElement | undefined {
    const withPred = sel.filter((i) => pointRatio(points[i]) !== undefined && points[i].measuredUs > 0);
    if (withPred.length === 0) return undefined;
    const f: Frame = { ...CHART_FRAME, width: 440, height: 360 };
    const all = withPred.flatMap((i) => [points[i].measuredUs, points[i].predictedUs ?? Number.NaN]);
    // The same log scale on both axes, so that y = x is the diagonal.
    const x = usAxis(all, f.left + 8, f.width - f.right - 8);
    const y = usAxis(all, f.height - f.bottom, f.top + 4);
    const { svg, plot } = chartSvg(f, x, y, 'predicted time', 'measured time', 'Measured against predicted time, log-log, with the line y = x');
    const [d0, d1] = x.domain;
    const diag = (k: number, cls: string): void => {
      const lo = Math.max(d0, d0 / k);
      const hi = Math.min(d1, d1 / k);
      if (hi > lo) plot.append(svgEl('line', { class: cls, x1: x.at(lo), y1: y.at(lo * k), x2: x.at(hi), y2: y.at(hi * k), 'data-ratio': k }));
    };
    diag(1, 'identity-line');
    diag(2, 'ratio-line');
    diag(0.5, 'ratio-line');
    plot.append(svgEl('text', { class: 'cv-diag-label', x: x.at(d1) - 4, y: y.at(d1) + 14, 'text-anchor': 'end' }, 'y = x'));
    const colls = collectivesOf(withPred.map((i) => points[i]));
    const onlyFits = withPred.every((i) => points[i].role === 'fit');
    for (const i of withPred) {
      const p = points[i];
      const e = marker(i, 'scatter-point', x.at(p.predictedUs ?? 0), y.at(p.measuredUs), seriesColour(colls.indexOf(p.collective)));
      plot.append(e);
      drawn.push(e);
      scatterCount++;
    }
    const legend = htmlEl('ul', { class: 'cv-legend' });
    colls.forEach((c, k) => {
      const sw = svgEl('svg', { width: 14, height: 12, 'aria-hidden': 'true' });
      sw.append(svgEl('path', { d: markerPath(onlyFits ? 'diamond' : 'circle', 30), transform: 'translate(7,6)', fill: seriesColour(k) }));
      legend.append(htmlEl('li', { 'data-label': c }, sw, c));
    });
    const a = agreement(withPred.map((i) => points[i]));
    const summary = htmlEl(
      'p',
      { class: 'cv-model-agreement' },
      `${a.n} points with a prediction · measured / predicted: geometric mean ${formatRatio(a.geomean)}, ${Math.round(a.within2 * 100)}% within a factor 2 (the dotted lines), from ${formatRatio(a.min)} to ${formatRatio(a.max)}`,
    );
    return htmlEl('figure', { class: 'cv-model-scatter-figure' }, htmlEl('figcaption', {}, `${onlyFits ? 'every fitted series' : 'every collective'}: measured against predicted`), svg, legend, summary);
  }

  let drawn: SVGPathElement[] = [];
  let scatterCount = 0;
  function draw(): void {
    drawn = [];
    scatterCount = 0;
    const psel = pSel.value;
    const keep = (p: ModelPoint): boolean => p.role === 'fit' || !Ps.length || psel === 'all' || String(p.P) === psel;
    const lines = modelLines(points, (p) => p.role !== 'fit' && keep(p));
    const panels = collectivesOf(collPoints).map((c) => ({ c, ls: lines.filter((l) => l.collective === c) })).filter((x) => x.ls.length > 0);
    const fitLines = modelLines(points, (p) => p.role === 'fit');
    const fitPanels = collectivesOf(fitPoints).map((c) => ({ c, ls: fitLines.filter((l) => l.collective === c) }));
    const sel = points.map((p, i) => (keep(p) ? i : -1)).filter((i) => i >= 0);
    const sc = drawScatter(sel);
    const figures = panels.map((x) => drawPanel(x.c, x.ls, false));
    panelSection.replaceChildren(
      htmlEl('h3', {}, 'Predicted and measured time'),
      ...(sc || figures.length ? [htmlEl('div', { class: 'cv-panels' }, ...(sc ? [sc] : []), ...figures)] : []),
      ...(sc ? [] : [htmlEl('p', { class: 'cv-empty' }, 'No point has a prediction to compare with.')]),
    );
    const fitFigures = fitPanels.map((x) => drawPanel(x.c, x.ls, true));
    fitSection.replaceChildren(...(fitFigures.length ? [htmlEl('h3', {}, 'Fitted series: measured samples and the fitted line'), htmlEl('div', { class: 'cv-panels' }, ...fitFigures)] : []));
    el.dataset.points = String(drawn.length - scatterCount);
    el.dataset.scatter = String(scatterCount);
    el.dataset.panels = String(panels.length + fitPanels.length);
    el.dataset.pSelected = Ps.length ? psel : '';
  }
  draw();
  pSel.addEventListener('change', draw);

  // ---- Hover: the point's numbers; the same point lit in the other chart.
  const rows = (e: Element): TooltipRow[] => {
    const p = points[Number(e.getAttribute('data-index'))];
    if (!p) return [];
    const r = pointRatio(p);
    const out: TooltipRow[] = [
      `${p.collective}, ${xUnit(p) === 'bytes' ? formatBytes(p.bytes) : xText(p.bytes, xUnit(p), formatBytes)}${p.P > 0 ? `, P = ${p.P}` : ''}`,
      ['algorithm', p.algorithm],
      ['role', roleText(p.role)],
      ['P', p.P > 0 ? String(p.P) : '—'],
      [xUnit(p) === 'bytes' ? 'bytes' : 'x', xText(p.bytes, xUnit(p), formatBytes)],
      ['predicted', p.predictedUs !== undefined ? formatUs(p.predictedUs) : 'no model'],
      ['measured', formatUs(p.measuredUs)],
    ];
    if (r !== undefined) out.push(['ratio', `${formatRatio(r)} measured / predicted`]);
    return out;
  };
  const { on, off } = hoverHighlight((e) => root.querySelectorAll(`[data-index="${e.getAttribute('data-index')}"]`));
  const stopHover = delegateHover(root, (t) => t.closest('.model-point, .scatter-point') ?? undefined, rows, on, off);

  return {
    destroy(): void {
      stopHover();
      pSel.removeEventListener('change', draw);
      root.remove();
      for (const k of ['points', 'pointsTotal', 'scatter', 'predicted', 'panels', 'pSelected']) delete el.dataset[k];
    },
  };
}
