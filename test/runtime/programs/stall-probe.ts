import { init } from '../../../src/index.js';
const comm = init();
const N = Number(process.argv[2] ?? 2000);
const n = 131072;
const a = comm.alloc('float64', n) as Float64Array, b = comm.alloc('float64', n) as Float64Array;
a.fill(1);
for (let i = 0; i < 50; i++) comm.allreduce(a, b);
comm.barrier();
const t = new Float64Array(N), f = new Float64Array(N);
let last = process.resourceUsage().minorPageFault;
for (let i = 0; i < N; i++) {
  const t0 = performance.now();
  comm.allreduce(a, b);
  t[i] = (performance.now() - t0) * 1000;
  const r = process.resourceUsage().minorPageFault; f[i] = r - last; last = r;
}
const s = [...t].sort((x, y) => x - y);
const slow = [...t].map((v, i) => [i, v, f[i]]).filter(([, v]) => v > 300);
const fs = [...t].map((v, i) => [v, f[i]]);
const fastF = fs.filter(([v]) => v < 200).reduce((x, [, y]) => x + y, 0) / Math.max(1, fs.filter(([v]) => v < 200).length);
const slowF = slow.reduce((x, s) => x + s[2], 0) / Math.max(1, slow.length);
console.log(`rank ${comm.rank} alg ${comm.algorithmFor('allreduce', n, {})} med ${s[N >> 1].toFixed(0)} p90 ${s[Math.floor(N * 0.9)].toFixed(0)} p99 ${s[Math.floor(N * 0.99)].toFixed(0)} mean ${(t.reduce((x, y) => x + y) / N).toFixed(0)} slow>300: ${slow.length} faults/call fast ${fastF.toFixed(1)} slow ${slowF.toFixed(1)} first slow ${JSON.stringify(slow.slice(0, 8).map((x) => [x[0], Math.round(x[1]), x[2]]))}`);
