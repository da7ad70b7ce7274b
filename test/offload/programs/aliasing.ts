/**
 * Rank program: reduce and allreduce in offload and intermediate mode with every
 * root, in place and with separate buffers, on the world and on a split in reverse
 * rank order, small and larger counts — the cases where the engine may fold straight
 * into a member's receive buffer — checked against a rank-order sum computed here.
 */
import { init, type Communicator } from '../../helpers/rank-api.js';
import { Report } from '../../runtime/programs/cases.js';

const world = init({ timeoutMs: 60_000 });
const report = new Report(world);

const input = (rank: number, n: number): Int32Array => Int32Array.from({ length: n }, (_, i) => (rank + 1) * (i + 1) + ((rank * 7 + i * 3) % 5));
const sumOf = (P: number, n: number): Int32Array => {
  const out = new Int32Array(n);
  for (let r = 0; r < P; r++) input(r, n).forEach((v, i) => (out[i] += v));
  return out;
};
const same = (a: Int32Array, b: Int32Array): boolean => a.length === b.length && a.every((v, i) => v === b[i]);

function run(comm: Communicator, label: string): void {
  const P = comm.size;
  const me = comm.rank;
  for (const mode of ['offload', 'intermediate'] as const) {
    for (const n of [2, 1000]) {
      const want = sumOf(P, n);
      for (let root = 0; root < P; root++) {
        const x = input(me, n);
        comm.reduce(x, undefined, { root, mode });
        report.ok(me !== root || same(x, want), `${label} ${mode} in-place reduce n=${n} root=${root}: got ${Array.from(x.subarray(0, 4))} want ${Array.from(want.subarray(0, 4))}`);
        const src = input(me, n);
        const out = new Int32Array(n);
        comm.reduce(src, out, { root, mode });
        report.ok(same(src, input(me, n)), `${label} ${mode} reduce n=${n} root=${root}: send buffer changed`);
        report.ok(me !== root || same(out, want), `${label} ${mode} reduce n=${n} root=${root}: got ${Array.from(out.subarray(0, 4))}`);
      }
      const y = input(me, n);
      comm.allreduce(y, undefined, { mode });
      report.ok(same(y, want), `${label} ${mode} in-place allreduce n=${n}: got ${Array.from(y.subarray(0, 4))}`);
      const z = new Int32Array(n);
      comm.allreduce(input(me, n), z, { mode });
      report.ok(same(z, want), `${label} ${mode} allreduce n=${n}: got ${Array.from(z.subarray(0, 4))}`);
    }
  }
}

run(world, 'world');
const rev = world.split(0, world.size - 1 - world.rank) as Communicator;
run(rev, 'reversed');
report.print();
