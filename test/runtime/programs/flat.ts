/**
 * Rank program: the flat shared-memory path under the orders that stress its slot
 * reuse — rooted calls whose roots return at once (eager) followed by calls on the
 * same phase, and up to eight outstanding nonblocking calls mixed with blocking
 * ones — over every collective with small counts, then with blocks of 4–64 KiB, then
 * eager roots far ahead of slow readers with small and big calls mixed, on the world
 * and on a split with reversed rank order. Results are checked against values computed here from the
 * inputs (a rank-order fold for the reductions). Argument: the number of rounds.
 */
import { init, type Communicator } from '../../helpers/rank-api.js';
import { Report } from './cases.js';

const world = init({ timeoutMs: 60_000 });
const report = new Report(world);
const rounds = Number(process.argv[2] ?? 60);

/** Deterministic input element: rank, call index and position. */
const val = (r: number, call: number, i: number): number => ((r + 1) * 7 + call * 13 + i * 3) % 101;

type Kind = 'barrier' | 'bcast' | 'reduce' | 'allreduce' | 'allgather' | 'reduce_scatter' | 'gather' | 'scatter' | 'alltoall';
const KINDS: Kind[] = ['barrier', 'bcast', 'reduce', 'allreduce', 'allgather', 'reduce_scatter', 'gather', 'scatter', 'alltoall'];

/** One call: start it (nonblocking or blocking) and return a check to run after completion. */
function call(comm: Communicator, kind: Kind, k: number, n: number, root: number, nonblocking: boolean): { req?: PromiseLike<unknown>; check: () => void } {
  const P = comm.size;
  const me = comm.rank;
  const vec = (r: number, len: number, off = 0): Int32Array => Int32Array.from({ length: len }, (_, i) => val(r, k, i + off));
  const label = `${kind} #${k} n=${n} root=${root} ${nonblocking ? 'nonblocking' : 'blocking'} P=${P}`;
  const expect = (got: Int32Array, want: Int32Array): void => report.ok(got.length >= want.length && want.every((v, i) => got[i] === v), `${label}: got ${Array.from(got.subarray(0, 6))} want ${Array.from(want.subarray(0, 6))} on rank ${me}`);
  // (((v0 - v1) - v2) ...): a non-commutative-looking fold the user op below computes; sum is commutative, so use 'sum' with a rank-order reference.
  const sum = (len: number, off = 0): Int32Array => {
    const out = vec(0, len, off);
    for (let r = 1; r < P; r++) {
      const v = vec(r, len, off);
      for (let i = 0; i < len; i++) out[i] += v[i];
    }
    return out;
  };
  switch (kind) {
    case 'barrier':
      return nonblocking ? { req: comm.ibarrier(), check: () => undefined } : (comm.barrier(), { check: () => undefined });
    case 'bcast': {
      const b = me === root ? vec(root, n) : new Int32Array(n);
      const req = nonblocking ? comm.ibcast(b, { root }) : (comm.bcast(b, { root }), undefined);
      return { req, check: () => expect(b, vec(root, n)) };
    }
    case 'reduce': {
      const out = new Int32Array(n);
      const req = nonblocking ? comm.ireduce(vec(me, n), out, { root }) : (comm.reduce(vec(me, n), out, { root }), undefined);
      return { req, check: () => (me === root ? expect(out, sum(n)) : expect(out, new Int32Array(n))) };
    }
    case 'allreduce': {
      const b = vec(me, n); // in place
      const req = nonblocking ? comm.iallreduce(b) : (comm.allreduce(b), undefined);
      return { req, check: () => expect(b, sum(n)) };
    }
    case 'allgather': {
      const out = new Int32Array(n * P);
      const req = nonblocking ? comm.iallgather(vec(me, n), out) : (comm.allgather(vec(me, n), out), undefined);
      const want = new Int32Array(n * P);
      for (let r = 0; r < P; r++) want.set(vec(r, n), r * n);
      return { req, check: () => expect(out, want) };
    }
    case 'reduce_scatter': {
      const out = new Int32Array(n);
      const req = nonblocking ? comm.ireduceScatter(vec(me, n * P), out) : (comm.reduceScatter(vec(me, n * P), out), undefined);
      return { req, check: () => expect(out, sum(n, me * n)) };
    }
    case 'gather': {
      const out = new Int32Array(n * P);
      const req = nonblocking ? comm.igather(vec(me, n), me === root ? out : null, { root }) : (comm.gather(vec(me, n), me === root ? out : null, { root }), undefined);
      const want = new Int32Array(n * P);
      for (let r = 0; r < P; r++) want.set(vec(r, n), r * n);
      return { req, check: () => (me === root ? expect(out, want) : undefined) };
    }
    case 'scatter': {
      const out = new Int32Array(n);
      const src = me === root ? vec(root, n * P) : null;
      const req = nonblocking ? comm.iscatter(src, out, { root }) : (comm.scatter(src, out, { root }), undefined);
      return { req, check: () => expect(out, vec(root, n, me * n)) };
    }
    case 'alltoall': {
      const out = new Int32Array(n * P);
      const req = nonblocking ? comm.ialltoall(vec(me, n * P), out) : (comm.alltoall(vec(me, n * P), out), undefined);
      const want = new Int32Array(n * P);
      for (let r = 0; r < P; r++) want.set(vec(r, n, me * n), r * n);
      return { req, check: () => expect(out, want) };
    }
  }
}

