/**
 * Span recording for `coll run --trace` (docs/view-formats.md#timeline-of-a-real-run):
 * one Tracer per thread that records (a rank's host lane, a node's offload engine
 * lane 'nic'), columnar typed arrays that grow by doubling up to a bound, so that a
 * span costs no allocation. Code that records holds `Tracer | undefined` and checks it
 * once: with tracing off there is no tracer and nothing else happens.
 *
 * Times are microseconds from one job-wide origin (the launcher's wall clock at launch,
 * ms since the epoch, in `JobSpec.trace.origin`): each thread adds its own
 * `performance.timeOrigin` offset to `performance.now()`. Threads of one host share the
 * clock; node processes on different hosts use their own clocks, so their spans are
 * only as comparable as the hosts' clocks are synchronised.
 *
 * A message span (a send or recv, of a schedule step or of a point-to-point call)
 * carries its transport address (context, space, tag, source and destination address,
 * index), from which both ends compute the same message id independently
 * (`messageId`). At the end the thread hands its spans to its node process (`raw`:
 * typed arrays, for postMessage), which forwards them to the launcher in pieces of
 * plain JSON (`encodeTrace`: base64 columns, at most TRACE_CHUNK spans a message).
 */

/** What a job's threads are told when tracing is on (JobSpec.trace). */
export interface TraceSettings {
  /** The job's time origin: the launcher's Date-style wall clock at launch, ms since the epoch. */
  readonly origin: number;
  /** Spans kept per thread; later ones are counted as dropped. */
  readonly limit: number;
}

/** Default spans kept per thread (rank or engine): COLL_TRACE_LIMIT or `launch({ trace: { limit } })` changes it. */
export const DEFAULT_TRACE_LIMIT = 1_000_000;

/** Span kinds, by code. */
export const SPAN_KINDS = ['collective', 'send', 'recv', 'reduce', 'copy'] as const;
export type SpanKind = (typeof SPAN_KINDS)[number];
export const SK_COLLECTIVE = 0;
export const SK_SEND = 1;
export const SK_RECV = 2;
export const SK_REDUCE = 3;
export const SK_COPY = 4;

/** The lane a thread records on: a rank's own thread, or its node's offload engine. */
export type TraceLane = 'host' | 'nic';

/** Spans per message from a node process to the launcher (about 1.5 MB of JSON). */
export const TRACE_CHUNK = 16384;

interface TraceHead {
  /** World rank whose row the spans belong to (an engine: its node's first rank). */
  readonly rank: number;
  readonly lane: TraceLane;
  /** Spans not kept because the buffer was full (the whole thread's; on the first piece of an encoded trace, 0 on the others). */
  readonly dropped: number;
  readonly limit: number;
  readonly labels: readonly string[];
}

/** One thread's spans as typed arrays (structured clone: postMessage to the node process). */
export interface RawTrace extends TraceHead {
  readonly count: number;
  readonly f: Readonly<Record<F64Column, Float64Array>>;
  readonly i: Readonly<Record<I32Column, Int32Array>>;
  readonly u: Readonly<Record<U8Column, Uint8Array>>;
}

/** A piece of one thread's spans as plain JSON: columns are base64 of little-endian typed arrays. */
export interface EncodedTrace extends TraceHead {
  /** Spans in this piece. */
  readonly count: number;
  /** Float64: start, end (µs), bytes, context, tag. Int32: peer, step, round, label, src, dst, index. Uint8: kind, space. */
  readonly columns: Readonly<Record<ColumnName, string>>;
}

type F64Column = 'start' | 'end' | 'bytes' | 'ctx' | 'tag';
type I32Column = 'peer' | 'step' | 'round' | 'label' | 'src' | 'dst' | 'index';
type U8Column = 'kind' | 'space';
type ColumnName = F64Column | I32Column | U8Column;
const F64_COLUMNS: readonly F64Column[] = ['start', 'end', 'bytes', 'ctx', 'tag'];
const I32_COLUMNS: readonly I32Column[] = ['peer', 'step', 'round', 'label', 'src', 'dst', 'index'];
const U8_COLUMNS: readonly U8Column[] = ['kind', 'space'];

const INITIAL = 1024;

