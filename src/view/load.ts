/**
 * `coll view`'s input side: reads the files the other commands write, recognises
 * each one's kind (by its `format` tag, else by its shape), validates it (zod) and
 * normalises it into a ViewFile (src/view/document.ts):
 *
 * - schedule: `coll schedule … --json` ({format 'collectives-schedule', schedule, stats},
 *   or the untagged {schedule, stats} of older versions) → ScheduleView;
 * - timeline: Chrome traces of `coll sim --trace` and `coll run --trace` → TimelineView
 *   through src/view/timeline/load.ts;
 * - bench: JSON lines of `coll bench --json` (BenchRecord, peer lines with `impl`) and
 *   the MatrixRun of `coll bench matrix --json` → BenchView: the median per size of
 *   every (impl, collective, ranks, algorithm, variant), and with a peer the ratio
 *   cells ours / peer;
 * - model: `coll tune --report` and `coll fit --report` → ModelView.
 *
 * Errors name the file, what was wrong (with the JSON path), and which commands write
 * each kind.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { createRequire } from 'node:module';
import type * as Zod from 'zod';
import { ArgumentError } from '../core/errors.js';
import { matrixJobs, medianOf, summarize, type MatrixJob, type MatrixRun } from '../bench/matrix.js';
import { median } from '../core/stats.js';
import type { BenchRatio, BenchSeries, BenchView, ModelPoint, ModelView, ScheduleStepView, ScheduleView, ViewDocument, ViewFile, ViewKind } from './document.js';
import { loadTimeline } from './timeline/load.js';

/** The format tags of the files coll view reads, and the document it makes. */
export const FORMATS = {
  schedule: 'collectives-schedule',
  timeline: 'collectives-timeline',
  matrix: 'collectives-bench-matrix',
  tune: 'collectives-tune-report',
  fit: 'collectives-fit-report',
  view: 'collectives-view',
} as const;

/** The commands that write each kind of file (for error messages, `coll view --help` and docs/view.md). */
export const PRODUCERS: Readonly<Record<ViewKind, string>> = {
  schedule: 'coll schedule <collective> <algorithm> … --json > F',
  timeline: 'coll sim … --trace F, coll run --trace F …',
  bench: 'coll bench <collective> … --json > F, coll bench matrix … --json F',
  model: 'coll tune … --verify --report F, coll fit … --report F',
};

const KNOWN = `coll view reads: ${(Object.keys(PRODUCERS) as ViewKind[]).map((k) => `${k} (${PRODUCERS[k]})`).join('; ')}`;

/** A load error: `file: message`, with the producing commands as the hint. */
function fail(name: string, message: string, kind?: ViewKind): never {
  throw new ArgumentError(`${name}: ${message}`, kind ? `a ${kind} file is written by ${PRODUCERS[kind]}` : KNOWN);
}

