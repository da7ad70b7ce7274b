/**
 * Rank program: runs every collective through the real runtime (several catalogue
 * algorithms each, automatic selection, reproducible mode, nonblocking, shared
 * buffers) on the world, a split and a dup, and compares with the sequential
 * reference. Arguments: [quick] to run fewer cases (large jobs).
 */
import { COLLECTIVES, init, listAlgorithms, meshTopology, RestrictionError, type Communicator, type DatatypeName } from '../../helpers/rank-api.js';
import { isReduction, isRooted } from '../../../src/schedule/context.js';
import { checkCase, describeCase, Report, runCase, sameBytes, type Case } from './cases.js';

const world = init({ timeoutMs: 60_000 });
const quick = process.argv.includes('quick');
const report = new Report(world);
/** Seeds must agree across the ranks of a communicator: every phase restarts the sequence. */
let seed = 1;

function meshFor(P: number): ReturnType<typeof meshTopology> {
  let w = Math.floor(Math.sqrt(P));
  while (P % w !== 0) w--;
  return meshTopology(P / w, w);
}

/** Whether the runtime accepts the algorithm here (restrictions hold). */
function runnable(comm: Communicator, c: Case): boolean {
  try {
    comm.algorithmFor(c.collective, c.count, { algorithm: c.algorithm, datatype: c.datatype, op: c.op, root: c.root, topology: c.topology });
    return true;
  } catch (e) {
    if (e instanceof RestrictionError) return false;
    throw e;
  }
}

async function check(comm: Communicator, c: Case, tag: string): Promise<void> {
  if (!runnable(comm, c)) return;
  await checkCase(report, comm, c, `${tag} P=${comm.size} ${describeCase(c)}`);
}

function casesFor(comm: Communicator): Case[] {
  const P = comm.size;
  const cases: Case[] = [];
  const roots = [...new Set([0, P - 1])];
  const counts = quick ? [1, P + 2] : [0, 1, P + 2, 37];
  for (const collective of COLLECTIVES) {
    const algorithms: (string | undefined)[] = [undefined, ...listAlgorithms(collective).map((a) => a.name)];
    for (const algorithm of algorithms) {
      const spec = algorithm ? listAlgorithms(collective).find((a) => a.name === algorithm) : undefined;
      const topology = spec?.topology === 'mesh' ? meshFor(P) : undefined;
      for (const count of collective === 'barrier' ? [0] : counts) {
        for (const root of isRooted(collective) ? roots : [0]) {
          const types: { datatype: DatatypeName; op?: string }[] = isReduction(collective)
            ? [{ datatype: 'float64', op: 'sum' }, { datatype: 'uint32', op: 'perm8' }, { datatype: 'float64_int32', op: 'minloc' }]
            : [{ datatype: 'int32' }, { datatype: 'float64_int32' }];
          for (const t of quick ? types.slice(0, 2) : types) {
            cases.push({ collective, algorithm, count, root, ...t, topology, seed: seed++ });
          }
        }
      }
    }
    // Automatic selection: nonblocking, shared buffers, large (chunked / zero-copy / segmented) messages.
    const datatype: DatatypeName = isReduction(collective) ? 'float64' : 'int32';
    const big = collective === 'alltoall' || collective === 'allgather' || collective === 'gather' || collective === 'scatter' || collective === 'reduce_scatter' ? 6000 : 40000;
    if (collective !== 'barrier') {
      cases.push({ collective, count: 5, datatype, nonblocking: true, root: P - 1, seed: seed++ });
      cases.push({ collective, count: big, datatype, shared: true, root: P - 1, seed: seed++ });
      cases.push({ collective, count: big, datatype, seed: seed++ });
      cases.push({ collective, count: 3, datatype, shared: true, nonblocking: true, seed: seed++ });
    } else cases.push({ collective, count: 0, datatype, nonblocking: true, seed: seed++ });
    if (isReduction(collective)) {
      for (const count of [1, 33, 5000]) {
        cases.push({ collective, count, datatype: 'float64', op: 'sum', reproducible: true, inexact: true, root: P - 1, seed: seed++ });
        cases.push({ collective, count, datatype: 'uint32', op: 'perm8', reproducible: true, nonblocking: true, seed: seed++ });
      }
    }
  }
  return cases;
}

async function checkAll(comm: Communicator, tag: string): Promise<void> {
  seed = 1;
  for (const c of casesFor(comm)) await check(comm, c, tag);
}

/** Every allreduce algorithm leaves bitwise-identical results on all ranks (random floats). */
async function checkIdentical(comm: Communicator): Promise<void> {
  seed = 100_000;
  for (const algorithm of [undefined, ...listAlgorithms('allreduce').map((a) => a.name)]) {
    for (const count of [1, 7, 3000]) {
      const spec = algorithm ? listAlgorithms('allreduce').find((a) => a.name === algorithm) : undefined;
      const c: Case = { collective: 'allreduce', algorithm, count, datatype: 'float64', op: 'sum', inexact: true, seed: seed++, topology: spec?.topology === 'mesh' ? meshFor(comm.size) : undefined };
      if (!runnable(comm, c)) continue;
      const mine = (await runCase(comm, c)) as Uint8Array;
      const all = comm.allgather(mine, new Uint8Array(mine.byteLength * comm.size));
      let same = true;
      for (let r = 0; r < comm.size; r++) same &&= sameBytes(all.subarray(r * mine.byteLength, (r + 1) * mine.byteLength), mine);
      report.ok(same, `allreduce ${algorithm ?? 'auto'} count=${count}: results differ across ranks`);
    }
  }
}