export class Tracer {
  /** Recorded spans (≤ limit). */
  count = 0;
  dropped = 0;
  private cap = 0;
  private readonly f: Record<F64Column, Float64Array>;
  private readonly i: Record<I32Column, Int32Array>;
  private readonly u: Record<U8Column, Uint8Array>;
  private readonly labels: string[] = [];
  private readonly labelIndex = new Map<string, number>();
  /** µs to add to performance.now()·1000 to get µs since the job's origin. */
  private readonly offsetUs: number;
  /** Per (context, tag, peer) counters of point-to-point messages (p2pIndex). */
  private readonly p2p = new Map<string, number>();

  constructor(
    readonly rank: number,
    readonly lane: TraceLane,
    readonly settings: TraceSettings,
  ) {
    this.offsetUs = (performance.timeOrigin - settings.origin) * 1000;
    this.f = { start: new Float64Array(0), end: new Float64Array(0), bytes: new Float64Array(0), ctx: new Float64Array(0), tag: new Float64Array(0) };
    this.i = { peer: new Int32Array(0), step: new Int32Array(0), round: new Int32Array(0), label: new Int32Array(0), src: new Int32Array(0), dst: new Int32Array(0), index: new Int32Array(0) };
    this.u = { kind: new Uint8Array(0), space: new Uint8Array(0) };
  }

  /** Microseconds since the job's origin. */
  now(): number {
    return this.offsetUs + performance.now() * 1000;
  }

  /** The index of a label (interned: the same string gets the same index). */
  label(text: string): number {
    let k = this.labelIndex.get(text);
    if (k === undefined) {
      k = this.labels.length;
      this.labels.push(text);
      this.labelIndex.set(text, k);
    }
    return k;
  }

  /**
   * The sequence number of the next point-to-point message between this thread's
   * address and `peer` with (context, tag) in one direction (`send`: to peer, else
   * from peer). Both ends count the same messages in the same order (MPI's
   * non-overtaking rule), so the k-th send matches the k-th receive.
   */
  p2pIndex(send: boolean, context: number, tag: number, peer: number): number {
    const key = `${send ? 's' : 'r'}${context}:${tag}:${peer}`;
    const k = this.p2p.get(key) ?? 0;
    this.p2p.set(key, k + 1);
    return k;
  }

  /**
   * Record a span; returns its index, or −1 when the buffer is full (counted as
   * dropped). `peer`, `bytes`, `step`, `round`, `label` are −1 when not applicable.
   */
  span(kind: number, start: number, end: number, peer: number, bytes: number, label: number, step: number, round: number): number {
    const n = this.count;
    if (n >= this.cap && !this.grow()) {
      this.dropped++;
      return -1;
    }
    this.u.kind[n] = kind;
    this.f.start[n] = start;
    this.f.end[n] = end;
    this.i.peer[n] = peer;
    this.f.bytes[n] = bytes;
    this.i.label[n] = label;
    this.i.step[n] = step;
    this.i.round[n] = round;
    this.i.src[n] = -1;
    this.count = n + 1;
    return n;
  }

  /** Give span `n` (from span(); ignored when −1) its message's transport address. */
  message(n: number, context: number, space: number, tag: number, src: number, dst: number, index: number): void {
    if (n < 0) return;
    this.f.ctx[n] = context;
    this.u.space[n] = space;
    this.f.tag[n] = tag;
    this.i.src[n] = src;
    this.i.dst[n] = dst;
    this.i.index[n] = index;
  }

  private grow(): boolean {
    const limit = this.settings.limit;
    if (this.cap >= limit) return false;
    const cap = Math.min(limit, Math.max(INITIAL, this.cap * 2));
    for (const c of F64_COLUMNS) this.f[c] = copyInto(new Float64Array(cap), this.f[c]);
    for (const c of I32_COLUMNS) this.i[c] = copyInto(new Int32Array(cap), this.i[c]);
    for (const c of U8_COLUMNS) this.u[c] = copyInto(new Uint8Array(cap), this.u[c]);
    this.cap = cap;
    return true;
  }

  /** The spans recorded so far, as typed arrays of exactly `count` entries. */
  raw(): RawTrace {
    const n = this.count;
    const pick = <K extends string, A extends Float64Array | Int32Array | Uint8Array>(cols: readonly K[], from: Record<K, A>): Record<K, A> => {
      const out = {} as Record<K, A>;
      for (const c of cols) out[c] = from[c].slice(0, n) as A;
      return out;
    };
    return {
      rank: this.rank,
      lane: this.lane,
      count: n,
      dropped: this.dropped,
      limit: this.settings.limit,
      labels: [...this.labels],
      f: pick(F64_COLUMNS, this.f),
      i: pick(I32_COLUMNS, this.i),
      u: pick(U8_COLUMNS, this.u),
    };
  }
}

