/**
 * The daemon ring (seed 003 S2.5; launch/daemon): `coll ring up` over three hosts
 * through an agent that behaves as ssh does, jobs started through it (output, the
 * launch report's per-host arrival times, every start-up scheme), `status` and `down`
 * (no daemon left), and failures: a host that cannot be reached, a ring that broke.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { JobReport } from '../../src/runtime/job-report.js';
import { readRingFile } from '../../src/launch/daemon/protocol.js';
import { leftBehind } from '../helpers/processes.js';
import { wheres } from './where.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const agent = fileURLToPath(new URL('./agents/ssh-like.sh', import.meta.url));
const where = fileURLToPath(new URL('./programs/where.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'coll-ring-'));
const ringFile = join(dir, 'ring.json');

// The tests here wait for their commands synchronously (spawnSync), which blocks this
// worker's event loop: one turn of it after each test lets vitest's RPC calls be answered,
// which otherwise time out once a file's tests have blocked it for 60 s in all (an
// unhandled error that fails the run although every test passed).
afterEach(() => new Promise<void>((resolve) => setImmediate(resolve)));

function coll(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/bin.ts', ...args], { cwd: root, encoding: 'utf8', timeout: 120_000, env: { ...process.env, COLL_RING_FILE: ringFile, ...env } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

afterAll(() => {
  if (existsSync(ringFile)) coll(['ring', 'down']);
});

describe('coll ring', () => {
  it('up over 3 hosts, a job through it, status, down: no daemon left', async () => {
    const up = coll(['ring', 'up', '--hosts', 'ha:2,hb:2,hc:1', '--launch-agent', agent]);
    expect(up.status, up.stderr).toBe(0);
    expect(up.stdout).toMatch(/3 daemon\(s\) up/);
    const ring = readRingFile(ringFile);
    expect(ring.members.map((m) => `${m.host}:${m.slots}`)).toEqual(['ha:2', 'hb:2', 'hc:1']);

    const status = coll(['ring', 'status', '--json']);
    expect(status.status, status.stderr).toBe(0);
    expect((JSON.parse(status.stdout) as { members: { member: number }[] }).members.map((m) => m.member)).toEqual([0, 1, 2]);

    for (const scheme of ['reassembly', 'bootstrap']) {
      const report = join(dir, `report-${scheme}.json`);
      const r = coll(['run', '-n', '5', '--ring', '--startup', scheme, '--report', report, where]);
      expect(r.status, r.stderr).toBe(0);
      const w = wheres(r.stdout);
      expect(w.map((x) => x.rank)).toEqual([0, 1, 2, 3, 4]);
      expect(w.every((x) => x.ok && x.nodeOf.join() === '0,0,1,1,2')).toBe(true);
      const rep = JSON.parse(await import('node:fs').then((f) => f.readFileSync(report, 'utf8'))) as JobReport;
      expect(rep.launch?.agent).toBe(`daemon ring ${ring.id}`);
      expect(rep.launch?.ring?.reachedMs).toHaveLength(3);
      expect(rep.startup?.launcher).toEqual(rep.startup?.expected.launcher);
    }

    const down = coll(['ring', 'down']);
    expect(down.status, down.stderr).toBe(0);
    expect(existsSync(ringFile)).toBe(false);
    expect(await leftBehind(`--ring ${ring.id}`)).toEqual([]);
  });

  it('a host that cannot be reached: up fails naming it, and the daemons it started are gone', async () => {
    const up = coll(['ring', 'up', '--hosts', 'ha,down1,hc', '--launch-agent', agent, '--timeout', '20']);
    expect(up.status).toBe(1);
    expect(up.stderr).toMatch(/down1: the daemon did not start \(exit code 255: ssh: connect to host down1 port 22: Connection refused\)/);
    expect(existsSync(ringFile)).toBe(false);
    const id = /the daemon ring (\w+) did not form/.exec(up.stderr)?.[1];
    expect(id).toBeDefined();
    expect(await leftBehind(`--ring ${id}`)).toEqual([]);
  });

  it('a ring that broke: coll run --ring fails at once saying so; no ring file: says how to start one', async () => {
    const up = coll(['ring', 'up', '--hosts', 'ha,hb,hc', '--launch-agent', agent]);
    expect(up.status, up.stderr).toBe(0);
    const ring = readRingFile(ringFile);
    process.kill(ring.members[1].pid, 'SIGKILL');
    // Its neighbours see the ring break and leave too.
    expect(await leftBehind(`--ring ${ring.id}`)).toEqual([]);
    const r = coll(['run', '-n', '3', '--ring', where]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/the daemon ring is not reachable/);
    coll(['ring', 'down']);
    const none = coll(['run', '-n', '2', '--ring', where]);
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/no daemon ring: .* does not exist[\s\S]*coll ring up/);
  });
});
