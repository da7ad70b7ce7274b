/**
 * No silent hangs: a rank that returns (or exits with code 0) while its peers wait
 * for it ends the job within seconds with an error naming it, on one node and
 * across nodes; a rank that is merely late gets a "still waiting" warning naming the
 * collective and the missing rank, and the job succeeds. Timeouts of seconds are
 * upper bounds for a loaded machine, not performance checks.
 */
import { describe, expect, it } from 'vitest';
import { runJob } from './job.js';

describe('ranks that return early', () => {
  for (const [how, ranks, nodes] of [
    ['return', 3, 1],
    ['exit0', 3, 1],
    ['return', 4, 2],
  ] as const) {
    it(`${how}: the peers fail fast naming the rank (${ranks} ranks, ${nodes} node(s))`, async () => {
      const t0 = Date.now();
      const r = await runJob('early-exit.ts', ranks, nodes, [how]);
      const took = Date.now() - t0;
      expect(r.exitCode, r.stderr).not.toBe(0);
      expect(r.stderr).toMatch(new RegExp(`rank ${ranks - 1} failed: returned from its program while world rank \\d still waits for it in allreduce`));
      expect(took).toBeLessThan(60_000); // the collective's timeout is 120 s
    });
  }
});

describe('a late rank', () => {
  it('gets a "still waiting" warning naming the collective and the rank, then the job succeeds', async () => {
    const r = await runJob('early-exit.ts', 3, 1, ['late'], { COLL_WARN_AFTER_MS: '500' });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/still waiting after \d+ s in allreduce #\d+ on communicator 0 .*for world ranks \[2\]/);
    expect(r.stdout.match(/allreduce 3/g)?.length).toBe(3);
  });
});

describe('a node that dies', () => {
  it('ends the job with a message naming the dead node and its ranks, not a healthy rank (4 ranks, 2 nodes)', async () => {
    const t0 = Date.now();
    const r = await runJob('kill-node.ts', 4, 2);
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toMatch(/coll: node 1 \(ranks 2–3\) died: killed by SIGKILL/);
    expect(r.stderr).not.toMatch(/rank \d failed: node \d network failure/);
    expect(Date.now() - t0).toBeLessThan(60_000);
  });
});
