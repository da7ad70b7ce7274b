/**
 * Decision tables: the tuner's choices over a grid of process counts and message
 * sizes, stored as JSON ranges for the runtime's automatic selection.
 *
 * A rule covers P in [pMin, pMax] and bytes per rank in [bytesMin, bytesMax] (pMax /
 * bytesMax null = unbounded) for one collective (and datatype, op, ppn), naming the
 * algorithm and its parameters. Grid point i covers [p_i, p_{i+1} − 1] (the first also
 * everything below it), and adjacent byte ranges with the same choice are merged.
 * `lookupDecision` returns the rule for a call; the runtime must still check the
 * algorithm's restrictions for the actual P (a rule tuned at P = 64 may name a
 * power-of-two algorithm for P = 80) and use the algorithm's `fallback` when they fail.
 */
import { listAlgorithms } from '../algorithms/registry.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { ArgumentError } from '../core/errors.js';
import type { Machine } from '../model/machine.js';
import type { ParamValue } from '../schedule/context.js';
import { COLLECTIVES, type CollectiveKind } from '../schedule/types.js';
import { tune, type TuneOptions } from './tuner.js';

export const DECISION_FORMAT = 'collectives-decisions/1';

export interface DecisionRule {
  readonly collective: CollectiveKind;
  readonly datatype: string;
  readonly op: string;
  readonly ppn: number;
  readonly pMin: number;
  readonly pMax: number | null;
  readonly bytesMin: number;
  readonly bytesMax: number | null;
  readonly algorithm: string;
  readonly params: Readonly<Record<string, ParamValue>>;
  /** Predicted seconds at the grid point that chose the rule. */
  readonly predicted: number;
}

export interface DecisionTable {
  readonly format: typeof DECISION_FORMAT;
  readonly machine: string;
  readonly model: string;
  readonly generated: string;
  readonly grid: { readonly procs: readonly number[]; readonly bytes: readonly number[]; readonly ppn: number };
  readonly rules: readonly DecisionRule[];
  /**
   * Present when `coll tune` checked the table by measuring (verify.ts): where, and how
   * many measured choices lost to the default and were taken out.
   */
  readonly verified?: { readonly procs: readonly number[]; readonly bytes: readonly number[]; readonly repetitions: number; readonly measured: number; readonly rejected: number };
}

export interface BuildOptions extends TuneOptions {
  collectives: readonly CollectiveKind[];
  procs: readonly number[];
  bytes: readonly number[];
  ppn?: number;
  datatype?: string;
  op?: string;
  /** Called after each grid point (for progress displays). */
  progress?: (done: number, total: number, what: string) => void;
}

/** Default grids: P = 2, 3, 4, 6, 8, 12, … 256; bytes = 8 B … 1 MiB in powers of 4. */
export function defaultGrid(): { procs: number[]; bytes: number[] } {
  const procs: number[] = [];
  for (let p = 2; p <= 256; p *= 2) {
    procs.push(p);
    if (p * 1.5 <= 256 && p >= 2) procs.push(p * 1.5);
  }
  const bytes: number[] = [];
  for (let b = 8; b <= 1 << 20; b *= 4) bytes.push(b);
  return { procs: [...new Set(procs)].sort((a, b) => a - b), bytes };
}

