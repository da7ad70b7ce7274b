/**
 * Timeline loader: a Chrome trace (JSON object format `{traceEvents, otherData}` or a
 * bare array of events) into the viewer's columnar TimelineView (src/view/document.ts).
 *
 * Any trace of complete events (`ph: 'X'`) loads: pid is the rank, tid the lane within
 * the rank; other phases (metadata, instants, counters) are ignored. The collectives
 * tags are used when present (`coll sim --trace`, `coll run --trace`, format
 * 'collectives-timeline' in otherData, checked strictly): `cat` is the span's kind,
 * `args.peer`, `args.bytes`, `args.label`, and `args.msg` (a send and the recv it
 * delivered share it). Without msg ids, the n-th send A→B is paired with the n-th recv
 * at B from A (FIFO per pair, by start time). Spans of kind 'noise' become marks.
 *
 * The view: lanes sorted by rank, then host before nic before other lanes; spans
 * sorted by lane, then start (the longer first, then file order); times in µs rebased so the
 * earliest span starts at 0; `critical` from critical-path.ts; `meta` the trace's
 * otherData fields that are strings, numbers or booleans. Idle time is what lies
 * between spans (the page draws it as background; no idle spans are made).
 */
import { createRequire } from 'node:module';
import type * as Zod from 'zod';
import { ArgumentError } from '../../core/errors.js';
import type { TimelineView } from '../document.js';
import { criticalPath } from './critical-path.js';

/** otherData.format of the traces `coll sim --trace` and `coll run --trace` write. */
export const TIMELINE_FORMAT = 'collectives-timeline';
export const TIMELINE_VERSION = 1;

const HINT = 'a timeline is a Chrome trace of complete events: {"traceEvents": [{"ph": "X", "ts": µs, "dur": µs, "pid": rank, "tid": lane, …}]} (docs/view.md#formats)';

/** Kinds whose spans go into `marks`, not `spans`. */
const MARK_KINDS = new Set(['noise']);

/** The span kind and peer encoded in the names older `coll sim --timeline` files give steps ("send → 3", "recv ← 0"). */
const STEP_NAME = /^(send|recv)\s*[→←]\s*(\d+)$/;

/** The zod schemas, built on first use (zod loads only when a trace is read). */
function build(z: typeof Zod.z) {
  const finite = z.number().refine(Number.isFinite, 'must be a finite number');
  const id = z.union([z.number(), z.string()]);
  const otherData = z.record(z.string(), z.unknown());
  const file = z.looseObject({ traceEvents: z.array(z.unknown()), otherData: otherData.optional() });
  const event = z.looseObject({ ph: z.string() });
  const complete = z.looseObject({
    name: z.string().optional(),
    cat: z.string().optional(),
    ts: finite,
    dur: finite.refine((d) => d >= 0, 'must be ≥ 0'),
    pid: id,
    tid: id.optional(),
    args: z.record(z.string(), z.unknown()).optional(),
  });
  /** The collectives tags, checked on files of the collectives format. */
  const tags = z.looseObject({
    bytes: finite.refine((b) => b >= 0, 'must be ≥ 0').optional(),
    peer: z.number().int().min(0).optional(),
    msg: id.optional(),
    label: z.string().optional(),
    step: finite.optional(),
    round: finite.optional(),
  });
  const collOther = z.looseObject({
    format: z.literal(TIMELINE_FORMAT),
    version: z.literal(TIMELINE_VERSION),
    source: z.enum(['sim', 'run']).optional(),
    ranks: z.number().int().min(1).optional(),
  });
  return { file, event, complete, tags, collOther };
}

let schemas: ReturnType<typeof build> | undefined;
function zs(): ReturnType<typeof build> {
  return (schemas ??= build((createRequire(import.meta.url)('zod') as typeof Zod).z));
}

