/**
 * The measured check of a decision table: a tuner that never makes things worse.
 *
 * For every collective of the table, every measured process count P and message size,
 * the table's choice and the default (the runtime's built-in selection, no table) run
 * in the same job (`coll bench`'s program with explicit cases), back to back, for
 * `repetitions` passes that alternate their order. Each pass gives a ratio
 * choice / default in which drift of the machine cancels; a choice is slower than the
 * default beyond noise when it was slower in EVERY pass (the smallest ratio exceeds 1)
 * and by more than `tolerance` (5%) in the median pass. Such a choice is rejected: its grid cell is
 * taken out of the table, so the runtime keeps its default there. A choice that is the
 * default's own algorithm with default parameters is kept as it is. The result lists
 * predicted and measured (median) times of both for every point, the median ratio and
 * the spread of the ratios (the noise).
 *
 * `inject` is a test seam: it replaces the table's choice for one collective by a
 * candidate slowed by a busy-wait after every call, a choice that loses by
 * construction, not by timing luck.
 */
import type { BenchCase, BenchRecord } from '../bench/bench-program.js';
import { runBenchJob, type BenchJob, type BenchResult } from '../bench/bench.js';
import { CollectivesError } from '../core/errors.js';
import { formatTable } from '../core/table.js';
import type { Machine } from '../model/machine.js';
import { isApplicable, predictAlgorithm, resolveScenario } from '../model/predict.js';
import type { ParamValue } from '../schedule/context.js';
import type { CollectiveKind } from '../schedule/types.js';
import { lookupDecision, type DecisionRule, type DecisionTable } from './decision.js';

export interface InjectedCandidate {
  readonly collective: CollectiveKind;
  readonly algorithm: string;
  readonly params?: Readonly<Record<string, ParamValue>>;
  /** Busy-wait after every call (µs). */
  readonly delayUs: number;
}

export interface VerifyOptions {
  /** Process counts to measure (each run as P / ppn node processes). */
  readonly procs: readonly number[];
  /** Message sizes to measure (default: the table's grid sizes). */
  readonly bytes?: readonly number[];
  /** Passes over the cases (default 3). */
  readonly repetitions?: number;
  /** Timed calls per case for messages ≤ 16 KiB (fewer beyond, as coll bench does; default 50). */
  readonly iterations?: number;
  /** Smallest relative difference counted as a loss (default 0.05). */
  readonly tolerance?: number;
  /** For the predicted times. */
  readonly machine: Machine;
  readonly model: string;
  readonly inject?: InjectedCandidate;
  /** Runs a benchmark job (default runBenchJob; tests may substitute). */
  readonly runner?: (job: BenchJob) => Promise<BenchResult>;
  readonly progress?: (done: number, total: number, what: string) => void;
}

export interface MeasuredSide {
  readonly algorithm: string;
  readonly params: Readonly<Record<string, ParamValue>>;
  /** Predicted seconds (undefined: the model has no such algorithm, e.g. the runtime's built-in paths). */
  readonly predicted?: number;
  /** Median seconds per call over the passes (mean over ranks of each pass). */
  readonly measured: number;
  /** (max − min) / median over the passes. */
  readonly spread: number;
}

export type Verdict = 'kept' | 'rejected';

export interface VerifiedPoint {
  readonly collective: CollectiveKind;
  readonly P: number;
  readonly bytes: number;
  readonly choice: MeasuredSide;
  readonly default: MeasuredSide;
  /** Median over the passes of choice / default. */
  readonly ratio: number;
  /** Smallest ratio of a pass (> 1: the choice lost every pass). */
  readonly minRatio: number;
  /** (max − min) / median of the passes' ratios. */
  readonly noise: number;
  readonly verdict: Verdict;
  /** The choice is what the default runs (same algorithm, default parameters). */
  readonly same?: boolean;
  readonly injected?: boolean;
}

