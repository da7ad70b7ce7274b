/**
 * The bench view: benchmark results (`coll bench --json` lines, `coll bench matrix
 * --json`) as
 * - the ratio heat maps, one per (peer MPI, rank count): collective × size, the colour
 *   our time over the peer's on a diverging log scale centred at 1 (blue: collectives
 *   faster, red: slower; bench-scales.ts), the ratio printed in each cell, a colour legend;
 * - latency curves as small multiples, one panel per collective: time per call against
 *   message bytes, log-log, one line per series — ours per algorithm and variant in
 *   colour with round markers, the peer MPI on the same axes in dashed grey with square
 *   markers.
 * A ranks selector (first: the rank count with the most cells), a collective selector
 * and a switch for spot checks and call variants (off where plain calls exist) choose
 * what is drawn; hovering a point or a cell shows our time, the peer's, the ratio and
 * the algorithm.
 *
 * For tests the element carries data-series (curves drawn), data-series-total,
 * data-cells (heat-map cells drawn), data-cells-total, data-points and data-ranks-selected;
 * curves are `.curve[data-impl][data-collective][data-ranks][data-algorithm][data-variant]`,
 * their markers `.curve-point[data-series][data-impl][data-collective][data-ranks][data-algorithm][data-variant]
 * [data-bytes][data-us]`,
 * cells `.heat-cell[data-peer][data-ranks][data-collective][data-bytes][data-ratio]`.
 */
import './bench.css';
import type { BenchRatio, BenchSeries, BenchView } from '../document.js';
import { formatBytes, formatRatio, formatUs } from './format.js';
import type { TooltipRow } from './tooltip.js';
import { CHART_FRAME, chartSvg, delegateHover, hoverHighlight, linePath, markerPath, metaBox, ratioLegend } from './bench-chart.js';
import { htmlEl, svgEl } from './dom.js';
import {
  bytesAxis,
  collectivesOf,
  counterparts,
  heatMaps,
  isOurs,
  PEER_COLOUR,
  peerDash,
  ranksOf,
  ratioAlgorithm,
  ratioColour,
  ratioSpan,
  seriesColour,
  seriesLabel,
  spreadLabels,
  textOn,
  usAt,
  usAxis,
  type HeatMap,
} from './bench-scales.js';

/** How one series is drawn. */
interface Style {
  readonly colour: string;
  readonly dash: string;
  readonly marker: 'circle' | 'square';
}

/** "allreduce, 64 KiB, 8 ranks" (and the nodes when more than one). */
function pointTitle(collective: string, bytes: number, ranks: number, nodes = 1): string {
  return `${collective}, ${formatBytes(bytes)}, ${ranks} ranks${nodes > 1 ? ` on ${nodes} nodes` : ''}`;
}

function ratioWords(r: number): string {
  return r < 1 ? 'collectives faster' : r > 1 ? 'collectives slower' : 'equal';
}

/** The rank count shown first: the one with the most heat-map cells, then the most series, then the largest. */
function defaultRanks(view: BenchView, ranks: readonly number[]): number {
  const score = (r: number): [number, number, number] => [view.ratios.filter((x) => x.ranks === r).length, view.series.filter((s) => s.ranks === r && s.variant === '').length, r];
  return ranks.reduce((best, r) => {
    const a = score(r);
    const b = score(best);
    return a[0] > b[0] || (a[0] === b[0] && (a[1] > b[1] || (a[1] === b[1] && a[2] > b[2]))) ? r : best;
  });
}

