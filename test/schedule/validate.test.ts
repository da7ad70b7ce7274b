/** The validator, statistics, rendering and the reference executor on hand-built schedules. */
import { describe, expect, it } from 'vitest';
import { DeadlockError, ScheduleError } from '../../src/core/errors.js';
import { generateSchedule } from '../../src/algorithms/registry.js';
import { executeSchedule } from '../../src/reference/executor.js';
import { ScheduleBuilder } from '../../src/schedule/builder.js';
import { makeContext } from '../../src/schedule/context.js';
import { renderSchedule } from '../../src/schedule/render.js';
import { computeStats, meshRoute } from '../../src/schedule/stats.js';
import { meshTopology, nodeTopology } from '../../src/schedule/topology.js';
import type { RankSchedule } from '../../src/schedule/types.js';
import { assertValidSchedule, validateSchedule } from '../../src/schedule/validate.js';

/** Build a P-rank allreduce-shaped schedule with a per-rank body. */
function build(P: number, count: number, body: (b: ScheduleBuilder) => void): RankSchedule[] {
  return Array.from({ length: P }, (_, rank) => {
    const b = new ScheduleBuilder(makeContext('allreduce', { rank, size: P, count }), 'handmade');
    body(b);
    return b.build();
  });
}

const messages = (P: number) => validateSchedule(build(P, 4, () => {})).map((i) => i.message);