export interface VerifyResult {
  /** The table with rejected cells removed (the runtime's default applies there). */
  readonly table: DecisionTable;
  readonly points: readonly VerifiedPoint[];
  /** Points that could not be measured, with the reason. */
  readonly skipped: readonly { collective: CollectiveKind; P: number; bytes: number; reason: string }[];
  readonly options: { procs: readonly number[]; bytes: readonly number[]; repetitions: number; iterations: number; tolerance: number };
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n === 0 ? NaN : n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

function spreadOf(xs: readonly number[]): number {
  const m = median(xs);
  return m > 0 ? (Math.max(...xs) - Math.min(...xs)) / m : 0;
}

function summarize(recs: readonly BenchRecord[], collective: string): { measured: number; spread: number; label: string } {
  const t = recs.map((r) => r.avg_us * 1e-6);
  const label = recs[0]?.algorithm ?? '?';
  return { measured: median(t), spread: spreadOf(t), label: label.startsWith(`${collective}/`) ? label.slice(collective.length + 1) : label };
}

/** Predicted seconds of an algorithm at a point (undefined when the model cannot cost it). */
function predict(machine: Machine, model: string, collective: CollectiveKind, P: number, ppn: number, bytes: number, datatype: string, op: string, algorithm: string, params: Readonly<Record<string, ParamValue>>): number | undefined {
  try {
    const s = resolveScenario({ collective, P, ppn, bytes, datatype, op });
    const r = predictAlgorithm(s, algorithm, machine, model, params);
    return isApplicable(r) ? r.time : undefined;
  } catch (e) {
    if (e instanceof CollectivesError) return undefined;
    throw e;
  }
}

/** The byte range of the grid cell holding `bytes` (as buildDecisionTable assigns them). */
function cellOf(grid: readonly number[], bytes: number): { lo: number; hi: number | null } {
  let j = 0;
  for (let i = 0; i < grid.length; i++) if (grid[i] <= bytes) j = i;
  return { lo: j === 0 ? 0 : grid[j], hi: j + 1 < grid.length ? grid[j + 1] - 1 : null };
}

/** Take the byte range [lo, hi] out of a rule (0, 1 or 2 rules remain). */
function without(rule: DecisionRule, lo: number, hi: number | null): DecisionRule[] {
  const out: DecisionRule[] = [];
  if (lo > rule.bytesMin) out.push({ ...rule, bytesMax: lo - 1 });
  if (hi !== null && (rule.bytesMax === null || hi < rule.bytesMax)) out.push({ ...rule, bytesMin: hi + 1 });
  return out;
}

export async function verifyDecisionTable(table: DecisionTable, o: VerifyOptions): Promise<VerifyResult> {
  const repetitions = o.repetitions ?? 3;
  const iterations = o.iterations ?? 50;
  const tolerance = o.tolerance ?? 0.05;
  const ppn = table.grid.ppn;
  const bytesList = [...new Set(o.bytes ?? table.grid.bytes)].sort((a, b) => a - b);
  const procs = [...new Set(o.procs)].sort((a, b) => a - b);
  const run = o.runner ?? ((job: BenchJob) => runBenchJob(job));
  const collectives = [...new Set(table.rules.map((r) => r.collective))];
  const points: VerifiedPoint[] = [];
  const skipped: { collective: CollectiveKind; P: number; bytes: number; reason: string }[] = [];
  const rejected: { rule: DecisionRule; bytes: number }[] = [];
  const jobs = collectives.flatMap((c) => procs.map((P) => ({ c, P })));
  let done = 0;
  for (const { c, P } of jobs) {
    const sizes = c === 'barrier' ? [0] : bytesList;
    const cases: BenchCase[] = [];
    const at: { bytes: number; rule: DecisionRule; choice: BenchCase }[] = [];
    let datatype = 'float64';
    let op = 'sum';
    for (const b of sizes) {
      const rule = lookupDecision(table, { collective: c, P, bytes: b, ppn });
      if (!rule) {
        skipped.push({ collective: c, P, bytes: b, reason: 'no rule in the table' });
        continue;
      }
      datatype = rule.datatype;
      op = rule.op;
      const inj = o.inject?.collective === c ? o.inject : undefined;
      const choice: BenchCase = inj
        ? { algorithm: inj.algorithm, params: inj.params ?? {}, bytes: b, delayUs: inj.delayUs }
        : { algorithm: rule.algorithm, params: rule.params, bytes: b };
      cases.push({ algorithm: null, bytes: b }, choice);
      at.push({ bytes: b, rule, choice });
    }
    done++;
    if (P % ppn !== 0) {
      for (const a of at) skipped.push({ collective: c, P, bytes: a.bytes, reason: `P is not a multiple of ppn = ${ppn}` });
      continue;
    }
    if (cases.length === 0) continue;
    o.progress?.(done, jobs.length, `${c} P=${P}: ${at.length} sizes × (choice, default) × ${repetitions}`);
    const res = await run({
      collective: c,
      algorithms: [],
      minBytes: 0,
      maxBytes: Math.max(...sizes),
      iterations,
      warmup: Math.max(2, Math.floor(iterations / 10)),
      shared: true,
      datatype: datatype as BenchJob['datatype'],
      op,
      cases,
      repetitions,
      ranks: P,
      nodes: P / ppn,
      // The default is the runtime's built-in selection, whatever the caller's environment names.
      env: { COLL_DECISION_TABLE: '' },
    });
    at.forEach((a, k) => {
      const dRecs = res.records.filter((r) => r.case === 2 * k);
      const cRecs = res.records.filter((r) => r.case === 2 * k + 1);
      if (dRecs.length === 0 || cRecs.length === 0) {
        const why = res.skipped.find((s) => (s as { case?: number }).case === 2 * k + 1 || (s as { case?: number }).case === 2 * k);
        skipped.push({ collective: c, P, bytes: a.bytes, reason: why ? why.reason : 'no measurement' });
        return;
      }
      const d = summarize(dRecs, c);
      const ch = summarize(cRecs, c);
      const ratios: number[] = [];
      for (const x of cRecs) {
        const y = dRecs.find((r) => r.rep === x.rep);
        if (y && y.avg_us > 0) ratios.push(x.avg_us / y.avg_us);
      }
      const params = a.choice.params ?? {};
      const same = !a.choice.delayUs && a.choice.algorithm === d.label && Object.keys(params).length === 0;
      const minRatio = Math.min(...ratios);
      const verdict: Verdict = !same && minRatio > 1 && median(ratios) > 1 + tolerance ? 'rejected' : 'kept';
      points.push({
        collective: c,
        P,
        bytes: a.bytes,
        choice: { algorithm: a.choice.algorithm ?? '?', params, predicted: predict(o.machine, o.model, c, P, ppn, a.bytes, datatype, op, a.choice.algorithm ?? '', params), measured: ch.measured, spread: ch.spread },
        default: { algorithm: d.label, params: {}, predicted: predict(o.machine, o.model, c, P, ppn, a.bytes, datatype, op, d.label, {}), measured: d.measured, spread: d.spread },
        ratio: median(ratios),
        minRatio,
        noise: spreadOf(ratios),
        verdict,
        ...(same ? { same: true } : {}),
        ...(a.choice.delayUs ? { injected: true } : {}),
      });
      if (verdict === 'rejected') rejected.push({ rule: a.rule, bytes: a.bytes });
    });
  }
  // Take the rejected cells out of their rules.
  let rules = [...table.rules];
  for (const { rule, bytes } of rejected) {
    const { lo, hi } = rule.collective === 'barrier' ? { lo: 0, hi: null } : cellOf(table.grid.bytes, bytes);
    const live = rules.find((r) => r.collective === rule.collective && r.ppn === rule.ppn && r.pMin === rule.pMin && r.pMax === rule.pMax && r.bytesMin <= bytes && (r.bytesMax === null || r.bytesMax >= bytes));
    if (!live) continue;
    const i = rules.indexOf(live);
    rules = [...rules.slice(0, i), ...without(live, lo, hi), ...rules.slice(i + 1)];
  }
  return {
    table: { ...table, rules, verified: { procs, bytes: bytesList, repetitions, measured: points.length, rejected: rejected.length } },
    points,
    skipped,
    options: { procs, bytes: bytesList, repetitions, iterations, tolerance },
  };
}

const fmt = (s: number | undefined): string => (s === undefined || !Number.isFinite(s) ? '—' : s >= 1e-3 ? `${(s * 1e3).toFixed(2)} ms` : `${(s * 1e6).toFixed(1)} µs`);
const paramText = (p: Readonly<Record<string, ParamValue>>): string => Object.entries(p).map(([k, v]) => `${k}=${String(v)}`).join(',');

/** The tuning report's measured section (text). */
export function verifyReport(r: VerifyResult): string {
  const o = r.options;
  const lines: string[] = [];
  lines.push(
    `measured check: P = ${o.procs.join(', ')}; ${o.bytes.length} sizes ${o.bytes[0]} … ${o.bytes[o.bytes.length - 1]} B; median of ${o.repetitions} alternating passes of ${o.iterations} calls; ` +
      `a choice loses when it is slower than the default in every pass and by more than ${(o.tolerance * 100).toFixed(0)}% in the median`,
  );
  const head = ['collective', 'P', 'bytes', 'choice', 'predicted', 'measured', 'default', 'predicted', 'measured', 'choice/default', 'verdict'];
  const rows = r.points.map((p) => [
    p.collective,
    String(p.P),
    String(p.bytes),
    `${p.choice.algorithm}${Object.keys(p.choice.params).length ? ` ${paramText(p.choice.params)}` : ''}${p.injected ? ' (injected, slowed)' : ''}`,
    fmt(p.choice.predicted),
    fmt(p.choice.measured),
    p.default.algorithm,
    fmt(p.default.predicted),
    fmt(p.default.measured),
    `${p.ratio.toFixed(2)} (min ${p.minRatio.toFixed(2)}, spread ${(p.noise * 100).toFixed(0)}%)`,
    p.verdict === 'rejected' ? 'REJECTED: default kept' : p.same ? 'kept (= default)' : 'kept',
  ]);
  for (const x of formatTable([head, ...rows], { align: ['l', 'r', 'r', 'l', 'r', 'r', 'l', 'r', 'r'] })) lines.push(`  ${x}`);
  const rej = r.points.filter((p) => p.verdict === 'rejected');
  lines.push(
    rej.length === 0
      ? `no choice is slower than the default beyond noise on the ${r.points.length} measured points`
      : `${rej.length} of ${r.points.length} measured choices were slower than the default beyond noise and are not in the table (the runtime's default runs there): ${rej.map((p) => `${p.collective} P=${p.P} ${p.bytes} B ${p.choice.algorithm}`).join('; ')}`,
  );
  if (r.skipped.length) lines.push(`not measured: ${r.skipped.map((s) => `${s.collective} P=${s.P} ${s.bytes} B (${s.reason})`).join('; ')}`);
  return lines.join('\n');
}
