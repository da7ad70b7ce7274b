/**
 * The timeline's critical path (src/view/timeline/critical-path.ts): on random
 * message-passing runs it is a longest path of the run's DAG (checked against a
 * brute-force enumeration of every path), eager receives of a measured run jump to
 * their sender, and on simulated runs it reproduces the simulator's own critical
 * path: same end time, same last rank where that is unique, and its spans and gaps
 * sum to the busy and the wait parts of the simulator's breakdown.
 */
import { describe, expect, it } from 'vitest';
import { criticalPath, pathParts } from '../../src/view/timeline/critical-path.js';
import { loadTimeline } from '../../src/view/timeline/load.js';
import { getPreset, parseNoise, simulate, toChromeTrace, type SimOptions } from '../../src/sim/index.js';
import type { TimelineView } from '../../src/view/document.js';

/** A small deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Op {
  readonly rank: number;
  readonly kind: 'send' | 'recv' | 'compute';
  readonly tid: 'host' | 'nic';
  readonly dur: number;
  readonly peer: number;
  /** Index of the matching op (send ↔ recv), −1 otherwise. */
  match: number;
  /** Wire latency from the send's end to the recv's earliest start. */
  readonly lat: number;
  start: number;
}

/**
 * A random program: ops appended in one global order (a send always before its recv),
 * each rank's ops serial; a recv starts once the rank is free and its message arrived
 * (send end + latency), as in the simulator. Integer times make ties common.
 */
function randomRun(seed: number, P: number, nOps: number): Op[] {
  const r = rng(seed);
  const int = (k: number): number => Math.floor(r() * k);
  const ops: Op[] = [];
  const mk = (rank: number, kind: Op['kind'], peer: number, lat: number): Op => ({ rank, kind, tid: r() < 0.2 ? 'nic' : 'host', dur: int(5), peer, match: -1, lat, start: 0 });
  while (ops.length < nOps) {
    if (r() < 0.3) ops.push(mk(int(P), 'compute', -1, 0));
    else {
      const a = int(P);
      const b = (a + 1 + int(P - 1)) % P;
      const lat = int(4);
      const s = ops.push(mk(a, 'send', b, lat)) - 1;
      const v = ops.push(mk(b, 'recv', a, lat)) - 1;
      ops[s].match = v;
      ops[v].match = s;
    }
  }
  const free = new Array<number>(P).fill(0);
  for (const o of ops) {
    const arrival = o.kind === 'recv' ? ops[o.match].start + ops[o.match].dur + o.lat : 0;
    o.start = Math.max(free[o.rank], arrival);
    free[o.rank] = o.start + o.dur;
  }
  return ops;
}

/** The longest path (sum of durations and message latencies) ending at op `t`, by enumerating every path into it. */
function bruteLongest(ops: readonly Op[], t: number): number {
  const prevOnRank = ops.map((o, i) => {
    for (let j = i - 1; j >= 0; j--) if (ops[j].rank === o.rank) return j;
    return -1;
  });
  let best = 0;
  const walk = (i: number, acc: number): void => {
    const here = acc + ops[i].dur;
    const p = prevOnRank[i];
    const m = ops[i].kind === 'recv' ? ops[i].match : -1;
    if (p < 0 && m < 0) best = Math.max(best, here);
    if (p >= 0) walk(p, here);
    if (m >= 0) walk(m, here + ops[i].lat);
  };
  walk(t, 0);
  return best;
}

function traceOf(ops: readonly Op[], order: readonly number[], withMsg: boolean): unknown {
  return {
    traceEvents: order.map((i) => {
      const o = ops[i];
      const msg = o.kind === 'send' ? i : o.kind === 'recv' ? o.match : undefined;
      return {
        name: o.kind,
        cat: o.kind,
        ph: 'X',
        ts: o.start + 100,
        dur: o.dur,
        pid: o.rank,
        tid: o.tid,
        args: { ...(o.peer >= 0 ? { peer: o.peer, bytes: 8 } : {}), ...(withMsg && msg !== undefined ? { msg } : {}), label: String(i) },
      };
    }),
    otherData: { format: 'collectives-timeline', version: 1, source: 'sim', ranks: Math.max(...ops.map((o) => o.rank)) + 1 },
  };
}

