/** Offload doorbells: slot protocol in one thread, then a real worker_thread engine. */
import { describe, expect, it } from 'vitest';
import { Worker } from 'node:worker_threads';
import { ArgumentError, TimeoutError, TransportError } from '../../../src/core/errors.js';
import type { Descriptor } from '../../../src/offload/engine/descriptor.js';
import { EngineClaimer, RankPoster, makeEngineLayout, nextSeq, MAX_SEQ } from '../../../src/offload/engine/doorbell.js';

const desc = (count: number): Descriptor => ({
  kind: 'allreduce', op: 'sum', datatype: 'int32', channel: 1, cacheSlot: 3, inPlace: true, mode: 'all-nic',
  count, root: 0, sendOffset: 128, recvOffset: 128, command: 'collective', tag: 0, timeoutMs: 0, options: 0,
});
function setup(ranks: number, depth: number) {
  const layout = makeEngineLayout({ ranks, depth });
  const i32 = new Int32Array(new SharedArrayBuffer(layout.bytes));
  return { layout, i32 };
}

describe('offload doorbell (one thread)', () => {
  it('posts, claims in order, completes, and tickets see only their own sequence', () => {
    const { layout, i32 } = setup(1, 2);
    const rank = new RankPoster(i32, layout, 0);
    const engine = new EngineClaimer(i32, layout);
    expect(engine.claimAny()).toBeUndefined();
    const a = rank.post(desc(10));
    const b = rank.post(desc(11));
    expect(() => rank.post(desc(12))).toThrow(TransportError); // both slots in flight
    expect(a.test()).toBeUndefined();
    const ca = engine.claimAny()!;
    const cb = engine.claimAny()!;
    expect([ca.seq, ca.descriptor.count, cb.seq, cb.descriptor.count]).toEqual([1, 10, 2, 11]);
    engine.complete(cb, 5, 0, 'x'.repeat(5000)); // messages are cut to the rank's area
    expect(a.test()).toBeUndefined();
    expect(b.test()).toMatchObject({ seq: 2, code: 5, ok: false, message: 'x'.repeat(1020) });
    expect(() => engine.complete(cb)).toThrow(TransportError); // twice
    engine.complete(ca, 0, 17);
    // Slot 0 is reused by seq 3: the old completion (doneSeq 1) must not count for it.
    const c = rank.post(desc(12));
    expect(c.slot).toBe(0);
    expect(c.test()).toBeUndefined();
    expect(a.test()).toEqual({ seq: 1, code: 0, ok: true, reply: 17, message: '' }); // captured before reuse
    expect(() => c.wait(20)).toThrow(TimeoutError);
    engine.complete(engine.claimAny()!);
    expect(c.wait(20).ok).toBe(true);
  });

  it('validates before publishing and checks its arguments', () => {
    const { layout, i32 } = setup(2, 1);
    const rank = new RankPoster(i32, layout, 1);
    const engine = new EngineClaimer(i32, layout);
    expect(() => rank.post({ ...desc(1), channel: 99 })).toThrow(ArgumentError);
    expect(engine.claimAny()).toBeUndefined();
    expect(() => new RankPoster(i32, layout, 2)).toThrow(ArgumentError);
    expect(() => new RankPoster(new Int32Array(8) as Int32Array, layout, 0)).toThrow(ArgumentError);
    expect(() => makeEngineLayout({ ranks: 1, depth: 0 })).toThrow(ArgumentError);
    expect(() => makeEngineLayout({ ranks: 1, depth: 1, baseByte: 4 })).toThrow(ArgumentError);
    expect(nextSeq(MAX_SEQ)).toBe(1);
  });

  it('works at a base offset inside a larger arena', () => {
    const layout = makeEngineLayout({ ranks: 1, depth: 1, baseByte: 4096 });
    const i32 = new Int32Array(new SharedArrayBuffer(4096 + layout.bytes));
    const t = new RankPoster(i32, layout, 0).post(desc(3));
    const e = new EngineClaimer(i32, layout);
    e.complete(e.claimAny()!, 0);
    expect(t.test()?.ok).toBe(true);
    expect(new Int32Array(i32.buffer, 0, 1024).every((v) => v === 0)).toBe(true);
  });
});

function startEngine(sab: SharedArrayBuffer, ranks: number, depth: number, total: number, order: 'fifo' | 'reverse') {
  const url = new URL('./engine-worker.ts', import.meta.url);
  const w = new Worker(
    `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(url.href)}); })`,
    { eval: true, workerData: { sab, ranks, depth, total, order } },
  );
  return new Promise<{ rank: number; seq: number; count: number }[]>((resolve, reject) => {
    w.once('message', resolve);
    w.once('error', reject);
  });
}

describe('offload doorbell with a worker_thread engine', () => {
  it.each(['fifo', 'reverse'] as const)('completes posted descriptors (%s completion order)', async (order) => {
    const ranks = 2;
    const depth = 4;
    const { layout, i32 } = setup(ranks, depth);
    const seen = startEngine(i32.buffer as SharedArrayBuffer, ranks, depth, ranks * depth, order);
    const posters = [0, 1].map((r) => new RankPoster(i32, layout, r));
    const tickets = [];
    for (let k = 0; k < depth; k++) {
      for (const p of posters) tickets.push({ rank: p.rank, count: 100 * p.rank + k, t: p.post(desc(100 * p.rank + k)) });
    }
    // Await in reverse posting order, then in order: each ticket gets its own code.
    for (const x of [...tickets].reverse()) expect(await x.t.done(10_000)).toMatchObject({ seq: x.t.seq, code: x.count % 7, ok: x.count % 7 === 0 });
    for (const x of tickets) expect(x.t.wait(0).code).toBe(x.count % 7);
    const claims = await seen;
    for (const r of [0, 1]) {
      const mine = claims.filter((c) => c.rank === r);
      expect(mine.map((c) => c.seq)).toEqual([1, 2, 3, 4]); // claimed in posting order
      expect(mine.map((c) => c.count)).toEqual([0, 1, 2, 3].map((k) => 100 * r + k));
    }
  });

  it('blocking wait on the main thread is woken by the engine', async () => {
    const { layout, i32 } = setup(1, 1);
    const seen = startEngine(i32.buffer as SharedArrayBuffer, 1, 1, 1, 'fifo');
    const t = new RankPoster(i32, layout, 0).post(desc(14));
    expect(t.wait(10_000)).toMatchObject({ seq: 1, code: 0, ok: true });
    expect((await seen)[0]!.count).toBe(14);
  });
});