/** A zod issue as `path: message` (path in JavaScript notation, e.g. schedule[2].steps[0].round). */
function issueText(issues: readonly Zod.core.$ZodIssue[]): string {
  const first = issues[0];
  if (!first) return 'invalid';
  let path = '';
  for (const p of first.path) path += typeof p === 'number' ? `[${p}]` : path === '' ? String(p) : `.${String(p)}`;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? 's' : ''})` : '';
  return `${path === '' ? '' : `${path}: `}${first.message}${more}`;
}

function check<T>(schema: Zod.ZodType<T>, value: unknown, name: string, what: string, kind: ViewKind): T {
  const r = schema.safeParse(value);
  if (!r.success) fail(name, `${what}, but ${issueText(r.error.issues)}`, kind);
  return r.data;
}

function checkVersion(v: unknown, name: string, what: string, kind: ViewKind): void {
  if (v !== undefined && v !== 1) fail(name, `${what} of version ${JSON.stringify(v)}; this coll view reads version 1 (update collectives)`, kind);
}

// ------------------------------------------------------------------ schemas

/** The zod schemas of the files, built on first use (zod loads when a file is read, not when the CLI starts). */
function buildSchemas(z: typeof Zod.z) {
  const count = z.number().int().min(0);
  const finite = z.number().refine(Number.isFinite, 'must be a finite number');
  const region = z.looseObject({ buf: count, offset: count, count });
  const scheduleStep = z.looseObject({
    kind: z.string(),
    peer: count.optional(),
    region: region.optional(),
    src: region.optional(),
    dst: region.optional(),
    inputs: z.array(region).optional(),
    deps: z.array(count),
    round: count,
    phase: z.string().optional(),
  });
  const rankSchedule = z.looseObject({
    collective: z.string(),
    algorithm: z.string(),
    rank: count,
    size: z.number().int().min(1),
    steps: z.array(scheduleStep),
    rounds: count,
  });
  const scheduleFile = z.looseObject({
    format: z.literal(FORMATS.schedule).optional(),
    version: z.unknown().optional(),
    elementBytes: z.number().positive().optional(),
    schedule: z.array(rankSchedule).min(1, 'must list at least one rank'),
    stats: z.record(z.string(), z.unknown()).optional(),
  });

  const benchRecord = z.looseObject({
    collective: z.string(),
    algorithm: z.string().optional(),
    requested: z.string().optional(),
    mode: z.string().optional(),
    nonblocking: z.boolean().optional(),
    communicator: z.string().optional(),
    ranks: z.number().int().min(1),
    nodes: z.number().int().min(1).optional(),
    bytes: count,
    avg_us: finite.refine((v) => v >= 0, 'must be ≥ 0'),
    impl: z.string().optional(),
    params: z.record(z.string(), z.unknown()).optional(),
  });
  const matrixJob = z.looseObject({
    collective: z.string(),
    ranks: z.number().int().min(1),
    sizes: z.array(count),
    datatype: z.string(),
    op: z.string(),
    kind: z.enum(['grid', 'spot', 'variant']),
    nonblocking: z.boolean().optional(),
    communicator: z.string().optional(),
  });
  const matrixFile = z.looseObject({
    format: z.literal(FORMATS.matrix).optional(),
    version: z.unknown().optional(),
    started: z.string(),
    finished: z.string().optional(),
    machine: z.string().optional(),
    options: z.looseObject({
      collectives: z.array(z.string()),
      sizes: z.array(count),
      ranks: z.array(z.number().int().min(1)),
      peers: z.array(z.string()),
      reps: z.number().int().min(1).optional(),
      iterations: z.number().int().min(1).optional(),
      nodes: z.number().int().min(1).optional(),
      algorithm: z.string().optional(),
    }),
    samples: z.array(
      z.looseObject({
        impl: z.string(),
        job: matrixJob,
        bytes: count,
        rep: count,
        avg_us: finite,
        algorithm: z.string().optional(),
      }),
    ),
  });

  const measuredSide = z.looseObject({
    algorithm: z.string(),
    params: z.record(z.string(), z.unknown()).optional(),
    predicted: finite.optional(),
    measured: finite,
  });
  const tuneReport = z.looseObject({
    format: z.literal(FORMATS.tune).optional(),
    version: z.unknown().optional(),
    machine: z.string(),
    model: z.string(),
    ppn: z.number().optional().nullable(),
    rules: z.array(z.unknown()),
    verified: z
      .looseObject({
        points: z.array(z.looseObject({ collective: z.string(), P: z.number().int().min(1), bytes: count, choice: measuredSide, default: measuredSide, verdict: z.string().optional(), ratio: finite.optional() })),
        skipped: z.array(z.unknown()).optional(),
      })
      .nullable(),
  });

  const fitReport = z.looseObject({
    format: z.literal(FORMATS.fit),
    version: z.unknown().optional(),
    machine: z.string().optional(),
    source: z.string().optional(),
    description: z.string().optional(),
    missing: z.array(z.string()).optional(),
    series: z.array(
      z.looseObject({
        name: z.string(),
        kind: z.string(),
        x: z.string().optional(),
        samples: z
          .looseObject({ x: z.array(finite), measured: z.array(finite), predicted: z.array(finite) })
          .refine((v) => v.x.length === v.measured.length && v.x.length === v.predicted.length, 'x, measured and predicted must have equal lengths'),
      }),
    ),
  });
  return { scheduleFile, benchRecord, matrixFile, measuredSide, tuneReport, fitReport };
}
type Schemas = ReturnType<typeof buildSchemas>;
let built: Schemas | undefined;
const schemas = (): Schemas => (built ??= buildSchemas((createRequire(import.meta.url)('zod') as typeof Zod).z));

// ------------------------------------------------------------------ schedule

function scheduleView(json: unknown, name: string): ScheduleView {
  const what = 'a schedule (coll schedule --json)';
  const f = check(schemas().scheduleFile, json, name, what, 'schedule');
  checkVersion(f.version, name, what, 'schedule');
  const size = f.schedule[0].size;
  const elementBytes = f.elementBytes ?? 8;
  const seen = new Set<number>();
  const ranks = [...f.schedule]
    .sort((a, b) => a.rank - b.rank)
    .map((r) => {
      const at = `schedule[${f.schedule.indexOf(r)}]`;
      if (r.size !== size) fail(name, `${what}, but ${at}.size is ${r.size} where rank ${f.schedule[0].rank} says ${size}`, 'schedule');
      if (r.rank >= size || seen.has(r.rank)) fail(name, `${what}, but ${at}.rank ${r.rank} is ${r.rank >= size ? `not below the size ${size}` : 'listed twice'}`, 'schedule');
      seen.add(r.rank);
      const steps = r.steps.map((s, j): ScheduleStepView => {
        const here = `${at}.steps[${j}]`;
        if (s.peer !== undefined && s.peer >= size) fail(name, `${what}, but ${here}.peer ${s.peer} is not below the size ${size}`, 'schedule');
        const bad = s.deps.find((d) => d >= r.steps.length);
        if (bad !== undefined) fail(name, `${what}, but ${here}.deps names step ${bad} of a rank with ${r.steps.length} steps`, 'schedule');
        const n = (s.region ?? s.dst ?? s.src)?.count ?? 0;
        return {
          kind: s.kind,
          round: s.round,
          ...(s.peer !== undefined ? { peer: s.peer } : {}),
          count: n,
          bytes: n * elementBytes,
          deps: s.deps,
          ...(s.phase !== undefined ? { phase: s.phase } : {}),
        };
      });
      return { rank: r.rank, steps };
    });
  return {
    kind: 'schedule',
    collective: f.schedule[0].collective,
    algorithm: f.schedule[0].algorithm,
    size,
    rounds: Math.max(0, ...f.schedule.map((r) => r.rounds)),
    elementBytes,
    ranks,
    ...(f.stats ? { stats: f.stats } : {}),
  };
}

// ------------------------------------------------------------------ bench

type BenchLine = Zod.infer<Schemas['benchRecord']>;

/** The variant label of a call: nonblocking, dup, split, a non-host mode, '' for the plain call. */
function variantOf(parts: readonly (string | false | undefined)[]): string {
  return parts.filter((p): p is string => typeof p === 'string' && p !== '').join(' ');
}

function paramText(p: Readonly<Record<string, unknown>> | undefined): string {
  return p ? Object.entries(p).map(([k, v]) => `${k}=${String(v)}`).join(' ') : '';
}

interface Group {
  readonly key: Omit<BenchSeries, 'bytes' | 'us'>;
  readonly bySize: Map<number, number[]>;
}

function addTo(groups: Map<string, Group>, key: Omit<BenchSeries, 'bytes' | 'us'>, bytes: number, us: number): void {
  const k = JSON.stringify([key.impl, key.collective, key.ranks, key.nodes, key.algorithm, key.variant]);
  let g = groups.get(k);
  if (!g) groups.set(k, (g = { key, bySize: new Map() }));
  const l = g.bySize.get(bytes) ?? [];
  l.push(us);
  g.bySize.set(bytes, l);
}

function seriesOf(groups: Map<string, Group>): BenchSeries[] {
  return [...groups.values()].map((g) => {
    const sizes = [...g.bySize.keys()].sort((a, b) => a - b);
    return { ...g.key, bytes: sizes, us: sizes.map((b) => median(g.bySize.get(b) ?? [])) };
  });
}

/** JSON lines (or an array) of `coll bench --json`: one series per implementation, collective, ranks, nodes, algorithm and variant. */
function benchLinesView(records: readonly unknown[], name: string, lineNumbers: readonly number[]): BenchView {
  const what = 'benchmark lines (coll bench --json)';
  const recs: BenchLine[] = records.map((r, i) => {
    const p = schemas().benchRecord.safeParse(r);
    if (!p.success) fail(name, `${what}, but line ${lineNumbers[i]}: ${issueText(p.error.issues)}`, 'bench');
    return p.data;
  });
  const groups = new Map<string, Group>();
  for (const r of recs) {
    const impl = r.impl ?? 'collectives';
    const ours = impl === 'collectives';
    // As `coll bench --plot` names its curves: 'auto' for the automatic selection in host mode.
    const algorithm = !ours ? '' : (r.mode ?? 'host') === 'host' && (r.requested ?? 'auto') === 'auto' ? 'auto' : (r.algorithm ?? r.requested ?? '');
    const variant = variantOf([r.nonblocking && 'nonblocking', r.communicator, r.mode !== undefined && r.mode !== 'host' && r.mode, paramText(r.params)]);
    addTo(groups, { impl, collective: r.collective, ranks: r.ranks, nodes: r.nodes ?? 1, algorithm, variant }, r.bytes, r.avg_us);
  }
  const series = seriesOf(groups);
  // Ratios: our plain call ('auto' where it ran, else our fastest algorithm at the size) over each peer's.
  const ratios: BenchRatio[] = [];
  for (const peer of series.filter((s) => s.impl !== 'collectives')) {
    const mine = series.filter((s) => s.impl === 'collectives' && s.variant === '' && s.collective === peer.collective && s.ranks === peer.ranks && s.nodes === peer.nodes);
    const auto = mine.filter((s) => s.algorithm === 'auto');
    const pool = auto.length ? auto : mine;
    peer.bytes.forEach((b, i) => {
      const ours = Math.min(...pool.map((s) => s.us[s.bytes.indexOf(b)]).filter((v) => v !== undefined && Number.isFinite(v)));
      const peerUs = peer.us[i];
      if (Number.isFinite(ours) && peerUs > 0) ratios.push({ peer: peer.impl, ranks: peer.ranks, collective: peer.collective, bytes: b, ratio: ours / peerUs, oursUs: ours, peerUs });
    });
  }
  const peers = [...new Set(recs.map((r) => r.impl).filter((p): p is string => p !== undefined))];
  return {
    kind: 'bench',
    series,
    ratios,
    meta: { source: 'coll bench --json', records: recs.length, ...(peers.length ? { peers: peers.join(', ') } : {}) },
  };
}

function jobKey(j: MatrixJob): string {
  return JSON.stringify([j.collective, j.ranks, j.datatype, j.op, j.kind, !!j.nonblocking, j.communicator ?? '']);
}

/** The variant label of a matrix job: '' on the main grid, the datatype and operator of a spot check, the call of a variant. */
function matrixVariant(j: MatrixJob): string {
  if (j.kind === 'grid') return '';
  if (j.kind === 'spot') return variantOf(['spot', j.collective !== 'barrier' && `${j.datatype}`, ['reduce', 'allreduce', 'reduce_scatter'].includes(j.collective) && j.op]);
  return variantOf(['variant', j.nonblocking ? 'nonblocking' : undefined, j.communicator, !j.nonblocking && !j.communicator && 'blocking']);
}

/** The MatrixRun of `coll bench matrix --json` (tagged, or untagged from before the tag). */
function matrixView(json: unknown, name: string): BenchView {
  const what = 'a benchmark matrix (coll bench matrix --json)';
  const f = check(schemas().matrixFile, json, name, what, 'bench');
  checkVersion(f.version, name, what, 'bench');
  const run = f as unknown as MatrixRun;
  const nodes = f.options.nodes ?? 1;
  const jobs = new Map<string, MatrixJob>();
  for (const s of run.samples) if (!jobs.has(jobKey(s.job))) jobs.set(jobKey(s.job), s.job);
  const impls = [...new Set(run.samples.map((s) => s.impl))].sort((a, b) => (a === 'collectives' ? -1 : b === 'collectives' ? 1 : a.localeCompare(b)));
  const series: BenchSeries[] = [];
  for (const job of jobs.values()) {
    for (const impl of impls) {
      const sizes = [...new Set(run.samples.filter((s) => s.impl === impl && jobKey(s.job) === jobKey(job)).map((s) => s.bytes))].sort((a, b) => a - b);
      if (sizes.length === 0) continue;
      series.push({
        impl,
        collective: job.collective,
        ranks: job.ranks,
        nodes,
        algorithm: impl === 'collectives' ? (f.options.algorithm ?? 'auto') : '',
        variant: matrixVariant(job),
        bytes: sizes,
        us: sizes.map((b) => medianOf(run, impl, job, b)),
      });
    }
  }
  const ratios: BenchRatio[] = [];
  for (const peer of run.options.peers) {
    for (const job of jobs.values()) {
      if (job.kind !== 'grid') continue;
      for (const b of job.sizes) {
        const oursUs = medianOf(run, 'collectives', job, b);
        const peerUs = medianOf(run, peer, job, b);
        if (Number.isFinite(oursUs) && Number.isFinite(peerUs) && peerUs > 0) ratios.push({ peer, ranks: job.ranks, collective: job.collective, bytes: b, ratio: oursUs / peerUs, oursUs, peerUs });
      }
    }
  }
  const meta: Record<string, string | number | boolean> = { source: 'coll bench matrix --json', started: f.started };
  if (f.finished) meta.finished = f.finished;
  if (f.machine) meta.machine = f.machine;
  if (f.options.reps !== undefined) meta.repetitions = f.options.reps;
  if (f.options.iterations !== undefined) meta.iterations = f.options.iterations;
  meta.nodes = nodes;
  if (run.options.peers.length) meta.peers = run.options.peers.join(', ');
  try {
    if (matrixJobs(run.options).length) for (const s of summarize(run)) if (s.cells > 0) meta[`geomean vs ${s.peer}, ${s.ranks} ranks`] = Number(s.geomean.toFixed(3));
  } catch {
    // An older file whose options the summary cannot read: the cells are still there.
  }
  return { kind: 'bench', series, ratios, meta };
}

// ------------------------------------------------------------------ model

function algorithmLabel(s: Zod.infer<Schemas['measuredSide']>): string {
  const p = paramText(s.params);
  return p ? `${s.algorithm} ${p}` : s.algorithm;
}

/** `coll tune --report`: the tuner's choice and the runtime's default at every verified point, predicted and measured. */
function tuneView(json: unknown, name: string): ModelView {
  const what = 'a tuning report (coll tune --report)';
  const f = check(schemas().tuneReport, json, name, what, 'model');
  checkVersion(f.version, name, what, 'model');
  if (!f.verified) fail(name, `${what} without measured points (verified is null): run coll tune with --verify to measure the choices`, 'model');
  const points: ModelPoint[] = [];
  for (const p of f.verified.points) {
    for (const role of ['choice', 'default'] as const) {
      const s = p[role];
      points.push({
        collective: p.collective,
        P: p.P,
        bytes: p.bytes,
        algorithm: algorithmLabel(s),
        role,
        ...(s.predicted !== undefined ? { predictedUs: s.predicted * 1e6 } : {}),
        measuredUs: s.measured * 1e6,
      });
    }
  }
  const kept = f.verified.points.filter((p) => p.verdict === 'kept').length;
  return {
    kind: 'model',
    points,
    meta: { source: 'coll tune --report', machine: f.machine, model: f.model, ...(f.ppn != null ? { ppn: f.ppn } : {}), rules: f.rules.length, verified: f.verified.points.length, kept, skipped: f.verified.skipped?.length ?? 0 },
  };
}

/**
 * `coll fit --report` (src/tune/fit-report.ts): every fitted series' samples with the
 * fit's prediction at each (role 'fit'), seconds → µs. A series is drawn under its
 * kind (copy, reduce, ping-pong, loggp, serial-reduction, nbl-testjig: the page's
 * panel), named by its name, at its x (bytes, elements or processes); P is 0.
 */
function fitView(json: unknown, name: string): ModelView {
  const what = 'a fit report (coll fit --report)';
  const f = check(schemas().fitReport, json, name, what, 'model');
  checkVersion(f.version, name, what, 'model');
  const points: ModelPoint[] = f.series.flatMap((s) =>
    s.samples.x.map((x, i) => ({
      collective: s.kind,
      P: 0,
      bytes: x,
      algorithm: s.name,
      role: 'fit' as const,
      predictedUs: s.samples.predicted[i] * 1e6,
      measuredUs: s.samples.measured[i] * 1e6,
    })),
  );
  const meta: Record<string, string | number | boolean> = { source: 'coll fit --report', series: f.series.length };
  if (f.machine) meta.machine = f.machine;
  if (f.source) meta.measured = f.source;
  if (f.description) meta.description = f.description;
  if (f.missing?.length) meta.missing = f.missing.join('; ');
  return { kind: 'model', points, meta };
}

// ------------------------------------------------------------------ recognition

type Parsed = { readonly kind: 'json'; readonly value: unknown } | { readonly kind: 'lines'; readonly values: unknown[]; readonly lines: number[] };

function parse(text: string, name: string): Parsed {
  if (text.trim() === '') fail(name, 'the file is empty');
  try {
    return { kind: 'json', value: JSON.parse(text) as unknown };
  } catch (whole) {
    // JSON lines: every non-blank line one JSON value.
    const values: unknown[] = [];
    const lines: number[] = [];
    const all = text.split('\n');
    for (let i = 0; i < all.length; i++) {
      const l = all[i].trim();
      if (l === '') continue;
      try {
        values.push(JSON.parse(l) as unknown);
        lines.push(i + 1);
      } catch (e) {
        const first = values.length === 0;
        fail(name, first ? `not JSON (${(whole as Error).message})` : `not JSON lines: line ${i + 1}: ${(e as Error).message}`);
      }
    }
    return { kind: 'lines', values, lines };
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isBenchLine = (v: unknown): boolean => isObject(v) && 'avg_us' in v && 'collective' in v;

/** What a JSON value looks like, for the unknown-format error. */
function shape(v: unknown): string {
  if (Array.isArray(v)) return `a JSON array of ${v.length} element${v.length === 1 ? '' : 's'}`;
  if (isObject(v)) {
    const keys = Object.keys(v);
    return `a JSON object with keys ${keys.slice(0, 8).join(', ')}${keys.length > 8 ? ', …' : ''}`;
  }
  return `a JSON ${v === null ? 'null' : typeof v}`;
}

/** Recognise and normalise one file's text; `name` is shown in errors and as the view's title. */
export function parseViewFile(text: string, name: string): ViewFile {
  const p = parse(text, name);
  if (p.kind === 'lines') {
    if (p.values.every(isBenchLine)) return { name, ...benchLinesView(p.values, name, p.lines) };
    const bad = p.values.findIndex((v) => !isBenchLine(v));
    fail(name, `JSON lines, but not benchmark lines (line ${p.lines[bad]} is ${shape(p.values[bad])}, without collective and avg_us)`);
  }
  const v = p.value;
  if (isObject(v) && typeof v.format === 'string') {
    switch (v.format) {
      case FORMATS.schedule:
        return { name, ...scheduleView(v, name) };
      case FORMATS.matrix:
        return { name, ...matrixView(v, name) };
      case FORMATS.tune:
        return { name, ...tuneView(v, name) };
      case FORMATS.fit:
        return { name, ...fitView(v, name) };
      case FORMATS.view:
        fail(name, `a whole coll view document (format '${FORMATS.view}'); give coll view the files it was made from`);
      // eslint-disable-next-line no-fallthrough
      default:
        fail(name, `unknown format '${v.format}'`);
    }
  }
  // A Chrome trace: tagged in otherData, or any {traceEvents} object or array of events.
  if ((isObject(v) && Array.isArray(v.traceEvents)) || (Array.isArray(v) && v.length > 0 && v.every((e) => isObject(e) && typeof e.ph === 'string'))) {
    return { name, ...loadTimeline(v, name) };
  }
  // Untagged files of older versions, by shape.
  if (isObject(v) && Array.isArray(v.schedule)) return { name, ...scheduleView(v, name) };
  if (isObject(v) && Array.isArray(v.samples) && isObject(v.options)) return { name, ...matrixView(v, name) };
  if (isObject(v) && Array.isArray(v.rules) && 'verified' in v) return { name, ...tuneView(v, name) };
  if (isBenchLine(v)) return { name, ...benchLinesView([v], name, [1]) };
  if (Array.isArray(v) && v.length > 0 && v.every(isBenchLine)) return { name, ...benchLinesView(v, name, v.map((_, i) => i + 1)) };
  fail(name, `not a file coll view knows (${shape(v)})`);
}

/** Read and load one file. */
export function loadViewFile(path: string): ViewFile {
  const name = basename(path);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ArgumentError(`${path}: cannot read the file (${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a directory' : code === 'EACCES' ? 'permission denied' : (e as Error).message})`);
  }
  return parseViewFile(text, name);
}

/** A document of already loaded files. */
export function viewDocument(files: readonly ViewFile[]): ViewDocument {
  return { format: FORMATS.view, version: 1, generated: new Date().toISOString(), files };
}

/** Read, recognise, validate and normalise `paths` into the page's document. */
export async function loadViewDocument(paths: readonly string[]): Promise<ViewDocument> {
  if (paths.length === 0) throw new ArgumentError('no files to view', KNOWN);
  return viewDocument(paths.map(loadViewFile));
}