function pathText(prefix: string, path: readonly PropertyKey[]): string {
  let s = prefix;
  for (const p of path) s += typeof p === 'number' ? `[${p}]` : s ? `.${String(p)}` : String(p);
  return s || '(top level)';
}

function issueText(prefix: string, i: Zod.core.$ZodIssue): string {
  const where = pathText(prefix, i.path);
  if (i.code === 'invalid_type') {
    const got = /received (\w+)/.exec(i.message)?.[1];
    return got === 'undefined' ? `${where}: missing (expected ${i.expected})` : `${where}: expected ${i.expected}${got ? `, got ${got}` : ''}`;
  }
  if (i.code === 'invalid_value') return `${where}: must be ${i.values.map((v) => JSON.stringify(v)).join(' or ')}`;
  if (i.code === 'invalid_union') return `${where}: expected a number or a string`;
  if (i.code === 'too_small') return `${where}: must be ≥ ${String(i.minimum)}`;
  return `${where}: ${i.message}`;
}

function fail(name: string, problems: readonly string[], more = 0): never {
  const extra = more > 0 ? `\n    - … and ${more} more` : '';
  throw new ArgumentError(`${name}: not a valid timeline trace:\n    - ${problems.join('\n    - ')}${extra}`, HINT);
}

function isSendKind(k: string): boolean {
  return k === 'send' || k === 'isend';
}
function isRecvKind(k: string): boolean {
  return k === 'recv' || k === 'irecv';
}

