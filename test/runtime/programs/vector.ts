/**
 * The vector collectives (gatherv, scatterv, allgatherv, alltoallv, reduceScatterv)
 * against values computed here: uneven counts including zeros, default and gapped
 * displacements, every root, blocking and nonblocking, a non-commutative operator
 * folded in rank order, on the world and a reversed split; and their argument errors.
 */
import { defineOp, init, type Communicator } from '../../helpers/rank-api.js';
import { Report } from './cases.js';

const world = init({ timeoutMs: 60_000 });
const report = new Report(world);
const val = (r: number, i: number, salt: number): number => r * 1000 + i + salt * 100_000;
/** Not commutative: a ∘ b = 3a + b (mod 2^31), so only a rank-order fold gives the reference. */
const AFFINE = defineOp('vector-affine', { commutative: false, datatypes: ['int32'], combine: (a, b) => (Number(a) * 3 + Number(b)) % 2 ** 31 });

async function check(comm: Communicator, tag: string): Promise<void> {
  const P = comm.size;
  const me = comm.rank;
  for (let round = 0; round < 4; round++) {
    const counts = Array.from({ length: P }, (_, r) => (r * 7 + round * 3) % 5); // zeros included
    const gapped = round % 2 === 1;
    let at = 0;
    const displs = counts.map((c) => ((at += c + (gapped ? 2 : 0)), at - c));
    const span = Math.max(1, ...counts.map((c, r) => displs[r] + c));
    const nb = round >= 2;
    for (let root = 0; root < P; root++) {
      const o = { root, displs: gapped ? displs : undefined };
      const dsp = gapped ? displs : counts.map((_, r) => counts.slice(0, r).reduce((a, b) => a + b, 0));
      // gatherv
      const mine = Int32Array.from({ length: counts[me] }, (_, i) => val(me, i, 1));
      const all = new Int32Array(span).fill(-1);
      const g = nb ? await comm.igatherv(mine, me === root ? all : null, counts, o) : comm.gatherv(mine, me === root ? all : null, counts, o);
      if (me === root) report.ok(g === all && counts.every((c, r) => Array.from({ length: c }, (_, i) => all[dsp[r] + i] === val(r, i, 1)).every(Boolean)), `${tag} gatherv root ${root} round ${round}: ${Array.from(all)}`);
      else report.ok(g === undefined, `${tag} gatherv non-root returns undefined`);
      // scatterv
      const src = me === root ? Int32Array.from({ length: span }, (_, j) => j * 3 + round) : null;
      const got = new Int32Array(counts[me]);
      if (nb) await comm.iscatterv(src, counts, got, o);
      else comm.scatterv(src, counts, got, o);
      report.ok(Array.from(got).every((v, i) => v === (dsp[me] + i) * 3 + round), `${tag} scatterv root ${root} round ${round}: ${Array.from(got)}`);
    }
    // allgatherv
    const dsp = gapped ? displs : counts.map((_, r) => counts.slice(0, r).reduce((a, b) => a + b, 0));
    const everyone = new Float64Array(span).fill(-1);
    const mine = Float64Array.from({ length: counts[me] }, (_, i) => val(me, i, 2));
    if (nb) await comm.iallgatherv(mine, everyone, counts, { displs: gapped ? displs : undefined });
    else comm.allgatherv(mine, everyone, counts, { displs: gapped ? displs : undefined });
    report.ok(counts.every((c, r) => Array.from({ length: c }, (_, i) => everyone[dsp[r] + i] === val(r, i, 2)).every(Boolean)), `${tag} allgatherv round ${round}`);
    // alltoallv: rank i sends (i + j + round) % 4 elements to rank j
    const n = (i: number, j: number): number => (i + j + round) % 4;
    const sc = Array.from({ length: P }, (_, j) => n(me, j));
    const rc = Array.from({ length: P }, (_, i) => n(i, me));
    const sd = sc.map((_, j) => sc.slice(0, j).reduce((a, b) => a + b, 0));
    const rd = rc.map((_, i) => rc.slice(0, i).reduce((a, b) => a + b, 0) + (gapped ? i : 0));
    const sb = new Int32Array(sc.reduce((a, b) => a + b, 0));
    sc.forEach((c, j) => {
      for (let k = 0; k < c; k++) sb[sd[j] + k] = me * 10_000 + j * 100 + k;
    });
    const rb = new Int32Array(Math.max(1, ...rc.map((c, i) => rd[i] + c))).fill(-1);
    if (nb) await comm.ialltoallv(sb, sc, rb, rc, { rdispls: rd });
    else comm.alltoallv(sb, sc, rb, rc, { rdispls: rd });
    report.ok(rc.every((c, i) => Array.from({ length: c }, (_, k) => rb[rd[i] + k] === i * 10_000 + me * 100 + k).every(Boolean)), `${tag} alltoallv round ${round}: ${Array.from(rb)}`);
  }
  // reduceScatterv: rank r gets block r reduced over all ranks, sum and a rank-order fold.
  for (let round = 0; round < 3; round++) {
    const counts = Array.from({ length: P }, (_, r) => (r * 5 + round * 2) % 4); // zeros included
    const at = counts.map((_, r) => counts.slice(0, r).reduce((a, b) => a + b, 0));
    const x = (r: number, j: number, i: number): number => (r * 31 + j * 7 + i + round) % 97;
    const sendbuf = new Int32Array(counts.reduce((a, b) => a + b, 0));
    counts.forEach((c, j) => {
      for (let i = 0; i < c; i++) sendbuf[at[j] + i] = x(me, j, i);
    });
    for (const op of ['sum', AFFINE] as const) {
      const got = new Int32Array(counts[me]).fill(-1);
      if (round === 1) await comm.ireduceScatterv(sendbuf, got, counts, { op });
      else comm.reduceScatterv(sendbuf, got, counts, { op });
      const want = Array.from({ length: counts[me] }, (_, i) => {
        let acc = x(0, me, i);
        for (let r = 1; r < P; r++) acc = op === 'sum' ? acc + x(r, me, i) : (acc * 3 + x(r, me, i)) % 2 ** 31;
        return acc;
      });
      report.ok(Array.from(got).join() === want.join(), `${tag} reduceScatterv ${typeof op === 'string' ? op : op.name} round ${round}: ${Array.from(got)} vs ${want}`);
    }
  }
  await report.throws('ArgumentError', 'counts must have one count per rank', `${tag} reduceScatterv short counts`, () => comm.reduceScatterv(new Int32Array(4), new Int32Array(1), []));
  await report.throws('ArgumentError', 'counts must have one count per rank', `${tag} short counts`, () => comm.allgatherv(new Int32Array(1), new Int32Array(8), []));
  await report.throws('ArgumentError', 'counts[0]', `${tag} negative count`, () => comm.gatherv(new Int32Array(1), null, Array.from({ length: P }, (_, r) => (r === 0 ? -1 : 1))));
  await report.throws('ArgumentError', 'sends itself', `${tag} alltoallv self mismatch`, () =>
    comm.alltoallv(new Int32Array(P), Array(P).fill(1), new Int32Array(2 * P), Array.from({ length: P }, (_, r) => (r === me ? 2 : 1))),
  );
  comm.barrier();
}

await check(world, 'world');
await check(world.split(0, world.size - 1 - world.rank) as Communicator, 'reversed split');
report.print();
