/**
 * PLACEHOLDER written by B1 (the page shell) so that main.ts builds before helper
 * B2 lands the real model view: B2 overwrites this whole file. The contract is
 * the export below: mountModel(el, view) draws into el and returns { destroy() }.
 */
import type { ModelView } from '../document.js';

export function mountModel(el: HTMLElement, view: ModelView): { destroy(): void } {
  const p = document.createElement('p');
  p.className = 'cv-empty';
  p.textContent = `The model view is not built yet (${view.kind}).`;
  el.append(p);
  return { destroy: () => p.remove() };
}
