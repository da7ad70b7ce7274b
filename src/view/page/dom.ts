/**
 * Element builders the page's views share: HTML and SVG elements with attributes set
 * in one call, and the views' toolbar buttons (styled by `.cv-btn` in style.css; each
 * view adds its own class so tests and styles can tell them apart).
 */

export const SVG_NS = 'http://www.w3.org/2000/svg';

export function svgEl<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number> = {}, text?: string): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

export function htmlEl<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...children);
  return e;
}

/** A toolbar button: `label` shown, `title` as its tooltip and accessible name, `action` in data-action. */
export function toolButton(viewClass: string, label: string, title: string, action: string): HTMLButtonElement {
  return htmlEl('button', { type: 'button', class: `cv-btn ${viewClass}`, title, 'aria-label': title, 'data-action': action }, label);
}
