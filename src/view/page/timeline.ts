/**
 * The timeline view: one lane per rank (its host lane, and its NIC lane when the run
 * used one) on a canvas, spans coloured by kind with a legend, idle time as the lane's
 * background, the critical path outlined and joined (toggle), noise marks in red,
 * messages as thin lines from each send's end to its recv's start once few enough are
 * in view (toggle), a time axis in ns/µs/ms/s and rank labels. A measured run's
 * collective-call spans take the top band of their lane, the steps inside them the
 * rest.
 *
 * Zoom: the wheel (around the pointer), the + / − buttons, a double click (shift:
 * out), the keys + and −; pan: drag, horizontal wheel, ← and →; lanes: drag up and
 * down, shift + wheel, the scroll bar, ↑ ↓ PgUp PgDn; Fit (or 0) shows everything.
 * Hover shows the span's kind, rank, lane, peer, bytes, start, duration, label and
 * whether it is on the critical path.
 *
 * Large runs (10⁵+ spans, 1,024+ ranks) stay smooth: the spatial index
 * (src/view/timeline/spatial.ts) finds the spans in the visible window by binary
 * search, spans narrower than a pixel are merged per pixel column (the longest one's
 * kind), only the lanes in view are drawn (vertical scrolling beyond the height),
 * rects are batched per kind, redraws are coalesced with requestAnimationFrame, and
 * hover highlights go on an overlay canvas.
 *
 * For tests the element (`el`) carries data-lanes, data-spans, data-critical (span
 * count), data-marks, data-messages (matched pairs), data-view-start and data-view-end
 * (µs), data-frame-ms (the last frame's draw time), data-frames (frames drawn),
 * data-first-lane / data-last-lane (the lanes drawn), data-drawn-spans / -messages /
 * -critical (what the last frame drew), data-hover (the span under the pointer), and
 * the mapping from a span to canvas coordinates (relative to `canvas.cv-tl-canvas`):
 * x = data-plot-left + (t − data-view-start) · data-px-per-us; lane l starts at
 * y = data-plot-top + l · data-lane-height − data-scroll-top, and span i's band in it
 * runs from y0 to y1 of (data-lane-height − data-lane-gap), where row = rows[spanRow[i]]
 * of buildSpatial(view) (src/view/timeline/spatial.ts) gives y0 and y1.
 */
import './timeline.css';
import type { TimelineView } from '../document.js';
import { buildSpatial, firstVisible, hitRow, tickLabel, ticks, type Row } from '../timeline/spatial.js';
import { pathParts } from '../timeline/critical-path.js';
import { htmlEl, toolButton } from './dom.js';
import { formatBytesExact, formatUs } from './format.js';
import { hideTooltip, showTooltip, type TooltipRow } from './tooltip.js';

/** Gutters of the canvas (CSS px): rank labels left, the axis on top, the scroll bar right. */
const LEFT = 86;
const TOP = 26;
const RIGHT = 8;
const SCROLLBAR = 14;
const MIN_LANE = 3;
const MAX_LANE = 44;
/** Message lines are drawn when at most this many are in view. */
const MAX_MESSAGES = 4000;

const KIND_COLOURS: Readonly<Record<string, string>> = {
  send: '#0072B2',
  isend: '#0072B2',
  recv: '#56B4E9',
  irecv: '#56B4E9',
  reduce: '#D55E00',
  copy: '#009E73',
  compute: '#E69F00',
  start: '#8C8C8C',
  finish: '#6E6E6E',
  collective: '#C3CAD3',
  wait: '#B8B8B8',
};
const MORE_COLOURS = ['#CC79A7', '#F0E442', '#882255', '#44AA99', '#999933', '#AA4499', '#661100', '#6699CC'];
const IDLE = ['#EDF0F4', '#F5F7F9'];
const NOISE = '#D7191C';
/** Noise darkens what it covers, visible on every kind's colour. */
const NOISE_WASH = 'rgba(31, 35, 40, 0.3)';
const PATH = '#1F2328';
const MESSAGE = 'rgba(31, 35, 40, 0.35)';

