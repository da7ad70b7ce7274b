/**
 * bcast { algorithm: 'multicast' } through the runtime: the root's data on every rank
 * for a few roots and counts (one node: the node broadcast alone, no multicast; across
 * nodes: the root's multicast-marked sends through the node's multicast path or as
 * ordinary sends).
 */
import { init } from '../../helpers/rank-api.js';
import { Report } from './cases.js';

const world = init({ timeoutMs: 60_000 });
const report = new Report(world);
const P = world.size;
for (const root of new Set([0, Math.floor(P / 2), P - 1])) {
  for (const count of [0, 1, 7, 20000]) {
    const o = { algorithm: 'multicast', root } as const;
    report.ok(world.algorithmFor('bcast', count, { ...o, datatype: 'int32' }) === 'bcast/multicast', `root ${root} count ${count}: algorithm ${world.algorithmFor('bcast', count, { ...o, datatype: 'int32' })}`);
    const b = new Int32Array(count);
    if (world.rank === root) for (let i = 0; i < count; i++) b[i] = root * 100003 + i * 7;
    world.bcast(b, o);
    const bad = b.findIndex((v, i) => v !== root * 100003 + i * 7);
    report.ok(bad < 0, `root ${root} count ${count}: element ${bad} is ${b[bad]}`);
    const n = new Float64Array(count).fill(world.rank === root ? 0.5 + root : -1);
    await world.ibcast(n, o).wait();
    report.ok(n.every((v) => v === 0.5 + root), `nonblocking root ${root} count ${count}: ${n[0]}`);
  }
}
report.print();
