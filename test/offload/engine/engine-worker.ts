/** Test "engine" thread: claims descriptors and completes them in the order the parent dictates. */
import { parentPort, workerData } from 'node:worker_threads';
import { EngineClaimer, makeEngineLayout, type Claim } from '../../../src/offload/engine/doorbell.js';

const { sab, ranks, depth, total, order } = workerData as {
  sab: SharedArrayBuffer; ranks: number; depth: number; total: number; order: 'fifo' | 'reverse';
};
const i32 = new Int32Array(sab);
const engine = new EngineClaimer(i32, makeEngineLayout({ ranks, depth }));
const claimed: Claim[] = [];
while (claimed.length < total) {
  const bell = engine.bell();
  const c = engine.claimAny();
  if (c) claimed.push(c);
  else if (engine.waitForWork(bell, 10_000) === 'timed-out') throw new Error('engine: no work');
}
const seen = claimed.map((c) => ({ rank: c.rank, seq: c.seq, count: c.descriptor.count, kind: c.descriptor.kind }));
const todo = order === 'fifo' ? claimed : [...claimed].reverse();
// Code = count % 7 so the parent can check each ticket got its own completion.
for (const c of todo) engine.complete(c, c.descriptor.count % 7);
parentPort!.postMessage(seen);
