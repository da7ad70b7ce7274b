/**
 * The one tooltip element every view shares: `showTooltip(x, y, rows)` at client
 * coordinates (kept inside the window), `hideTooltip()`. Rows are plain text (set with
 * textContent, so any string is safe): a string is a heading line, a pair is a
 * label and a value. The element is `#coll-tooltip` (role tooltip), which the
 * end-to-end tests read.
 */

/** A heading line, or a label and its value. */
export type TooltipRow = string | readonly [label: string, value: string];

export const TOOLTIP_ID = 'coll-tooltip';

let el: HTMLDivElement | undefined;

function element(): HTMLDivElement {
  if (el && el.isConnected) return el;
  el = document.createElement('div');
  el.id = TOOLTIP_ID;
  el.className = 'cv-tooltip';
  el.setAttribute('role', 'tooltip');
  el.hidden = true;
  document.body.append(el);
  return el;
}

/** Show `rows` near client point (x, y). */
export function showTooltip(x: number, y: number, rows: readonly TooltipRow[]): void {
  const t = element();
  const body = document.createElement('table');
  for (const row of rows) {
    const tr = document.createElement('tr');
    if (typeof row === 'string') {
      const th = document.createElement('th');
      th.colSpan = 2;
      th.textContent = row;
      tr.append(th);
    } else {
      const k = document.createElement('td');
      k.className = 'cv-tooltip-label';
      k.textContent = row[0];
      const v = document.createElement('td');
      v.className = 'cv-tooltip-value';
      v.textContent = row[1];
      tr.append(k, v);
    }
    body.append(tr);
  }
  t.replaceChildren(body);
  t.hidden = false;
  const pad = 12;
  const w = t.offsetWidth;
  const h = t.offsetHeight;
  const left = x + pad + w > window.innerWidth ? Math.max(0, x - pad - w) : x + pad;
  const top = y + pad + h > window.innerHeight ? Math.max(0, y - pad - h) : y + pad;
  t.style.left = `${left}px`;
  t.style.top = `${top}px`;
}

export function hideTooltip(): void {
  if (el) el.hidden = true;
}

/** The tooltip's text, one line per row with label and value tab-separated (for tests and debugging). */
export function tooltipText(): string {
  if (!el || el.hidden) return '';
  return [...el.querySelectorAll('tr')].map((tr) => [...tr.children].map((c) => c.textContent ?? '').join('\t')).join('\n');
}
