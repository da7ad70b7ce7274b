/** Formatting helpers shared by the model, tune, fit and reproduce commands. */
import { parseSize } from '../args.js';
import type { ParamValue } from '../../schedule/context.js';
import type { TermName } from '../../model/terms.js';

/** Seconds with an automatic unit: 812 ns, 14.1 µs, 2.35 ms, 1.20 s. */
export function formatTime(s: number): string {
  if (!Number.isFinite(s)) return String(s);
  const a = Math.abs(s);
  if (a >= 1) return `${s.toFixed(2)} s`;
  if (a >= 1e-3) return `${(s * 1e3).toFixed(2)} ms`;
  if (a >= 1e-6) return `${(s * 1e6).toFixed(2)} µs`;
  return `${(s * 1e9).toFixed(0)} ns`;
}

export function formatParams(p: Readonly<Record<string, ParamValue>>): string {
  const e = Object.entries(p);
  return e.length ? e.map(([k, v]) => `${k}=${String(v)}`).join(' ') : '-';
}

export function formatDominant(d: readonly { term: TermName; share: number }[]): string {
  return d.map((x) => `${x.term} ${(x.share * 100).toFixed(0)}%`).join(', ');
}

/** Parse a comma-separated list of sizes (with units: 4k = 4KiB = 4096; see parseSize). */
export function parseIntList(name: string, s: string): number[] {
  return s.split(',').map((x) => parseSize(name, x));
}

