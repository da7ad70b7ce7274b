/**
 * The fault suite: every fault ends the job within a bounded time with a message
 * naming the failed rank or node, and leaves no process behind.
 *
 * - a rank that returns (or exits with code 0) while its peers wait for it, on one
 *   node and across nodes; a rank that is merely late gets a "still waiting" warning
 *   naming the collective and the missing rank, and the job succeeds;
 * - a node process killed (SIGKILL), the launcher killed, a TCP connection reset
 *   mid-job (COLL_TCP_RESET), a send to a rank of a node that has finished;
 * - a rank that never arrives: cli.test.ts (`coll run --timeout`) and the
 *   TimeoutError checks of programs/errors.ts.
 *
 * Timeouts of seconds are upper bounds for a loaded machine, not performance checks.
 * Node processes are found through a marker in their environment (/proc/PID/environ).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runJob } from './job.js';
import { leftBehind, marker, processesWith, startUntilReady } from '../helpers/processes.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

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
    const m = marker();
    const r = await runJob('kill-node.ts', 4, 2, [], { COLL_FAULT_MARKER: m });
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toMatch(/coll: node 1 \(ranks 2–3\) died: killed by SIGKILL/);
    expect(r.stderr).not.toMatch(/network failure/);
    expect(Date.now() - t0).toBeLessThan(60_000);
    expect(await leftBehind(m)).toEqual([]);
  });
});

describe('the launcher killed', () => {
  it('takes every node process with it (4 ranks, 2 nodes)', async () => {
    const m = marker();
    const child = await startUntilReady(process.execPath, ['--import', 'tsx', 'src/cli/bin.ts', 'run', '-n', '4', '--nodes', '2', 'test/runtime/programs/spin.ts'], { cwd: root, env: { ...process.env, COLL_FAULT_MARKER: m } }, 4);
    const nodes = processesWith(m).filter((p) => p !== child.pid);
    expect(nodes.length).toBeGreaterThanOrEqual(2); // the node processes are found
    const t0 = Date.now();
    child.kill('SIGKILL');
    expect(await leftBehind(m)).toEqual([]);
    expect(Date.now() - t0).toBeLessThan(10_000);
  });
});

describe('a connection reset mid-job', () => {
  it('ends the job naming the nodes of the connection, not a rank (4 ranks, 2 nodes)', async () => {
    const t0 = Date.now();
    const m = marker();
    const r = await runJob('spin.ts', 4, 2, [], { COLL_FAULT_MARKER: m, COLL_TCP_RESET: '1:50' });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/coll: network failure: node [01]: connection to node [01] failed: (connection reset \(injected by COLL_TCP_RESET\)|read ECONNRESET)/);
    expect(r.stderr).not.toMatch(/coll: rank \d failed: .*network failure/);
    expect(Date.now() - t0).toBeLessThan(60_000);
    expect(await leftBehind(m)).toEqual([]);
  });
});

describe('a send to a rank that has returned, on a node that has finished', () => {
  it('is reported as undelivered, not as a network failure, and the job succeeds (2 ranks, 2 nodes)', async () => {
    const r = await runJob('unmatched-send.ts', 2, 2, ['2000']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/coll: node 0: 1 message\(s\) \(24 bytes\) for node 1 not delivered: rank 1 had already returned/);
    expect(r.stderr).not.toMatch(/ECONNREFUSED|network failure/);
  });
});