describe('critical path on random message-passing runs', () => {
  for (let seed = 1; seed <= 40; seed++) {
    it(`seed ${seed}: a longest path of the run's DAG, each step tight`, () => {
      const r = rng(seed * 7919);
      const P = 2 + Math.floor(r() * 4);
      const ops = randomRun(seed, P, 6 + Math.floor(r() * 14));
      // Interleave the ranks' ops at random in the file (the loader sorts); each rank's
      // own ops stay in program order, which breaks ties between zero-length spans.
      const queues = Array.from({ length: P }, (_, q) => ops.map((_, i) => i).filter((i) => ops[i].rank === q));
      const order: number[] = [];
      while (order.length < ops.length) {
        const q = queues.filter((x) => x.length > 0);
        order.push(q[Math.floor(r() * q.length)].shift() as number);
      }
      const v = loadTimeline(traceOf(ops, order, seed % 2 === 0), `random-${seed}.json`);
      // The label carries the op's index; the first op starts at 0 (the trace at 100 µs, rebased).
      const opOf = v.spans.label.map(Number);
      v.spans.start.forEach((s, j) => expect(s).toBe(ops[opOf[j]].start));
      const path = v.critical;
      expect(path.length).toBeGreaterThan(0);
      const end = (j: number): number => v.spans.start[j] + v.spans.dur[j];
      const maxEnd = Math.max(...v.spans.start.map((_, j) => end(j)));
      expect(end(path[path.length - 1])).toBe(maxEnd);
      expect(v.spans.start[path[0]]).toBe(0);
      // Every step of the chain is tight: the rank's previous op ending as the next starts, or a message arriving as its recv starts.
      let length = 0;
      for (let k = 0; k < path.length; k++) {
        const j = path[k];
        length += v.spans.dur[j];
        if (k === 0) continue;
        const i = path[k - 1];
        if (v.spans.match[j] === i) {
          const lat = ops[opOf[j]].lat;
          expect(end(i) + lat).toBe(v.spans.start[j]);
          length += lat;
        } else {
          expect(v.laneRank[v.spans.lane[i]]).toBe(v.laneRank[v.spans.lane[j]]);
          expect(end(i)).toBe(v.spans.start[j]);
        }
      }
      const lastOps = ops.map((_, i) => i).filter((i) => ops[i].start + ops[i].dur === maxEnd);
      const longest = Math.max(...lastOps.map((t) => bruteLongest(ops, t)));
      expect(longest).toBe(maxEnd);
      expect(length).toBe(longest);
    });
  }
});

describe('critical path rule', () => {
  const view = (spans: { lane: number; kind: string; start: number; dur: number; match?: number }[], lanes: number[]): Parameters<typeof criticalPath>[0] => {
    const kinds = [...new Set(spans.map((s) => s.kind))];
    return {
      laneRank: lanes,
      kinds,
      spans: {
        lane: spans.map((s) => s.lane),
        kind: spans.map((s) => kinds.indexOf(s.kind)),
        start: spans.map((s) => s.start),
        dur: spans.map((s) => s.dur),
        match: spans.map((s) => s.match ?? -1),
      },
    };
  };

  it('an eager recv (the send returns after the data arrived) jumps to the send when the send started after the receiver was ready', () => {
    // rank 0: compute [0,10], send [10,20] (returns late); rank 1: recv posted at 2, completes at 12.
    const v = view(
      [
        { lane: 0, kind: 'compute', start: 0, dur: 10 },
        { lane: 0, kind: 'send', start: 10, dur: 10, match: 3 },
        { lane: 1, kind: 'compute', start: 0, dur: 2 },
        { lane: 1, kind: 'recv', start: 2, dur: 10, match: 1 },
        { lane: 1, kind: 'reduce', start: 12, dur: 9 },
      ],
      [0, 1],
    );
    expect(criticalPath(v)).toEqual([0, 1, 3, 4]);
  });

  it('a recv whose data was there before the rank was ready continues on its rank', () => {
    const v = view(
      [
        { lane: 0, kind: 'send', start: 0, dur: 1, match: 3 },
        { lane: 1, kind: 'compute', start: 0, dur: 5 },
        { lane: 1, kind: 'compute', start: 5, dur: 5 },
        { lane: 1, kind: 'recv', start: 10, dur: 1, match: 0 },
      ],
      [0, 1],
    );
    expect(criticalPath(v)).toEqual([1, 2, 3]);
  });

  it("follows a rank across its lanes (host 'start', NIC steps, host 'finish') and skips call spans", () => {
    const v = view(
      [
        { lane: 0, kind: 'collective', start: 0, dur: 30 },
        { lane: 0, kind: 'start', start: 0, dur: 3 },
        { lane: 0, kind: 'finish', start: 20, dur: 2 },
        { lane: 1, kind: 'reduce', start: 3, dur: 7 },
        { lane: 1, kind: 'copy', start: 10, dur: 10 },
      ],
      [0, 0],
    );
    expect(criticalPath(v)).toEqual([1, 3, 4, 2]);
  });

  it('is empty without spans and a single span alone', () => {
    expect(criticalPath(view([], []))).toEqual([]);
    expect(criticalPath(view([{ lane: 0, kind: 'compute', start: 0, dur: 4 }], [0]))).toEqual([0]);
  });
});

