/**
 * bcast { algorithm: 'multicast' } through the runtime. On one node there is no
 * multicast (the node broadcast alone). Across node processes on this machine the
 * root's node multicasts on loopback (transport/mcast): every result must be the
 * root's data, with and without injected faults on the nodes' reception, with several
 * roots and communicators in flight, and when one node hears nothing at all (fail-over
 * to the point-to-point tree); the job report counts what happened. Across namespace
 * hosts: test/launch/netns.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { explain, runJob, type JobResult } from './job.js';

function allPassed(r: JobResult, ranks: number, checks: number): void {
  expect(r.exitCode, explain(r)).toBe(0);
  expect(r.reports.map((x) => x.rank), explain(r)).toEqual(Array.from({ length: ranks }, (_, i) => i));
  for (const rep of r.reports) {
    expect(rep.failures, explain(r)).toEqual([]);
    expect(rep.checks).toBe(checks);
  }
}

describe("bcast { algorithm: 'multicast' } through the runtime", () => {
  it("3 ranks on one node: the root's data on every rank (roots 0, 1, 2; counts 0 … 20000; blocking and nonblocking)", async () => {
    const r = await runJob('multicast.ts', 3, 1);
    allPassed(r, 3, 3 * 4 * 3);
    expect(r.report.multicast).toBeUndefined();
  });

  it("6 ranks on 3 nodes: multicast on loopback, one message per broadcast whatever the node's ranks, counters in the job report", async () => {
    const r = await runJob('multicast.ts', 6, 3);
    allPassed(r, 6, 3 * 4 * 3);
    const m = r.report.multicast;
    expect(m, JSON.stringify(r.report.nodes.map((n) => n.multicastUnavailable))).toBeDefined();
    // 3 roots × 4 counts × (blocking + nonblocking): one multicast each, from the root's node.
    expect(m?.messages).toBe(24);
    // Every fragment reaches both other nodes, and every set used is synchronised.
    expect(m?.fragmentsReceived).toBe(2 * (m?.fragments ?? 0));
    expect(m?.setsSynced).toBeGreaterThan(0);
    expect(m?.acks).toBeGreaterThanOrEqual(m?.setsSynced ?? 0);
    expect(r.report.nodes.every((n) => n.multicast?.iface === '127.0.0.1' && n.multicast.group === m?.group)).toBe(true);
  });

  it('several communicators and roots in flight, nonblocking ones outstanding, under 30 % loss with duplication, reordering and corruption: NACK → resync → rebroadcast', async () => {
    const r = await runJob('multicast-mix.ts', 7, 4, [], { COLL_MCAST_FAULTS: 'loss=0.3,dup=0.05,reorder=0.1,corrupt=0.05,seed=7' });
    // world and dup of 7 ranks: roots 0, 6, 3; the halves (4 and 3 ranks): roots 0, 3, 2 and 0, 2, 1.
    allPassed(r, 7, 4 * (9 + 3));
    const m = r.report.multicast;
    expect(m?.nacks).toBeGreaterThan(0);
    expect(m?.resyncs).toBeGreaterThan(0);
    expect(m?.retransmissions).toBeGreaterThan(0);
    expect(m?.corrupt).toBeGreaterThan(0);
    expect(m?.duplicates).toBeGreaterThan(0);
    expect(r.report.nodes.reduce((s, n) => s + (n.multicast?.injectedLoss ?? 0), 0)).toBeGreaterThan(0);
  });

  it('a node whose multicast reception is blocked entirely: fail-over to the point-to-point tree, not a hang', async () => {
    const r = await runJob('multicast-mix.ts', 4, 4, [], { COLL_MCAST_FAULTS: 'loss=1,node=2' });
    // 4 ranks: world and dup roots 0, 3, 2; halves of 2 ranks roots 0, 1; and 3 blocking calls, 4 rounds.
    allPassed(r, 4, 4 * (3 + 3 + 2 + 3));
    expect(r.report.multicast?.failovers).toBeGreaterThan(0);
    expect(r.report.multicast?.treeFrames).toBeGreaterThan(0);
    expect(r.report.nodes[2].multicast?.fragmentsReceived).toBeGreaterThan(0);
    expect(r.report.nodes.filter((n) => n.node !== 2).every((n) => (n.multicast?.injectedLoss ?? 0) === 0)).toBe(true);
  });

  it('the unreliable mode (COLL_MCAST=reliable=0) on a clean network: right results, no NACKs or polls', async () => {
    const r = await runJob('multicast.ts', 4, 2, [], { COLL_MCAST: 'reliable=0' });
    allPassed(r, 4, 3 * 4 * 3);
    expect(r.report.multicast?.reliable).toBe(false);
    expect(r.report.multicast?.nacks).toBe(0);
    expect(r.report.multicast?.polls).toBe(0);
  });

  it('COLL_MCAST=off: the same broadcasts as point-to-point sends, no multicast section', async () => {
    const r = await runJob('multicast.ts', 4, 2, [], { COLL_MCAST: 'off' });
    allPassed(r, 4, 3 * 4 * 3);
    expect(r.report.multicast).toBeUndefined();
  });

  it('bad settings: a fragment above the datagram limit, an unknown key, a group too large for the channel layout', async () => {
    const big = await runJob('multicast.ts', 2, 2, [], { COLL_MCAST: 'fragment=70000' });
    expect(big.exitCode).not.toBe(0);
    expect(big.stderr).toMatch(/fragment=70000 bytes is above the datagram limit/);
    const unknown = await runJob('multicast.ts', 2, 2, [], { COLL_MCAST: 'chanels=8' });
    expect(unknown.exitCode).not.toBe(0);
    expect(unknown.stderr).toMatch(/COLL_MCAST: unknown key 'chanels'/);
    // 16-byte fragments carry 4 addresses: a root with 5 other nodes cannot multicast.
    const wide = await runJob('multicast.ts', 6, 6, [], { COLL_MCAST: 'fragment=16' });
    expect(wide.exitCode).not.toBe(0);
    expect(wide.stderr).toMatch(/a multicast to 5 nodes does not fit the channel layout/);
  });
});
