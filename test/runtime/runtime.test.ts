/**
 * The runtime end to end: real rank threads and node processes, shared-memory and
 * TCP transports. Each job runs hundreds of checks against the sequential
 * reference inside the ranks (programs/check.ts), so only a few jobs are launched:
 * 1–8 ranks on 1–4 nodes, including non-powers of two and uneven placements.
 * Nothing here depends on timing (timeouts are provoked on purpose, with slack).
 *
 * Tests of the same layout share one job where they can (SHARED: programs/several.ts runs
 * their programs one after the other, each test reading its own program's REPORT lines);
 * jobs that fail on purpose, run with their own environment, or whose job report a test
 * reads (direct.ts's path counters) have one each.
 */
import { describe, expect, it } from 'vitest';
import { explain, programOf, runJob, type JobResult } from './job.js';

/**
 * The programs (file name, arguments after ':') that share a job per layout `ranks x nodes`;
 * mismatch.ts, whose communicators are unusable afterwards, last.
 */
const SHARED: Record<string, readonly string[]> = {
  '1x1': ['check.ts', 'vector.ts'],
  '2x1': ['check.ts', 'flat.ts:40', 'mismatch.ts'],
  '3x1': ['check.ts', 'vector.ts', 'flat.ts:40', 'named-flat.ts', 'p2p-objects.ts', 'errors.ts', 'mismatch.ts'],
  '4x2': ['named-flat.ts', 'p2p-objects.ts', 'errors.ts', 'mismatch.ts'],
  '5x2': ['check.ts', 'vector.ts'],
};
const sharedJobs = new Map<string, Promise<JobResult>>();

/** `program`'s run: its part of its layout's shared job, or a job of its own. */
function job(program: string, ranks: number, nodes: number): Promise<JobResult> {
  const layout = `${ranks}x${nodes}`;
  const [name, args] = program.split(':');
  if (!SHARED[layout]?.includes(program)) return runJob(name, ranks, nodes, args ? args.split(',') : []);
  let shared = sharedJobs.get(layout);
  if (!shared) sharedJobs.set(layout, (shared = runJob('several.ts', ranks, nodes, [...SHARED[layout]])));
  return shared.then((r) => programOf(r, name));
}

/** A test that may wait for a whole shared job (the job's own bound is 170 s). */
const JOB = { timeout: 170_000 };

function expectPassed(r: Awaited<ReturnType<typeof runJob>>, ranks: number): void {
  expect(r.exitCode, explain(r)).toBe(0);
  expect(r.reports.map((x) => x.rank), explain(r)).toEqual(Array.from({ length: ranks }, (_, i) => i));
  for (const rep of r.reports) {
    expect(rep.failures, explain(r)).toEqual([]);
    expect(rep.checks).toBeGreaterThan(20);
  }
}

describe('collectives through the runtime match the sequential reference', () => {
  for (const [ranks, nodes, quick] of [
    [1, 1, false],
    [2, 1, false],
    [3, 1, false],
    [5, 2, false],
    [8, 1, true],
    [7, 4, true],
  ] as const) {
    it(`${ranks} rank(s) on ${nodes} node(s)`, JOB, async () => {
      expectPassed(await job(quick ? 'check.ts:quick' : 'check.ts', ranks, nodes), ranks);
    });
  }
});

describe('adaptive connections under datagram loss, duplication and reordering (COLL_UDP_FAULT)', () => {
  // Messages start on the datagram path and move to TCP mid-job (threshold 4), or never leave it
  // (inf): no message may be lost, doubled or reordered.
  for (const threshold of ['4', 'inf'] as const) {
    it(`on demand, threshold ${threshold}: 5 ranks on 3 nodes match the reference`, async () => {
      const r = await runJob('check.ts', 5, 3, ['quick'], {
        // Everything as datagrams (inf) includes the bulk checks: less loss keeps the job short.
        COLL_UDP_FAULT: threshold === 'inf' ? 'loss=0.03,duplicate=0.05,reorder=0.05,seed=11' : 'loss=0.15,duplicate=0.1,reorder=0.1,seed=11',
        COLL_CONNECTIONS: 'on-demand',
        COLL_CONNECTION_THRESHOLD: threshold,
        COLL_CONNECTION_BYTES: 'inf',
      });
      expectPassed(r, 5);
      expect(r.report.retransmissions).toBeGreaterThan(0);
      expect(r.report.datagrams.duplicatesDropped).toBeGreaterThan(0);
      expect(r.report.datagrams.foreignDropped).toBe(0);
      if (threshold === 'inf') expect(r.report.connections).toBe(0);
      else expect(r.report.connections).toBeGreaterThan(0);
    });
  }
});

