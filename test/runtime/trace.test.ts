/**
 * `coll run --trace` on one node (3 ranks): the timeline file and the job report's
 * trace section; without --trace nothing is recorded (real jobs, run side by side to
 * keep the file short). The span recorder itself: its bound, what it drops and counts,
 * and the encoding that carries spans to the launcher.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { launch } from '../../src/index.js';
import { runTrace, RunTraceSink, type RunTraceFile } from '../../src/runtime/run-trace.js';
import { decodeTrace, encodeTraceChunks, messageId, SK_COLLECTIVE, SK_RECV, SK_SEND, Tracer } from '../../src/exec/trace.js';
import { checkRunTrace, spansOf } from './trace-check.js';

const program = fileURLToPath(new URL('./programs/trace.ts', import.meta.url));

describe('coll run --trace, one node', () => {
  it('records every rank, pairs every message, nests steps in calls; off records nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'coll-trace-'));
    const file = join(dir, 'run.json');
    const base = { ranks: 3, nodes: 1, program, arenaMb: 64, jobTimeoutMs: 60_000 } as const;
    const [traced, plain] = await Promise.all([launch({ ...base, trace: { file } }), launch(base)]);
    expect(traced.exitCode, traced.stderr).toBe(0);
    // Written to the file as the nodes sent it (not kept in memory as well).
    const t = JSON.parse(readFileSync(file, 'utf8')) as RunTraceFile;
    expect(traced.trace).toBeUndefined();
    const spans = checkRunTrace(t, 3, 1);
    // The flat path and the named schedule show in the calls' labels, on every rank.
    for (let r = 0; r < 3; r++) {
      const labels = spans.filter((s) => s.pid === r && s.cat === 'collective').map((s) => s.args.label);
      expect(labels).toEqual(expect.arrayContaining(['allreduce allreduce/recursive_doubling', 'allreduce allreduce/shm_flat', 'allreduce allreduce/ring']));
      expect(spans.filter((s) => s.pid === r && s.cat === 'collective' && s.name === 'allreduce').every((s) => s.args.bytes !== undefined && s.args.bytes > 0)).toBe(true);
    }
    // Point-to-point messages (sendrecv, a receive from any source) pair like schedule steps.
    expect(spans.filter((s) => s.cat === 'recv' && s.args.label === 'recv tag 8').length).toBe(3);
    expect(traced.report.trace).toEqual({ spans: spans.length, dropped: 0, limit: 1_000_000, threads: 3, file });
    expect(traced.report.nodes[0].trace).toEqual({ threads: 3, spans: spans.length, dropped: 0 });

    expect(plain.exitCode, plain.stderr).toBe(0);
    expect(plain.trace).toBeUndefined();
    expect(plain.report.trace).toBeUndefined();
    expect(plain.report.nodes[0].trace).toBeUndefined();
  }, 60_000);

  it('refuses a bad limit and the MPI transport before starting anything', async () => {
    await expect(launch({ ranks: 2, program, trace: { limit: 0 } })).rejects.toThrow(/trace limit/);
    await expect(launch({ ranks: 2, program, trace: true, env: { COLL_TRACE_LIMIT: 'lots' } })).rejects.toThrow(/COLL_TRACE_LIMIT/);
    await expect(launch({ ranks: 2, program, trace: true, transport: 'mpi' })).rejects.toThrow(/not available on the MPI transport/);
  });
});

describe('the span recorder', () => {
  it('keeps at most its limit, counts the rest, and its spans survive the trip to the launcher', () => {
    const tr = new Tracer(5, 'host', { origin: performance.timeOrigin, limit: 3000 });
    const t = tr.now();
    expect(t).toBeGreaterThan(0);
    const call = tr.label('allreduce allreduce/ring');
    expect(tr.label('allreduce allreduce/ring')).toBe(call);
    for (let i = 0; i < 2000; i++) {
      tr.message(tr.span(SK_SEND, t + i, t + i + 0.5, 7, 64, -1, i, i >> 1), 3, 0, 9, 5, 7, i);
      tr.span(SK_COLLECTIVE, t + i, t + i + 1, -1, 64, call, -1, -1);
    }
    expect(tr.count).toBe(3000);
    expect(tr.dropped).toBe(1000);
    const pieces = encodeTraceChunks(tr.raw(), 1024);
    expect(pieces.map((p) => p.count)).toEqual([1024, 1024, 952]);
    expect(pieces.map((p) => p.dropped)).toEqual([1000, 0, 0]);
    const spans = pieces.flatMap((p) => decodeTrace(JSON.parse(JSON.stringify(p)) as typeof p));
    expect(spans.length).toBe(3000);
    expect(spans[0]).toEqual({ kind: 'send', start: t, end: t + 0.5, peer: 7, bytes: 64, label: undefined, step: 0, round: 0, msg: messageId(3, 0, 9, 5, 7, 0) });
    expect(spans[2999]).toMatchObject({ kind: 'collective', label: 'allreduce allreduce/ring', msg: undefined, peer: -1 });
    // As a Chrome trace: rank 5's lane, engine addresses (≥ ranks) drawn under their node's first rank.
    const file = runTrace(pieces, { ranks: 8, firstRank: [0, 4, 8], program: 'p.js', args: [], origin: performance.timeOrigin, limit: 3000 });
    expect(file.otherData).toMatchObject({ spans: 3000, dropped: 1000, ranks: 8, nodes: 2 });
    const sends = spansOf(file).filter((s) => s.cat === 'send');
    expect(sends[0]).toMatchObject({ name: 'send', pid: 5, tid: 'host', args: { peer: 7, bytes: 64, step: 0, round: 0 } });
    // Streamed into a file, the same events (the file keeps arrival order, the in-memory trace sorts by time).
    const path = join(mkdtempSync(join(tmpdir(), 'coll-trace-')), 't.json');
    const sink = new RunTraceSink({ ranks: 8, firstRank: [0, 4, 8], program: 'p.js', args: [], origin: performance.timeOrigin, limit: 3000 }, path);
    for (const p of pieces) sink.add(p);
    expect(sink.finish(0).trace).toBeUndefined();
    const streamed = JSON.parse(readFileSync(path, 'utf8')) as RunTraceFile;
    expect(streamed.otherData).toEqual(file.otherData);
    const key = (e: object): string => JSON.stringify(e);
    expect(streamed.traceEvents.map(key).sort()).toEqual(file.traceEvents.map(key).sort());
    expect(() => new RunTraceSink({ ranks: 1, firstRank: [0, 1], program: 'p.js', args: [], origin: 0, limit: 1 }, join(path, 'no', 'such.json'))).toThrow(/cannot write the trace file/);
    const viaEngine = runTrace([encodeTraceChunks(recvFromEngine())[0]], { ranks: 8, firstRank: [0, 4, 8], program: 'p.js', args: [], origin: performance.timeOrigin, limit: 10 });
    expect(spansOf(viaEngine)[0].args).toMatchObject({ peer: 4, peerLane: 'nic' });
  });
});

/** A rank's trace with one receive from node 1's engine (address 8 + 1 in an 8-rank job). */
function recvFromEngine(): ReturnType<Tracer['raw']> {
  const tr = new Tracer(0, 'nic', { origin: performance.timeOrigin, limit: 10 });
  tr.message(tr.span(SK_RECV, 1, 2, 9, 8, -1, 0, 0), 0, 0, 0, 9, 8, 0);
  return tr.raw();
}
