import { init } from '../../../src/index.js';
const comm = init();
const n = Number(process.argv[2] ?? 5000);
const bytes = Number(process.argv[3] ?? 8);
const buf = new Uint8Array(bytes);
const peer = 1 - comm.rank;
for (let warm = 0; warm < 2; warm++) {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    if (comm.rank === 0) { comm.send(buf, peer, 1); comm.recv(buf, peer, 1); }
    else { comm.recv(buf, peer, 1); comm.send(buf, peer, 1); }
  }
  const us = (performance.now() - t0) * 1000 / n;
  if (comm.rank === 0 && warm === 1) console.log(`pingpong ${bytes} B round trip ${us.toFixed(2)} us (one-way ${(us / 2).toFixed(2)})`);
}
