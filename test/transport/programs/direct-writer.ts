/**
 * Worker for the direct-write test: writes `count` small frames (index 0..count−1,
 * src = 1000 + writer) to node `peer` through the direct table once `go` is set,
 * retrying while the table refuses (main thread busy or holding the lock).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { DirectTable } from '../../../src/transport/tcp/direct.js';
import { encodeHeader, FRAME_HEADER_BYTES } from '../../../src/transport/tcp/framing.js';
import { SPACE_P2P } from '../../../src/transport/types.js';

const { sab, nodes, peer, count, writer, go } = workerData as { sab: SharedArrayBuffer; nodes: number; peer: number; count: number; writer: number; go: SharedArrayBuffer };
const table = new DirectTable(sab, nodes);
// Start together with the main thread's large writes.
const start = new Int32Array(go);
parentPort?.postMessage('ready');
while (Atomics.load(start, 0) === 0) Atomics.wait(start, 0, 0, 100);
let direct = 0;
let refused = 0;
for (let i = 0; i < count; i++) {
  const n = 1 + (i % 200);
  const frame = Buffer.alloc(FRAME_HEADER_BYTES + n, (i + writer) & 0xff);
  encodeHeader({ context: 1, space: SPACE_P2P, sig: 0, tag: writer, src: 1000 + writer, dst: 0, index: i, total: n, offset: 0 }, n, frame, 0);
  while (!(table.open(peer) && table.tryWrite(peer, [frame]))) refused++;
  direct++;
  if (i % 25 === 0) Atomics.wait(start, 1, 0, 1); // spread the writes over the main thread's
}
parentPort?.postMessage({ direct, refused });
