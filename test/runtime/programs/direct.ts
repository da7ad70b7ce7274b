/**
 * Rank program: the flat path's direct mode (blocks beyond the slots, moved between the
 * users' buffers) against the sequential reference — every collective that moves data,
 * named ({ algorithm: 'shm_direct' }, any count: 0, 1, odd, not a multiple of the
 * cache-line chunks) and automatic (blocks above 64 KiB), every root, a
 * non-commutative operator, pair types, arena buffers, private buffers (staged through
 * the arena) and both on different ranks, blocking and nonblocking, on the world, a
 * reversed split and a dup; the in-place forms; the fallback to the schedule when a
 * rank's arena slice is full; a mismatch between direct calls. On communicators
 * spanning nodes the named mode must be refused.
 */
import { COLLECTIVES, init, type Communicator, type DatatypeName } from '../../helpers/rank-api.js';
import { isReduction, isRooted } from '../../../src/schedule/context.js';
import { checkCase, describeCase, Report, type Case } from './cases.js';

const world = init({ timeoutMs: 60_000 });
const report = new Report(world);
let seed = 1;

const KINDS = COLLECTIVES.filter((k) => k !== 'barrier' && k !== 'scan' && k !== 'exscan');
const SHARING: { shared?: boolean | 'odd'; nonblocking?: boolean }[] = [{ shared: true }, { nonblocking: true }, { shared: 'odd' }, { shared: true, nonblocking: true }];

async function check(comm: Communicator, c: Case, tag: string): Promise<void> {
  await checkCase(report, comm, c, `${tag} P=${comm.size} ${describeCase(c)}`);
}

async function checkAll(comm: Communicator, tag: string): Promise<void> {
  seed = 1;
  const P = comm.size;
  for (const collective of KINDS) {
    const types: { datatype: DatatypeName; op?: string }[] = isReduction(collective)
      ? [{ datatype: 'float64', op: 'sum' }, { datatype: 'uint32', op: 'perm8' }, { datatype: 'float64_int32', op: 'minloc' }]
      : [{ datatype: 'int32' }, { datatype: 'float64_int32' }];
    for (const root of isRooted(collective) ? [...new Set([0, P - 1, Math.min(2, P - 1)])] : [0]) {
      let k = 0;
      for (const count of [0, 1, 37, 1001]) {
        for (const t of types) {
          const s = SHARING[k++ % SHARING.length];
          await check(comm, { collective, algorithm: 'shm_direct', count, root, ...t, ...s, seed: seed++ }, tag);
        }
      }
      // Automatic: blocks above the slots take direct mode.
      const count = 17_001;
      const datatype: DatatypeName = isReduction(collective) ? 'float64' : 'int32';
      const algorithm = comm.algorithmFor(collective, count, { datatype, root });
      report.ok(algorithm === `${collective}/shm_direct`, `${tag}: ${collective} of ${count} ${datatype} runs ${algorithm}, not direct mode`);
      for (const s of SHARING) await check(comm, { collective, count, root, datatype, ...s, seed: seed++ }, tag);
      if (isReduction(collective)) await check(comm, { collective, count, root, datatype: 'uint32', op: 'perm8', shared: 'odd', seed: seed++ }, tag);
    }
  }
}

