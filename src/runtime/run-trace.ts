/**
 * The timeline of a real run (`coll run --trace FILE`, `launch({ trace })`): the spans
 * the job's rank threads and offload engines recorded (exec/trace.ts), gathered by the
 * launcher from the node processes' 'trace' messages, as a Chrome trace (JSON object
 * format, Perfetto-compatible) in the documented format of docs/view-formats.md:
 * one complete event (`ph: 'X'`) per span, pid = world rank, tid = 'host' (the rank's
 * thread) or 'nic' (its node's offload engine, drawn under the node's first rank),
 * `cat` = the span's kind, times in µs from the job's origin, and `otherData` tagged
 * `format: 'collectives-timeline', version: 1, source: 'run'`.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { decodeTrace, type EncodedTrace } from '../exec/trace.js';

export const TIMELINE_FORMAT = 'collectives-timeline';
export const TIMELINE_VERSION = 1;

/** Arguments of one span event (absent keys: not applicable). */
export interface SpanArgs {
  /** Bytes of the call (one rank's block), of the message, or combined/copied by the step. */
  bytes?: number;
  /** World rank at the other end of a send or recv (an engine: its node's first rank, with peerLane 'nic'). */
  peer?: number;
  peerLane?: 'nic';
  /** The message id, equal on a send and the recv it delivered. */
  msg?: string;
  /** Step index in the rank's schedule (schedule steps only). */
  step?: number;
  /** The step's round in its schedule. */
  round?: number;
  /** Calls: "<collective> <algorithm>" (e.g. "allreduce allreduce/recursive_doubling"), "send tag T"; steps: the schedule's phase name. */
  label?: string;
}

export interface SpanEvent {
  readonly name: string;
  readonly cat: string;
  readonly ph: 'X';
  /** µs from the job's origin. */
  readonly ts: number;
  readonly dur: number;
  readonly pid: number;
  readonly tid: 'host' | 'nic';
  readonly args: SpanArgs;
}

/** Perfetto's names for the rows (ignored by the viewer). */
export interface MetadataEvent {
  readonly name: 'process_name' | 'thread_name' | 'process_sort_index';
  readonly ph: 'M';
  readonly pid: number;
  readonly tid?: 'host' | 'nic';
  readonly args: { readonly name?: string; readonly sort_index?: number };
}

export interface RunTraceFile {
  readonly traceEvents: readonly (SpanEvent | MetadataEvent)[];
  readonly displayTimeUnit: 'ns';
  readonly otherData: RunTraceMeta;
}

export interface RunTraceMeta {
  readonly format: typeof TIMELINE_FORMAT;
  readonly version: typeof TIMELINE_VERSION;
  readonly source: 'run';
  readonly ranks: number;
  readonly nodes: number;
  readonly program: string;
  readonly args: string;
  /** The job's time origin (ts 0) as an ISO date; every node measured from it with its own host's clock. */
  readonly origin: string;
  readonly spans: number;
  readonly dropped: number;
  /** Spans kept per thread. */
  readonly limit: number;
  readonly exitCode: number;
}

/** The Chrome trace of a run from its nodes' trace pieces. `firstRank[n]`: node n's first world rank (firstRank[nodes] = ranks). */
export function runTrace(pieces: readonly EncodedTrace[], o: { ranks: number; firstRank: readonly number[]; program: string; args: readonly string[]; origin: number; limit: number; exitCode: number }): RunTraceFile {
  const nodes = o.firstRank.length - 1;
  const spans: SpanEvent[] = [];
  let dropped = 0;
  const lanes = new Set<string>();
  for (const piece of pieces) {
    dropped += piece.dropped;
    lanes.add(`${piece.rank}:${piece.lane}`);
    for (const s of decodeTrace(piece)) {
      const args: SpanArgs = {};
      if (s.bytes >= 0) args.bytes = s.bytes;
      if (s.peer >= 0) {
        if (s.peer < o.ranks) args.peer = s.peer;
        else {
          const node = s.peer - o.ranks;
          if (node < nodes) {
            args.peer = o.firstRank[node];
            args.peerLane = 'nic';
          }
        }
      }
      if (s.msg !== undefined) args.msg = s.msg;
      if (s.step >= 0) args.step = s.step;
      if (s.round >= 0) args.round = s.round;
      if (s.label !== undefined) args.label = s.label;
      const name = s.kind === 'collective' ? (s.label?.split(' ')[0] ?? 'collective') : s.kind;
      spans.push({ name, cat: s.kind, ph: 'X', ts: s.start, dur: Math.max(0, s.end - s.start), pid: piece.rank, tid: piece.lane, args });
    }
  }
  spans.sort((a, b) => a.ts - b.ts || a.pid - b.pid);
  const meta: MetadataEvent[] = [];
  for (let r = 0; r < o.ranks; r++) {
    meta.push({ name: 'process_name', ph: 'M', pid: r, args: { name: `rank ${r}` } });
    meta.push({ name: 'process_sort_index', ph: 'M', pid: r, args: { sort_index: r } });
    meta.push({ name: 'thread_name', ph: 'M', pid: r, tid: 'host', args: { name: 'host' } });
    if (lanes.has(`${r}:nic`)) meta.push({ name: 'thread_name', ph: 'M', pid: r, tid: 'nic', args: { name: 'nic (offload engine)' } });
  }
  return {
    traceEvents: [...meta, ...spans],
    displayTimeUnit: 'ns',
    otherData: {
      format: TIMELINE_FORMAT,
      version: TIMELINE_VERSION,
      source: 'run',
      ranks: o.ranks,
      nodes,
      program: o.program,
      args: o.args.join(' '),
      origin: new Date(o.origin).toISOString(),
      spans: spans.length,
      dropped,
      limit: o.limit,
      exitCode: o.exitCode,
    },
  };
}

/** Write a trace as JSON, one event per line, in batches (a trace of millions of spans exceeds one string's limit). */
export function writeRunTrace(file: string, t: RunTraceFile): void {
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, '{"traceEvents":[\n');
    const ev = t.traceEvents;
    for (let i = 0; i < ev.length; i += 10_000) {
      const batch = ev.slice(i, i + 10_000).map((e) => JSON.stringify(e));
      writeSync(fd, `${i > 0 ? ',\n' : ''}${batch.join(',\n')}`);
    }
    writeSync(fd, `\n],\n"displayTimeUnit":"ns",\n"otherData":${JSON.stringify(t.otherData)}}\n`);
  } finally {
    closeSync(fd);
  }
}