describe('validator', () => {
  it('accepts a correct exchange', () => {
    const s = build(2, 4, (b) => {
      const t = b.scratch(4);
      const [x, y] = b.exchange(1 - b.rank, b.in(0, 4), b.region(t, 0, 4));
      b.reduce([b.in(0, 4), b.region(t, 0, 4)], b.out(0, 4), [x, y]);
    });
    expect(validateSchedule(s)).toEqual([]);
    expect(messages(2)).toEqual([]);
  });

  it('reports regions out of bounds and undeclared buffers', () => {
    const s = build(2, 4, (b) => {
      b.copy(b.in(2, 4), b.out(0, 4));
      b.copy(b.region(7, 0, 1), b.out(0, 1));
    });
    const msgs = validateSchedule(s).map((i) => i.message);
    expect(msgs.some((m) => /exceeds buffer 'in' of 4 element/.test(m))).toBe(true);
    expect(msgs.some((m) => /undeclared buffer 7/.test(m))).toBe(true);
  });

  it('reports unmatched messages and size mismatches', () => {
    const unmatched = build(2, 4, (b) => {
      if (b.rank === 0) b.send(1, b.in(0, 4));
    });
    expect(validateSchedule(unmatched)[0].message).toMatch(/rank 0 sends 1 message\(s\) to rank 1, which receives 0/);
    const sizes = build(2, 4, (b) => {
      if (b.rank === 0) b.send(1, b.in(0, 4));
      else b.recv(0, b.out(0, 3));
    });
    expect(validateSchedule(sizes)[0].message).toMatch(/4 element\(s\) sent .* but 3 expected/);
  });

  it('reports a data race between unordered steps', () => {
    const s = build(2, 4, (b) => {
      const r = b.recv(1 - b.rank, b.out(0, 4));
      b.send(1 - b.rank, b.in(0, 4));
      b.copy(b.in(0, 4), b.out(0, 4)); // not ordered after the receive into out
      void r;
    });
    expect(validateSchedule(s)[0].message).toMatch(/data race: step 0 .* and step 2/);
  });

  it('reports a deadlock under synchronous sends with the stuck steps', () => {
    // Both ranks receive first and only then send.
    const s = build(2, 4, (b) => {
      const r = b.recv(1 - b.rank, b.out(0, 4));
      b.send(1 - b.rank, b.in(0, 4), [r]);
    });
    const issues = validateSchedule(s);
    expect(issues[0].message).toMatch(/cannot make progress.*rank 0 step 0 \(recv/);
    expect(() => assertValidSchedule(s)).toThrow(ScheduleError);
    // The executor finds the same deadlock when run.
    expect(() => executeSchedule(s, { datatype: 'int32', inputs: [new Uint8Array(16), new Uint8Array(16)] })).toThrow(DeadlockError);
  });

  it('rejects send-then-receive cycles that only eager buffering would save', () => {
    const s = build(2, 4, (b) => {
      const x = b.send(1 - b.rank, b.in(0, 4));
      b.recv(1 - b.rank, b.out(0, 4), [x]);
    });
    expect(validateSchedule(s)[0].message).toMatch(/cannot make progress/);
  });

  it('rejects self-messages, bad peers and malformed reductions', () => {
    const s = build(2, 4, (b) => {
      b.send(b.rank, b.in(0, 4));
      b.reduce([b.in(0, 4)], b.out(0, 4));
      b.reduce([b.in(0, 4), b.out(1, 3)], b.out(0, 4));
    });
    const msgs = validateSchedule(s).map((i) => i.message);
    expect(msgs.some((m) => /peer 0 is not another rank/.test(m))).toBe(true);
    expect(msgs.some((m) => /at least two operands/.test(m))).toBe(true);
    expect(msgs.some((m) => /partially overlaps/.test(m))).toBe(true);
  });

  it('builder refuses forward dependencies', () => {
    const b = new ScheduleBuilder(makeContext('allreduce', { rank: 0, size: 2, count: 1 }), 'x');
    expect(() => b.copy(b.in(0, 1), b.out(0, 1), [3])).toThrow(/invalid step 3/);
  });
});

describe('statistics', () => {
  it('counts messages, bytes and rounds of recursive doubling (closed form)', () => {
    for (const P of [2, 4, 8, 16, 32]) {
      const s = generateSchedule('allreduce', 'recursive_doubling', { size: P, count: 10 });
      const st = computeStats(s, { elementSize: 8 });
      expect(st.rounds).toBe(Math.log2(P));
      for (const r of st.perRank) {
        expect(r.messagesSent).toBe(Math.log2(P));
        expect(r.bytesSent).toBe(Math.log2(P) * 80);
        expect(r.messagesReceived).toBe(Math.log2(P));
        expect(r.reduceElements).toBe(Math.log2(P) * 10);
      }
      expect(st.totalMessages).toBe(P * Math.log2(P));
    }
  });

  it('classifies inter-node messages and counts concurrent injectors per node', () => {
    // 4 nodes x 4 ranks, block: RD rounds 0,1 are intra-node, rounds 2,3 inter-node with all 4 ranks injecting.
    const topology = nodeTopology(16, 4);
    const s = generateSchedule('allreduce', 'recursive_doubling', { size: 16, count: 1, topology });
    const st = computeStats(s, { topology });
    expect(st.maxInterNodeMessagesPerRank).toBe(2);
    expect(st.perRound.map((r) => r.interNodeMessages)).toEqual([0, 0, 16, 16]);
    expect(st.perRound.map((r) => r.maxInjectorsPerNode)).toEqual([0, 0, 4, 4]);
    expect(st.maxConcurrentInjectorsPerNode).toBe(4);
  });

  it('routes mesh messages X then Y and detects link conflicts', () => {
    expect(meshRoute({ x: 0, y: 0 }, { x: 2, y: 1 })).toEqual([
      { x: 0, y: 0, nx: 1, ny: 0 },
      { x: 1, y: 0, nx: 2, ny: 0 },
      { x: 2, y: 0, nx: 2, ny: 1 },
    ]);
    const topology = meshTopology(3, 1);
    // Rank 0 -> 2 and rank 1 -> 2 in the same round share link (1,0)->(2,0).
    const s = Array.from({ length: 3 }, (_, rank) => {
      const b = new ScheduleBuilder(makeContext('gather', { rank, size: 3, count: 1, root: 2, topology }), 'x');
      if (rank < 2) b.send(2, b.in(0, 1));
      else {
        b.recv(0, b.out(0, 1));
        b.recv(1, b.out(1, 1));
        b.copy(b.in(0, 1), b.out(2, 1));
      }
      return b.build();
    });
    const st = computeStats(s, { topology });
    expect(st.mesh?.maxLinkLoad).toBe(2);
    expect(st.mesh?.conflicts[0]).toMatchObject({ round: 0, link: '(1,0)->(2,0)' });
    expect(st.maxActiveLinksPerNode).toBe(2);
  });
});

describe('rendering', () => {
  it('shows who talks to whom per round, and per-rank steps', () => {
    const s = generateSchedule('allreduce', 'recursive_doubling', { size: 4, count: 2 });
    const text = renderSchedule(s);
    expect(text).toContain('allreduce/recursive_doubling  P=4  rounds=2');
    expect(text).toMatch(/round 0 \(butterfly\): 0<->1\[2\] 2<->3\[2\]/);
    expect(text).toMatch(/round 1 \(butterfly\): 0<->2\[2\] 1<->3\[2\]/);
    const ranks = renderSchedule(s, { by: 'ranks', ranks: [3] });
    expect(ranks).toContain('rank 3  buffers: in[2] out[2] tmp[2]');
    expect(ranks).toMatch(/#1 r0 butterfly: send out\[0..2\) -> 2 {2}after 0/);
    expect(ranks).not.toContain('rank 0 ');
  });
});

describe('reference executor message matching', () => {
  it('matches the k-th send with the k-th receive in step order, whatever order they run in', () => {
    // Rank 0 sends two independent messages to rank 1; rank 1 receives them into two slots.
    const s = Array.from({ length: 2 }, (_, rank) => {
      const b = new ScheduleBuilder(makeContext('allgather', { rank, size: 2, count: 2 }), 'x');
      if (rank === 0) {
        b.send(1, b.in(0, 1));
        b.send(1, b.in(1, 1));
      } else {
        b.recv(0, b.out(0, 1));
        b.recv(0, b.out(1, 1));
      }
      return b.build();
    });
    for (let seed = 1; seed <= 40; seed++) {
      const { outputs } = executeSchedule(s, {
        datatype: 'int32',
        inputs: [new Uint8Array(Int32Array.of(10, 20).buffer), new Uint8Array(8)],
        order: 'random',
        seed,
      });
      expect([...new Int32Array(outputs[1].buffer, 0, 2)]).toEqual([10, 20]);
    }
  });
});
