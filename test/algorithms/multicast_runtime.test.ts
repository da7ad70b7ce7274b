/**
 * allgather and barrier { algorithm: 'multicast' } on real node processes: 6 ranks on
 * 3 nodes, the node processes' multicast on loopback (transport/mcast). The program
 * (programs/multicast-collectives.ts) checks every allgather result and that no rank
 * leaves a barrier before its last rank entered, on the world, an interleaved
 * reordering, the parity halves and the first five ranks; the job report's multicast
 * counters must count exactly the multicast groups the schedules sent.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { explain as explainJob, runJob, type RankReport as BaseReport } from '../runtime/job.js';

interface RankReport extends BaseReport {
  groups: number;
}

describe("allgather and barrier { algorithm: 'multicast' } across node processes", () => {
  it('6 ranks on 3 nodes: right results, barriers that hold, and every marked group sent as one multicast', async () => {
    const r = await runJob(fileURLToPath(new URL('./programs/multicast-collectives.ts', import.meta.url)), 6, 3);
    const reports = r.reports as RankReport[];
    const explain = explainJob(r);
    expect(r.exitCode, explain).toBe(0);
    expect(reports.map((x) => x.rank), explain).toEqual([0, 1, 2, 3, 4, 5]);
    for (const rep of reports) {
      expect(rep.failures, explain).toEqual([]);
      // 2 algorithm checks, then per round 5 allgathers and 2 barriers on each communicator: 3 or 4 (rank 5 is not among the first five).
      expect(rep.checks, explain).toBe((rep.rank === 5 ? 3 : 4) * (2 + 2 * 7));
    }
    const m = r.report.multicast;
    expect(m, JSON.stringify(r.report.nodes.map((n) => n.multicastUnavailable))).toBeDefined();
    expect(m?.messages).toBeGreaterThan(0);
    // Every multicast group of every schedule went out as one multicast, and nothing else did.
    expect(m?.messages).toBe(reports.reduce((s, x) => s + x.groups, 0));
    expect(m?.fragmentsReceived).toBe(2 * (m?.fragments ?? 0));
  }, 200_000);
});
