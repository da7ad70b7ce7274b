/**
 * Rank program: bad arguments, restriction violations, debug-mode mismatch
 * detection and timeouts, each expected to raise a clear typed error; the job must
 * still end normally afterwards. Needs at least 3 ranks.
 */
import { ANY_SOURCE, ANY_TAG, init, listAlgorithms, TimeoutError, type Communicator } from '../../helpers/rank-api.js';
import { PERM, Report } from './cases.js';

const world = init({ timeoutMs: 30_000 });
const report = new Report(world);
const P = world.size;
const me = world.rank;
const a = new Float64Array(4);

// Bad arguments: local checks, no communication happens.
await report.throws('ArgumentError', 'too small', 'recvbuf too small', () => world.allreduce(new Float64Array(8), new Float64Array(4)));
await report.throws('ArgumentError', 'non-negative integer', 'negative count', () => world.allreduce(a, null, { count: -1 }));
await report.throws('ArgumentError', 'non-negative integer', 'non-integer count', () => world.bcast(a, { count: 1.5 }));
await report.throws('ArgumentError', 'too small', 'count beyond the buffer', () => world.bcast(a, { count: 5 }));
await report.throws('ArgumentError', 'recvbuf', 'allgather recvbuf too small', () => world.allgather(a, new Float64Array(4)));
await report.throws('ArgumentError', 'root', 'root out of range', () => world.bcast(a, { root: P }));
await report.throws('ArgumentError', 'dest', 'dest out of range', () => world.send(a, -2));
await report.throws('ArgumentError', 'tag', 'negative tag', () => world.send(a, 0, -5));
await report.throws('ArgumentError', 'typed array', 'not a buffer', () => world.allreduce([1, 2] as unknown as Float64Array));
await report.throws('UnknownAlgorithmError', "unknown algorithm 'nosuch'", 'unknown algorithm', () => world.allreduce(a, null, { algorithm: 'nosuch' }));
await report.throws('OpError', "'band' is not defined for datatype float64", 'op/type mismatch', () => world.allreduce(a, null, { op: 'band' }));
await report.throws('OpError', "unknown reduction operator 'median'", 'unknown op', () => world.reduce(a, null, { op: 'median' }));
await report.throws('DatatypeError', "unknown datatype 'float128'", 'unknown datatype', () => world.allreduce(a, null, { datatype: 'float128' as 'float64' }));
await report.throws('DatatypeError', 'cannot infer a datatype', 'pair type needs datatype', () => world.allreduce(new DataView(new ArrayBuffer(16))));
await report.throws('ArgumentError', 'non-negative number of milliseconds', 'negative timeout', () => world.barrier({ timeoutMs: -1 }));
await report.throws('ArgumentError', 'non-negative number of milliseconds', 'NaN timeout', () => world.allreduce(new Float64Array(1), null, { timeoutMs: Number.NaN }));
await report.throws('ArgumentError', 'non-negative number of milliseconds', 'negative p2p timeout', () => world.send(a, 0, 0, { timeoutMs: -5 }));
await report.throws('ArgumentError', 'non-negative number of milliseconds', 'negative split timeout', () => world.split(0, me, { timeoutMs: -1 }));
await report.throws('ArgumentError', 'reproducible', 'reproducible + algorithm', () => world.allreduce(a, null, { reproducible: true, algorithm: 'recursive_doubling' }));
await report.throws('ArgumentError', 'parameter', 'unknown algorithm parameter', () => world.allreduce(a, null, { algorithm: 'recursive_doubling', params: { nope: 1 } }));
const commutativeOnly = listAlgorithms('allreduce').find((s) => s.restrictions.some((r) => r.id === 'commutative'));
if (commutativeOnly) {
  await report.throws('RestrictionError', 'commutative', `restriction of ${commutativeOnly.name}`, () =>
    world.allreduce(new Uint32Array(4), null, { op: PERM, algorithm: commutativeOnly.name }),
  );
}
const pow2 = listAlgorithms('allgather').find((s) => s.restrictions.some((r) => r.id === 'power-of-two'));
if (pow2 && (P & (P - 1)) !== 0) {
  await report.throws('RestrictionError', 'power-of-two', `restriction of ${pow2.name}`, () => world.allgather(a, new Float64Array(4 * P), { algorithm: pow2.name }));
}
// Automatic selection never picks an algorithm whose restrictions fail: non-commutative op works.
const perm = world.allreduce(Uint32Array.from([0o76543210]), null, { op: PERM });
report.ok(perm.length === 1, 'non-commutative automatic selection');

