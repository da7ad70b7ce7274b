/**
 * allgather and barrier { algorithm: 'multicast' } through the runtime, across node
 * processes: on the world (block placement), on a reordered copy whose nodes hold
 * interleaved ranks, on the halves split by rank parity (one rank per node) and on
 * the first five ranks (uneven nodes). Every allgather result is checked; every
 * barrier is entered last by one rank (held back 30 ms), and no rank may leave it
 * before that rank entered (entry times exchanged afterwards; the ranks share this
 * machine's clock). Prints one line per rank:
 *   REPORT {"rank", "checks", "failures", "groups"}
 * where groups counts the multicast groups this rank's schedules sent (what the
 * job's multicast counters should add up to).
 */
import { init, type Communicator } from '../../helpers/rank-api.js';

const world = init({ timeoutMs: 60_000 });
const checks = { n: 0, failures: [] as string[] };
const ok = (cond: boolean, what: string): void => {
  checks.n++;
  if (!cond) checks.failures.push(what);
};
let groups = 0;

const P = world.size;
const comms: [string, Communicator][] = [['world', world]];
// Ranks ordered by local rank, then node: a node's ranks are not contiguous.
comms.push(['interleaved', world.split(0, world.topology.localRank(world.rank) * P + world.topology.nodeOf(world.rank)) as Communicator]);
comms.push(['parity', world.split(world.rank % 2) as Communicator]);
const five = world.split(world.rank < 5 ? 0 : null);
if (five) comms.push(['first five', five]);

const now = (): number => performance.timeOrigin + performance.now();
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const value = (c: number, r: number, i: number, round: number): number => c * 1e9 + r * 1e6 + round * 1e5 + i;
const mc = { algorithm: 'multicast' } as const;

/** Multicast groups rank `rank` of `comm` sends in one allgather / barrier (see the algorithms). */
function expectedGroups(comm: Communicator, kind: 'allgather' | 'barrier', count: number): number {
  const t = comm.topology;
  if (t.nodeCount < 2 || t.localRank(comm.rank) !== 0) return 0;
  if (kind === 'barrier') return comm.rank === 0 ? 1 : 0;
  return count > 0 ? t.ranksOn(t.nodeOf(comm.rank)).length : 0;
}

for (const [name, comm] of comms) {
  ok(comm.algorithmFor('allgather', 7, mc) === 'allgather/multicast', `${name}: allgather runs ${comm.algorithmFor('allgather', 7, mc)}`);
  ok(comm.algorithmFor('barrier', 0, mc) === 'barrier/multicast', `${name}: barrier runs ${comm.algorithmFor('barrier', 0, mc)}`);
}

for (let round = 0; round < 2; round++) {
  for (const [c, [name, comm]] of comms.entries()) {
    for (const count of [0, 1, 7, 3000, 20000]) {
      const blocking = (round + count) % 2 === 0;
      const send = Float64Array.from({ length: count }, (_, i) => value(c, comm.rank, i, round));
      const recv = new Float64Array(count * comm.size).fill(-1);
      if (blocking) comm.allgather(send, recv, mc);
      else await comm.iallgather(send, recv, mc);
      groups += expectedGroups(comm, 'allgather', count);
      let bad = -1;
      for (let k = 0; k < recv.length && bad < 0; k++) if (recv[k] !== value(c, Math.floor(k / count), k % count, round)) bad = k;
      ok(bad < 0, `${name} round ${round} count ${count} (${blocking ? 'blocking' : 'nonblocking'}): element ${bad} is ${recv[bad]}`);
    }
    for (let i = 0; i < 2; i++) {
      const late = (round * 2 + i + c) % comm.size;
      if (comm.rank === late) await sleep(30);
      const entered = now();
      if (i === 0) comm.barrier(mc);
      else await comm.ibarrier(mc);
      const left = now();
      groups += expectedGroups(comm, 'barrier', 0);
      const entries = comm.allgather(Float64Array.of(entered), new Float64Array(comm.size), mc);
      groups += expectedGroups(comm, 'allgather', 1);
      const last = Math.max(...entries);
      ok(left >= last - 2, `${name} round ${round} barrier ${i}: left ${(last - left).toFixed(2)} ms before rank ${entries.indexOf(last)} (held back: ${late}) entered`);
    }
  }
}
console.log(`REPORT ${JSON.stringify({ rank: world.rank, checks: checks.n, failures: checks.failures.slice(0, 20), groups })}`);
