/**
 * Rank program for the MPI transport: MPI's own collectives ({ algorithm: 'mpi' }) for
 * every collective, blocking and nonblocking, private and shared buffers, every root
 * kind, several datatypes and operators, on the world and on a split communicator in
 * reversed rank order, against the sequential reference; calls MPI cannot take are
 * RestrictionErrors that say why. Prints REPORT lines like runtime/programs/check.ts.
 */
import { COLLECTIVES, init, RestrictionError, type Communicator, type DatatypeName } from '../../../src/index.js';
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
report.print();
