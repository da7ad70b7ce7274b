/**
 * Timeline export: the first run's step intervals as Chrome trace events (JSON,
 * viewable in Perfetto or chrome://tracing): one process per rank, one thread for
 * the host CPU and one for the NIC, times in microseconds.
 */
import type { TimelineRecord } from './engine.js';

export interface ChromeTrace {
  readonly traceEvents: readonly {
    readonly name: string;
    readonly ph: 'X';
    readonly ts: number;
    readonly dur: number;
    readonly pid: number;
    readonly tid: string;
    readonly args: Readonly<Record<string, number | string>>;
  }[];
  readonly displayTimeUnit: 'ns';
  readonly otherData: Readonly<Record<string, unknown>>;
}

export function toChromeTrace(records: readonly TimelineRecord[], meta: Readonly<Record<string, unknown>>): ChromeTrace {
  return {
    traceEvents: records.map((r) => ({
      name: r.kind === 'send' ? `send → ${r.peer}` : r.kind === 'recv' ? `recv ← ${r.peer}` : r.kind,
      ph: 'X' as const,
      ts: r.start * 1e6,
      dur: (r.end - r.start) * 1e6,
      pid: r.rank,
      tid: r.on,
      args: { step: r.step, ...(r.bytes !== undefined ? { bytes: r.bytes } : {}) },
    })),
    displayTimeUnit: 'ns',
    otherData: meta,
  };
}
