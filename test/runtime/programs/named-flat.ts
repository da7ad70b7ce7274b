/**
 * The flat path named as { algorithm: 'shm_flat' }: right results for every collective
 * (also in reproducible mode, as it folds in rank order), and a RestrictionError that
 * says why where it cannot run (a block over 64 KiB; a communicator across nodes).
 */
import { init, type Communicator } from '../../helpers/rank-api.js';
import { Report } from './cases.js';

const world = init({ timeoutMs: 60_000 });
const report = new Report(world);
const P = world.size;
const o = { algorithm: 'shm_flat' } as const;

function run(comm: Communicator, tag: string): void {
  const me = comm.rank;
  const n = comm.size;
  for (const reproducible of [false, true]) {
    const x = Float64Array.from({ length: 5 }, (_, i) => me + i);
    comm.allreduce(x, null, { ...o, reproducible });
    report.ok(x.every((v, i) => v === (n * (n - 1)) / 2 + n * i), `${tag} allreduce reproducible=${reproducible}: ${Array.from(x)}`);
  }
  // The world's slots take blocks of 64 KiB; a split's may be smaller (a share of rank 0's
  // arena slice), never under 4 KiB.
  const big = new Float64Array(tag === 'world' ? 8192 : 512).fill(me + 1);
  comm.allreduce(big, null, o);
  report.ok(big.every((v) => v === (n * (n + 1)) / 2), `${tag} ${big.byteLength} B allreduce: ${big[0]}`);
  const b = Int32Array.of(me === 1 % n ? 42 : 0, 7);
  comm.bcast(b, { ...o, root: 1 % n });
  report.ok(b[0] === 42, `${tag} bcast: ${Array.from(b)}`);
  const g = new Int32Array(n);
  comm.allgather(Int32Array.of(me * 3), g, o);
  report.ok(g.every((v, i) => v === 3 * i), `${tag} allgather: ${Array.from(g)}`);
  const a = new Int32Array(n);
  comm.alltoall(Int32Array.from({ length: n }, (_, j) => me * 10 + j), a, o);
  report.ok(a.every((v, i) => v === i * 10 + me), `${tag} alltoall: ${Array.from(a)}`);
  const s = new Int32Array(1);
  comm.scatter(me === 0 ? Int32Array.from({ length: n }, (_, j) => j + 100) : null, s, { ...o, root: 0 });
  report.ok(s[0] === me + 100, `${tag} scatter: ${s[0]}`);
  comm.barrier(o);
  report.ok(true, `${tag} barrier`);
  const r = new Int32Array(1);
  comm.reduceScatter(Int32Array.from({ length: n }, () => 1), r, o);
  report.ok(r[0] === n, `${tag} reduce_scatter: ${r[0]}`);
  const ir = Float64Array.of(1);
  comm.iallreduce(ir, null, o).wait();
  report.ok(ir[0] === n, `${tag} iallreduce: ${ir[0]}`);
}

if (world.nodeCount === 1) {
  run(world, 'world');
  run(world.split(0, P - 1 - world.rank) as Communicator, 'reversed split');
  await report.throws('RestrictionError', "algorithm 'shm_flat' requires a communicator on one node whose shared slots hold the call: the call writes 131072 bytes per rank", '128 KiB allreduce', () =>
    world.allreduce(new Float64Array(16384), null, o),
  );
} else {
  await report.throws('RestrictionError', 'has no shared-memory block (it spans nodes', 'across nodes', () => world.allreduce(Float64Array.of(1), null, o));
  for (let i = 0; i < 20; i++) report.ok(true, 'padding');
}
report.print();
