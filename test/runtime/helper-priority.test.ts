/**
 * With COLL_HELPER_NICE=19, V8's helper threads run at nice 19 in node processes, the
 * ranks at the normal priority (helper-priority.ts); by default (0) the helpers are left alone. Linux
 * only (it reads /proc).
 */
import { existsSync } from 'node:fs';
import { getPriority } from 'node:os';
import { describe, expect, it } from 'vitest';
import { helperNice } from '../../src/runtime/helper-priority.js';
import { runJob } from './job.js';

const lines = (out: string): { rank: number; mine: number; low: number }[] =>
  out
    .split('\n')
    .filter((l) => l.includes('NICE '))
    .map((l) => JSON.parse(l.slice(l.indexOf('{'))) as { rank: number; mine: number; low: number });

// (A test run that is itself niced passes its priority on to every thread: nothing to tell apart.)
describe.runIf(existsSync('/proc/thread-self') && getPriority() === 0)('helper thread priority', () => {
  it('lowers the helpers of a node process, not its ranks, and says so in the job report', async () => {
    const r = await runJob('nice.ts', 2, 1, [], { COLL_HELPER_NICE: '19' });
    expect(r.exitCode).toBe(0);
    const got = lines(r.stdout);
    expect(got.map((x) => x.rank).sort()).toEqual([0, 1]);
    for (const x of got) {
      expect(x.mine).toBe(0);
      expect(x.low).toBeGreaterThan(0);
    }
    const h = r.report.nodes[0].helperThreads;
    expect(h?.nice).toBe(19);
    expect(h?.lowered).toBeGreaterThan(0);
  });

  it('by default (and with COLL_HELPER_NICE=0) leaves them alone', async () => {
    const r = await runJob('nice.ts', 2, 1);
    expect(r.exitCode).toBe(0);
    for (const x of lines(r.stdout)) expect(x.low).toBe(0);
    expect(r.report.nodes[0].helperThreads).toEqual({ nice: 0, lowered: 0 });
  });

  it('reads the setting', () => {
    expect(helperNice({})).toBe(0);
    expect(helperNice({ COLL_HELPER_NICE: '0' })).toBe(0);
    expect(helperNice({ COLL_HELPER_NICE: '10' })).toBe(10);
    expect(helperNice({ COLL_HELPER_NICE: '40' })).toBe(19);
    expect(helperNice({ COLL_HELPER_NICE: 'x' })).toBe(0);
  });
});