/** Spans [from, to) of a raw trace as plain JSON (`dropped` goes with the piece that starts at 0). */
export function encodeTrace(t: RawTrace, from = 0, to = t.count): EncodedTrace {
  const n = Math.max(0, Math.min(to, t.count) - from);
  const b64 = (a: Float64Array | Int32Array | Uint8Array): string => Buffer.from(a.buffer, a.byteOffset + from * a.BYTES_PER_ELEMENT, n * a.BYTES_PER_ELEMENT).toString('base64');
  const columns = {} as Record<ColumnName, string>;
  for (const c of F64_COLUMNS) columns[c] = b64(t.f[c]);
  for (const c of I32_COLUMNS) columns[c] = b64(t.i[c]);
  for (const c of U8_COLUMNS) columns[c] = b64(t.u[c]);
  return { rank: t.rank, lane: t.lane, count: n, dropped: from === 0 ? t.dropped : 0, limit: t.limit, labels: t.labels, columns };
}

/** A raw trace in pieces of at most `chunk` spans (one piece when it is empty). */
export function encodeTraceChunks(t: RawTrace, chunk = TRACE_CHUNK): EncodedTrace[] {
  const out: EncodedTrace[] = [];
  for (let from = 0; from < t.count || from === 0; from += chunk) out.push(encodeTrace(t, from, from + chunk));
  return out;
}

function copyInto<T extends Float64Array | Int32Array | Uint8Array>(to: T, from: T): T {
  to.set(from);
  return to;
}

/** One span, decoded (decodeTrace). */
export interface DecodedSpan {
  readonly kind: SpanKind;
  /** µs since the job's origin. */
  readonly start: number;
  readonly end: number;
  /** Transport address of the other end of a message (−1: none). */
  readonly peer: number;
  readonly bytes: number;
  readonly label: string | undefined;
  readonly step: number;
  readonly round: number;
  /** The message id (messageId) of a send or recv, undefined otherwise. */
  readonly msg: string | undefined;
}

/** The spans of an encoded trace, in recording order. */
export function decodeTrace(t: EncodedTrace): DecodedSpan[] {
  const n = t.count;
  const bytesOf = (c: ColumnName): Buffer => {
    const b = Buffer.from(t.columns[c] ?? '', 'base64');
    return b;
  };
  const f64 = (c: F64Column): Float64Array => {
    const b = bytesOf(c);
    return new Float64Array(b.buffer.slice(b.byteOffset, b.byteOffset + n * 8));
  };
  const i32 = (c: I32Column): Int32Array => {
    const b = bytesOf(c);
    return new Int32Array(b.buffer.slice(b.byteOffset, b.byteOffset + n * 4));
  };
  const u8 = (c: U8Column): Uint8Array => Uint8Array.from(bytesOf(c).subarray(0, n));
  const [start, end, bytes, ctx, tag] = F64_COLUMNS.map(f64);
  const [peer, step, round, label, src, dst, index] = I32_COLUMNS.map(i32);
  const [kind, space] = U8_COLUMNS.map(u8);
  const out: DecodedSpan[] = [];
  for (let k = 0; k < n; k++) {
    out.push({
      kind: SPAN_KINDS[kind[k]] ?? 'collective',
      start: start[k],
      end: end[k],
      peer: peer[k],
      bytes: bytes[k],
      label: label[k] >= 0 ? t.labels[label[k]] : undefined,
      step: step[k],
      round: round[k],
      msg: src[k] >= 0 ? messageId(ctx[k], space[k], tag[k], src[k], dst[k], index[k]) : undefined,
    });
  }
  return out;
}

/**
 * The id of one message, the same on its send and its recv: its communicator context,
 * traffic class, tag (a collective's sequence number, or the user's tag), source and
 * destination transport address, and its index (the k-th message between the two in
 * that collective, or in that (context, tag) for point-to-point).
 */
export function messageId(context: number, space: number, tag: number, src: number, dst: number, index: number): string {
  return `${context}:${space}:${tag}:${src}>${dst}:${index}`;
}