// Debug mode: mismatched calls raise MismatchError on every rank (no hang); the communicator stays usable.
const dbg = world.dup();
await report.throws('MismatchError', 'ranks disagree', 'kind mismatch', () =>
  me === 0 ? dbg.allreduce(new Float64Array(4), null, { debug: true }) : dbg.bcast(new Float64Array(4), { debug: true }),
);
await report.throws('MismatchError', 'count=', 'count mismatch', () => dbg.allreduce(new Float64Array(me === 1 ? 5 : 4), null, { debug: true }));
await report.throws('MismatchError', 'root=', 'root mismatch', () => dbg.bcast(new Float64Array(2), { debug: true, root: me === 0 ? 1 : 0 }));
await report.throws('MismatchError', 'op=', 'op mismatch', () => dbg.allreduce(new Float64Array(2), null, { debug: true, op: me === 2 ? 'max' : 'sum' }));
await report.throws('MismatchError', 'datatype=', 'datatype mismatch', () =>
  me === 0 ? dbg.allreduce(new Float64Array(2), null, { debug: true }) : dbg.allreduce(new Float32Array(2), null, { debug: true }),
);
const ok = dbg.allreduce(Float64Array.from([1]), null, { debug: true });
report.ok(ok[0] === P, 'communicator usable after a mismatch');
// Mismatches between paths that move the sequence number differently (offloaded vs host,
// one flat-path call vs a two-phase schedule): afterwards every mode still works.
await report.throws('MismatchError', 'mode=offload', 'offload vs host mismatch', () => dbg.allreduce(new Float64Array(2), null, { debug: true, mode: me === 1 ? 'offload' : 'host' }));
await report.throws('MismatchError', 'ranks disagree', 'intermediate vs host mismatch', () => dbg.bcast(new Float64Array(2), { debug: true, mode: me === 0 ? 'intermediate' : 'host' }));
await report.throws('MismatchError', 'count=', 'flat vs schedule count mismatch', () => dbg.allreduce(new Float64Array(me === 0 ? 100_000 : 2), null, { debug: true }));
for (const mode of ['host', 'offload', 'intermediate'] as const) {
  for (const debug of [true, false]) {
    const x = dbg.allreduce(Float64Array.of(me + 1), null, { mode, debug });
    report.ok(x[0] === (P * (P + 1)) / 2, `${mode} allreduce after the mismatches (debug ${debug}): ${x[0]}`);
    const b = Float64Array.of(me === 1 ? 42 : 0);
    dbg.bcast(b, { mode, root: 1, debug });
    report.ok(b[0] === 42, `${mode} bcast after the mismatches (debug ${debug}): ${b[0]}`);
  }
}

// Timeouts name the missing ranks. Rank 0 calls alone on communicators the others never use.
function timeoutCheck(name: string, comm: Communicator, fn: () => unknown, expectMissing: (m: readonly number[]) => boolean): Promise<void> {
  return (async () => {
    if (me !== 0) return;
    try {
      await fn();
      report.ok(false, `${name}: no timeout`);
    } catch (e) {
      const ok = e instanceof TimeoutError && expectMissing(e.missingRanks) && e.message.includes('missing ranks');
      report.ok(ok, `${name}: ${String(e)} missing=${e instanceof TimeoutError ? e.missingRanks.join(',') : '-'}`);
    }
  })();
}
const all = (m: readonly number[]): boolean => m.length === P - 1 && m.every((r, i) => r === i + 1);
const someOthers = (m: readonly number[]): boolean => m.length > 0 && m.every((r) => r > 0 && r < P);
const t1 = world.dup();
const t2 = world.dup();
const t3 = world.dup();
const t4 = world.dup();
await timeoutCheck('small allreduce', t1, () => t1.allreduce(new Float64Array(1), null, { timeoutMs: 200 }), world.nodeCount === 1 ? all : someOthers);
await timeoutCheck('schedule allreduce', t2, () => t2.allreduce(new Float64Array(20000), null, { timeoutMs: 200 }), someOthers);
await timeoutCheck('nonblocking', t3, () => t3.iallgather(new Float64Array(1), new Float64Array(P), { timeoutMs: 200 }), someOthers);
await timeoutCheck('recv', t4, () => t4.recv(new Float64Array(1), 1, 99, { timeoutMs: 200 }), (m) => m.length === 1 && m[0] === 1);
// Point-to-point timeouts say whom and which tag, and hint at the missing send, not at collectives.
if (me === 0) {
  await report.throws('TimeoutError', 'recv from 1, tag 99 on communicator', 'p2p recv timeout message', () => t4.recv(new Float64Array(1), 1, 99, { timeoutMs: 100 }));
  await report.throws('TimeoutError', 'no matching send arrived', 'p2p recv timeout hint', () => t4.recv(new Float64Array(1), ANY_SOURCE, ANY_TAG, { timeoutMs: 100 }));
  await report.throws('TimeoutError', 'recv from any source, any tag', 'p2p any-source timeout message', () => t4.recv(new Float64Array(1), ANY_SOURCE, ANY_TAG, { timeoutMs: 100 }));
}
await timeoutCheck('debug signature exchange', t4, () => t4.barrier({ debug: true, timeoutMs: 200 }), all);
world.barrier();
report.print();