describe('errors', () => {
  it('bad arguments, restrictions, mismatches and timeouts raise typed errors (3 ranks)', JOB, async () => {
    expectPassed(await job('errors.ts', 3, 1), 3);
  });

  it('the same on 2 nodes', JOB, async () => {
    expectPassed(await job('errors.ts', 4, 2), 4);
  });

  for (const [ranks, nodes, failing] of [
    [3, 1, 1],
    [4, 2, 3],
  ] as const) {
    it(`a failing rank ends the job (${ranks} ranks, ${nodes} node(s), rank ${failing} throws)`, async () => {
      const r = await runJob('fail.ts', ranks, nodes, [String(failing)]);
      expect(r.exitCode).toBe(1);
      expect(r.failure?.rank).toBe(failing);
      expect(r.stderr).toContain(`rank ${failing} failed: Error: boom from rank ${failing}`);
      expect(r.stdout).not.toContain('unreachable');
      for (const pid of r.pids) expect(() => process.kill(pid, 0)).toThrow();
    });
  }
});

describe('the flat shared-memory path', () => {
  for (const ranks of [2, 3, 5]) {
    it(`keeps results right when eager roots run ahead and with up to eight outstanding nonblocking calls (${ranks} ranks)`, JOB, async () => {
      expectPassed(await job('flat.ts:40', ranks, 1), ranks);
    });
  }
});

describe("direct mode: blocks beyond the slots moved between the users' buffers", () => {
  for (const [ranks, nodes] of [
    [2, 1],
    [3, 1],
    [5, 1],
    [4, 2],
  ] as const) {
    it(`every collective, named and automatic, in place, staged, with a full arena, mismatched (${ranks} ranks, ${nodes} node(s))`, async () => {
      const r = await runJob('direct.ts', ranks, nodes);
      expectPassed(r, ranks);
      // The job report says which path the calls took: the three calls made with a full
      // arena slice (two blocking, one nonblocking) fell back on every rank, private
      // buffers were staged.
      const p = r.report.paths;
      expect(p.direct).toBeGreaterThan(100 * ranks);
      expect(p.directFallbacks).toBe(nodes === 1 ? 3 * ranks : 0);
      expect(p.scheduled).toBeGreaterThanOrEqual(p.directFallbacks);
      expect(p.stagedBytes).toBeGreaterThan(0);
      if (nodes === 1) expect(p.flat).toBeGreaterThan(0);
    });
  }
});

describe("the flat path named as { algorithm: 'shm_flat' }", () => {
  for (const [ranks, nodes] of [
    [3, 1],
    [4, 2],
  ] as const) {
    it(`runs every collective, or says why not (${ranks} ranks, ${nodes} node(s))`, JOB, async () => {
      expectPassed(await job('named-flat.ts', ranks, nodes), ranks);
    });
  }
});

describe('the vector collectives', () => {
  for (const [ranks, nodes] of [
    [1, 1],
    [3, 1],
    [5, 2],
  ] as const) {
    it(`gatherv, scatterv, allgatherv, alltoallv, reduceScatterv with uneven counts and displacements (${ranks} rank(s), ${nodes} node(s))`, JOB, async () => {
      expectPassed(await job('vector.ts', ranks, nodes), ranks);
    });
  }
});

describe('sendrecv and the object collectives', () => {
  for (const [ranks, nodes] of [
    [3, 1],
    [4, 2],
  ] as const) {
    it(`sendrecv rings and bcast/gather/allgatherObject against the values sent (${ranks} ranks, ${nodes} node(s))`, JOB, async () => {
      expectPassed(await job('p2p-objects.ts', ranks, nodes), ranks);
    });
  }

  it('comm.abort(3, message) ends the job with exit code 3 and the message (4 ranks, 2 nodes)', async () => {
    const r = await runJob('p2p-objects.ts', 4, 2, ['abort']);
    expect(r.exitCode, r.stderr).toBe(3);
    expect(r.stderr).toContain('coll: rank 1 failed: called abort(3): bad input in rank 1');
    expect(r.stderr).not.toContain('unreachable');
  });
});

describe('mismatched calls without debug mode', () => {
  for (const [ranks, nodes] of [
    [2, 1],
    [3, 1],
    [4, 2],
  ] as const) {
    it(`raise MismatchError (or time out where ranks only wait for each other), never return wrong data (${ranks} ranks, ${nodes} node(s))`, JOB, async () => {
      expectPassed(await job('mismatch.ts', ranks, nodes), ranks);
    });
  }
});
