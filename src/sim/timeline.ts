/**
 * Timeline export: the first run's intervals as Chrome trace events (JSON, viewable in
 * Perfetto or chrome://tracing, and by `coll view`), in the documented format of
 * docs/view-formats.md: one process per rank, one thread for the host CPU and one for
 * the NIC, times in microseconds of simulated time; `cat` is the interval's kind (send,
 * recv, reduce, copy, start, finish, noise); a send and the recv it delivered carry the
 * same `args.msg` ("<sender>><receiver>:<index>"); `otherData` is tagged
 * `format: 'collectives-timeline', version: 1, source: 'sim'`.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import type { TimelineRecord } from './engine.js';

export const TIMELINE_FORMAT = 'collectives-timeline';
export const TIMELINE_VERSION = 1;

export interface ChromeTraceEvent {
  readonly name: string;
  readonly cat: TimelineRecord['kind'];
  readonly ph: 'X';
  readonly ts: number;
  readonly dur: number;
  readonly pid: number;
  readonly tid: 'host' | 'nic';
  readonly args: Readonly<Record<string, number | string>>;
}

export interface ChromeTrace {
  readonly traceEvents: readonly ChromeTraceEvent[];
  readonly displayTimeUnit: 'ns';
  readonly otherData: Readonly<Record<string, unknown>> & {
    readonly format: typeof TIMELINE_FORMAT;
    readonly version: typeof TIMELINE_VERSION;
    readonly source: 'sim';
    readonly ranks: number;
  };
}

/** The id a send and its recv share: sender, receiver and the message's index between them. */
export function simMessageId(src: number, dst: number, index: number): string {
  return `${src}>${dst}:${index}`;
}

/**
 * `meta` goes into otherData (the sim command gives collective, algorithm, machine,
 * procs, …); `ranks` is meta.ranks, else meta.procs, else one more than the highest
 * rank recorded.
 */
export function toChromeTrace(records: readonly TimelineRecord[], meta: Readonly<Record<string, unknown>>): ChromeTrace {
  let maxRank = -1;
  const traceEvents: ChromeTraceEvent[] = new Array<ChromeTraceEvent>(records.length);
  for (let i = 0; i < records.length; i++) {
    const r = records[i];
    if (r.rank > maxRank) maxRank = r.rank;
    const args: Record<string, number | string> = {};
    if (r.step >= 0) args.step = r.step;
    if (r.bytes !== undefined) args.bytes = r.bytes;
    if (r.peer !== undefined) args.peer = r.peer;
    if (r.index !== undefined && r.peer !== undefined) {
      if (r.kind === 'send') args.msg = simMessageId(r.rank, r.peer, r.index);
      else if (r.kind === 'recv') args.msg = simMessageId(r.peer, r.rank, r.index);
    }
    traceEvents[i] = {
      name: r.kind === 'send' ? `send → ${r.peer}` : r.kind === 'recv' ? `recv ← ${r.peer}` : r.kind,
      cat: r.kind,
      ph: 'X',
      ts: r.start * 1e6,
      dur: (r.end - r.start) * 1e6,
      pid: r.rank,
      tid: r.on,
      args,
    };
  }
  const given = typeof meta.ranks === 'number' ? meta.ranks : typeof meta.procs === 'number' ? meta.procs : undefined;
  return {
    traceEvents,
    displayTimeUnit: 'ns',
    otherData: { ...meta, format: TIMELINE_FORMAT, version: TIMELINE_VERSION, source: 'sim', ranks: given ?? maxRank + 1 },
  };
}

/** Write a trace as JSON, one event per line, in batches: no single string of the whole file (10⁶ events are ~150 MB). */
export function writeChromeTrace(file: string, t: ChromeTrace): void {
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
