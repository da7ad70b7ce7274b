// Run with: npx coll run -n 4 --nodes 2 --io-servers 2 --report - examples/pfs-io.ts
// (in your own project: import { init, openFile } from 'collectives').
// A file striped over the job's two I/O servers (seed 003 ch. 7): every rank writes a
// tile of a 2-D array collectively, reads its neighbour's tile back, and checks it.
import { init, openFile, type FilePattern } from '../src/index.js';

const comm = init();
const rows = 64;
const cols = 256; // float64 elements per tile row
// A grid of py × px tiles, py the largest divisor of the rank count up to its square root.
let py = Math.floor(Math.sqrt(comm.size));
while (comm.size % py !== 0) py--;
const px = comm.size / py;
const tileOf = (r: number): FilePattern => ({
  kind: 'subarray',
  sizes: [py * rows, px * cols],
  subsizes: [rows, cols],
  starts: [Math.floor(r / px) * rows, (r % px) * cols],
});

const f = openFile(comm, 'pfs:tiles', 'w', { stripeSize: 64 * 1024 });
f.setView({ etype: 'float64', filetype: tileOf(comm.rank) });
const mine = Float64Array.from({ length: rows * cols }, (_, i) => comm.rank * 1e6 + i);
f.writeAtAll(0, mine); // collective: two-phase, one aggregator per node, domains on stripes
f.sync();
comm.barrier();

const next = (comm.rank + 1) % comm.size;
f.setView({ etype: 'float64', filetype: tileOf(next) });
const theirs = new Float64Array(rows * cols);
f.readAt(0, theirs); // independent: one list request per server
const ok = theirs.every((x, i) => x === next * 1e6 + i);
console.log(`rank ${comm.rank}: file ${f.getSize()} bytes, tile of rank ${next} ${ok ? 'read back correctly' : 'WRONG'}`);
f.close();
if (!ok) process.exitCode = 1;
