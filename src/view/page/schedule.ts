/**
 * The schedule view: a rank × round diagram of one collective's schedule (SVG, d3).
 * One row per rank, one column per round; local operations (reduce, copy, …) are boxes
 * in their rank's row, messages are arrows from the send in the sender's row to the
 * matching receive in the receiver's row (pairing: FIFO per ordered rank pair, see
 * schedule-layout.ts). Colours by kind with a legend; zoom and pan (wheel, drag, the
 * buttons; "Fit" shows everything, "Reset" the initial view). Hovering a box or an
 * arrow shows its kind, ranks, round, count, bytes, phase and the steps it waits for,
 * and highlights those steps.
 *
 * For tests the element carries data-ranks, data-rounds, data-arrows, data-boxes and
 * data-unmatched; rows are `.rank-row[data-rank]`, boxes `.op-box[data-rank][data-step]
 * [data-round]`, arrows `.msg-arrow[data-rank][data-peer][data-step][data-recv-step]
 * [data-round]`.
 */
import './schedule.css';
import { select, zoom as d3zoom, zoomIdentity, type ZoomBehavior, type ZoomTransform } from 'd3';
import type { ScheduleStepView, ScheduleView } from '../document.js';
import { htmlEl, svgEl, toolButton } from './dom.js';
import { formatBytesExact } from './format.js';
import { hideTooltip, showTooltip, type TooltipRow } from './tooltip.js';
import { arrowPath, describeDep, fitLayoutOptions, isMessageKind, kindColour, labelStride, layoutSchedule, legendKinds, pairMessages, roundOf, slotsPerRound, type Message } from './schedule-layout.js';

/** Gutters around the diagram: rank labels on the left, round labels on top. */
const LEFT = 64;
const TOP = 28;
const RIGHT = 12;
const BOTTOM = 12;

/** How far (pixels) the diagram may be dragged past the viewport's edge. */
const SLACK = 40;
/** Rows per culling group (see `chunks` in mountSchedule). */
const CHUNK_ROWS = 32;
/** See `large` in mountSchedule. */
const LARGE_STEPS = 6000;

function depsText(steps: readonly ScheduleStepView[], deps: readonly number[]): string {
  return deps.length ? deps.map((d) => describeDep(steps, d)).join(', ') : 'nothing';
}

