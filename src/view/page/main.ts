/**
 * The `coll view` page's shell: reads the ViewDocument (embedded by `--export` in
 * `<script type="application/json" id="coll-view-data">`, else fetched from
 * document.json next to the page), lists the loaded files as tabs (name and kind),
 * and mounts the selected file's view (schedule.ts, timeline.ts, bench.ts, model.ts)
 * into the content area. Keyboard: arrow keys, Home and End in the file list; 1–9,
 * [ and ] anywhere. The selected file is kept in the URL's hash (#file=N).
 * When a view is mounted the root element gets data-ready="true".
 */
import './style.css';
import type { ViewDocument, ViewFile } from '../document.js';
import { mountSchedule } from './schedule.js';
import { mountTimeline } from './timeline.js';
import { mountBench } from './bench.js';
import { mountModel } from './model.js';
import { hideTooltip } from './tooltip.js';
import { formatBytes } from './format.js';

interface Mounted {
  destroy(): void;
}

const DATA_ELEMENT_ID = 'coll-view-data';

/** The document: embedded, or fetched from the server. */
async function loadDocument(): Promise<ViewDocument> {
  const embedded = document.getElementById(DATA_ELEMENT_ID);
  if (embedded?.textContent) return JSON.parse(embedded.textContent) as ViewDocument;
  const r = await fetch('document.json', { cache: 'no-store' });
  if (!r.ok) throw new Error(`document.json: HTTP ${r.status} ${r.statusText}\n${await r.text()}`);
  return (await r.json()) as ViewDocument;
}

/** One line saying what a file holds, shown under its name and above its view. */
export function describeFile(f: ViewFile): string {
  switch (f.kind) {
    case 'schedule':
      return `${f.collective} ${f.algorithm}, ${f.size} ranks, ${f.rounds} rounds`;
    case 'timeline':
      return `${f.source === 'sim' ? 'simulated' : 'measured'} run, ${f.ranks} ranks, ${f.spans.lane.length} spans`;
    case 'bench': {
      const sizes = new Set(f.series.flatMap((s) => s.bytes));
      const lo = Math.min(...sizes);
      const hi = Math.max(...sizes);
      const range = sizes.size ? `, ${formatBytes(lo)}${hi > lo ? ` … ${formatBytes(hi)}` : ''}` : '';
      return `${f.series.length} series${range}${f.ratios.length ? `, ${f.ratios.length} ratios` : ''}`;
    }
    case 'model':
      return `${f.points.length} points`;
  }
}

function mount(el: HTMLElement, f: ViewFile): Mounted {
  switch (f.kind) {
    case 'schedule':
      return mountSchedule(el, f);
    case 'timeline':
      return mountTimeline(el, f);
    case 'bench':
      return mountBench(el, f);
    case 'model':
      return mountModel(el, f);
  }
}

function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...children);
  return e;
}

function errorBox(title: string, e: unknown): HTMLElement {
  const msg = e instanceof Error ? e.message : String(e);
  return h('div', { class: 'cv-error', role: 'alert' }, h('strong', {}, title), h('pre', {}, msg));
}

/** Whether a key press belongs to a text field rather than to the page's shortcuts. */
function typing(t: EventTarget | null): boolean {
  return t instanceof HTMLElement && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName));
}