/** Colours of the view's kinds (fixed for the common ones, the rest in turn). */
export function kindColours(kinds: readonly string[]): string[] {
  let k = 0;
  return kinds.map((name) => KIND_COLOURS[name] ?? MORE_COLOURS[k++ % MORE_COLOURS.length]);
}

const clamp = (x: number, lo: number, hi: number): number => (x < lo ? lo : x > hi ? hi : x);

export function mountTimeline(el: HTMLElement, view: TimelineView): { destroy(): void } {
  const sp = buildSpatial(view);
  const { spans } = view;
  const n = spans.lane.length;
  const L = view.lanes.length;
  const colours = kindColours(view.kinds);
  const isSend = view.kinds.map((k) => k === 'send' || k === 'isend');
  const isRecv = view.kinds.map((k) => k === 'recv' || k === 'irecv');
  let pairs = 0;
  for (let i = 0; i < n; i++) if (isSend[spans.kind[i]] && spans.match[i] >= 0) pairs++;
  const total = sp.end;

  // ---- Toolbar: summary, buttons, toggles, legend; the plot below.
  const root = htmlEl('div', { class: 'cv-tl', tabindex: '0', 'aria-label': 'Timeline: wheel or + and − to zoom, drag or arrow keys to pan, 0 to fit' });
  const meta = view.meta;
  const what = [meta.collective, meta.algorithm].filter((x) => x !== undefined && x !== '').join(' / ');
  const summary = htmlEl(
    'div',
    { class: 'cv-tl-summary' },
    `${view.source === 'sim' ? 'Simulated' : 'Measured'} run${what ? ` of ${what}` : ''}${meta.machine !== undefined ? ` on ${String(meta.machine)}` : ''}: ${view.ranks} ranks, ${L} lanes, ${n} spans, ${formatUs(total)}`,
  );
  const parts = pathParts(view, view.critical);
  const pathInfo = htmlEl(
    'div',
    { class: 'cv-tl-path' },
    view.critical.length ? `Critical path: ${view.critical.length} spans, ends ${formatUs(parts.end)}, busy ${formatUs(parts.busy)}, waiting ${formatUs(parts.gaps)}` : 'No critical path',
  );
  const button = (label: string, title: string, action: string): HTMLButtonElement => toolButton('cv-tl-btn', label, title, action);
  const zoomInBtn = button('+', 'Zoom in (+)', 'zoom-in');
  const zoomOutBtn = button('−', 'Zoom out (−)', 'zoom-out');
  const fitBtn = button('Fit', 'Show the whole run (0)', 'fit');
  const toggle = (name: string, on: boolean): HTMLInputElement => {
    const box = htmlEl('input', { type: 'checkbox', name, 'data-toggle': name });
    box.checked = on;
    return box;
  };
  const pathBox = toggle('critical', true);
  const msgBox = toggle('messages', true);
  const legend = htmlEl('ul', { class: 'cv-tl-legend', 'aria-label': 'Legend' });
  const swatch = (cls: string, colour: string): HTMLSpanElement => {
    const s = htmlEl('span', { class: `cv-tl-swatch ${cls}` });
    s.style.setProperty('--swatch', colour);
    return s;
  };
  view.kinds.forEach((k, i) => legend.append(htmlEl('li', { 'data-kind': k }, swatch('', colours[i]), k === 'collective' ? 'collective call' : k)));
  legend.append(htmlEl('li', { 'data-kind': 'idle' }, swatch('cv-tl-swatch-idle', IDLE[0]), 'idle'));
  if (view.marks.lane.length) legend.append(htmlEl('li', { 'data-kind': 'noise' }, swatch('cv-tl-swatch-noise', NOISE), 'noise'));
  const status = htmlEl('span', { class: 'cv-tl-status', 'aria-live': 'off' });
  const toolbar = htmlEl(
    'div',
    { class: 'cv-tl-toolbar' },
    htmlEl('span', { class: 'cv-tl-buttons' }, zoomInBtn, zoomOutBtn, fitBtn),
    htmlEl('label', { class: 'cv-tl-toggle' }, pathBox, swatch('cv-tl-swatch-path', PATH), 'critical path'),
    htmlEl('label', { class: 'cv-tl-toggle' }, msgBox, swatch('cv-tl-swatch-msg', MESSAGE), 'messages'),
    legend,
  );
  const canvas = htmlEl('canvas', { class: 'cv-tl-canvas', role: 'img', 'aria-label': `Timeline of ${view.ranks} ranks: lanes as rows, time left to right` });
  const overlay = htmlEl('canvas', { class: 'cv-tl-overlay', 'aria-hidden': 'true' });
  const spacer = htmlEl('div', { class: 'cv-tl-spacer' });
  const scroller = htmlEl('div', { class: 'cv-tl-vscroll', 'aria-hidden': 'true' }, spacer);
  const plot = htmlEl('div', { class: 'cv-tl-plot' }, canvas, overlay, scroller);
  const hint = htmlEl(
    'div',
    { class: 'cv-tl-hint' },
    htmlEl('span', {}, 'Wheel, + / − or double click to zoom, drag or ← → to pan, ↑ ↓ or shift + wheel for more lanes, 0 or Fit to see it all; hover a span for its details.'),
    status,
  );
  root.append(htmlEl('div', { class: 'cv-tl-head' }, summary, pathInfo), toolbar, hint, plot);
  el.replaceChildren(root);

  el.dataset.lanes = String(L);
  el.dataset.spans = String(n);
  el.dataset.critical = String(view.critical.length);
  el.dataset.marks = String(view.marks.lane.length);
  el.dataset.messages = String(pairs);
  const nestedLanes: number[] = [];
  sp.nested.forEach((x, l) => x && nestedLanes.push(l));
  el.dataset.nestedLanes = nestedLanes.slice(0, 64).join(',');
  el.dataset.plotLeft = String(LEFT);
  el.dataset.plotTop = String(TOP);
  el.dataset.frames = '0';

  // ---- State.
  let width = 0; // CSS px of the canvas
  let height = 0;
  let dpr = 1;
  let laneH = MAX_LANE;
  let scrollY = 0;
  let vs = 0; // view start, µs
  let ve = total; // view end
  let showPath = true;
  let showMsgs = true;
  let hover = -1;
  let hoverMark = -1;
  let frame = 0;
  let frames = 0;
  let overlayFrame = 0;
  let destroyed = false;
  const plotW = (): number => Math.max(10, width - LEFT - RIGHT - SCROLLBAR);
  const lanesH = (): number => Math.max(10, height - TOP);
  const pxPerUs = (): number => plotW() / (ve - vs);
  const maxScroll = (): number => Math.max(0, L * laneH - lanesH());
  const minSpan = Math.max(1e-3, total * 1e-9);

  const ctx = canvas.getContext('2d', { alpha: false });
  const octx = overlay.getContext('2d');

  function layout(): void {
    const r = plot.getBoundingClientRect();
    width = Math.max(200, Math.floor(r.width));
    height = Math.max(120, Math.floor(r.height));
    dpr = window.devicePixelRatio || 1;
    for (const c of [canvas, overlay]) {
      c.width = Math.round(width * dpr);
      c.height = Math.round(height * dpr);
      c.style.width = `${width}px`;
      c.style.height = `${height}px`;
    }
    laneH = clamp(Math.floor(lanesH() / Math.max(1, L)), MIN_LANE, MAX_LANE);
    scroller.style.top = `${TOP}px`;
    spacer.style.height = `${L * laneH}px`;
    scrollY = clamp(scrollY, 0, maxScroll());
    scroller.scrollTop = scrollY;
    el.dataset.laneHeight = String(laneH);
  }

  function setWindow(a: number, b: number): void {
    let w = b - a;
    if (!(w > minSpan)) w = minSpan;
    if (w > total) w = total;
    let s = a;
    if (b - a !== w) s = (a + b) / 2 - w / 2;
    s = clamp(s, 0, total - w);
    vs = s;
    ve = s + w;
    request();
  }

  function zoomAt(factor: number, t: number): void {
    // factor > 1 zooms in; t stays under the pointer.
    setWindow(t - (t - vs) / factor, t + (ve - t) / factor);
  }

  function scrollTo(y: number): void {
    scrollY = clamp(y, 0, maxScroll());
    if (Math.abs(scroller.scrollTop - scrollY) >= 1) scroller.scrollTop = scrollY;
    request();
  }

  function request(): void {
    if (!frame && !destroyed) frame = requestAnimationFrame(draw);
  }

  function requestOverlay(): void {
    if (!overlayFrame && !destroyed) overlayFrame = requestAnimationFrame(drawOverlay);
  }

  const laneTop = (l: number): number => TOP + l * laneH - scrollY;
  /** Lane height without the gap between lanes. */
  const usable = (): number => laneH - (laneH >= 8 ? 1 : 0);
  /** Top and height of a row's band within its lane (whole pixels, at least one). */
  function band(row: Row): [number, number] {
    const y = laneTop(row.lane);
    const hu = usable();
    const a = Math.round(row.y0 * hu);
    const b = Math.round(row.y1 * hu);
    return [y + a, Math.max(1, b - a)];
  }
  const xOf = (t: number, k: number): number => LEFT + (t - vs) * k;
  /** The middle of span i's band. */
  const midY = (i: number): number => {
    const [y, h] = band(sp.rows[sp.spanRow[i]]);
    return y + h / 2;
  };

  /** Rects per kind for this frame (x, y, w, h flattened). */
  const batches: number[][] = view.kinds.map(() => []);

  function draw(): void {
    frame = 0;
    if (destroyed || !ctx) return;
    const t0 = performance.now();
    const k = pxPerUs();
    const W = width;
    const H = height;
    const R = LEFT + plotW();
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, W, H);
    const first = clamp(Math.floor(scrollY / laneH), 0, L);
    const last = clamp(Math.ceil((scrollY + lanesH()) / laneH), 0, L);

    // Idle background of each lane from 0 to the run's end, alternate ranks shaded apart.
    ctx.save();
    ctx.beginPath();
    ctx.rect(LEFT, TOP, R - LEFT, H - TOP);
    ctx.clip();
    const xa = Math.max(LEFT, xOf(0, k));
    const xb = Math.min(R, xOf(total, k));
    for (let l = first; l < last; l++) {
      ctx.fillStyle = IDLE[view.laneRank[l] % 2];
      ctx.fillRect(xa, laneTop(l), xb - xa, usable());
    }

    // Spans: visible ones per row; sub-pixel ones merged per pixel column.
    for (const b of batches) b.length = 0;
    const msgFrom: number[] = [];
    let msgOver = false;
    let drawn = 0;
    for (let r = sp.laneRows[first]; r < sp.laneRows[last]; r++) {
      const row = sp.rows[r];
      const [y, h] = band(row);
      let colX = -1;
      let colKind = -1;
      let colDur = -1;
      const flush = (): void => {
        if (colX >= 0) batches[colKind].push(colX, y, 1, h);
      };
      const m = row.idx.length;
      for (let p = firstVisible(row, vs); p < m; p++) {
        const s = row.start[p];
        if (s > ve) break;
        const i = row.idx[p];
        const d = spans.dur[i];
        if (s + d < vs) continue;
        drawn++;
        const kd = spans.kind[i];
        if (showMsgs && !msgOver && spans.match[i] >= 0) {
          if (isSend[kd]) {
            msgFrom.push(i);
          } else if (isRecv[kd]) {
            const ml = spans.lane[spans.match[i]];
            if (ml < first || ml >= last) msgFrom.push(spans.match[i]);
          }
          if (msgFrom.length > MAX_MESSAGES) msgOver = true;
        }
        let x0 = xOf(s, k);
        let x1 = xOf(s + d, k);
        if (x0 < LEFT) x0 = LEFT;
        if (x1 > R) x1 = R;
        if (x1 - x0 >= 1) {
          batches[kd].push(x0, y, x1 - x0, h);
        } else {
          const c = Math.floor(x0);
          if (c !== colX) {
            flush();
            colX = c;
            colKind = kd;
            colDur = d;
          } else if (d > colDur) {
            colKind = kd;
            colDur = d;
          }
        }
      }
      flush();
    }
    for (let kd = 0; kd < batches.length; kd++) {
      const b = batches[kd];
      if (!b.length) continue;
      ctx.fillStyle = colours[kd];
      ctx.beginPath();
      for (let j = 0; j < b.length; j += 4) ctx.rect(b[j], b[j + 1], b[j + 2], b[j + 3]);
      ctx.fill();
    }

    // Noise marks: a dark wash over the lane and a red bar on its top edge.
    for (let l = first; l < last; l++) {
      const row = sp.marks[l];
      if (!row) continue;
      const y = laneTop(l);
      const h = laneH - (laneH >= 8 ? 1 : 0);
      let lastX = -Infinity;
      for (let p = firstVisible(row, vs); p < row.idx.length; p++) {
        const s = row.start[p];
        if (s > ve) break;
        const i = row.idx[p];
        const x0 = Math.max(LEFT, xOf(s, k));
        const x1 = Math.min(R, xOf(s + view.marks.dur[i], k));
        const w = Math.max(1, x1 - x0);
        if (x0 + w <= lastX) continue; // this pixel column is marked already
        lastX = x0 + w;
        ctx.fillStyle = NOISE_WASH;
        ctx.fillRect(x0, y, w, h);
        ctx.fillStyle = NOISE;
        ctx.fillRect(x0, y, w, Math.max(1, Math.min(3, Math.floor(h / 3))));
      }
    }

    // Messages: a line from each send's end to its recv's start.
    let msgs = 0;
    if (showMsgs && !msgOver && msgFrom.length) {
      ctx.strokeStyle = MESSAGE;
      ctx.lineWidth = 1;
      ctx.beginPath();
      for (const s of msgFrom) {
        const r = spans.match[s];
        const ys = midY(s);
        const yr = midY(r);
        ctx.moveTo(xOf(spans.start[s] + spans.dur[s], k), ys);
        ctx.lineTo(xOf(spans.start[r], k), yr);
        msgs++;
      }
      ctx.stroke();
    }

    // Critical path: outlined spans, joined where it moves between lanes.
    let pathShown = 0;
    if (showPath && view.critical.length) {
      ctx.strokeStyle = PATH;
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      let prevX = NaN;
      let prevY = NaN;
      for (const i of view.critical) {
        const l = spans.lane[i];
        const s = spans.start[i];
        const e = s + spans.dur[i];
        const [y, h] = band(sp.rows[sp.spanRow[i]]);
        const ym = y + h / 2;
        const x0 = xOf(s, k);
        const x1 = xOf(e, k);
        const visible = e >= vs && s <= ve && l >= first && l < last;
        if (!Number.isNaN(prevX)) {
          ctx.moveTo(prevX, prevY);
          ctx.lineTo(x0, ym);
        }
        if (visible) {
          const w = Math.max(2, x1 - x0);
          ctx.rect(Math.max(LEFT - 1, x0 - (x1 - x0 < 2 ? 1 : 0)), y + 0.75, Math.min(w, R - x0 + 2), Math.max(1.5, h - 1.5));
          pathShown++;
        }
        prevX = x1;
        prevY = ym;
      }
      ctx.stroke();
    }
    ctx.restore();

    // Axis: ticks and labels on top, faint grid lines through the lanes.
    const tk = ticks(vs, ve, k);
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, W, TOP);
    ctx.strokeStyle = 'rgba(31, 35, 40, 0.10)';
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (const t of tk.at) {
      const x = Math.round(xOf(t, k)) + 0.5;
      ctx.moveTo(x, TOP);
      ctx.lineTo(x, H);
    }
    ctx.stroke();
    ctx.strokeStyle = '#8C959F';
    ctx.beginPath();
    ctx.moveTo(LEFT, TOP - 0.5);
    ctx.lineTo(R, TOP - 0.5);
    for (const t of tk.at) {
      const x = Math.round(xOf(t, k)) + 0.5;
      ctx.moveTo(x, TOP - 6);
      ctx.lineTo(x, TOP);
    }
    ctx.stroke();
    ctx.fillStyle = '#59636E';
    ctx.font = '11px system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif';
    ctx.textBaseline = 'alphabetic';
    ctx.textAlign = 'center';
    for (const t of tk.at) {
      const x = xOf(t, k);
      if (x < LEFT + 14 || x > R - 14) continue;
      ctx.fillText(tickLabel(t, tk.step), x, TOP - 9);
    }

    // Rank labels in the left gutter (every lane when they fit, else every few ranks).
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, TOP, LEFT - 2, H - TOP);
    ctx.fillStyle = '#59636E';
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    // Tight lanes: only the first lane of every m-th rank is labelled, with its number.
    const tight = laneH < 11;
    const perRank = (laneH * L) / Math.max(1, view.ranks);
    let m = 1;
    while (tight && m * perRank < 12) m *= 2;
    ctx.font = `${tight ? 9 : 11}px system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif`;
    for (let l = first; l < last; l++) {
      const r = view.laneRank[l];
      if (tight && ((l > 0 && view.laneRank[l - 1] === r) || r % m !== 0)) continue;
      const y = Math.max(TOP + 5, laneTop(l) + laneH / 2);
      if (y > H - 2) continue;
      ctx.fillText(tight ? String(r) : view.lanes[l], LEFT - 6, y);
    }
    if (tight) {
      ctx.textAlign = 'left';
      ctx.fillStyle = '#8C959F';
      ctx.fillText('rank', 6, TOP - 13);
    }

    const ms = performance.now() - t0;
    frames++;
    el.dataset.viewStart = String(vs);
    el.dataset.viewEnd = String(ve);
    el.dataset.pxPerUs = String(k);
    el.dataset.scrollTop = String(scrollY);
    el.dataset.laneHeight = String(laneH);
    el.dataset.laneGap = String(laneH - usable());
    el.dataset.firstLane = String(first);
    el.dataset.lastLane = String(last);
    el.dataset.drawnSpans = String(drawn);
    el.dataset.drawnMessages = String(msgs);
    el.dataset.drawnCritical = String(pathShown);
    el.dataset.frameMs = ms.toFixed(2);
    el.dataset.frames = String(frames);
    status.textContent = `${formatUs(vs)} – ${formatUs(ve)} (${formatUs(ve - vs)} in view) · lanes ${first + 1}–${last} of ${L}${showMsgs && msgOver ? ' · zoom in for messages' : ''}`;
    drawOverlay();
  }

  /** Hover highlight: the span and its message partner outlined, the message line. */
  function drawOverlay(): void {
    overlayFrame = 0;
    if (destroyed || !octx) return;
    octx.setTransform(dpr, 0, 0, dpr, 0, 0);
    octx.clearRect(0, 0, width, height);
    if (hover < 0 && hoverMark < 0) return;
    const k = pxPerUs();
    const R = LEFT + plotW();
    octx.save();
    octx.beginPath();
    octx.rect(LEFT, TOP, R - LEFT, height - TOP);
    octx.clip();
    const outline = (i: number): void => {
      const [y, h] = band(sp.rows[sp.spanRow[i]]);
      const x0 = xOf(spans.start[i], k);
      const w = Math.max(3, spans.dur[i] * k);
      octx.strokeRect(x0 - (spans.dur[i] * k < 3 ? 1.5 : 0), y - 1, w, h + 2);
    };
    if (hover >= 0) {
      octx.lineWidth = 2;
      octx.strokeStyle = '#FFB000';
      outline(hover);
      const m = spans.match[hover];
      if (m >= 0) {
        outline(m);
        const [s, r] = isSend[spans.kind[hover]] ? [hover, m] : [m, hover];
        octx.beginPath();
        octx.moveTo(xOf(spans.start[s] + spans.dur[s], k), midY(s));
        octx.lineTo(xOf(spans.start[r], k), midY(r));
        octx.stroke();
      }
    }
    if (hoverMark >= 0) {
      octx.lineWidth = 2;
      octx.strokeStyle = NOISE;
      const l = view.marks.lane[hoverMark];
      const x0 = xOf(view.marks.start[hoverMark], k);
      octx.strokeRect(x0 - 1, laneTop(l) - 1, Math.max(3, view.marks.dur[hoverMark] * k), laneH + 1);
    }
    octx.restore();
  }

  // ---- Hit testing and the tooltip.
  function hitAt(x: number, y: number): { span: number; mark: number } {
    if (x < LEFT || x > LEFT + plotW() || y < TOP) return { span: -1, mark: -1 };
    const l = Math.floor((y - TOP + scrollY) / laneH);
    if (l < 0 || l >= L) return { span: -1, mark: -1 };
    const k = pxPerUs();
    const t = vs + (x - LEFT) / k;
    const tol = 3 / k;
    // The row whose band holds y (the nearest one in a lane's gap).
    let row: Row | undefined;
    let bestD = Infinity;
    for (let r = sp.laneRows[l]; r < sp.laneRows[l + 1]; r++) {
      const [yb, hb] = band(sp.rows[r]);
      const d = y < yb ? yb - y : y >= yb + hb ? y - (yb + hb) + 1 : 0;
      if (d < bestD) {
        bestD = d;
        row = sp.rows[r];
      }
    }
    const span = row ? hitRow(row, spans.dur, t, tol) : -1;
    const mrow: Row | undefined = sp.marks[l];
    const mark = mrow ? hitRow(mrow, view.marks.dur, t, tol) : -1;
    return { span, mark };
  }

  function tooltipRows(i: number, mark: number): TooltipRow[] {
    const rows: TooltipRow[] = [];
    if (i >= 0) {
      const l = spans.lane[i];
      const kind = view.kinds[spans.kind[i]];
      rows.push(`${kind} · ${view.lanes[l]}`);
      rows.push(['kind', kind]);
      rows.push(['rank', String(view.laneRank[l])]);
      rows.push(['lane', view.lanes[l]]);
      if (spans.peer[i] >= 0) rows.push(['peer', `rank ${spans.peer[i]}`]);
      if (spans.bytes[i] >= 0) rows.push(['bytes', formatBytesExact(spans.bytes[i])]);
      rows.push(['start', formatUs(spans.start[i])]);
      rows.push(['duration', formatUs(spans.dur[i])]);
      if (spans.label[i]) rows.push(['label', spans.label[i]]);
      const m = spans.match[i];
      if (m >= 0) {
        if (isSend[spans.kind[i]]) rows.push(['received', `by ${view.lanes[spans.lane[m]]}, from ${formatUs(spans.start[m])}`]);
        else rows.push(['sent', `by ${view.lanes[spans.lane[m]]}, until ${formatUs(spans.start[m] + spans.dur[m])}`]);
      }
      rows.push(['critical path', sp.onPath[i] ? 'yes' : 'no']);
    }
    if (mark >= 0) {
      rows.push(i >= 0 ? 'noise' : `noise · ${view.lanes[view.marks.lane[mark]]}`);
      if (view.marks.label[mark] && view.marks.label[mark] !== 'noise') rows.push(['noise', view.marks.label[mark]]);
      rows.push(['noise start', formatUs(view.marks.start[mark])]);
      rows.push(['noise duration', formatUs(view.marks.dur[mark])]);
    }
    return rows;
  }

  function onHover(e: PointerEvent): void {
    const r = canvas.getBoundingClientRect();
    const { span, mark } = hitAt(e.clientX - r.left, e.clientY - r.top);
    if (span !== hover || mark !== hoverMark) {
      hover = span;
      hoverMark = mark;
      el.dataset.hover = String(span);
      requestOverlay();
    }
    if (span >= 0 || mark >= 0) showTooltip(e.clientX, e.clientY, tooltipRows(span, mark));
    else hideTooltip();
  }

  function clearHover(): void {
    if (hover >= 0 || hoverMark >= 0) {
      hover = -1;
      hoverMark = -1;
      el.dataset.hover = '-1';
      requestOverlay();
    }
    hideTooltip();
  }

  // ---- Interaction.
  let drag: { x: number; y: number; vs: number; ve: number; scroll: number; id: number; moved: boolean } | undefined;
  const onDown = (e: PointerEvent): void => {
    if (e.button !== 0) return;
    root.focus({ preventScroll: true });
    drag = { x: e.clientX, y: e.clientY, vs, ve, scroll: scrollY, id: e.pointerId, moved: false };
    overlay.setPointerCapture(e.pointerId);
  };
  const onMove = (e: PointerEvent): void => {
    if (drag && drag.id === e.pointerId) {
      const dx = e.clientX - drag.x;
      const dy = e.clientY - drag.y;
      if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 3) return;
      if (!drag.moved) {
        drag.moved = true;
        root.classList.add('dragging');
        clearHover();
      }
      const k = plotW() / (drag.ve - drag.vs);
      const w = drag.ve - drag.vs;
      const s = clamp(drag.vs - dx / k, 0, Math.max(0, total - w));
      vs = s;
      ve = s + w;
      scrollTo(drag.scroll - dy);
      return;
    }
    onHover(e);
  };
  const onUp = (e: PointerEvent): void => {
    if (!drag || drag.id !== e.pointerId) return;
    drag = undefined;
    root.classList.remove('dragging');
    if (overlay.hasPointerCapture(e.pointerId)) overlay.releasePointerCapture(e.pointerId);
  };
  const timeAt = (clientX: number): number => {
    const r = canvas.getBoundingClientRect();
    return vs + clamp(clientX - r.left - LEFT, 0, plotW()) / pxPerUs();
  };
  const onWheel = (e: WheelEvent): void => {
    e.preventDefault();
    const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? height : 1;
    const dx = e.deltaX * unit;
    const dy = e.deltaY * unit;
    if (e.shiftKey && !e.ctrlKey) {
      scrollTo(scrollY + (dy || dx));
    } else if (Math.abs(dx) > Math.abs(dy)) {
      const w = ve - vs;
      const s = clamp(vs + dx / pxPerUs(), 0, Math.max(0, total - w));
      setWindow(s, s + w);
    } else if (dy !== 0) {
      zoomAt(Math.exp(-dy * 0.0015), timeAt(e.clientX));
    }
    clearHover();
  };
  const onDbl = (e: MouseEvent): void => {
    e.preventDefault();
    zoomAt(e.shiftKey ? 0.5 : 2, timeAt(e.clientX));
  };
  const onKey = (e: KeyboardEvent): void => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const w = ve - vs;
    const mid = (vs + ve) / 2;
    switch (e.key) {
      case '+':
      case '=':
        zoomAt(1.5, mid);
        break;
      case '-':
      case '_':
        zoomAt(1 / 1.5, mid);
        break;
      case 'ArrowLeft':
        setWindow(vs - w * 0.2, ve - w * 0.2);
        break;
      case 'ArrowRight':
        setWindow(vs + w * 0.2, ve + w * 0.2);
        break;
      case 'ArrowUp':
        scrollTo(scrollY - 3 * laneH);
        break;
      case 'ArrowDown':
        scrollTo(scrollY + 3 * laneH);
        break;
      case 'PageUp':
        scrollTo(scrollY - lanesH());
        break;
      case 'PageDown':
        scrollTo(scrollY + lanesH());
        break;
      case '0':
      case 'Home':
        setWindow(0, total);
        break;
      default:
        return;
    }
    e.preventDefault();
    clearHover();
  };
  const onScroll = (): void => {
    if (Math.abs(scroller.scrollTop - scrollY) >= 1) {
      scrollY = clamp(scroller.scrollTop, 0, maxScroll());
      request();
    }
  };
  overlay.addEventListener('pointerdown', onDown);
  overlay.addEventListener('pointermove', onMove);
  overlay.addEventListener('pointerup', onUp);
  overlay.addEventListener('pointercancel', onUp);
  overlay.addEventListener('pointerleave', clearHover);
  overlay.addEventListener('wheel', onWheel, { passive: false });
  overlay.addEventListener('dblclick', onDbl);
  root.addEventListener('keydown', onKey);
  scroller.addEventListener('scroll', onScroll);
  zoomInBtn.addEventListener('click', () => zoomAt(1.5, (vs + ve) / 2));
  zoomOutBtn.addEventListener('click', () => zoomAt(1 / 1.5, (vs + ve) / 2));
  fitBtn.addEventListener('click', () => setWindow(0, total));
  pathBox.addEventListener('change', () => {
    showPath = pathBox.checked;
    request();
  });
  msgBox.addEventListener('change', () => {
    showMsgs = msgBox.checked;
    request();
  });

  const resize =
    typeof ResizeObserver === 'undefined'
      ? undefined
      : new ResizeObserver(() => {
          layout();
          request();
        });
  resize?.observe(plot);
  layout();
  draw();

  return {
    destroy(): void {
      destroyed = true;
      if (frame) cancelAnimationFrame(frame);
      if (overlayFrame) cancelAnimationFrame(overlayFrame);
      resize?.disconnect();
      hideTooltip();
      root.remove();
      for (const key of Object.keys(el.dataset)) delete el.dataset[key];
    },
  };
}