/** Several nonblocking collectives and point-to-point messages in flight at once. */
async function checkOverlap(comm: Communicator): Promise<void> {
  const P = comm.size;
  const other = comm.dup();
  const a = new Float64Array(100).fill(comm.rank + 1);
  const b = new Int32Array(3 * P);
  const c = new Float64Array(7).fill(comm.rank);
  const r1 = comm.iallreduce(a, new Float64Array(100));
  const r2 = other.iallgather(Int32Array.from([comm.rank, 2 * comm.rank, 3]), b);
  const r3 = comm.ibcast(c, { root: P - 1 });
  const right = (comm.rank + 1) % P;
  const left = (comm.rank + P - 1) % P;
  const inbox = new Float64Array(4);
  const r4 = other.irecv(inbox, left, 9);
  const r5 = other.isend(Float64Array.from([comm.rank, 1, 2, 3]), right, 9);
  const [sum, gathered, bc, st] = await Promise.all([r1, r2, r3, r4, r5]);
  report.ok(sum.every((v) => v === (P * (P + 1)) / 2), 'overlap: iallreduce');
  report.ok(gathered.every((v, i) => v === [Math.floor(i / 3), 2 * Math.floor(i / 3), 3][i % 3]), 'overlap: iallgather');
  report.ok(bc.every((v) => v === P - 1), 'overlap: ibcast');
  report.ok(st.source === left && st.tag === 9 && st.count === 4 && inbox[0] === left, 'overlap: isend/irecv');
  // wait()/test() forms.
  const r6 = comm.iallreduce(Int32Array.from([1]));
  while (!r6.test()) {
    // spin: test() makes progress
  }
  report.ok(r6.wait()[0] === P, 'test()/wait()');
}

/** The plain typed-array allreduce (the hand-tuned small-sum lane), in place and not, several types. */
function checkPlainAllreduce(comm: Communicator): void {
  const P = comm.size;
  const r = comm.rank;
  for (const n of [1, 3, 100, 600]) {
    const f = Float64Array.from({ length: n }, (_, i) => r * 0.5 + i);
    const want = (i: number): number => (P * (P - 1)) / 4 + P * i;
    const out = comm.allreduce(f, new Float64Array(n));
    report.ok(out.every((v, i) => v === want(i)), `plain allreduce float64 n=${n}`);
    comm.allreduce(f);
    report.ok(f.every((v, i) => v === want(i)), `plain in-place allreduce float64 n=${n}`);
    const u8 = comm.allreduce(Uint8Array.from({ length: n }, () => 200));
    report.ok(u8.every((v) => v === (200 * P) % 256), `plain allreduce uint8 wraps n=${n}`);
    const i32 = comm.allreduce(Int32Array.from({ length: n }, () => -r), null, { op: 'sum' });
    report.ok(i32.every((v) => v === -(P * (P - 1)) / 2), `plain allreduce int32 n=${n}`);
    const mx = comm.allreduce(Float32Array.from({ length: n }, (_, i) => (i === r ? 1 : 0)), null, { op: 'max' });
    report.ok(mx.every((v, i) => v === (i < P ? 1 : 0)), `plain allreduce float32 max n=${n}`);
  }
}

/** Point-to-point: tags, any-source, self-sends, larger messages. */
function checkP2P(comm: Communicator): void {
  const P = comm.size;
  const me = comm.rank;
  const self = new Int32Array(1);
  const rq = comm.irecv(self, me, 5);
  comm.send(Int32Array.from([42]), me, 5);
  report.ok(rq.wait().source === me && self[0] === 42, 'p2p: self-send');
  if (P < 2) return;
  if (me === 0) {
    const seen = new Set<number>();
    const buf = new Float64Array(20000);
    for (let i = 1; i < P; i++) {
      const st = comm.recv(buf, -1, 3);
      seen.add(st.source);
      report.ok(st.count === 20000 && buf[19999] === st.source, `p2p: any-source message from ${st.source}`);
    }
    report.ok(seen.size === P - 1, 'p2p: all sources seen');
  } else {
    comm.send(new Float64Array(20000).fill(me), 0, 3);
  }
  // Tag selectivity: rank 1 sends tags 7 then 8; rank 0 receives 8 first.
  if (me === 1) {
    comm.send(Int32Array.from([7]), 0, 7);
    comm.send(Int32Array.from([8]), 0, 8);
  } else if (me === 0) {
    const x = new Int32Array(1);
    comm.recv(x, 1, 8);
    const y = new Int32Array(1);
    comm.recv(y, 1, 7);
    report.ok(x[0] === 8 && y[0] === 7, 'p2p: tag matching');
  }
}

await checkAll(world, 'world');
checkPlainAllreduce(world);
checkP2P(world);
await checkOverlap(world);
await checkIdentical(world);
// Sub-communicators: halves by parity (reverse key order), then a dup.
const half = world.split(world.rank % 2, -world.rank) as Communicator;
report.ok(half.size === Math.ceil((world.size - (world.rank % 2)) / 2), 'split: size');
await checkAll(half, 'split');
checkPlainAllreduce(half);
const none = world.split(world.rank === 0 ? -1 : 1);
report.ok(world.rank === 0 ? none === null : none !== null && none.size === world.size - 1, 'split: undefined color');
if (!quick) await checkAll(world.dup(), 'dup');
report.print();
