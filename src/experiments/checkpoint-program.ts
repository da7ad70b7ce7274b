/**
 * Rank program of the checkpoint/restart tests and `coll reproduce 003`'s C/R rows
 * (checkpoint-reproduce.ts). A few hundred iterations of mixed collectives, point-to-point messages and a
 * nonblocking allreduce, checkpointed each iteration when one is due, resumable:
 * `comm.restored()` gives the state to go on from. Across the checkpoint call a
 * point-to-point message is in flight (sent before it, received after) and the
 * nonblocking allreduce posted before it is waited for after it (the drain completes
 * both). Prints `RESULT {"rank","hash","iterations","restoredFrom"}` at the end: the
 * hash of the rank's final vector, bitwise (the kill-and-restart tests compare it with
 * an uninterrupted run). Args: iterations (default 300), mode (host|offload), passes
 * of "work" over the vector per iteration (default 200).
 */
import { createHash } from 'node:crypto';
import { init } from '../runtime/init.js';
import type { Request } from '../runtime/request.js';

interface State {
  it: number;
  x: Float64Array;
  y: Float64Array;
  /** Bytes of x at each 50th iteration (nested typed arrays in a Map). */
  marks: Map<number, Float64Array>;
}

const N = Number(process.argv[2] ?? 300);
const mode = process.argv[3] === 'offload' ? 'offload' : 'host';
const work = Number(process.argv[4] ?? 200);
const world = init({ mode });
const P = world.size;
const right = (world.rank + 1) % P;
const left = (world.rank + P - 1) % P;
const restored = world.restored<State>();
const s: State = restored ?? {
  it: 0,
  x: Float64Array.from({ length: 256 }, (_, i) => world.rank * 0.5 + i / 256),
  y: new Float64Array(8),
  marks: new Map(),
};
const shared = world.alloc('float64', 64);
let req: Request<Float64Array> | undefined;
const inbox = new Float64Array(8);
for (;;) {
  if (s.it > 0) {
    // Results of the previous iteration: its nonblocking allreduce and its neighbour's message.
    req?.wait();
    req = undefined;
    world.recv(inbox, left, s.it - 1);
    for (let i = 0; i < 8; i++) s.x[i] += s.y[i] * 1e-3 + inbox[i] * 1e-2;
  }
  if (s.it === N) break;
  for (let k = 0; k < work; k++) for (let i = 0; i < s.x.length; i++) s.x[i] = (s.x[i] * 1.000001 + 1e-7) % 1000;
  world.allreduce(s.x.subarray(0, 64));
  for (let i = 0; i < 64; i++) s.x[i] /= P;
  shared.set(s.x.subarray(64, 128));
  world.bcast(shared, { root: s.it % P });
  for (let i = 0; i < 64; i++) s.x[64 + i] = (s.x[64 + i] + shared[i]) / 2;
  const all = new Float64Array(2 * P);
  world.allgather(s.x.subarray(128, 130), all);
  s.x[130] = all.reduce((a, b) => a + b, 0) / all.length;
  s.y = s.x.slice(0, 8);
  req = world.iallreduce(s.y, null, { op: 'max' });
  world.send(s.x.subarray(200, 208), right, s.it);
  if (s.it % 50 === 0) s.marks.set(s.it, s.x.slice(0, 4));
  s.it++;
  world.checkpoint(s);
}
const hash = createHash('sha256').update(new Uint8Array(s.x.buffer, s.x.byteOffset, s.x.byteLength)).update(JSON.stringify([...s.marks].map(([k, v]) => [k, [...v]]))).digest('hex').slice(0, 16);
console.log(`RESULT ${JSON.stringify({ rank: world.rank, hash, iterations: s.it, restoredFrom: restored ? 'checkpoint' : 'start' })}`);