export function mountSchedule(el: HTMLElement, view: ScheduleView): { destroy(): void } {
  const { messages, unmatchedRecvs } = pairMessages(view);
  const slots = slotsPerRound(view);
  const stepsOf = new Map<number, readonly ScheduleStepView[]>();
  for (const r of view.ranks) stepsOf.set(r.rank, r.steps);
  const kinds = legendKinds(view);
  const otherKinds = kinds.filter((k) => !['message', 'reduce', 'copy'].includes(k));

  // ---- Toolbar: summary, zoom buttons, legend.
  /** Beyond this many steps the diagram drops what costs repaint time: the wide hit areas of arrows and the fading on hover. */
  const large = view.ranks.reduce((n, r) => n + r.steps.length, 0) > LARGE_STEPS;
  const root = htmlEl('div', { class: `cv-sched${large ? ' large' : ''}` });
  const sends = messages.length;
  const boxCount = view.ranks.reduce((n, r) => n + r.steps.filter((s) => !isMessageKind(s.kind)).length, 0);
  const summary = htmlEl(
    'div',
    { class: 'cv-sched-summary' },
    `${view.collective} / ${view.algorithm}: ${view.size} ranks, ${slots.length} rounds, ${sends} messages, ${boxCount} local operations, ${view.elementBytes} B per element`,
  );
  const button = (label: string, title: string, action: string): HTMLButtonElement => {
    const b = toolButton('cv-sched-btn', label, title, action);
    return b;
  };
  const zoomIn = button('+', 'Zoom in', 'zoom-in');
  const zoomOut = button('−', 'Zoom out', 'zoom-out');
  const fitBtn = button('Fit', 'Show the whole schedule', 'fit');
  const resetBtn = button('Reset', 'Back to the initial view', 'reset');
  const legend = htmlEl('ul', { class: 'cv-sched-legend', 'aria-label': 'Legend' });
  for (const k of kinds) {
    const sw = htmlEl('span', { class: `cv-sched-swatch${k === 'message' ? ' cv-sched-swatch-arrow' : ''}` });
    sw.style.setProperty('--swatch', kindColour(k, otherKinds));
    legend.append(htmlEl('li', { 'data-kind': k }, sw, k === 'message' ? 'message (send → recv)' : k));
  }
  if (messages.some((m) => m.recvStep < 0) || unmatchedRecvs.length) {
    legend.append(htmlEl('li', { 'data-kind': 'unmatched' }, htmlEl('span', { class: 'cv-sched-swatch cv-sched-swatch-arrow cv-sched-swatch-unmatched' }), 'unmatched'));
  }
  const toolbar = htmlEl('div', { class: 'cv-sched-toolbar' }, summary, htmlEl('span', { class: 'cv-sched-buttons' }, zoomIn, zoomOut, fitBtn, resetBtn), legend);
  const hint = htmlEl('div', { class: 'cv-sched-hint' }, 'Wheel, buttons or + − 0 f on the focused diagram to zoom; drag or arrow keys to pan; hover a box or an arrow for its bytes and dependencies.');

  // ---- Geometry: rows and slots share the area the view has (see fitLayoutOptions).
  root.append(toolbar, hint);
  el.replaceChildren(root);
  /** The width inside the root's padding (the SVG's width). */
  const innerWidth = (): number => {
    const cs = getComputedStyle(root);
    const w = (root.clientWidth || el.clientWidth || 960) - (parseFloat(cs.paddingLeft) || 0) - (parseFloat(cs.paddingRight) || 0) - 2;
    return Math.max(320, Math.floor(w));
  };
  const areaW = innerWidth() - LEFT - RIGHT;
  const freeH = el.clientHeight - root.offsetHeight - TOP - BOTTOM - 16;
  const opts = fitLayoutOptions(view.size, slots, areaW, freeH > 120 ? freeH : 640);
  const layout = layoutSchedule(view, opts);
  const rowH = layout.rowHeight;
  const rowY = (row: number): number => (row + 0.5) * rowH;
  /**
   * Culling: every layer keeps its elements in groups of CHUNK_ROWS rows (an arrow in
   * the group of its upper row), each with the rows it reaches; a group out of view is
   * not displayed, so a zoom frame repaints only what is near the viewport.
   */
  const chunks: { g: SVGGElement; lo: number; hi: number; shown: boolean }[] = [];
  const chunker = (layer: SVGGElement): ((lo: number, hi: number) => SVGGElement) => {
    const mine = new Map<number, (typeof chunks)[number]>();
    return (lo, hi) => {
      const i = Math.floor(lo / CHUNK_ROWS);
      let c = mine.get(i);
      if (!c) {
        c = { g: svgEl('g'), lo: i * CHUNK_ROWS, hi, shown: true };
        mine.set(i, c);
        chunks.push(c);
        layer.append(c.g);
      }
      c.hi = Math.max(c.hi, hi);
      return c.g;
    };
  };

  // ---- The SVG skeleton.
  const svg = svgEl('svg', { class: 'cv-sched-svg', tabindex: 0, role: 'img', 'aria-label': `Schedule of ${view.collective} ${view.algorithm} on ${view.size} ranks: ranks as rows, rounds as columns` });
  // A nested <svg> clips the zoomed content (much cheaper to repaint than a clip-path).
  const plot = svgEl('svg', { class: 'cv-sched-plot', x: LEFT, y: TOP, width: 100, height: 100, overflow: 'hidden' });
  const content = svgEl('g', { class: 'cv-sched-content' });
  plot.append(content);
  const rankLabels = svgEl('g', { class: 'cv-sched-rank-labels', transform: `translate(${LEFT - 6},${TOP})` });
  const roundLabels = svgEl('g', { class: 'cv-sched-round-labels', transform: `translate(${LEFT},${TOP - 8})` });
  const corner = svgEl('text', { class: 'cv-sched-corner', x: LEFT - 6, y: TOP - 8, 'text-anchor': 'end' });
  corner.textContent = 'round →';
  svg.append(plot, rankLabels, roundLabels, corner);

  // Column stripes (every other round shaded) and round labels.
  const cols = svgEl('g', { class: 'cv-sched-columns' });
  const roundText: SVGTextElement[] = [];
  for (const c of layout.columns) {
    cols.append(svgEl('rect', { class: `cv-sched-col${c.round % 2 ? ' odd' : ''}`, x: c.x, y: 0, width: c.width, height: layout.height, 'data-round': c.round }));
    const t = svgEl('text', { 'text-anchor': 'middle', 'data-round': c.round });
    t.textContent = String(c.round);
    roundLabels.append(t);
    roundText.push(t);
  }
  // Rank rows and their labels.
  const rows = svgEl('g', { class: 'cv-sched-rows' });
  const rowChunk = chunker(rows);
  const rankText: SVGTextElement[] = [];
  view.ranks.forEach((r, i) => {
    const g = svgEl('g', { class: 'rank-row', 'data-rank': r.rank });
    g.append(svgEl('rect', { x: 0, y: i * rowH, width: layout.width, height: rowH }));
    g.append(svgEl('line', { x1: 0, x2: layout.width, y1: rowY(i), y2: rowY(i) }));
    rowChunk(i, i).append(g);
    const t = svgEl('text', { 'text-anchor': 'end', 'dominant-baseline': 'central', 'data-rank': r.rank });
    t.textContent = view.size <= 64 ? `rank ${r.rank}` : String(r.rank);
    rankLabels.append(t);
    rankText.push(t);
  });
  content.append(cols, rows);

  // ---- Arrows (one per send) and boxes (one per local operation).
  /** The drawn element of each (rank, step): a box, or the arrow of the message the step sends or receives. */
  const elementOf = new Map<string, SVGElement>();
  const key = (rank: number, step: number): string => `${rank}:${step}`;
  const arrows = svgEl('g', { class: 'cv-sched-arrows' });
  const arrowChunk = chunker(arrows);
  const messageOf = new Map<SVGElement, Message>();
  let arrowCount = 0;
  const dy = rowH * 0.22;
  // Long arrows first, so that short ones are drawn (and hovered) on top where they cross.
  const span = (m: Message): number => Math.abs((layout.rowOf.get(m.to) ?? 0) - (layout.rowOf.get(m.from) ?? 0));
  for (const m of [...messages].sort((p, q) => span(q) - span(p))) {
    const fromRow = layout.rowOf.get(m.from);
    const toRow = layout.rowOf.get(m.to);
    if (fromRow === undefined || toRow === undefined) continue;
    const send = stepsOf.get(m.from)?.[m.sendStep];
    if (!send) continue;
    const x1 = layout.stepX[fromRow][m.sendStep];
    const x2 = m.recvStep >= 0 ? layout.stepX[toRow][m.recvStep] : x1 + opts.slotWidth * 0.5;
    const dir = toRow === fromRow ? 0 : toRow > fromRow ? 1 : -1;
    const y1 = rowY(fromRow);
    const y2 = dir === 0 ? rowY(toRow) : rowY(toRow) - dir * dy;
    const unmatched = m.recvStep < 0;
    const g = svgEl('g', {
      class: `msg-arrow${unmatched ? ' unmatched' : ''}`,
      'data-rank': m.from,
      'data-peer': m.to,
      'data-step': m.sendStep,
      'data-recv-step': m.recvStep,
      'data-round': roundOf(send),
      'data-bytes': send.bytes,
    });
    const d = arrowPath(x1, y1, x2, y2, Math.max(4, Math.min(8, rowH * 0.35)), dir === 0 ? -rowH * 0.9 : 0);
    if (!large) g.append(svgEl('path', { class: 'hit', d }));
    g.append(svgEl('path', { class: 'shaft', d }));
    arrowChunk(Math.min(fromRow, toRow), Math.max(fromRow, toRow)).append(g);
    messageOf.set(g, m);
    elementOf.set(key(m.from, m.sendStep), g);
    if (m.recvStep >= 0) elementOf.set(key(m.to, m.recvStep), g);
    arrowCount++;
  }
  const boxes = svgEl('g', { class: 'cv-sched-boxes' });
  const boxChunk = chunker(boxes);
  const bw = opts.slotWidth * 0.78;
  const bh = Math.max(4, rowH * 0.62);
  let boxesDrawn = 0;
  view.ranks.forEach((r, i) => {
    r.steps.forEach((s, j) => {
      if (isMessageKind(s.kind)) return;
      const x = layout.stepX[i][j];
      const b = svgEl('rect', {
        class: 'op-box',
        x: x - bw / 2,
        y: rowY(i) - bh / 2,
        width: bw,
        height: bh,
        rx: 2,
        fill: kindColour(s.kind, otherKinds),
        'data-kind': s.kind,
        'data-rank': r.rank,
        'data-step': j,
        'data-round': roundOf(s),
      });
      boxChunk(i, i).append(b);
      elementOf.set(key(r.rank, j), b);
      boxesDrawn++;
    });
  });
  // Receives no send pairs with: a hollow ring at their slot.
  const orphans = svgEl('g', { class: 'cv-sched-orphans' });
  for (const u of unmatchedRecvs) {
    const row = layout.rowOf.get(u.rank);
    if (row === undefined) continue;
    const c = svgEl('circle', { class: 'unmatched-recv', cx: layout.stepX[row][u.step], cy: rowY(row), r: Math.max(2, rowH * 0.2), 'data-rank': u.rank, 'data-step': u.step });
    orphans.append(c);
    elementOf.set(key(u.rank, u.step), c);
  }
  content.append(arrows, boxes, orphans);

  root.append(svg);
  el.dataset.ranks = String(view.ranks.length);
  el.dataset.rounds = String(layout.columns.length);
  el.dataset.arrows = String(arrowCount);
  el.dataset.boxes = String(boxesDrawn);
  el.dataset.unmatched = String(messages.filter((m) => m.recvStep < 0).length + unmatchedRecvs.length);

  // ---- Size, zoom and labels.
  let vw = 0;
  let vh = 0;
  const measure = (): void => {
    const w = innerWidth();
    const avail = Math.floor(el.clientHeight - toolbar.offsetHeight - hint.offsetHeight - 8);
    const natural = layout.height + TOP + BOTTOM;
    const h = Math.max(160, Math.min(natural, avail > 160 ? avail : Math.min(natural, 720)));
    svg.setAttribute('width', String(w));
    svg.setAttribute('height', String(h));
    vw = w - LEFT - RIGHT;
    vh = h - TOP - BOTTOM;
    plot.setAttribute('width', String(Math.max(0, vw)));
    plot.setAttribute('height', String(Math.max(0, vh)));
  };
  measure();

  // The zoom behaviour lives on the outer <svg> (events anywhere in it) and works in its
  // coordinates; the content sits in the nested <svg> at (LEFT, TOP), so it is drawn
  // with the transform shifted back by that offset (inner()).
  const outer = (k: number): ZoomTransform => zoomIdentity.translate(LEFT, TOP).scale(k);
  const inner = (t: ZoomTransform): ZoomTransform => zoomIdentity.translate(t.x - LEFT, t.y - TOP).scale(t.k);
  const fitTransform = (): ZoomTransform => outer(Math.min(vw / Math.max(1, layout.width), vh / Math.max(1, layout.height), 1));
  /** The initial view: everything when that keeps rows readable, else the first rounds at a readable row height. */
  const initialTransform = (): ZoomTransform => {
    const fit = fitTransform();
    if (fit.k * Math.min(rowH, opts.slotWidth) >= 6) return fit;
    return outer(Math.min(1, Math.max(fit.k, 6 / Math.min(rowH, opts.slotWidth))));
  };

  let current: ZoomTransform = zoomIdentity;
  let settle: ReturnType<typeof setTimeout> | undefined;
  const updateLabels = (t: ZoomTransform): void => {
    const rs = labelStride(t.k * rowH, 11);
    rankText.forEach((txt, i) => {
      const y = t.applyY(rowY(i));
      const show = i % rs === 0 && y >= -1 && y <= vh + 1;
      txt.setAttribute('y', String(y));
      txt.style.display = show ? '' : 'none';
    });
    let lastRight = -Infinity;
    layout.columns.forEach((c, i) => {
      const x = t.applyX(c.x + c.width / 2);
      const txt = roundText[i];
      const half = 4 * String(c.round).length + 2;
      const show = x >= -1 && x <= vw + 1 && x - half >= lastRight + 4;
      if (show) lastRight = x + half;
      txt.setAttribute('x', String(x));
      txt.style.display = show ? '' : 'none';
    });
  };
  const cull = (t: ZoomTransform): void => {
    const top = -t.y / (t.k * rowH) - 1;
    const bottom = (vh - t.y) / (t.k * rowH) + 1;
    for (const c of chunks) {
      const show = c.hi >= top && c.lo <= bottom;
      if (show !== c.shown) {
        c.shown = show;
        c.g.style.display = show ? '' : 'none';
      }
    }
  };
  const onZoom = (zt: ZoomTransform): void => {
    const t = inner(zt);
    current = t;
    content.setAttribute('transform', t.toString());
    el.dataset.zoom = t.k.toFixed(3);
    updateLabels(t);
    cull(t);
  };
  /** Keep the diagram in view: aligned to the top left while it is smaller than the viewport, else never more than SLACK pixels past an edge. */
  const constrain = (t: ZoomTransform): ZoomTransform => {
    const axis = (pos: number, origin: number, view: number, size: number): number => {
      const w = size * t.k;
      return w <= view ? origin : Math.min(origin + SLACK, Math.max(origin + view - w - SLACK, pos));
    };
    const x = axis(t.x, LEFT, vw, layout.width);
    const y = axis(t.y, TOP, vh, layout.height);
    return x === t.x && y === t.y ? t : zoomIdentity.translate(x, y).scale(t.k);
  };
  const zoomer: ZoomBehavior<SVGSVGElement, unknown> = d3zoom<SVGSVGElement, unknown>()
    .scaleExtent([Math.min(fitTransform().k, 1) / 2, 40])
    .constrain((t) => constrain(t))
    .on('zoom', (e: { transform: ZoomTransform }) => {
      onZoom(e.transform);
      // Large: stroke widths follow the zoom once it has settled for a moment (the
      // change restyles every path, too slow for each frame of a wheel or each click).
      if (large) {
        clearTimeout(settle);
        settle = setTimeout(() => content.style.setProperty('--cv-px', String(1 / e.transform.k)), 250);
      }
    });
  const svgSel = select(svg);
  svgSel.call(zoomer);
  const initial = initialTransform();
  svgSel.call(zoomer.transform, initial);
  zoomIn.addEventListener('click', () => svgSel.call(zoomer.scaleBy, 1.5, [vw / 2 + LEFT, vh / 2 + TOP]));
  zoomOut.addEventListener('click', () => svgSel.call(zoomer.scaleBy, 1 / 1.5, [vw / 2 + LEFT, vh / 2 + TOP]));
  fitBtn.addEventListener('click', () => svgSel.call(zoomer.transform, fitTransform()));
  resetBtn.addEventListener('click', () => svgSel.call(zoomer.transform, initialTransform()));
  // Keys on the focused diagram: + and − zoom, 0 resets, f fits, the arrows pan.
  const onKey = (e: KeyboardEvent): void => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const centre: [number, number] = [vw / 2 + LEFT, vh / 2 + TOP];
    const pan = (dx: number, dy: number): void => {
      svgSel.call(zoomer.translateBy, dx / current.k, dy / current.k);
    };
    switch (e.key) {
      case '+':
      case '=':
        svgSel.call(zoomer.scaleBy, 1.5, centre);
        break;
      case '-':
        svgSel.call(zoomer.scaleBy, 1 / 1.5, centre);
        break;
      case '0':
        svgSel.call(zoomer.transform, initialTransform());
        break;
      case 'f':
        svgSel.call(zoomer.transform, fitTransform());
        break;
      case 'ArrowLeft':
        pan(vw / 5, 0);
        break;
      case 'ArrowRight':
        pan(-vw / 5, 0);
        break;
      case 'ArrowUp':
        pan(0, vh / 5);
        break;
      case 'ArrowDown':
        pan(0, -vh / 5);
        break;
      default:
        return;
    }
    e.preventDefault();
    e.stopPropagation();
  };
  svg.addEventListener('keydown', onKey);

  const resize = typeof ResizeObserver === 'undefined' ? undefined : new ResizeObserver(() => {
    measure();
    updateLabels(current);
    cull(current);
  });
  resize?.observe(el);

  // ---- Hover: tooltip and dependency highlight (one delegated listener).
  let active: SVGElement | undefined;
  const lit: SVGElement[] = [];
  const clear = (): void => {
    active?.classList.remove('active');
    for (const e of lit) e.classList.remove('dep');
    lit.length = 0;
    active = undefined;
    root.classList.remove('hovering');
    hideTooltip();
  };
  const light = (rank: number, deps: readonly number[]): void => {
    for (const d of deps) {
      const e = elementOf.get(key(rank, d));
      if (e && e !== active) {
        e.classList.add('dep');
        lit.push(e);
      }
    }
  };
  const rowsFor = (target: SVGElement): TooltipRow[] => {
    const m = messageOf.get(target);
    if (m) {
      const sendSteps = stepsOf.get(m.from) ?? [];
      const recvSteps = stepsOf.get(m.to) ?? [];
      const s = sendSteps[m.sendStep];
      const r = m.recvStep >= 0 ? recvSteps[m.recvStep] : undefined;
      const rows: TooltipRow[] = [
        `message ${m.from} → ${m.to}${r ? '' : ' (no matching recv)'}`,
        ['kind', r ? 'send → recv' : 'send'],
        ['rank', `${m.from} (send #${m.sendStep})`],
        ['peer', r ? `${m.to} (recv #${m.recvStep})` : `${m.to}`],
        ['round', r && roundOf(r) !== roundOf(s) ? `${roundOf(s)} → ${roundOf(r)}` : String(roundOf(s))],
        ['count', r && r.count !== s.count ? `${s.count} sent, ${r.count} received` : String(s.count)],
        ['bytes', formatBytesExact(s.bytes)],
      ];
      const phase = s.phase ?? r?.phase;
      if (phase) rows.push(['phase', phase]);
      rows.push(['send waits for', depsText(sendSteps, s.deps)]);
      if (r) rows.push(['recv waits for', depsText(recvSteps, r.deps)]);
      rows.push(['message', `#${m.seq} from ${m.from} to ${m.to}`]);
      return rows;
    }
    const rank = Number(target.dataset.rank);
    const step = Number(target.dataset.step);
    const steps = stepsOf.get(rank) ?? [];
    const s = steps[step];
    if (!s) return [];
    const rows: TooltipRow[] = [`${s.kind}${s.peer !== undefined ? (s.kind === 'recv' ? ` ← ${s.peer}` : ` → ${s.peer}`) : ''}`, ['kind', s.kind], ['rank', `${rank} (step #${step})`]];
    if (s.peer !== undefined) rows.push(['peer', String(s.peer)]);
    rows.push(['round', String(roundOf(s))], ['count', String(s.count)], ['bytes', formatBytesExact(s.bytes)]);
    if (s.phase) rows.push(['phase', s.phase]);
    rows.push(['waits for', depsText(steps, s.deps)]);
    if (target.classList.contains('unmatched-recv')) rows.push(['note', 'no send pairs with this recv']);
    return rows;
  };
  const hoverable = (t: EventTarget | null): SVGElement | undefined => {
    if (!(t instanceof Element)) return undefined;
    const e = t.closest('.op-box, .msg-arrow, .unmatched-recv');
    return e instanceof SVGElement ? e : undefined;
  };
  const onOver = (ev: PointerEvent): void => {
    const target = hoverable(ev.target);
    if (!target) return;
    if (target !== active) {
      clear();
      active = target;
      target.classList.add('active');
      if (!large) root.classList.add('hovering');
      const m = messageOf.get(target);
      if (m) {
        light(m.from, stepsOf.get(m.from)?.[m.sendStep]?.deps ?? []);
        if (m.recvStep >= 0) light(m.to, stepsOf.get(m.to)?.[m.recvStep]?.deps ?? []);
      } else {
        const rank = Number(target.dataset.rank);
        light(rank, stepsOf.get(rank)?.[Number(target.dataset.step)]?.deps ?? []);
      }
    }
    showTooltip(ev.clientX, ev.clientY, rowsFor(target));
  };
  const onOut = (ev: PointerEvent): void => {
    if (!active) return;
    const to = hoverable(ev.relatedTarget);
    if (to !== active) clear();
  };
  content.addEventListener('pointerover', onOver);
  content.addEventListener('pointermove', onOver);
  content.addEventListener('pointerout', onOut);
  svg.addEventListener('pointerleave', clear);

  return {
    destroy(): void {
      clear();
      clearTimeout(settle);
      resize?.disconnect();
      svgSel.on('.zoom', null);
      content.removeEventListener('pointerover', onOver);
      content.removeEventListener('pointermove', onOver);
      content.removeEventListener('pointerout', onOut);
      svg.removeEventListener('pointerleave', clear);
      svg.removeEventListener('keydown', onKey);
      root.remove();
      for (const k of ['ranks', 'rounds', 'arrows', 'boxes', 'unmatched', 'zoom']) delete el.dataset[k];
    },
  };
}
