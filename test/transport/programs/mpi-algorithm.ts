/**
 * Rank program for the MPI transport: MPI's own collectives ({ algorithm: 'mpi' }) for
 * every collective, blocking and nonblocking, private and shared buffers, every root
 * kind, several datatypes and operators, on the world and on a split communicator in
 * reversed rank order, against the sequential reference; calls MPI cannot take are
 * RestrictionErrors that say why. Prints REPORT lines like runtime/programs/check.ts.
 */
import { COLLECTIVES, init, RestrictionError, type Communicator, type DatatypeName } from '../../helpers/rank-api.js';
import { isReduction, isRooted } from '../../../src/schedule/context.js';
import { checkCase, describeCase, Report, type Case } from '../../runtime/programs/cases.js';

const world = init({ timeoutMs: 60_000 });
const report = new Report(world);
let seed = 1;

async function checkAll(comm: Communicator, tag: string): Promise<void> {
  const P = comm.size;
  for (const collective of COLLECTIVES) {
    const types: { datatype: DatatypeName; op?: string }[] = isReduction(collective)
      ? [{ datatype: 'float64', op: 'sum' }, { datatype: 'int32', op: 'max' }, { datatype: 'uint8', op: 'bor' }]
      : [{ datatype: 'int32' }, { datatype: 'float32' }];
    for (const count of collective === 'barrier' ? [0] : [0, 1, P + 2, 5000]) {
      for (const root of isRooted(collective) ? [0, P - 1] : [0]) {
        for (const t of types) {
          for (const nonblocking of [false, true]) {
            const c: Case = { collective, algorithm: 'mpi', count, root, ...t, nonblocking, shared: nonblocking ? 'odd' : false, seed: seed++ };
            await checkCase(report, comm, c, `${tag} P=${P} ${describeCase(c)}`);
          }
        }
      }
    }
  }
}

await checkAll(world, 'world');
const reversed = world.split(0, world.size - 1 - world.rank) as Communicator;
await checkAll(reversed, 'reversed split');
reversed.free();

// What MPI cannot take is refused with the reason, before anything moves.
const refused = (f: () => void, why: RegExp, what: string): void => {
  try {
    f();
    report.ok(false, `${what}: not refused`);
  } catch (e) {
    report.ok(e instanceof RestrictionError && why.test((e as Error).message), `${what}: ${(e as Error).message}`);
  }
};
refused(() => world.allreduce(new Uint32Array(4), null, { algorithm: 'mpi', op: 'perm8' }), /not one of MPI's predefined operators/, 'a non-predefined operator');
refused(() => world.allgather(new Float64Array(2), new Float64Array(2 * world.size), { algorithm: 'mpi', datatype: 'float64_int32' }), /no predefined datatype/, 'a pair type');
// Every datatype × operator MPI defines, with values that overflow the small types (a wrapping sum,
// signed and unsigned extremes): MPI's result against this library's recursive doubling (itself
// checked against the sequential reference by check.ts); a combination this MPI is known to get
// wrong is refused with the reason instead.
const TYPES = { int8: Int8Array, int16: Int16Array, int32: Int32Array, int64: BigInt64Array, uint8: Uint8Array, uint16: Uint16Array, uint32: Uint32Array, uint64: BigUint64Array, float32: Float32Array, float64: Float64Array } as const;
type Arr = Int8Array | Int16Array | Int32Array | BigInt64Array | Uint8Array | Uint16Array | Uint32Array | BigUint64Array | Float32Array | Float64Array;
for (const [name, Ctor] of Object.entries(TYPES)) {
  for (const op of ['sum', 'prod', 'min', 'max', 'band', 'bor', 'bxor', 'land', 'lor', 'lxor'] as const) {
    if (name.startsWith('float') && !['sum', 'prod', 'min', 'max'].includes(op)) continue;
    for (const n of [1, 100]) {
      const make = (): Arr => {
        const a = new Ctor(n);
        for (let i = 0; i < n; i++) {
          const v = (world.rank * 97 + i * 31 + 200) % 256;
          const signed = !name.startsWith('u') && world.rank % 2 === 1 ? -v : v;
          if (a instanceof BigInt64Array || a instanceof BigUint64Array) a[i] = name === 'uint64' ? 18446744073709551000n + BigInt(v) : BigInt(signed);
          else a[i] = name === 'uint32' ? 4294967000 + v : signed;
        }
        return a;
      };
      const what = `${name} ${op} n=${n}`;
      let got: Arr;
      try {
        got = world.allreduce(make(), new Ctor(n), { algorithm: 'mpi', op });
      } catch (e) {
        report.ok(e instanceof RestrictionError && /pmodels|ompi#/.test((e as Error).message), `${what}: ${(e as Error).message}`);
        continue;
      }
      const want = world.allreduce(make(), new Ctor(n), { algorithm: 'recursive_doubling', op });
      report.ok(got.every((v, i) => v === want[i]), `${what}: MPI ${got[0]}…${got[n - 1]}, ours ${want[0]}…${want[n - 1]}`);
    }
  }
}

// MPI's collectives are the automatic choice here; reproducible reductions and pair types keep the library's own.
report.ok(world.algorithmFor('allreduce', 4) === 'allreduce/mpi', `automatic choice: ${world.algorithmFor('allreduce', 4)}`);
report.ok(world.algorithmFor('allreduce', 4, { reproducible: true }) !== 'allreduce/mpi', 'reproducible allreduce keeps a rank-order schedule');
report.ok(world.algorithmFor('allreduce', 4, { datatype: 'float64_int32', op: 'minloc' }) !== 'allreduce/mpi', 'minloc on pairs keeps a schedule');
report.print();