/** Lane order within a rank: host, nic, then numeric tids, then other names. */
function tidOrder(a: string | number, b: string | number): number {
  const rank = (t: string | number): number => (t === 'host' ? 0 : t === 'nic' ? 1 : typeof t === 'number' ? 2 : 3);
  const d = rank(a) - rank(b);
  if (d !== 0) return d;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

/** A complete event as the schema accepts it. */
interface CompleteEvent {
  readonly name?: string;
  readonly cat?: string;
  readonly ts: number;
  readonly dur: number;
  readonly pid: number | string;
  readonly tid?: number | string;
  readonly args?: Readonly<Record<string, unknown>>;
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const isFinite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
const isId = (x: unknown): x is number | string => typeof x === 'number' || typeof x === 'string';
const optional = (x: unknown, is: (y: unknown) => boolean): boolean => x === undefined || is(x);
const isString = (x: unknown): x is string => typeof x === 'string';

/** What the `event` schema accepts (fast path). */
function isEvent(e: unknown): boolean {
  return isObject(e) && typeof e.ph === 'string';
}

/** What the `complete` schema accepts (fast path). */
function isComplete(e: unknown): e is CompleteEvent {
  if (!isObject(e)) return false;
  return (
    isFinite(e.ts) &&
    isFinite(e.dur) &&
    e.dur >= 0 &&
    isId(e.pid) &&
    optional(e.tid, isId) &&
    optional(e.name, isString) &&
    optional(e.cat, isString) &&
    optional(e.args, isObject)
  );
}

/** What the `tags` schema accepts (fast path). */
function hasTags(a: Readonly<Record<string, unknown>>): boolean {
  return (
    optional(a.bytes, (b) => isFinite(b) && b >= 0) &&
    optional(a.peer, (p) => typeof p === 'number' && Number.isInteger(p) && p >= 0) &&
    optional(a.msg, isId) &&
    optional(a.label, isString) &&
    optional(a.step, isFinite) &&
    optional(a.round, isFinite)
  );
}

interface Raw {
  readonly pid: string | number;
  readonly tid: string | number;
  readonly kind: string;
  readonly ts: number;
  readonly dur: number;
  readonly peer: number;
  readonly bytes: number;
  readonly msg: string | undefined;
  readonly label: string;
}

/**
 * Validate `json` (a parsed Chrome trace) and build the timeline view. `name` (the
 * file's name) prefixes every error message.
 */
export function loadTimeline(json: unknown, name: string): TimelineView {
  const z = zs();
  let events: readonly unknown[];
  let other: Readonly<Record<string, unknown>> = {};
  let prefix = '';
  if (Array.isArray(json)) events = json;
  else if (typeof json === 'object' && json !== null && 'traceEvents' in json) {
    const f = z.file.safeParse(json);
    if (!f.success) fail(name, f.error.issues.slice(0, 8).map((i) => issueText('', i)));
    events = f.data.traceEvents;
    other = f.data.otherData ?? {};
    prefix = 'traceEvents';
  } else {
    const got = json === null ? 'null' : typeof json === 'object' ? 'an object without traceEvents' : typeof json;
    fail(name, [`expected a JSON object with traceEvents (or an array of trace events), got ${got}`]);
  }
  const ours = other.format === TIMELINE_FORMAT;
  const problems: string[] = [];
  let more = 0;
  const problem = (text: string): void => {
    if (problems.length < 8) problems.push(text);
    else more++;
  };
  let declaredRanks: number | undefined;
  if (ours) {
    const o = z.collOther.safeParse(other);
    if (!o.success) {
      for (const i of o.error.issues) {
        if (i.path[0] === 'version' && typeof other.version === 'number') problem(`otherData.version: ${other.version} is not supported (this coll reads version ${TIMELINE_VERSION})`);
        else problem(issueText('otherData', i));
      }
    } else declaredRanks = o.data.ranks;
  }

  const raws: Raw[] = [];
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    const where = `${prefix}[${i}]`;
    // The checks below mirror the zod schemas and run first: zod itself runs on an
    // event only to word what is wrong with it (10⁵ safeParse calls cost seconds).
    if (!isEvent(e)) {
      const head = z.event.safeParse(e);
      if (!head.success) {
        problem(issueText(where, head.error.issues[0]));
        continue;
      }
    }
    if ((e as { ph: unknown }).ph !== 'X') continue;
    let ev: CompleteEvent;
    if (isComplete(e)) ev = e;
    else {
      const c = z.complete.safeParse(e);
      if (!c.success) {
        for (const iss of c.error.issues) problem(issueText(where, iss));
        continue;
      }
      ev = c.data;
    }
    const args = ev.args ?? {};
    if (ours) {
      if (!hasTags(args)) {
        const t = z.tags.safeParse(args);
        if (!t.success) {
          for (const iss of t.error.issues) problem(issueText(`${where}.args`, iss));
          continue;
        }
      }
      if (typeof ev.pid !== 'number' || !Number.isInteger(ev.pid) || ev.pid < 0) {
        problem(`${where}.pid: expected a rank (an integer ≥ 0), got ${JSON.stringify(ev.pid)}`);
        continue;
      }
      if (declaredRanks !== undefined && ev.pid >= declaredRanks) {
        problem(`${where}.pid: rank ${ev.pid} is out of range (otherData.ranks is ${declaredRanks})`);
        continue;
      }
    }
    const evName = ev.name ?? '';
    const step = STEP_NAME.exec(evName);
    const kind = ev.cat !== undefined && ev.cat !== '' ? ev.cat : step ? step[1] : evName || 'span';
    const peerArg = args.peer;
    const peer = typeof peerArg === 'number' && Number.isInteger(peerArg) && peerArg >= 0 ? peerArg : step ? Number(step[2]) : -1;
    const bytesArg = args.bytes;
    const bytes = typeof bytesArg === 'number' && Number.isFinite(bytesArg) && bytesArg >= 0 ? bytesArg : -1;
    const msgArg = args.msg;
    const msg = typeof msgArg === 'number' || typeof msgArg === 'string' ? String(msgArg) : undefined;
    const labelArg = args.label;
    const label = typeof labelArg === 'string' ? labelArg : evName !== kind && !step ? evName : '';
    raws.push({ pid: ev.pid, tid: ev.tid ?? 0, kind, ts: ev.ts, dur: ev.dur, peer, bytes, msg, label });
  }
  if (problems.length > 0) fail(name, problems, more);
  if (!raws.some((r) => !MARK_KINDS.has(r.kind))) {
    fail(name, [events.length === 0 ? `${prefix || 'the trace'} is empty` : `no complete ('X') spans among its ${events.length} event${events.length === 1 ? '' : 's'}${raws.length > 0 ? ' other than noise' : ''}`]);
  }

  // Ranks: the pids themselves when they are small integers (always, for our format), else pids in order.
  const pids = [...new Set(raws.map((r) => r.pid))].sort((a, b) => tidOrder(a, b));
  const ints = pids.every((p) => typeof p === 'number' && Number.isInteger(p) && p >= 0);
  const maxPid = ints ? Math.max(...(pids as number[])) : -1;
  const direct = ours || (ints && maxPid < 2 * pids.length + 16);
  const rankOf = new Map<string | number, number>(pids.map((p, i) => [p, direct ? (p as number) : i]));
  const ranks = declaredRanks ?? (direct ? maxPid + 1 : pids.length);
  const rankName = (r: number): string => (direct ? `rank ${r}` : `pid ${String(pids[r])}`);

  // Lanes: (rank, tid) pairs in drawing order; with a declared rank count, every rank gets a lane.
  const tids = new Map<string | number, number>();
  for (const r of raws) if (!tids.has(r.tid)) tids.set(r.tid, tids.size);
  if (declaredRanks !== undefined && !tids.has('host')) tids.set('host', tids.size);
  const tidList = [...tids.keys()];
  const T = tidList.length;
  const rawLane = new Float64Array(raws.length);
  const laneKeys = new Map<number, { rank: number; tid: string | number }>();
  for (let i = 0; i < raws.length; i++) {
    const r = raws[i];
    const rank = rankOf.get(r.pid) as number;
    const t = tids.get(r.tid) as number;
    const k = rank * T + t;
    rawLane[i] = k;
    if (!laneKeys.has(k)) laneKeys.set(k, { rank, tid: r.tid });
  }
  if (declaredRanks !== undefined) {
    const has = new Set([...laneKeys.values()].map((l) => l.rank));
    const host = tids.get('host') as number;
    for (let r = 0; r < declaredRanks; r++) if (!has.has(r)) laneKeys.set(r * T + host, { rank: r, tid: 'host' });
  }
  const laneList = [...laneKeys.entries()].sort((a, b) => a[1].rank - b[1].rank || tidOrder(a[1].tid, b[1].tid));
  const laneIndex = new Map(laneList.map(([k], i) => [k, i]));
  for (let i = 0; i < raws.length; i++) rawLane[i] = laneIndex.get(rawLane[i]) as number;
  const lanes = laneList.map(([, l]) => (l.tid === 'host' ? rankName(l.rank) : `${rankName(l.rank)} ${String(l.tid)}`));
  const laneRank = laneList.map(([, l]) => l.rank);

  // Kinds in order of first appearance.
  const kinds: string[] = [];
  const kindIndex = new Map<string, number>();
  const spanIdx: number[] = [];
  const markIdx: number[] = [];
  for (let i = 0; i < raws.length; i++) {
    const k = raws[i].kind;
    if (MARK_KINDS.has(k)) {
      markIdx.push(i);
      continue;
    }
    spanIdx.push(i);
    if (!kindIndex.has(k)) {
      kindIndex.set(k, kinds.length);
      kinds.push(k);
    }
  }

  // Sort by lane, start, longer first (an enclosing span before what it encloses), file order.
  const n = spanIdx.length;
  const sl = new Float64Array(n);
  const st = new Float64Array(n);
  const se = new Float64Array(n);
  let t0 = Infinity;
  for (let i = 0; i < n; i++) {
    const r = raws[spanIdx[i]];
    sl[i] = rawLane[spanIdx[i]];
    st[i] = r.ts;
    se[i] = r.ts + r.dur;
    if (r.ts < t0) t0 = r.ts;
  }
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((a, b) => sl[a] - sl[b] || st[a] - st[b] || se[b] - se[a] || a - b);

  const lane = new Array<number>(n);
  const kind = new Array<number>(n);
  const start = new Array<number>(n);
  const dur = new Array<number>(n);
  const peer = new Array<number>(n);
  const bytes = new Array<number>(n);
  const match = new Array<number>(n).fill(-1);
  const label = new Array<string>(n);
  const sorted: Raw[] = new Array<Raw>(n);
  const fileOrder = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    const r = raws[spanIdx[order[j]]];
    sorted[j] = r;
    fileOrder[j] = spanIdx[order[j]];
    lane[j] = sl[order[j]];
    kind[j] = kindIndex.get(r.kind) as number;
    start[j] = r.ts - t0;
    dur[j] = r.dur;
    peer[j] = r.peer;
    bytes[j] = r.bytes;
    label[j] = r.label;
  }
  matchMessages(sorted, fileOrder, laneRank, lane, start, match);

  const marks = { lane: [] as number[], start: [] as number[], dur: [] as number[], label: [] as string[] };
  markIdx.sort((a, b) => rawLane[a] - rawLane[b] || raws[a].ts - raws[b].ts || a - b);
  for (const i of markIdx) {
    const r = raws[i];
    marks.lane.push(rawLane[i]);
    marks.start.push(r.ts - t0);
    marks.dur.push(r.dur);
    marks.label.push(r.label || r.kind);
  }

  const meta: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(other)) {
    if (k === 'format' || k === 'version') continue;
    if (typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) meta[k] = v;
  }
  const source: 'sim' | 'run' = other.source === 'sim' || other.source === 'run' ? other.source : 'machine' in other ? 'sim' : 'run';
  const spans = { lane, kind, start, dur, peer, bytes, match, label };
  const critical = criticalPath({ laneRank, kinds, spans }, fileOrder);
  return { kind: 'timeline', source, ranks, lanes, laneRank, kinds, spans, critical, marks, meta };
}

