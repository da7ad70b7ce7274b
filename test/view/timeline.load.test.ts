/**
 * The timeline loader (src/view/timeline/load.ts): the columnar view built from a
 * collectives trace (lanes, kinds, sorting, rebasing, msg-id and FIFO matching, noise
 * marks, meta), a foreign Chrome trace, a file of today's `coll sim --timeline`, and
 * the errors, which name the file and what is wrong where.
 */
import { describe, expect, it } from 'vitest';
import { loadTimeline } from '../../src/view/timeline/load.js';
import { getPreset, simulate, toChromeTrace } from '../../src/sim/index.js';

const X = (pid: number | string, tid: string | number, cat: string | undefined, ts: number, dur: number, args: Record<string, unknown> = {}, name = cat ?? 'x'): Record<string, unknown> => ({
  name,
  ...(cat !== undefined ? { cat } : {}),
  ph: 'X',
  ts,
  dur,
  pid,
  tid,
  args,
});

const ours = (events: unknown[], other: Record<string, unknown> = {}): unknown => ({
  traceEvents: events,
  displayTimeUnit: 'ns',
  otherData: { format: 'collectives-timeline', version: 1, source: 'run', ranks: 3, ...other },
});

describe('loadTimeline: collectives traces', () => {
  const v = loadTimeline(
    ours(
      [
        { ph: 'M', name: 'process_name', pid: 0, args: { name: 'rank 0' } },
        X(1, 'nic', 'recv', 1030, 5, { peer: 0, bytes: 64, msg: 7 }),
        X(0, 'host', 'collective', 1000, 60, { label: 'allreduce allreduce/ring' }),
        X(0, 'host', 'send', 1010, 4, { peer: 1, bytes: 64, msg: 7, step: 0, round: 0 }),
        X(1, 'host', 'reduce', 1040, 2, { bytes: 64 }),
        X(0, 'host', 'noise', 1020, 3, {}, 'detour'),
        X(0, 'nic', 'send', 1001, 1, { peer: 1, bytes: 8, msg: 'a' }),
        X(1, 'host', 'recv', 1002, 1, { peer: 0, bytes: 8, msg: 'a' }),
        X(0, 'host', 'copy', 1000, 0, { bytes: 64 }),
      ],
      { collective: 'allreduce', bytes: 64, machine: { name: 'nested' }, quick: true, list: [1, 2] },
    ),
    'run.json',
  );

  it('orders lanes by rank, host before nic, and gives every declared rank a lane', () => {
    expect(v.lanes).toEqual(['rank 0', 'rank 0 nic', 'rank 1', 'rank 1 nic', 'rank 2']);
    expect(v.laneRank).toEqual([0, 0, 1, 1, 2]);
    expect(v.ranks).toBe(3);
    expect(v.source).toBe('run');
  });

  it('sorts spans by lane then start, rebased so the earliest starts at 0, with kinds and tags', () => {
    const rows = v.spans.lane.map((l, i) => [l, v.kinds[v.spans.kind[i]], v.spans.start[i], v.spans.dur[i], v.spans.peer[i], v.spans.bytes[i], v.spans.label[i]]);
    expect(rows).toEqual([
      [0, 'collective', 0, 60, -1, -1, 'allreduce allreduce/ring'],
      [0, 'copy', 0, 0, -1, 64, ''],
      [0, 'send', 10, 4, 1, 64, ''],
      [1, 'send', 1, 1, 1, 8, ''],
      [2, 'recv', 2, 1, 0, 8, ''],
      [2, 'reduce', 40, 2, -1, 64, ''],
      [3, 'recv', 30, 5, 0, 64, ''],
    ]);
    expect(new Set(v.kinds)).toEqual(new Set(['collective', 'copy', 'send', 'recv', 'reduce']));
  });

  it('matches sends and recvs by msg id, both ways', () => {
    expect(v.spans.match).toEqual([-1, -1, 6, 4, 3, -1, 2]);
  });

  it('puts noise into marks, not spans', () => {
    expect(v.marks).toEqual({ lane: [0], start: [20], dur: [3], label: ['detour'] });
  });

  it('keeps the primitive otherData fields as meta', () => {
    expect(v.meta).toEqual({ source: 'run', ranks: 3, collective: 'allreduce', bytes: 64, quick: true });
  });

  it('computes the critical path, leaving the call span out', () => {
    // Rank 1's reduce ends last; its recv waited for rank 0's send (released at 14, the
    // rank was ready at 3), which followed rank 0's NIC send and the copy at 0.
    expect(v.critical).toEqual([1, 3, 2, 6, 5]);
  });

  it('survives a JSON round trip unchanged (plain arrays, no typed arrays)', () => {
    expect(JSON.parse(JSON.stringify(v))).toEqual(v);
  });
});

