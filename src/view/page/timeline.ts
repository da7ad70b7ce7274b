/**
 * PLACEHOLDER written by B1 (the page shell) so that main.ts builds before helper
 * C lands the real timeline view: C overwrites this whole file. The contract is
 * the export below: mountTimeline(el, view) draws into el and returns { destroy() }.
 */
import type { TimelineView } from '../document.js';

export function mountTimeline(el: HTMLElement, view: TimelineView): { destroy(): void } {
  const p = document.createElement('p');
  p.className = 'cv-empty';
  p.textContent = `The timeline view is not built yet (${view.kind}).`;
  el.append(p);
  return { destroy: () => p.remove() };
}
