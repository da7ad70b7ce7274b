/**
 * Test helper: the checks every `coll run --trace` timeline must pass (trace.test.ts,
 * trace-nodes.test.ts): the format tags, spans on every rank, every recv paired with
 * the send of the same message id and size that started before it ended, and every
 * schedule step inside a call span of its lane.
 */
import { expect } from 'vitest';
import type { RunTraceFile, SpanEvent } from '../../src/runtime/run-trace.js';

export function spansOf(t: RunTraceFile): SpanEvent[] {
  return t.traceEvents.filter((e): e is SpanEvent => e.ph === 'X');
}

export function checkRunTrace(t: RunTraceFile, ranks: number, nodes: number): SpanEvent[] {
  expect(t.otherData).toMatchObject({ format: 'collectives-timeline', version: 1, source: 'run', ranks, nodes, dropped: 0 });
  expect(t.displayTimeUnit).toBe('ns');
  const spans = spansOf(t);
  expect(t.otherData.spans).toBe(spans.length);
  for (let r = 0; r < ranks; r++) {
    const mine = spans.filter((s) => s.pid === r && s.tid === 'host');
    expect(mine.filter((s) => s.cat === 'collective').length, `rank ${r}`).toBeGreaterThanOrEqual(3);
    expect(mine.filter((s) => s.cat === 'send').length, `rank ${r}`).toBeGreaterThan(0);
    expect(mine.filter((s) => s.cat === 'recv').length, `rank ${r}`).toBeGreaterThan(0);
  }
  for (const s of spans) {
    expect(s.dur).toBeGreaterThanOrEqual(0);
    expect(s.ts).toBeGreaterThan(0);
  }
  // Every recv has its send: the same message id and bytes, started before the recv ended.
  const sends = new Map<string, SpanEvent>();
  for (const s of spans) {
    if (s.cat !== 'send') continue;
    expect(s.args.msg, JSON.stringify(s)).toBeDefined();
    expect(sends.has(s.args.msg as string), `duplicate message id ${s.args.msg}`).toBe(false);
    sends.set(s.args.msg as string, s);
  }
  const recvs = spans.filter((s) => s.cat === 'recv');
  for (const r of recvs) {
    const s = sends.get(r.args.msg as string);
    expect(s, `no send for ${JSON.stringify(r)}`).toBeDefined();
    if (!s) continue;
    expect(s.args.bytes).toBe(r.args.bytes);
    expect(r.ts + r.dur).toBeGreaterThanOrEqual(s.ts);
    expect(s.args.peer).toBe(r.pid);
    expect(r.args.peer).toBe(s.pid);
  }
  expect(recvs.length).toBe(sends.size);
  // Schedule steps lie inside a call span of their lane.
  const calls = spans.filter((s) => s.cat === 'collective');
  const eps = 1e-3;
  for (const st of spans.filter((s) => s.args.step !== undefined)) {
    const inside = calls.some((c) => c.pid === st.pid && c.tid === st.tid && c.ts <= st.ts + eps && st.ts + st.dur <= c.ts + c.dur + eps);
    expect(inside, `step outside its call: ${JSON.stringify(st)}`).toBe(true);
    expect(st.args.round).toBeGreaterThanOrEqual(0);
  }
  return spans;
}