function start(root: HTMLElement, doc: ViewDocument): void {
  const files = doc.files;
  const list = h('div', { class: 'cv-tabs', role: 'tablist', 'aria-orientation': 'vertical', 'aria-label': 'Loaded files' });
  const panel = h('main', { class: 'cv-panel', id: 'cv-panel', role: 'tabpanel', tabindex: '-1' });
  const heading = h('div', { class: 'cv-panel-head' });
  const stage = h('div', { class: 'cv-stage' });
  panel.append(heading, stage);
  const tabs = files.map((f, i) => {
    const tab = h(
      'button',
      { type: 'button', role: 'tab', id: `cv-tab-${i}`, class: 'cv-tab', 'aria-controls': 'cv-panel', 'aria-selected': 'false', tabindex: '-1', 'data-index': String(i), 'data-kind': f.kind, title: f.name },
      h('span', { class: `cv-kind cv-kind-${f.kind}` }, f.kind),
      h('span', { class: 'cv-name' }, f.name),
      h('span', { class: 'cv-desc' }, describeFile(f)),
    );
    tab.addEventListener('click', () => select(i, false));
    list.append(tab);
    return tab;
  });
  const generated = doc.generated ? new Date(doc.generated) : undefined;
  const header = h(
    'header',
    { class: 'cv-header' },
    h('h1', {}, 'coll view'),
    h('span', { class: 'cv-sub' }, `${files.length} file${files.length === 1 ? '' : 's'}${generated && !Number.isNaN(generated.getTime()) ? ` · ${generated.toLocaleString()}` : ''}`),
    h('span', { class: 'cv-keys', 'aria-hidden': 'true' }, 'keys: ↑ ↓ in the list, 1–9, [ ]'),
  );
  const nav = h('nav', { class: 'cv-files', 'aria-label': 'Files' }, list);
  root.replaceChildren(header, h('div', { class: 'cv-body' }, nav, panel));

  let current = -1;
  let mounted: Mounted | undefined;

  function select(i: number, focus: boolean): void {
    if (i < 0 || i >= files.length) return;
    if (focus) tabs[i].focus();
    if (i === current) return;
    hideTooltip();
    try {
      mounted?.destroy();
    } catch (e) {
      console.error(e);
    }
    mounted = undefined;
    tabs.forEach((t, j) => {
      t.setAttribute('aria-selected', String(j === i));
      t.tabIndex = j === i ? 0 : -1;
    });
    current = i;
    const f = files[i];
    root.dataset.ready = 'false';
    panel.setAttribute('aria-labelledby', `cv-tab-${i}`);
    panel.dataset.kind = f.kind;
    panel.dataset.index = String(i);
    heading.replaceChildren(h('h2', {}, f.name), h('span', { class: 'cv-desc' }, `${f.kind} · ${describeFile(f)}`));
    const el = h('div', { class: `cv-view cv-view-${f.kind}` });
    stage.replaceChildren(el);
    if (history.replaceState) history.replaceState(null, '', `#file=${i}`);
    try {
      mounted = mount(el, f);
    } catch (e) {
      console.error(e);
      el.replaceChildren(errorBox(`The ${f.kind} view failed to draw ${f.name}`, e));
    }
    root.dataset.ready = 'true';
  }

  list.addEventListener('keydown', (e) => {
    const next = { ArrowDown: current + 1, ArrowRight: current + 1, ArrowUp: current - 1, ArrowLeft: current - 1, Home: 0, End: files.length - 1 }[e.key];
    if (next === undefined) return;
    e.preventDefault();
    select(Math.max(0, Math.min(files.length - 1, next)), true);
  });
  document.addEventListener('keydown', (e) => {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || typing(e.target)) return;
    if (/^[1-9]$/.test(e.key) && Number(e.key) <= files.length) select(Number(e.key) - 1, true);
    else if (e.key === ']' && current < files.length - 1) select(current + 1, true);
    else if (e.key === '[' && current > 0) select(current - 1, true);
    else return;
    e.preventDefault();
  });
  window.addEventListener('hashchange', () => select(fromHash(), false));

  function fromHash(): number {
    const m = /^#file=(\d+)$/.exec(location.hash);
    const i = m ? Number(m[1]) : 0;
    return i < files.length ? i : 0;
  }

  if (files.length === 0) {
    stage.replaceChildren(h('p', { class: 'cv-empty' }, 'No files loaded.'));
    root.dataset.ready = 'true';
    return;
  }
  select(fromHash(), false);
}

async function boot(): Promise<void> {
  const root = document.getElementById('coll-view') ?? document.body.appendChild(h('div', { id: 'coll-view' }));
  root.dataset.ready = 'false';
  let doc: ViewDocument;
  try {
    doc = await loadDocument();
    if (doc.format !== 'collectives-view' || !Array.isArray(doc.files)) throw new Error(`not a coll view document (format '${String(doc.format)}')`);
  } catch (e) {
    root.replaceChildren(errorBox('The document could not be loaded', e));
    root.dataset.ready = 'error';
    return;
  }
  start(root, doc);
}

void boot();
