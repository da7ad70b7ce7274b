/**
 * Multicast broadcasts interleaved: on the world, on a dup and on two split halves,
 * from several roots at once, several nonblocking ones outstanding before any is
 * waited for, then blocking ones; every result must be the root's data. Run across
 * node processes, with or without injected multicast faults (COLL_MCAST_FAULTS).
 */
import { init, type Communicator } from '../../helpers/rank-api.js';
import { Report } from './cases.js';

const world = init({ timeoutMs: 60_000 });
const report = new Report(world);
const dup = world.dup();
const half = world.split(world.rank % 2) as Communicator;
const comms: [string, Communicator][] = [['world', world], ['dup', dup], ['half', half]];
const o = (root: number) => ({ algorithm: 'multicast', root }) as const;
const value = (c: number, root: number, round: number, i: number): number => c * 1_000_003 + root * 10_007 + round * 101 + i;

for (let round = 0; round < 4; round++) {
  const count = [1, 300, 5000, 70000][round];
  const pending: { name: string; c: number; root: number; buf: Float64Array; wait: () => unknown }[] = [];
  comms.forEach(([name, comm], c) => {
    for (const root of new Set([0, comm.size - 1, Math.floor(comm.size / 2)])) {
      const buf = new Float64Array(count);
      if (comm.rank === root) for (let i = 0; i < count; i++) buf[i] = value(c, root, round, i);
      const req = comm.ibcast(buf, o(root));
      pending.push({ name, c, root, buf, wait: () => req.wait() });
    }
  });
  for (const p of pending.reverse()) {
    await Promise.resolve(p.wait());
    const bad = p.buf.findIndex((v, i) => v !== value(p.c, p.root, round, i));
    report.ok(bad < 0, `${p.name} root ${p.root} count ${count} (nonblocking): element ${bad} is ${p.buf[bad]}`);
  }
  comms.forEach(([name, comm], c) => {
    const root = (round + c) % comm.size;
    const buf = new Float64Array(count);
    if (comm.rank === root) for (let i = 0; i < count; i++) buf[i] = value(c, root, round, i);
    comm.bcast(buf, o(root));
    const bad = buf.findIndex((v, i) => v !== value(c, root, round, i));
    report.ok(bad < 0, `${name} root ${root} count ${count} (blocking): element ${bad} is ${buf[bad]}`);
  });
}
report.print();