describe('critical path of simulated runs', () => {
  const cases: { name: string; o: Omit<SimOptions, 'machine' | 'noise'> & { machine: string; noise?: string } }[] = [
    { name: 'allreduce recursive doubling, 8 ranks', o: { collective: 'allreduce', algorithm: 'recursive_doubling', machine: 'loggopsim', procs: 8, bytes: 1024 } },
    { name: 'bcast binomial, 7 ranks', o: { collective: 'bcast', algorithm: 'binomial', machine: 'loggopsim', procs: 7, bytes: 4096 } },
    { name: 'allgather ring, 5 ranks', o: { collective: 'allgather', algorithm: 'ring', machine: 'loggopsim', procs: 5, bytes: 64 } },
    { name: 'barrier dissemination, 13 ranks', o: { collective: 'barrier', algorithm: 'dissemination', machine: 'loggopsim', procs: 13, bytes: 0 } },
    { name: 'reduce binomial on the NIC, 16 ranks', o: { collective: 'reduce', algorithm: 'binomial', machine: 'crescendo', procs: 16, bytes: 8, mode: 'offload' } },
    { name: 'allreduce, interior ranks on the NIC, skewed arrivals', o: { collective: 'allreduce', algorithm: 'recursive_doubling', machine: 'crescendo', procs: 16, bytes: 8, mode: 'intermediate', skew: { kind: 'exponential', value: 5e-6 } } },
    { name: 'allreduce ring, 64 ranks on 4 nodes (contention)', o: { collective: 'allreduce', algorithm: 'ring', machine: 'bluewaters', procs: 64, ppn: 16, bytes: 8192 } },
    { name: 'allreduce under OS noise, 32 ranks', o: { collective: 'allreduce', algorithm: 'recursive_doubling', machine: 'alc', procs: 32, ppn: 2, bytes: 8, noise: 'seed000-alc' } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { machine, noise, ...rest } = c.o;
      const rep = simulate({ ...rest, machine: getPreset(machine), timeline: true, ...(noise ? { noise: parseNoise(noise) } : {}) });
      const trace = toChromeTrace(rep.timeline ?? [], { collective: c.o.collective, ranks: c.o.procs });
      const t0 = Math.min(...trace.traceEvents.map((e) => e.ts));
      const v: TimelineView = loadTimeline(JSON.parse(JSON.stringify(trace)), `${c.name}.json`);
      const parts = pathParts(v, v.critical);
      const sim = rep.first.criticalPath;
      const p = sim.parts;
      const close = (a: number, b: number): void => expect(Math.abs(a - b)).toBeLessThan(1e-6 * Math.max(1, Math.abs(b)));
      close(parts.end + t0, rep.first.time * 1e6);
      close(parts.busy, (p.cpu + p.nic + p.gamma + p.sync + p.noise) * 1e6);
      close(parts.gaps + t0, (p.skew + p.alpha + p.beta + p.queue) * 1e6);
      // The path's last rank ends at the simulator's time; it is the simulator's last rank when no other rank ties.
      const last = v.critical[v.critical.length - 1];
      const lastRank = v.laneRank[v.spans.lane[last]];
      const ends = new Map<number, number>();
      v.spans.start.forEach((s, j) => {
        const r = v.laneRank[v.spans.lane[j]];
        ends.set(r, Math.max(ends.get(r) ?? 0, s + v.spans.dur[j]));
      });
      close((ends.get(sim.rank) ?? 0) + t0, rep.first.time * 1e6);
      const tied = [...ends.values()].filter((e) => Math.abs(e + t0 - rep.first.time * 1e6) < 1e-6).length;
      if (tied === 1) expect(lastRank).toBe(sim.rank);
    });
  }
});
