/**
 * The timeline of a real run (`coll run --trace FILE`, `launch({ trace })`): the spans
 * the job's rank threads and offload engines recorded (exec/trace.ts), gathered by the
 * launcher from the node processes' 'trace' messages, as a Chrome trace (JSON object
 * format, Perfetto-compatible) in the documented format of docs/view-formats.md,
 * written to its file as the pieces arrive (RunTraceSink):
 * one complete event (`ph: 'X'`) per span, pid = world rank, tid = 'host' (the rank's
 * thread) or 'nic' (its node's offload engine, drawn under the node's first rank),
 * `cat` = the span's kind, times in µs from the job's origin, and `otherData` tagged
 * `format: 'collectives-timeline', version: 1, source: 'run'`.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { ArgumentError } from '../core/errors.js';
import { decodeTrace, type DecodedSpan, type EncodedTrace } from '../exec/trace.js';

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

/** What the trace needs to know about the job. `firstRank[n]`: node n's first world rank (firstRank[nodes] = ranks). */
export interface RunTraceJob {
  readonly ranks: number;
  readonly firstRank: readonly number[];
  readonly program: string;
  readonly args: readonly string[];
  /** The job's time origin, ms since the epoch. */
  readonly origin: number;
  readonly limit: number;
}

/**
 * Where the launcher puts the pieces of spans as they arrive: straight into the file
 * (one event per line; the launcher holds one piece at a time, whatever the job's
 * size), or, without a file, into memory for `finish()` to return (sorted by time).
 * A file's events are in arrival order (each thread's in recording order), its
 * metadata events and `otherData` at the end.
 */
export class RunTraceSink {
  private readonly fd: number | undefined;
  private readonly events: SpanEvent[] = [];
  private readonly lanes = new Set<string>();
  private spans = 0;
  /** Events written to the file so far. */
  private written = 0;
  private dropped = 0;
  private readonly nodes: number;

  /** Opens (creates) `file` now, so that a path that cannot be written fails before the job starts. */
  constructor(
    private readonly job: RunTraceJob,
    readonly file?: string,
  ) {
    this.nodes = job.firstRank.length - 1;
    if (file !== undefined) {
      try {
        this.fd = openSync(file, 'w');
      } catch (e) {
        throw new ArgumentError(`cannot write the trace file ${file}: ${(e as Error).message}`);
      }
      writeSync(this.fd, '{"traceEvents":[\n');
    }
  }

  /** Threads (rank threads and engines) whose spans arrived. */
  get threads(): number {
    return this.lanes.size;
  }

  add(piece: EncodedTrace): void {
    this.dropped += piece.dropped;
    this.lanes.add(`${piece.rank}:${piece.lane}`);
    const events = decodeTrace(piece).map((s) => this.event(piece, s));
    this.spans += events.length;
    if (this.fd === undefined) {
      for (const e of events) this.events.push(e);
      return;
    }
    for (let i = 0; i < events.length; i += 10_000) {
      const lines = events.slice(i, i + 10_000).map((e) => JSON.stringify(e));
      writeSync(this.fd, `${this.written > 0 ? ',\n' : ''}${lines.join(',\n')}`);
      this.written += lines.length;
    }
  }

  private event(piece: EncodedTrace, s: DecodedSpan): SpanEvent {
    const args: SpanArgs = {};
    if (s.bytes >= 0) args.bytes = s.bytes;
    if (s.peer >= 0) {
      if (s.peer < this.job.ranks) args.peer = s.peer;
      else {
        const node = s.peer - this.job.ranks;
        if (node < this.nodes) {
          args.peer = this.job.firstRank[node];
          args.peerLane = 'nic';
        }
      }
    }
    if (s.msg !== undefined) args.msg = s.msg;
    if (s.step >= 0) args.step = s.step;
    if (s.round >= 0) args.round = s.round;
    if (s.label !== undefined) args.label = s.label;
    const name = s.kind === 'collective' ? (s.label?.split(' ')[0] ?? 'collective') : s.kind;
    return { name, cat: s.kind, ph: 'X', ts: s.start, dur: Math.max(0, s.end - s.start), pid: piece.rank, tid: piece.lane, args };
  }

  private metadata(): MetadataEvent[] {
    const meta: MetadataEvent[] = [];
    for (let r = 0; r < this.job.ranks; r++) {
      meta.push({ name: 'process_name', ph: 'M', pid: r, args: { name: `rank ${r}` } });
      meta.push({ name: 'process_sort_index', ph: 'M', pid: r, args: { sort_index: r } });
      meta.push({ name: 'thread_name', ph: 'M', pid: r, tid: 'host', args: { name: 'host' } });
      if (this.lanes.has(`${r}:nic`)) meta.push({ name: 'thread_name', ph: 'M', pid: r, tid: 'nic', args: { name: 'nic (offload engine)' } });
    }
    return meta;
  }

  /** Complete the trace: the file is closed (and undefined returned), or the trace is returned. */
  finish(exitCode: number): { otherData: RunTraceMeta; trace?: RunTraceFile } {
    const otherData: RunTraceMeta = {
      format: TIMELINE_FORMAT,
      version: TIMELINE_VERSION,
      source: 'run',
      ranks: this.job.ranks,
      nodes: this.nodes,
      program: this.job.program,
      args: this.job.args.join(' '),
      origin: new Date(this.job.origin).toISOString(),
      spans: this.spans,
      dropped: this.dropped,
      limit: this.job.limit,
      exitCode,
    };
    const meta = this.metadata();
    if (this.fd === undefined) {
      const spans = [...this.events].sort((a, b) => a.ts - b.ts || a.pid - b.pid);
      return { otherData, trace: { traceEvents: [...meta, ...spans], displayTimeUnit: 'ns', otherData } };
    }
    try {
      const lines = meta.map((e) => JSON.stringify(e));
      writeSync(this.fd, `${this.written > 0 ? ',\n' : ''}${lines.join(',\n')}\n],\n"displayTimeUnit":"ns",\n"otherData":${JSON.stringify(otherData)}}\n`);
    } finally {
      closeSync(this.fd);
    }
    return { otherData };
  }
}

/** The Chrome trace of a run from its nodes' trace pieces, in memory. */
export function runTrace(pieces: readonly EncodedTrace[], job: RunTraceJob, exitCode = 0): RunTraceFile {
  const sink = new RunTraceSink(job);
  for (const p of pieces) sink.add(p);
  return sink.finish(exitCode).trace as RunTraceFile;
}
