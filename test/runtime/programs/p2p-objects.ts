/**
 * sendrecv around a ring (both directions, tags, any source), and the object
 * collectives with values structured clone takes (nested objects, Maps, typed
 * arrays, a long string), on the world and a reversed split; with argument 'abort',
 * rank 1 calls comm.abort(3, …) while the others wait in a collective.
 */
import { ANY_SOURCE, init, type Communicator } from '../../helpers/rank-api.js';
import { Report } from './cases.js';

const world = init({ timeoutMs: 60_000 });
if (process.argv[2] === 'abort') {
  if (world.rank === 1) world.abort(3, 'bad input in rank 1');
  world.allreduce(Float64Array.of(1));
  throw new Error('unreachable: the job was aborted');
}
const report = new Report(world);

function check(comm: Communicator, tag: string): void {
  const P = comm.size;
  const me = comm.rank;
  const right = (me + 1) % P;
  const left = (me + P - 1) % P;
  for (let round = 0; round < 5; round++) {
    const got = new Int32Array(3);
    const st = comm.sendrecv(Int32Array.of(me, round, 7), right, got, left, { sendTag: round, recvTag: round });
    report.ok(got[0] === left && got[1] === round && st.source === left && st.tag === round && st.count === 3, `${tag} sendrecv right round ${round}: ${Array.from(got)} from ${st.source}`);
    const back = new Int32Array(1);
    const st2 = comm.sendrecv(Int32Array.of(me * 2), left, back, ANY_SOURCE, { sendTag: 100, recvTag: 100 });
    report.ok(back[0] === right * 2 && st2.source === right, `${tag} sendrecv left any-source: ${back[0]} from ${st2.source}`);
  }
  const value = (r: number) => ({ rank: r, name: `rank-${r}`, nested: { list: [r, r * 2, { deep: true }], map: new Map([[r, 'x'.repeat(r)]]) }, data: Float64Array.of(r, r / 2), text: 'y'.repeat(r === 1 ? 100_000 : 3) });
  const same = (a: unknown, b: unknown): boolean => JSON.stringify(a, (_, v: unknown) => (v instanceof Map ? [...v] : ArrayBuffer.isView(v) ? Array.from(v as Float64Array) : v)) === JSON.stringify(b, (_, v: unknown) => (v instanceof Map ? [...v] : ArrayBuffer.isView(v) ? Array.from(v as Float64Array) : v));
  for (let root = 0; root < P; root++) {
    const b = comm.bcastObject(me === root ? value(root) : undefined, { root });
    report.ok(same(b, value(root)) && b?.nested.map instanceof Map, `${tag} bcastObject root ${root}`);
    const g = comm.gatherObject(value(me), { root });
    if (me === root) report.ok(g !== undefined && g.length === P && g.every((v, r) => same(v, value(r))), `${tag} gatherObject root ${root}`);
    else report.ok(g === undefined, `${tag} gatherObject non-root returns undefined`);
  }
  const all = comm.allgatherObject(value(me));
  report.ok(all.length === P && all.every((v, r) => same(v, value(r)) && v.data instanceof Float64Array), `${tag} allgatherObject`);
  report.ok(same(comm.allgatherObject(null), Array(P).fill(null)), `${tag} allgatherObject of null`);
}

// probe / iprobe: messages of sizes the receiver learns from the probe.
{
  const P = world.size;
  const me = world.rank;
  const to = (me + 1) % P;
  const from = (me + P - 1) % P;
  for (let i = 0; i < 4; i++) world.isend(Int32Array.from({ length: 10 * (i + 1) + me }, (_, j) => j + i), to, 50 + i);
  for (let i = 3; i >= 0; i--) {
    const st = world.probe(from, 50 + i, { datatype: 'int32' });
    report.ok(st.source === from && st.tag === 50 + i && st.count === 10 * (i + 1) + from && st.bytes === 4 * st.count, `probe tag ${50 + i}: ${JSON.stringify(st)}`);
    const again = world.iprobe(from, 50 + i);
    report.ok(again?.bytes === st.bytes, `iprobe sees the same message until it is received`);
    const buf = new Int32Array(st.count);
    world.recv(buf, st.source, st.tag);
    report.ok(buf.every((v, j) => v === j + i), `recv after probe tag ${50 + i}`);
  }
  const anyProbe = (() => {
    world.isend(Int32Array.of(me), to, 77);
    const st = world.probe(undefined, 77);
    const b = new Int32Array(1);
    world.recv(b, st.source, 77);
    return st.source === from && b[0] === from;
  })();
  report.ok(anyProbe, 'probe from any source');
  report.ok(world.iprobe(from, 999) === undefined, 'iprobe finds nothing for a tag never sent');
  await report.throws('TimeoutError', 'probe for', 'probe that nothing matches', () => world.probe(from, 998, { timeoutMs: 300 }));
  world.barrier();
}

check(world, 'world');
check(world.split(0, world.size - 1 - world.rank) as Communicator, 'reversed split');
report.print();