describe('loadTimeline: matching without msg ids', () => {
  it('pairs the n-th send A→B with the n-th recv at B from A', () => {
    const v = loadTimeline(
      ours([
        X(0, 'host', 'send', 0, 1, { peer: 1 }),
        X(0, 'host', 'send', 2, 1, { peer: 1 }),
        X(2, 'host', 'send', 0, 1, { peer: 1 }),
        X(1, 'host', 'recv', 5, 1, { peer: 0 }),
        X(1, 'host', 'recv', 3, 1, { peer: 2 }),
        X(1, 'host', 'recv', 8, 1, { peer: 0 }),
      ]),
      'fifo.json',
    );
    const at = (lane: number, start: number): number => v.spans.lane.findIndex((l, i) => l === lane && v.spans.start[i] === start);
    expect(v.spans.match[at(0, 0)]).toBe(at(1, 5));
    expect(v.spans.match[at(0, 2)]).toBe(at(1, 8));
    expect(v.spans.match[at(2, 0)]).toBe(at(1, 3));
    expect(v.spans.match[at(1, 3)]).toBe(at(2, 0));
  });

  it("reads today's coll sim --timeline files (names 'send → 3', no cat, no msg ids)", () => {
    const rep = simulate({ collective: 'bcast', algorithm: 'binomial', machine: getPreset('loggopsim'), procs: 6, bytes: 64, timeline: true });
    const trace = toChromeTrace(rep.timeline ?? [], { collective: 'bcast', algorithm: 'binomial', machine: 'loggopsim', procs: 6 });
    const v = loadTimeline(JSON.parse(JSON.stringify(trace)), 'sim.json');
    expect(v.source).toBe('sim');
    expect(v.ranks).toBe(6);
    expect(v.lanes).toHaveLength(6);
    const sends = v.spans.kind.filter((k) => v.kinds[k] === 'send').length;
    expect(sends).toBe(5);
    for (let i = 0; i < v.spans.kind.length; i++) {
      const k = v.kinds[v.spans.kind[i]];
      if (k !== 'send' && k !== 'recv') continue;
      const m = v.spans.match[i];
      expect(m).toBeGreaterThanOrEqual(0);
      expect(v.spans.match[m]).toBe(i);
      expect(v.laneRank[v.spans.lane[m]]).toBe(v.spans.peer[i]);
      expect(v.spans.label[i]).toBe('');
    }
    const last = v.critical[v.critical.length - 1];
    expect(v.spans.start[last] + v.spans.dur[last]).toBeCloseTo(rep.first.time * 1e6, 9);
  });
});

