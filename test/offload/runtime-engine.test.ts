/**
 * The offload engine end to end, behaviour: nonblocking offloaded collectives complete
 * while a rank does not progress at all (host mode as the contrast), engines stop by
 * themselves when the job ends and no node process survives a job (also when a rank or
 * an engine fails), engine errors reach the ranks as typed errors, and bad mode input is
 * rejected. Nothing depends on timing: ranks synchronise through marker files and wait
 * without deadlines except as bounds on failing runs; timeouts are provoked on purpose
 * with small timeoutMs and only their presence and content are checked.
 */
import { describe, expect, it } from 'vitest';
import { explain } from '../runtime/job.js';
import { markerDirs, processGone, programPath, runJob, type JobResult } from './programs/job.js';

const markerDir = markerDirs();

function expectPassed(r: JobResult, ranks: number, minChecks: number): void {
  expect(r.exitCode, explain(r)).toBe(0);
  expect(r.reports.map((x) => x.rank), explain(r)).toEqual(Array.from({ length: ranks }, (_, i) => i));
  for (const rep of r.reports) {
    expect(rep.failures, explain(r)).toEqual([]);
    expect(rep.checks, explain(r)).toBeGreaterThanOrEqual(minChecks);
  }
}

function expectNodesGone(r: JobResult, nodes: number): void {
  expect(r.pids).toHaveLength(nodes);
  for (const pid of r.pids) {
    expect(pid).toBeGreaterThan(0);
    expect(processGone(pid), `node process ${pid} is still alive`).toBe(true);
  }
}

/** Node processes report how each of their worker threads ended (programs/thread-exits.mjs). */
const THREAD_EXITS = ['--import', programPath('thread-exits.mjs')];

describe.concurrent('completion without rank progress', () => {
  it('nonblocking offloaded allreduce, bcast (to and from the stalled rank) and allgather land in the buffers of a rank that sleeps outside the library, and the other ranks complete meanwhile; in host mode nothing lands (5 ranks, 2 nodes)', { timeout: 120_000 }, async () => {
    // Stalled rank 1 shares node 0 with ranks 0 and 2; stalled rank 4 shares node 1 with rank 3 (and is a bcast root there).
    const r = await runJob('progress.ts', { ranks: 5, nodes: 2, args: [markerDir(), 'offload:1', 'offload:4', 'host:2'] });
    expectPassed(r, 5, 4);
    // The stalled ranks made the phase's structural checks (offload: 3 each, host: 5).
    expect(r.reports[1].checks).toBeGreaterThanOrEqual(3 + 1 + 1);
    expect(r.reports[2].checks).toBeGreaterThanOrEqual(1 + 5 + 1);
  });

  it('the same on one node (3 ranks)', { timeout: 120_000 }, async () => {
    expectPassed(await runJob('progress.ts', { ranks: 3, nodes: 1, args: [markerDir(), 'offload:0', 'host:2'] }), 3, 3);
  });
});

/** One offload-mode job (COLL_MODE=offload) shared by the shutdown test and the bad-input test: modes.ts with engines. */
let modesJob: Promise<JobResult> | undefined;
const offloadModeJob = (): Promise<JobResult> =>
  (modesJob ??= runJob('modes.ts', { ranks: 3, nodes: 2, args: ['engine'], env: { COLL_MODE: 'offload' }, nodeArgs: THREAD_EXITS }));