async function stress(comm: Communicator): Promise<void> {
  let k = 0;
  // 1. Eager roots racing ahead: rooted calls back to back with the root moving, then a
  //    call on the same phase (the bug: a rank that finished call c early blocked the
  //    others' slot guard for c).
  for (let i = 0; i < rounds; i++) {
    for (const kind of ['bcast', 'reduce', 'gather', 'scatter'] as const) {
      const root = (i + k) % comm.size;
      call(comm, kind, k++, 1 + (i % 3), root, false).check();
    }
  }
  // 2. Up to eight outstanding nonblocking calls of every kind, interleaved with blocking ones.
  for (let i = 0; i < rounds; i++) {
    const out: { req?: PromiseLike<unknown>; check: () => void }[] = [];
    const depth = 1 + (i % 8);
    for (let d = 0; d < depth; d++) {
      const kind = KINDS[(i * 5 + d) % KINDS.length];
      out.push(call(comm, kind, k++, (i + d) % 4, (i + d) % comm.size, true));
      if (d === 3) call(comm, KINDS[i % KINDS.length], k++, 2, i % comm.size, false).check();
    }
    // Complete in reverse order half of the time.
    if (i % 2) out.reverse();
    for (const o of out) {
      await o.req;
      o.check();
    }
  }
  // 3. Blocks of 4 KiB to 64 KiB (int32): P blocks per rank for scatter, alltoall and
  // reduce_scatter, in the big slots of the world and of sub-communicators.
  for (let i = 0; i < Math.min(rounds, 6); i++) {
    const n = [1024, 4096, 16384][i % 3];
    const out: { req?: PromiseLike<unknown>; check: () => void }[] = [];
    for (const kind of KINDS) {
      const c = call(comm, kind, k++, n, (i + k) % comm.size, i % 2 === 1);
      if (c.req) out.push(c);
      else c.check();
    }
    for (const o of out.reverse()) {
      await o.req;
      o.check();
    }
  }
  // 4. Eager roots and senders far ahead of slow readers, small calls (header slots, a
  //    ring of 64) between big ones (8 KiB and up: big slots, 8 data phases): a big call
  //    must not overwrite the big slot of a call 8, 16, … earlier that a reader has not
  //    read yet, and a small one the header slot of the call 64 earlier. The root stays
  //    put for a run of calls; the others pause now and then so that it gets ahead.
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let i = 0; i < rounds * 4; i++) {
    const root = Math.floor(i / 40) % comm.size;
    const kind = (['bcast', 'reduce', 'gather', 'scatter'] as const)[Math.floor(i / 10) % 4];
    const n = i % 8 === 3 || i % 13 === 0 ? 2048 + (i % 3) : 1 + (i % 5);
    if (comm.rank !== root && i % 16 === 0) Atomics.wait(pause, 0, 0, 2);
    const c = call(comm, kind, k++, n, root, i % 5 === 4);
    if (c.req) await c.req;
    c.check();
  }
}

await stress(world);
const rev = world.split(0, world.size - 1 - world.rank) as Communicator;
await stress(rev);
report.print();