export function mountBench(el: HTMLElement, view: BenchView): { destroy(): void } {
  const allRanks = ranksOf(view.series.length ? view.series : view.ratios.map((r) => ({ ranks: r.ranks }) as BenchSeries));
  const collectives = collectivesOf([...view.series, ...view.ratios]);
  const maps = heatMaps(view.ratios);
  const span = ratioSpan(maps.flatMap((m) => m.cells.map((c) => c.ratio)));
  const peers = [...new Set(view.series.filter((s) => !isOurs(s)).map((s) => s.impl))].sort();
  const indexOf = new Map<BenchSeries, number>(view.series.map((s, i) => [s, i]));

  // ---- Controls.
  const root = htmlEl('div', { class: 'cv-bench' });
  const ranksSel = htmlEl('select', { 'data-control': 'ranks', 'aria-label': 'Ranks' });
  for (const r of allRanks) ranksSel.append(htmlEl('option', { value: String(r) }, `${r} ranks`));
  if (allRanks.length > 1) ranksSel.append(htmlEl('option', { value: 'all' }, 'all rank counts'));
  ranksSel.value = allRanks.length ? String(defaultRanks(view, allRanks)) : 'all';
  const collSel = htmlEl('select', { 'data-control': 'collective', 'aria-label': 'Collective' });
  collSel.append(htmlEl('option', { value: 'all' }, 'all collectives'));
  for (const c of collectives) collSel.append(htmlEl('option', { value: c }, c));
  // Spot checks and call variants (nonblocking, dup, split, …) are hidden by default
  // where plain calls exist: they would crowd the panels.
  const hasVariants = view.series.some((s) => s.variant !== '');
  const variantsBox = htmlEl('input', { type: 'checkbox', 'data-control': 'variants' });
  variantsBox.checked = !view.series.some((s) => s.variant === '');
  const controls = htmlEl(
    'div',
    { class: 'cv-bench-controls' },
    htmlEl('label', {}, 'Show ', ranksSel),
    htmlEl('label', {}, ' ', collSel),
    ...(hasVariants ? [htmlEl('label', {}, variantsBox, ' spot checks and variants')] : []),
    htmlEl('span', { class: 'cv-bench-note' }, peers.length ? `solid: collectives (colour per algorithm) · dashed grey: ${peers.join(', ')}` : 'one line per algorithm and variant'),
  );
  const heatSection = htmlEl('section', { class: 'cv-bench-heat', 'aria-label': 'Ratio heat maps' });
  const curveSection = htmlEl('section', { class: 'cv-bench-curves', 'aria-label': 'Latency curves' });
  root.append(controls, heatSection, curveSection, metaBox(view.meta));
  el.replaceChildren(root);
  el.dataset.seriesTotal = String(view.series.length);
  el.dataset.cellsTotal = String(maps.reduce((n, m) => n + m.cells.length, 0));

  /** The drawn cell of each (peer, ranks, collective, bytes), for the tooltip. */
  const cellOf = new Map<Element, BenchRatio>();
  const seriesOfPoint = new Map<Element, BenchSeries>();

  // ---- Heat maps.
  function drawHeat(m: HeatMap): HTMLElement {
    const cw = 66;
    const ch = 26;
    const left = 16 + 7.5 * Math.max(6, ...m.rows.map((r) => r.length));
    const top = 22;
    const w = left + cw * m.columns.length + 8;
    const h = top + ch * m.rows.length + 4;
    const svg = svgEl('svg', { class: 'cv-heat', width: w, height: h, role: 'img', 'aria-label': `Ratio of collectives to ${m.peer} at ${m.ranks} ranks, per collective and size` });
    m.columns.forEach((b, i) => svg.append(svgEl('text', { class: 'cv-heat-col', x: left + (i + 0.5) * cw, y: top - 8, 'text-anchor': 'middle' }, formatBytes(b))));
    m.rows.forEach((c, j) => svg.append(svgEl('text', { class: 'cv-heat-row', x: left - 8, y: top + (j + 0.5) * ch, 'text-anchor': 'end', 'dominant-baseline': 'central' }, c)));
    for (const cell of m.cells) {
      const i = m.columns.indexOf(cell.bytes);
      const j = m.rows.indexOf(cell.collective);
      const fill = ratioColour(cell.ratio, span);
      const rect = svgEl('rect', {
        class: 'heat-cell',
        x: left + i * cw,
        y: top + j * ch,
        width: cw,
        height: ch,
        fill,
        'data-peer': cell.peer,
        'data-ranks': cell.ranks,
        'data-collective': cell.collective,
        'data-bytes': cell.bytes,
        'data-ratio': cell.ratio,
      });
      svg.append(rect);
      svg.append(svgEl('text', { class: 'cv-heat-value', x: left + (i + 0.5) * cw, y: top + (j + 0.5) * ch, 'text-anchor': 'middle', 'dominant-baseline': 'central', fill: textOn(fill) }, formatRatio(cell.ratio)));
      cellOf.set(rect, cell);
    }
    const gm = Number.isFinite(m.geomean) ? ` · geometric mean ${formatRatio(m.geomean)}` : '';
    return htmlEl('figure', { class: 'cv-heat-figure', 'data-peer': m.peer, 'data-ranks': String(m.ranks) }, htmlEl('figcaption', {}, `collectives / ${m.peer}, ${m.ranks} ranks${gm}`), svg);
  }

  // ---- Curves: one panel per collective.
  function styles(list: readonly BenchSeries[]): Map<BenchSeries, Style> {
    const out = new Map<BenchSeries, Style>();
    const labels: string[] = [];
    for (const s of list) {
      if (!isOurs(s)) {
        out.set(s, { colour: s.variant ? '#8c8c8c' : PEER_COLOUR, dash: peerDash(peers.indexOf(s.impl)), marker: 'square' });
        continue;
      }
      const l = seriesLabel(s);
      if (!labels.includes(l)) labels.push(l);
      out.set(s, { colour: seriesColour(labels.indexOf(l)), dash: '', marker: 'circle' });
    }
    return out;
  }

  function drawPanel(collective: string, list: readonly BenchSeries[], allMode: boolean): HTMLElement {
    const f = CHART_FRAME;
    const x = bytesAxis(list.flatMap((s) => s.bytes), f.left + 8, f.width - f.right - (allMode ? 34 : 8));
    const y = usAxis(list.flatMap((s) => s.us), f.height - f.bottom, f.top);
    const { svg, plot } = chartSvg(f, x, y, 'message size', 'time per call', `${collective}: time per call against message size, log-log`);
    const st = styles(list);
    const lines = svgEl('g', { class: 'cv-curves' });
    const points = svgEl('g', { class: 'cv-points' });
    const ends: { x: number; y: number; text: string; colour: string }[] = [];
    for (const s of list) {
      const style = st.get(s);
      if (!style) continue;
      const idx = indexOf.get(s) ?? -1;
      lines.append(
        svgEl('path', {
          class: `curve ${isOurs(s) ? 'ours' : 'peer'}`,
          d: linePath(s.bytes, s.us, x, y),
          stroke: style.colour,
          'stroke-dasharray': style.dash,
          'data-series': idx,
          'data-impl': s.impl,
          'data-collective': s.collective,
          'data-ranks': s.ranks,
          'data-algorithm': s.algorithm,
          'data-variant': s.variant,
        }),
      );
      const d = markerPath(style.marker, isOurs(s) ? 30 : 26);
      s.bytes.forEach((b, i) => {
        const us = s.us[i];
        if (!(Number.isFinite(us) && us > 0)) return;
        const p = svgEl('path', {
          class: `curve-point ${isOurs(s) ? 'ours' : 'peer'}`,
          d,
          transform: `translate(${x.at(b).toFixed(2)},${y.at(us).toFixed(2)})`,
          fill: style.colour,
          'data-series': idx,
          'data-impl': s.impl,
          'data-collective': s.collective,
          'data-ranks': s.ranks,
          'data-algorithm': s.algorithm,
          'data-variant': s.variant,
          'data-bytes': b,
          'data-us': us,
        });
        points.append(p);
        seriesOfPoint.set(p, s);
      });
      if (allMode) {
        const last = s.bytes.length - 1;
        if (last >= 0 && s.us[last] > 0) ends.push({ x: x.at(s.bytes[last]) + 6, y: y.at(s.us[last]), text: `P=${s.ranks}`, colour: style.colour });
      }
    }
    // With every rank count drawn, each line ends in its P, the labels kept apart.
    const endY = spreadLabels(ends.map((e) => e.y), 10);
    ends.forEach((e, i) => plot.append(svgEl('text', { class: 'cv-curve-end', x: e.x, y: endY[i], 'dominant-baseline': 'central', fill: e.colour }, e.text)));
    plot.append(lines, points);
    // Legend: one entry per label (the rank counts of a label share its style).
    const legend = htmlEl('ul', { class: 'cv-legend' });
    const seen = new Set<string>();
    for (const s of list) {
      const l = seriesLabel(s);
      const style = st.get(s);
      if (seen.has(l) || !style) continue;
      seen.add(l);
      const sw = svgEl('svg', { width: 30, height: 12, 'aria-hidden': 'true' });
      sw.append(svgEl('line', { x1: 1, x2: 29, y1: 6, y2: 6, stroke: style.colour, 'stroke-width': 2, 'stroke-dasharray': style.dash }));
      sw.append(svgEl('path', { d: markerPath(style.marker, 24), transform: 'translate(15,6)', fill: style.colour }));
      legend.append(htmlEl('li', { 'data-label': l }, sw, l));
    }
    return htmlEl('figure', { class: 'cv-chart-panel cv-bench-panel', 'data-collective': collective }, htmlEl('figcaption', {}, collective), svg, legend);
  }

  // ---- Drawing the selection.
  function draw(): void {
    const rsel = ranksSel.value;
    const csel = collSel.value;
    const keepR = (r: number): boolean => rsel === 'all' || String(r) === rsel;
    const keepC = (c: string): boolean => csel === 'all' || c === csel;
    cellOf.clear();
    seriesOfPoint.clear();
    // Heat maps.
    const shown = maps.filter((m) => keepR(m.ranks)).map((m) => (csel === 'all' ? m : { ...m, rows: m.rows.filter(keepC), cells: m.cells.filter((c) => keepC(c.collective)) })).filter((m) => m.cells.length > 0);
    if (shown.length) {
      heatSection.replaceChildren(htmlEl('h3', {}, 'Time ratio against the peer MPI'), ratioLegend(span, peers.join(' or ') || 'peer'), htmlEl('div', { class: 'cv-heat-grid' }, ...shown.map(drawHeat)));
    } else {
      heatSection.replaceChildren(...(view.ratios.length ? [htmlEl('p', { class: 'cv-empty' }, 'No ratios for this selection.')] : []));
    }
    // Curves.
    const sel = view.series.filter((s) => keepR(s.ranks) && keepC(s.collective) && (variantsBox.checked || s.variant === ''));
    const panels = collectivesOf(sel).map((c) => drawPanel(c, sel.filter((s) => s.collective === c), rsel === 'all' && allRanks.length > 1));
    curveSection.replaceChildren(htmlEl('h3', {}, 'Time per call against message size'), ...(panels.length ? [htmlEl('div', { class: 'cv-panels' }, ...panels)] : [htmlEl('p', { class: 'cv-empty' }, 'No series for this selection.')]));
    el.dataset.series = String(sel.length);
    el.dataset.cells = String(shown.reduce((n, m) => n + m.cells.length, 0));
    el.dataset.points = String(seriesOfPoint.size);
    el.dataset.ranksSelected = rsel;
  }
  draw();
  ranksSel.addEventListener('change', draw);
  collSel.addEventListener('change', draw);
  variantsBox.addEventListener('change', draw);

  // ---- Hover.
  const pointRows = (p: Element): TooltipRow[] => {
    const s = seriesOfPoint.get(p);
    if (!s) return [];
    const b = Number(p.getAttribute('data-bytes'));
    const us = Number(p.getAttribute('data-us'));
    const rows: TooltipRow[] = [pointTitle(s.collective, b, s.ranks, s.nodes), ['series', seriesLabel(s)]];
    const others = counterparts(view.series, s).map((o) => ({ o, us: usAt(o, b) })).filter((x): x is { o: BenchSeries; us: number } => x.us !== undefined);
    if (isOurs(s)) {
      rows.push(['collectives', formatUs(us)], ['algorithm', s.algorithm || '—']);
      for (const { o, us: peerUs } of others) rows.push([o.impl, formatUs(peerUs)], [`ratio to ${o.impl}`, `${formatRatio(us / peerUs)} (${ratioWords(us / peerUs)})`]);
    } else {
      rows.push([s.impl, formatUs(us)]);
      for (const { o, us: ours } of others) rows.push([`collectives ${o.algorithm}`, formatUs(ours)], [`ratio ${o.algorithm}`, `${formatRatio(ours / us)} (${ratioWords(ours / us)})`]);
    }
    if (s.variant) rows.push(['variant', s.variant]);
    return rows;
  };
  const cellRows = (c: Element): TooltipRow[] => {
    const r = cellOf.get(c);
    if (!r) return [];
    return [
      pointTitle(r.collective, r.bytes, r.ranks),
      ['collectives', formatUs(r.oursUs)],
      ['algorithm', ratioAlgorithm(view, r) || '—'],
      [r.peer, formatUs(r.peerUs)],
      ['ratio', `${formatRatio(r.ratio)} (${ratioWords(r.ratio)})`],
    ];
  };
  /** Light up a cell's points on the curves, or a point's line. */
  const { on, off } = hoverHighlight((e) =>
    root.querySelectorAll(
      e.classList.contains('heat-cell')
        ? `.curve-point[data-collective="${CSS.escape(e.getAttribute('data-collective') ?? '')}"][data-ranks="${e.getAttribute('data-ranks')}"][data-bytes="${e.getAttribute('data-bytes')}"]`
        : `.curve[data-series="${e.getAttribute('data-series')}"]`,
    ),
  );
  const stopHover = delegateHover(
    root,
    (t) => t.closest('.curve-point, .heat-cell') ?? undefined,
    (e) => (e.classList.contains('heat-cell') ? cellRows(e) : pointRows(e)),
    on,
    off,
  );

  return {
    destroy(): void {
      stopHover();
      ranksSel.removeEventListener('change', draw);
      collSel.removeEventListener('change', draw);
      variantsBox.removeEventListener('change', draw);
      root.remove();
      for (const k of ['series', 'seriesTotal', 'cells', 'cellsTotal', 'points', 'ranksSelected']) delete el.dataset[k];
    },
  };
}