/** In-place forms, on arena and private buffers; the reduce root P−1 folds through scratch (its output is a later operand). */
function checkInPlace(comm: Communicator): void {
  const P = comm.size;
  const me = comm.rank;
  const n = 9001;
  const o = { algorithm: 'shm_direct' } as const;
  const val = (r: number, i: number): number => ((r + 3) * 31 + i * 7) % 1009;
  for (const shared of [true, false]) {
    const buf = (len: number): Float64Array => (shared ? comm.alloc('float64', len) : new Float64Array(len));
    const tag = shared ? 'arena' : 'private';
    const sumAt = (i: number): number => {
      let s = 0;
      for (let r = 0; r < P; r++) s += val(r, i);
      return s;
    };
    // allreduce(buf): in place.
    const a = buf(n);
    for (let i = 0; i < n; i++) a[i] = val(me, i);
    comm.allreduce(a, null, o);
    report.ok(a.every((v, i) => v === sumAt(i)), `in place (${tag}): allreduce`);
    // reduce at root P−1 in place (recvbuf omitted).
    const b = buf(n);
    for (let i = 0; i < n; i++) b[i] = val(me, i);
    comm.reduce(b, null, { ...o, root: P - 1 });
    if (me === P - 1) report.ok(b.every((v, i) => v === sumAt(i)), `in place (${tag}): reduce at root ${P - 1}`);
    else report.ok(b.every((v, i) => v === val(me, i)), `in place (${tag}): reduce changed a non-root's send buffer`);
    // allgather / gather: the send block is the rank's own block of recv.
    const g = buf(n * P);
    for (let i = 0; i < n; i++) g[me * n + i] = val(me, i);
    comm.allgather(g.subarray(me * n, (me + 1) * n), g, o);
    report.ok(g.every((v, i) => v === val(Math.floor(i / n), i % n)), `in place (${tag}): allgather`);
    const h = buf(n * P);
    for (let i = 0; i < n; i++) h[me * n + i] = val(me, i);
    comm.gather(h.subarray(me * n, (me + 1) * n), me === 0 ? h : null, o);
    if (me === 0) report.ok(h.every((v, i) => v === val(Math.floor(i / n), i % n)), `in place (${tag}): gather`);
    // scatter: the root's recv is its own block of send.
    const sc = buf(n * P);
    if (me === 0) for (let i = 0; i < n * P; i++) sc[i] = val(Math.floor(i / n), i % n);
    const mine = me === 0 ? sc.subarray(0, n) : buf(n);
    comm.scatter(me === 0 ? sc : null, mine, o);
    report.ok(mine.every((v, i) => v === val(me, i)), `in place (${tag}): scatter`);
    // alltoall with send = recv: snapshotted before it is shared.
    const t = buf(n * P);
    for (let q = 0; q < P; q++) for (let i = 0; i < n; i++) t[q * n + i] = val(me, i) + q;
    comm.alltoall(t, t, o);
    report.ok(t.every((v, i) => v === val(Math.floor(i / n), i % n) + me), `in place (${tag}): alltoall`);
    if (shared) for (const x of [a, b, g, h, sc, t]) comm.free(x);
    if (shared && me !== 0) comm.free(mine);
  }
}

/** A rank whose arena slice is full cannot share its private buffers: every rank runs the schedule instead, and gets the right result. */
async function checkFallback(comm: Communicator): Promise<void> {
  const P = comm.size;
  const me = comm.rank;
  const n = 20_000;
  const held: Float64Array[] = [];
  if (me === P - 1) {
    for (let chunk = 1 << 24; chunk >= 64; ) {
      try {
        held.push(comm.alloc('float64', chunk / 8));
      } catch {
        chunk >>= 1;
      }
    }
  }
  const send = Float64Array.from({ length: n }, (_, i) => me * 1000 + i);
  const out = new Float64Array(n);
  comm.allreduce(send, out);
  report.ok(out.every((v, i) => v === (1000 * P * (P - 1)) / 2 + P * i), `fallback with a full arena on rank ${P - 1}: allreduce`);
  const bc = me === P - 1 ? Float64Array.from({ length: n }, (_, i) => i * 3) : new Float64Array(n);
  comm.bcast(bc, { root: P - 1 });
  report.ok(bc.every((v, i) => v === i * 3), `fallback with a full arena on rank ${P - 1}: bcast`);
  const nb = await comm.iallreduce(Float64Array.from({ length: n }, (_, i) => me + i), new Float64Array(n));
  report.ok(nb.every((v, i) => v === (P * (P - 1)) / 2 + P * i), `fallback with a full arena on rank ${P - 1}: iallreduce`);
  for (const h of held) comm.free(h);
}

/** Ranks that make different direct calls: every rank that reads a mismatching slot raises MismatchError. */
async function checkMismatch(comm: Communicator): Promise<void> {
  const n = 9001;
  const buf = comm.alloc('float64', n * comm.size);
  await report.throws('MismatchError', 'called', 'direct bcast against direct allgather', () =>
    comm.rank === 0 ? comm.bcast(buf.subarray(0, n)) : comm.allgather(buf.subarray(0, n), buf),
  );
}

if (world.nodeCount === 1) {
  await checkAll(world, 'world');
  const reversed = world.split(0, world.size - world.rank) as Communicator;
  await checkAll(reversed, 'reversed split');
  reversed.free();
  const dup = world.dup();
  checkInPlace(dup);
  await checkFallback(dup);
  dup.free();
  if (world.size > 1) {
    const m = world.dup();
    await checkMismatch(m);
  }
} else {
  // Spanning nodes: the named mode is refused; the node-local communicators have it.
  await report.throws('RestrictionError', 'communicator on one node', 'shm_direct across nodes', () => world.allreduce(new Float64Array(4), null, { algorithm: 'shm_direct' }));
  const local = world.split(world.nodeRank, world.rank) as Communicator;
  await checkAll(local, `node ${world.nodeRank}`);
  checkInPlace(local);
}
report.print();
