#!/usr/bin/env node
/* global performance, setImmediate, URL, Buffer */
// Floors that bound the runtime on this machine, measured with plain Node (no library):
//  1. Atomics hand-off between two threads: spinning vs parking (Atomics.wait/notify);
//  2. an 8-thread barrier where waiters park (what an oversubscribed collective costs);
//  3. TCP ping-pong between two Node processes, with sleeping and with busy event loops.
// Usage: node scripts/runtime-floors.mjs   (prints one JSON object per measurement)
import { fork } from 'node:child_process';
import net from 'node:net';
import { Worker, isMainThread, workerData } from 'node:worker_threads';

const role = isMainThread ? process.argv[2] : workerData.role;

if (role === 'pingpong-thread') {
  const { sab, i, park, n } = workerData;
  const a = new Int32Array(sab);
  const me = i * 16;
  const peer = (1 - i) * 16;
  const t0 = performance.now();
  for (let k = 1; k <= n; k++) {
    if (i === 0) {
      Atomics.store(a, me, k);
      if (park) Atomics.notify(a, me);
    }
    let s = 0;
    while (Atomics.load(a, peer) < k) {
      if (park && ++s > 100) {
        const v = Atomics.load(a, peer);
        if (v < k) Atomics.wait(a, peer, v);
      }
    }
    if (i === 1) {
      Atomics.store(a, me, k);
      if (park) Atomics.notify(a, me);
    }
  }
  if (i === 0) console.log(JSON.stringify({ floor: park ? 'thread round trip, parking (Atomics.wait/notify)' : 'thread round trip, spinning', us: +(((performance.now() - t0) * 1000) / n).toFixed(3) }));
} else if (role === 'barrier-thread') {
  const { sab, P, n } = workerData;
  const a = new Int32Array(sab);
  const GEN = 0;
  const SLEEP = 16;
  const CNT = 32;
  const t0 = performance.now();
  for (let c = 1; c <= n; c++) {
    if (Atomics.add(a, CNT, 1) + 1 === P) {
      Atomics.store(a, CNT, 0);
      Atomics.store(a, GEN, c);
      if (Atomics.load(a, SLEEP) > 0) Atomics.notify(a, GEN);
    } else {
      let s = 0;
      while (Atomics.load(a, GEN) < c) {
        if (++s < 20) continue;
        Atomics.add(a, SLEEP, 1);
        const g = Atomics.load(a, GEN);
        if (g < c) Atomics.wait(a, GEN, g, 50);
        Atomics.sub(a, SLEEP, 1);
      }
    }
  }
  if (workerData.i === 0) console.log(JSON.stringify({ floor: `${P}-thread barrier, waiters park`, us: +(((performance.now() - t0) * 1000) / n).toFixed(1) }));
} else if (role === 'tcp-server') {
  const busy = process.argv[3] === 'busy';
  const srv = net.createServer((s) => {
    s.setNoDelay(true);
    s.on('data', (d) => s.write(d));
  });
  srv.listen(0, '127.0.0.1', () => process.send(srv.address().port));
  if (busy) {
    const spin = () => setImmediate(spin);
    spin();
  }
} else {
  const self = new URL(import.meta.url);
  const threads = (role, extra, count) =>
    Promise.all(
      Array.from({ length: count }, (_, i) => new Promise((resolve) => new Worker(self, { workerData: { role, i, ...extra } }).on('exit', resolve))),
    );
  await threads('pingpong-thread', { sab: new SharedArrayBuffer(256), park: false, n: 200000 }, 2);
  await threads('pingpong-thread', { sab: new SharedArrayBuffer(256), park: true, n: 20000 }, 2);
  await threads('barrier-thread', { sab: new SharedArrayBuffer(256), P: 8, n: 3000 }, 8);
  for (const mode of ['sleeping', 'busy']) {
    await new Promise((resolve) => {
      const child = fork(self.pathname, ['tcp-server', mode]);
      child.on('message', (port) => {
        const c = net.connect(port, '127.0.0.1', () => {
          c.setNoDelay(true);
          let stop = false;
          if (mode === 'busy') {
            const spin = () => !stop && setImmediate(spin);
            spin();
          }
          const n = 20000;
          let k = 0;
          const buf = Buffer.alloc(44);
          const t0 = performance.now();
          c.on('data', () => {
            if (++k === n) {
              console.log(JSON.stringify({ floor: `TCP ping-pong between two Node processes, ${mode} event loops (round trip)`, us: +(((performance.now() - t0) * 1000) / n).toFixed(2) }));
              stop = true;
              c.destroy();
              child.kill();
              resolve();
              return;
            }
            c.write(buf);
          });
          c.write(buf);
        });
      });
    });
  }
}
