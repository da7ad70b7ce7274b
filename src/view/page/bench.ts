/**
 * PLACEHOLDER written by B1 (the page shell) so that main.ts builds before helper
 * B2 lands the real bench view: B2 overwrites this whole file. The contract is
 * the export below: mountBench(el, view) draws into el and returns { destroy() }.
 */
import type { BenchView } from '../document.js';

export function mountBench(el: HTMLElement, view: BenchView): { destroy(): void } {
  const p = document.createElement('p');
  p.className = 'cv-empty';
  p.textContent = `The bench view is not built yet (${view.kind}).`;
  el.append(p);
  return { destroy: () => p.remove() };
}