/** Multiplier of the (sender, receiver) key: ranks below 2^26. */
const PAIR = 2 ** 26;

/**
 * Pair sends with recvs: by msg id where spans carry one (in time order within an id),
 * else the n-th send A→B with the n-th recv at B from A. Sends (recvs) that start
 * together are taken in file order, which is the order a producer ran them.
 */
function matchMessages(sorted: readonly Raw[], fileOrder: Float64Array, laneRank: readonly number[], lane: readonly number[], start: readonly number[], match: number[]): void {
  const byMsg = new Map<string, { s: number[]; r: number[] }>();
  const byPair = new Map<number, { s: number[]; r: number[] }>();
  for (let j = 0; j < sorted.length; j++) {
    const r = sorted[j];
    const send = isSendKind(r.kind);
    if (!send && !isRecvKind(r.kind)) continue;
    let g: { s: number[]; r: number[] } | undefined;
    if (r.msg !== undefined) {
      g = byMsg.get(r.msg);
      if (!g) byMsg.set(r.msg, (g = { s: [], r: [] }));
    } else if (r.peer >= 0) {
      const me = laneRank[lane[j]];
      const key = send ? me * PAIR + r.peer : r.peer * PAIR + me;
      g = byPair.get(key);
      if (!g) byPair.set(key, (g = { s: [], r: [] }));
    } else continue;
    (send ? g.s : g.r).push(j);
  }
  const byStart = (a: number, b: number): number => start[a] - start[b] || fileOrder[a] - fileOrder[b];
  for (const groups of [byMsg, byPair]) {
    for (const g of groups.values()) {
      g.s.sort(byStart);
      g.r.sort(byStart);
      const k = Math.min(g.s.length, g.r.length);
      for (let i = 0; i < k; i++) {
        match[g.s[i]] = g.r[i];
        match[g.r[i]] = g.s[i];
      }
    }
  }
}