describe('loadTimeline: foreign Chrome traces', () => {
  it('reads a bare array of events with numeric tids, kinds from names, other phases ignored', () => {
    const v = loadTimeline(
      [
        { ph: 'i', name: 'mark', ts: 1, pid: 0, tid: 1 },
        { ph: 'X', name: 'MPI_Send', ts: 10, dur: 2, pid: 1, tid: 2 },
        { ph: 'X', name: 'MPI_Recv', ts: 11, dur: 4, pid: 0, tid: 1, args: { bytes: 'lots' } },
        { ph: 'X', name: 'compute', ts: 5, dur: 5, pid: 0, tid: 0 },
      ],
      'foreign.json',
    );
    expect(v.lanes).toEqual(['rank 0 0', 'rank 0 1', 'rank 1 2']);
    expect(v.kinds).toEqual(['MPI_Send', 'MPI_Recv', 'compute']);
    expect(v.spans.start).toEqual([0, 6, 5]);
    expect(v.spans.bytes).toEqual([-1, -1, -1]);
    expect(v.source).toBe('run');
    expect(v.meta).toEqual({});
  });

  it('numbers sparse or named processes in order and names their lanes by pid', () => {
    const v = loadTimeline({ traceEvents: [X(40211, 7, 'a', 0, 1), X(39000, 7, 'b', 0, 1), X('gpu', 'stream', 'c', 0, 1)] }, 'pids.json');
    expect(v.lanes).toEqual(['pid 39000 7', 'pid 40211 7', 'pid gpu stream']);
    expect(v.laneRank).toEqual([0, 1, 2]);
    expect(v.ranks).toBe(3);
  });
});

describe('loadTimeline: errors name the file and the problem', () => {
  const cases: [string, unknown, RegExp][] = [
    ['a number', 42, /^n\.json: not a valid timeline trace:\n {4}- expected a JSON object with traceEvents \(or an array of trace events\), got number/],
    ['an object without events', { foo: 1 }, /got an object without traceEvents/],
    ['traceEvents not an array', { traceEvents: 5 }, /traceEvents: expected array, got number/],
    ['an empty trace', { traceEvents: [] }, /traceEvents is empty/],
    ['no complete events', [{ ph: 'M', name: 'x', pid: 0 }], /no complete \('X'\) spans among its 1 event$/m],
    ['only noise', ours([X(0, 'host', 'noise', 0, 1)]), /no complete \('X'\) spans among its 1 event other than noise/],
    ['a string time', { traceEvents: [{ ph: 'X', ts: '1', dur: 1, pid: 0 }] }, /traceEvents\[0\]\.ts: expected number, got string/],
    ['a missing duration', { traceEvents: [{ ph: 'X', ts: 1, pid: 0 }] }, /traceEvents\[0\]\.dur: missing \(expected number\)/],
    ['a negative duration and an event without ph', { traceEvents: [{ ph: 'X', ts: 1, dur: -1, pid: 0 }, { ts: 3 }] }, /traceEvents\[0\]\.dur: must be ≥ 0\n {4}- traceEvents\[1\]\.ph: missing/],
    ['an unsupported version', ours([X(0, 'host', 'send', 0, 1)], { version: 2 }), /otherData\.version: 2 is not supported \(this coll reads version 1\)/],
    ['a bad source', ours([X(0, 'host', 'send', 0, 1)], { source: 'hw' }), /otherData\.source: must be "sim" or "run"/],
    ['a bad tag', ours([X(0, 'host', 'send', 0, 1, { bytes: 'x', peer: -1 })]), /traceEvents\[0\]\.args\.bytes: expected number, got string\n {4}- traceEvents\[0\]\.args\.peer: must be ≥ 0/],
    ['a rank out of range', ours([X(3, 'host', 'send', 0, 1)]), /traceEvents\[0\]\.pid: rank 3 is out of range \(otherData\.ranks is 3\)/],
    ['a named process in our format', ours([X('r0', 'host', 'send', 0, 1)]), /traceEvents\[0\]\.pid: expected a rank \(an integer ≥ 0\), got "r0"/],
  ];
  for (const [what, json, re] of cases) {
    it(what, () => {
      expect(() => loadTimeline(json, 'n.json')).toThrow(re);
    });
  }

  it('lists at most 8 problems and counts the rest', () => {
    const bad = Array.from({ length: 12 }, () => ({ ph: 'X', ts: 'x', dur: 1, pid: 0 }));
    expect(() => loadTimeline(bad, 'many.json')).toThrow(/- \[7\]\.ts: expected number, got string\n {4}- … and 4 more/);
  });
});