describe.concurrent('engine shutdown at the end of the job', () => {
  it('an offload-mode job exits 0, every engine thread returns by itself (exit code 0, never terminated) and the node processes are gone (3 ranks, 2 nodes)', { timeout: 120_000 }, async () => {
    const r = await offloadModeJob();
    expect(r.exitCode, explain(r)).toBe(0);
    const lines = r.stderr.split('\n');
    expect(lines.filter((l) => l === 'THREAD-EXIT engine code=0'), r.stderr).toHaveLength(2);
    expect(lines.filter((l) => l === 'THREAD-EXIT rank code=0'), r.stderr).toHaveLength(3);
    expect(r.stderr).not.toContain('THREAD-TERMINATE');
    expect(lines.filter((l) => l.startsWith('THREAD-EXIT') && !l.endsWith('code=0')), r.stderr).toEqual([]);
    expectNodesGone(r, 2);
  });

  it('a rank that throws while the others wait in an offloaded allreduce ends the job, and no node process survives (4 ranks, 2 nodes)', { timeout: 120_000 }, async () => {
    const r = await runJob('lifecycle.ts', { ranks: 4, nodes: 2, args: ['throw:2'] });
    expect(r.exitCode, explain(r)).toBe(1);
    expect(r.failure?.rank).toBe(2);
    expect(r.stderr).toContain('rank 2 failed: Error: boom from rank 2');
    expect(r.stdout).not.toContain('unreachable');
    expectNodesGone(r, 2);
  });
});

describe.concurrent('engine errors surface as clear errors on the ranks', () => {
  it('a fatal engine exception (COLL_ENGINE_FAULT) fails the job with a reason naming the offload engine, and no node process survives (4 ranks, 2 nodes)', { timeout: 120_000 }, async () => {
    const r = await runJob('lifecycle.ts', { ranks: 4, nodes: 2, args: ['loop'], env: { COLL_ENGINE_FAULT: 'claim:3' } });
    expect(r.exitCode, explain(r)).toBe(1);
    expect(r.failure?.rank).toBe(-1);
    expect(r.failure?.reason).toMatch(/^the offload engine of node [01] failed: Error: injected engine fault at collective claim 3/);
    expect(r.stderr).toMatch(/coll: the offload engine of node [01] failed/);
    expect(r.stdout).not.toContain('unreachable');
    expectNodesGone(r, 2);
  });

  it('local mismatch -> MismatchError naming who posted what; a rank that never calls -> TimeoutError naming it (same node and other node); nodes that disagree -> MismatchError; two failed outstanding calls keep their own messages; the engines keep working (3 ranks, 2 nodes)', { timeout: 120_000 }, async () => {
    const r = await runJob('engine-errors.ts', { ranks: 3, nodes: 2, args: ['mismatch', 'timeout:2', 'timeout:1', 'mismatch-nodes', `two-errors:${markerDir()}`] });
    // mismatch 1 + timeouts 2 (1 for the absent rank) + mismatch-nodes 1 + two-errors 2 + 2 after.
    expectPassed(r, 3, 7);
  });
});

describe.concurrent('bad mode input', () => {
  it('unknown modes and algorithms, and collectives the engine cannot run, raise typed errors; per-call modes override the communicator (COLL_MODE=offload, 3 ranks, 2 nodes)', { timeout: 120_000 }, async () => {
    expectPassed(await offloadModeJob(), 3, 16);
  });

  it('the same on one node (2 ranks)', { timeout: 120_000 }, async () => {
    expectPassed(await runJob('modes.ts', { ranks: 2, nodes: 1, args: ['engine'] }), 2, 15);
  });

  it('without engines (launch({ engine: false })): setMode and per-call offload/intermediate raise ArgumentError, host calls work', { timeout: 120_000 }, async () => {
    expectPassed(await runJob('modes.ts', { ranks: 3, nodes: 2, args: ['noengine'], engine: false }), 3, 10);
  });

  it('COLL_MODE=offload in a job without engines, and an unknown COLL_MODE, fail at init with ArgumentError', { timeout: 120_000 }, async () => {
    const [noEngine, unknown] = await Promise.all([
      runJob('modes.ts', { ranks: 1, args: ['noengine'], engine: false, env: { COLL_MODE: 'offload' } }),
      runJob('modes.ts', { ranks: 1, args: ['engine'], env: { COLL_MODE: 'nic' } }),
    ]);
    expect(noEngine.exitCode, explain(noEngine)).toBe(1);
    expect(noEngine.failure?.reason).toMatch(/^ArgumentError: this job runs without offload engines/);
    expect(unknown.exitCode, explain(unknown)).toBe(1);
    expect(unknown.failure?.reason).toMatch(/^ArgumentError: COLL_MODE 'nic' is not an execution mode/);
  });
});
