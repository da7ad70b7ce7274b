/**
 * The file API on real ranks (src/io): a plan of independent and collective writes and
 * reads under random views (contiguous, block-cyclic vectors, tiles), offsets and
 * counts per rank (empty ranks included), generated from a seed so that the test can
 * compute the file it must produce. Every rank checks what it reads back against the
 * bytes the plan says are there, and prints `REPORT`. Args: seed, path (a pfs: path
 * too), rounds, and for pfs: the stripe size.
 */
import { openFile } from '../../../src/io/file.js';
import type { FilePattern } from '../../../src/io/view.js';
import { init } from '../../helpers/rank-api.js';
import { Report } from '../../runtime/programs/cases.js';
import { filePlan, expectedFile, type PlanStep } from '../plan.js';

const world = init({ timeoutMs: 60_000 });
const report = new Report(world);
const seed = Number(process.argv[2] ?? 1);
const path = process.argv[3] as string;
const rounds = Number(process.argv[4] ?? 6);
const stripeSize = process.argv[5] !== undefined ? Number(process.argv[5]) : undefined;
const plan: PlanStep[] = filePlan(seed, world.size, rounds);
// Collective buffering by seed: auto, always, never; 1 or 2 aggregators per node.
const collectiveBuffering = (['auto', 'always', 'never'] as const)[seed % 3];
const aggregatorsPerNode = 1 + (seed % 2);
const f = openFile(world, path, 'w', { alignBytes: 64, stripeSize, collectiveBuffering, aggregatorsPerNode });
for (const [k, step] of plan.entries()) {
  const mine = step.ranks[world.rank];
  f.setView({ disp: mine.disp, etype: 'float64', filetype: mine.filetype as FilePattern });
  const data = Float64Array.from({ length: mine.count }, (_, i) => step.value(world.rank, i));
  // Collective steps alternate between the blocking and the nonblocking call.
  if (step.collective && k % 2 === 0) f.writeAtAll(mine.offset, data);
  else if (step.collective) await f.iwriteAtAll(mine.offset, data);
  else {
    f.writeAt(mine.offset, data);
    world.barrier();
  }
}
f.sync();
world.barrier();
const want = expectedFile(plan, world.size);
report.ok(f.getSize() === want.byteLength, `size ${f.getSize()} != ${want.byteLength}`);
f.close();
// Read back: collective and independent, through the last step's view, and the whole file as bytes.
const g = openFile(world, path, 'rw', { alignBytes: 64, collectiveBuffering, aggregatorsPerNode });
const last = plan[plan.length - 1];
const mine = last.ranks[world.rank];
g.setView({ disp: mine.disp, etype: 'float64', filetype: mine.filetype as FilePattern });
const a = new Float64Array(mine.count);
g.readAtAll(mine.offset, a);
const b = new Float64Array(mine.count);
g.readAt(mine.offset, b);
const c = new Float64Array(mine.count);
await g.ireadAt(mine.offset, c);
const d = new Float64Array(mine.count);
await g.ireadAtAll(mine.offset, d);
g.setView({});
const whole = new Uint8Array(want.byteLength);
g.readAtAll(0, whole);
// What the last step wrote, read through its view by all four calls, is the same.
const bad = whole.findIndex((x, i) => x !== want[i]);
report.ok(bad < 0, `byte ${bad} of the file is ${whole[bad]}, want ${want[bad]}`);
report.ok(a.every((x, i) => x === b[i] && x === c[i] && x === d[i]), 'readAtAll, readAt, ireadAt and ireadAtAll disagree');
// Past the end: refused on every back end, although this rank knows a size that covers its earlier reads.
let refused = '';
try {
  g.readAt(Math.max(0, want.byteLength - 4), new Uint8Array(8));
} catch (e) {
  refused = (e as Error).message;
}
report.ok(refused.includes(`past the end of ${path} (${want.byteLength} bytes)`), `a read past the end gave '${refused}'`);
g.close();
report.print();