export function buildDecisionTable(machine: Machine, o: BuildOptions): DecisionTable {
  const ppn = o.ppn ?? 1;
  const datatype = o.datatype ?? 'float64';
  const op = o.op ?? 'sum';
  const procs = [...new Set(o.procs)].sort((a, b) => a - b).filter((p) => p >= ppn && p % ppn === 0);
  const bytes = [...new Set(o.bytes)].sort((a, b) => a - b);
  if (procs.length === 0) throw new ArgumentError(`no process count in the grid is a multiple of ppn = ${ppn}`);
  const rules: DecisionRule[] = [];
  const total = o.collectives.length * procs.length * bytes.length;
  let done = 0;
  for (const collective of o.collectives) {
    const cBytes = collective === 'barrier' ? [0] : bytes;
    procs.forEach((P, i) => {
      const pMin = i === 0 ? 1 : P;
      const pMax = i + 1 < procs.length ? procs[i + 1] - 1 : null;
      let current: DecisionRule | undefined;
      cBytes.forEach((b, j) => {
        // The runtime's communicators have no mesh placement: mesh algorithms would only
        // ever run as their fallback, so a table for it does not rank them.
        const algorithms = o.algorithms ?? listAlgorithms(collective).filter((a) => a.topology !== 'mesh').map((a) => a.name);
        const r = tune({ collective, P, ppn, bytes: b, datatype, op }, machine, { ...o, algorithms });
        done += collective === 'barrier' ? bytes.length : 1;
        const best = r.ranked[0];
        o.progress?.(done, total, `${collective} P=${P} ${b} B → ${best ? best.algorithm : 'none'}`);
        if (!best) {
          current = undefined;
          return;
        }
        const bytesMin = j === 0 ? 0 : b;
        const bytesMax = j + 1 < cBytes.length ? cBytes[j + 1] - 1 : null;
        if (current && current.algorithm === best.algorithm && sameParams(current.params, best.params)) {
          current = { ...current, bytesMax };
          rules[rules.length - 1] = current;
        } else {
          current = { collective, datatype, op, ppn, pMin, pMax, bytesMin, bytesMax, algorithm: best.algorithm, params: best.params, predicted: best.time };
          rules.push(current);
        }
      });
    });
  }
  return {
    format: DECISION_FORMAT,
    machine: machine.name,
    model: o.model ?? 'dag',
    generated: new Date().toISOString(),
    grid: { procs, bytes, ppn },
    rules,
  };
}

function sameParams(a: Readonly<Record<string, ParamValue>>, b: Readonly<Record<string, ParamValue>>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

export interface DecisionQuery {
  collective: CollectiveKind;
  P: number;
  bytes: number;
  datatype?: string;
  op?: string;
  ppn?: number;
}

/**
 * The rule for a call: matching collective (and datatype / op when given), P and bytes
 * inside the rule's ranges; among several (tables for several ppn) the rule with the
 * nearest ppn. Undefined when the table has nothing for the call.
 */
export function lookupDecision(t: DecisionTable, q: DecisionQuery): DecisionRule | undefined {
  const inRange = (v: number, lo: number, hi: number | null): boolean => v >= lo && (hi === null || v <= hi);
  const hits = t.rules.filter(
    (r) =>
      r.collective === q.collective &&
      (q.datatype === undefined || r.datatype === q.datatype) &&
      (q.op === undefined || r.op === q.op) &&
      inRange(q.P, r.pMin, r.pMax) &&
      inRange(q.bytes, r.bytesMin, r.bytesMax),
  );
  if (hits.length === 0) return undefined;
  const ppn = q.ppn ?? 1;
  return hits.reduce((best, r) => (Math.abs(r.ppn - ppn) < Math.abs(best.ppn - ppn) ? r : best));
}

export function decisionTableFromJson(data: unknown, origin = 'decision table'): DecisionTable {
  const d = data as Partial<DecisionTable> | null;
  if (!d || typeof d !== 'object' || d.format !== DECISION_FORMAT || !Array.isArray(d.rules)) {
    throw new ArgumentError(`${origin} is not a decision table (format '${DECISION_FORMAT}' with a 'rules' array)`, "write one with 'coll tune --out table.json'");
  }
  for (const [i, r] of d.rules.entries()) {
    if (!COLLECTIVES.includes(r.collective) || typeof r.algorithm !== 'string' || typeof r.pMin !== 'number' || typeof r.bytesMin !== 'number') {
      throw new ArgumentError(`${origin}: rule ${i} is malformed (needs collective, algorithm, pMin, bytesMin)`);
    }
  }
  return d as DecisionTable;
}

export function loadDecisionTable(path: string): DecisionTable {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ArgumentError(`cannot read decision table '${path}': ${(e as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new ArgumentError(`decision table '${path}' is not valid JSON: ${(e as Error).message}`);
  }
  return decisionTableFromJson(data, `decision table '${path}'`);
}

export function saveDecisionTable(path: string, t: DecisionTable): void {
  writeFileSync(path, `${JSON.stringify(t, null, 1)}\n`);
}
