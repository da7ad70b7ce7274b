/**
 * Launching across hosts (`--hosts`, `--hostfile`, `--launch-agent`): host lists and
 * hostfiles, by-slot mapping against a brute-force deal, shell quoting through a real
 * shell, the control channel's secret, and whole jobs started through an agent that
 * behaves as ssh does (agents/ssh-like.sh: the node is not the agent's own process, so
 * killing the agent or the launcher leaves it running unless the runtime ends it).
 * Real ssh between network-namespace hosts: netns.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { launch } from '../../src/runtime/launcher.js';
import { ControlServer, connectControl } from '../../src/launch/control.js';
import { mapRanks, parseHostfile, parseHostList } from '../../src/launch/hosts.js';
import { shellQuote } from '../../src/launch/shell.js';
import { cmdline, leftBehind, marker, processesWith, startUntilReady } from '../helpers/processes.js';
import { wheres } from './where.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const agent = fileURLToPath(new URL('./agents/ssh-like.sh', import.meta.url));
const where = fileURLToPath(new URL('./programs/where.ts', import.meta.url));



describe('host lists and hostfiles', () => {
  it('reads a:4,b and merges repeated hosts', () => {
    expect(parseHostList('a:4,b,a:2')).toEqual([
      { host: 'a', slots: 6 },
      { host: 'b', slots: 1 },
    ]);
    expect(() => parseHostList('a:4,,b')).toThrow(/empty entry/);
    expect(() => parseHostList('a:0')).toThrow(/0 slots/);
    expect(() => parseHostList('a b')).toThrow(/not a host name/);
  });

  it("reads Open MPI's hostfile syntax", () => {
    const text = '# cluster\nnode01 slots=4\nnode02 slots=2 max_slots=8  # two\n\nlocalhost\nnode03 max_slots=3\nnode01 slots=1\n';
    expect(parseHostfile(text)).toEqual([
      { host: 'node01', slots: 5 },
      { host: 'node02', slots: 2 },
      { host: 'localhost', slots: 1 },
      { host: 'node03', slots: 3 },
    ]);
    expect(() => parseHostfile('node01 cpus=4', 'hf')).toThrow(/hf:1: cannot read 'cpus=4'/);
    expect(() => parseHostfile('# nothing\n', 'hf')).toThrow(/lists no hosts/);
  });

  it('maps ranks slot by slot, and oversubscribes only when asked', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 40 }), (slots, ranks) => {
        const hosts = slots.map((s, i) => ({ host: `h${i}`, slots: s }));
        const total = slots.reduce((a, b) => a + b, 0);
        if (ranks > total) expect(() => mapRanks(hosts, ranks)).toThrow(/do not fit in the \d+ slot\(s\).*--oversubscribe/s);
        // Brute force: deal ranks one at a time into the first host with a free slot,
        // then (oversubscribed) round-robin from the first host.
        const count = slots.map(() => 0);
        for (let r = 0, extra = 0; r < ranks; r++) {
          const free = slots.findIndex((s, i) => count[i] < s);
          if (free >= 0) count[free]++;
          else count[extra++ % slots.length]++;
        }
        const want = hosts.map((h, i) => ({ host: h.host, ranks: count[i] })).filter((p) => p.ranks > 0);
        expect(mapRanks(hosts, ranks, true)).toEqual(want);
        if (ranks <= total) expect(mapRanks(hosts, ranks)).toEqual(want);
      }),
      { numRuns: 300 },
    );
  });
});

describe('remote command quoting', () => {
  it('every string survives a POSIX shell unchanged', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme-ascii', maxLength: 12 }), { minLength: 1, maxLength: 4 }), (words) => {
        const script = `printf '%s\\0' ${words.map(shellQuote).join(' ')}`;
        const r = spawnSync('sh', ['-c', script], { encoding: 'utf8' });
        expect(r.stdout.split('\0').slice(0, -1)).toEqual(words);
      }),
      { numRuns: 60 },
    );
  });
});

describe('the control channel', () => {
  it('accepts a node that knows the secret and refuses (and counts) one that does not', async () => {
    const secret = 'ab'.repeat(32);
    const accepted: number[] = [];
    const rejected: string[] = [];
    const server = new ControlServer({ jobId: 'j1', secret, onNode: (n, link) => (accepted.push(n), link.send({ hi: n })), onReject: (_, why) => rejected.push(why) });
    const port = await server.listen('127.0.0.1');
    const good = await connectControl([`127.0.0.1:${port}`], 'j1', 3, secret);
    const first = await new Promise<unknown>((resolve) => good.link.onMessage(resolve));
    expect(first).toEqual({ hi: 3 });
    await expect(connectControl([`127.0.0.1:${port}`], 'j1', 4, 'cd'.repeat(32)).then((c) => new Promise((resolve) => c.link.onClose(() => resolve('closed'))))).resolves.toBe('closed');
    await expect(connectControl([`127.0.0.1:${port}`], 'j1', 3, secret).then((c) => new Promise((resolve) => c.link.onClose(() => resolve('closed'))))).resolves.toBe('closed');
    expect(accepted).toEqual([3]);
    expect(rejected).toEqual(['node 4: wrong job secret', 'node 3 connected twice']);
    expect(server.rejected).toBe(2);
    // The first candidate that answers wins; failures are named.
    await expect(connectControl(['127.0.0.1:1'], 'j1', 5, secret)).rejects.toThrow(/node 5 could not reach the launcher: 127\.0\.0\.1:1: .*ECONNREFUSED/);
    good.link.close();
    server.close();
  });
});

describe('jobs through a launch agent (ssh-like)', () => {
  it('runs 7 ranks on hosts a:3,b:2,c:4 as 3 nodes, with correct collectives and the launch in the report', async () => {
    const log = join(mkdtempSync(join(tmpdir(), 'coll-agent-')), 'hosts');
    const r = await launch({ ranks: 7, hosts: parseHostList('a:3,b:2,c:4'), launchAgent: agent, program: where, arenaMb: 32, jobTimeoutMs: 120_000, env: { COLL_TEST_AGENT_LOG: log } });
    expect(r.exitCode, r.stderr).toBe(0);
    const w = wheres(r.stdout);
    expect(w.map((x) => x.rank)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(w.every((x) => x.ok && x.nodes === 3)).toBe(true);
    expect(w[0].nodeOf).toEqual([0, 0, 0, 1, 1, 2, 2]);
    expect(readFileSync(log, 'utf8').split('\n').filter(Boolean).sort()).toEqual(['a', 'b', 'c']);
    expect(r.report.launch?.hosts).toEqual([
      { host: 'a', node: 0, ranks: [0, 2], remote: true },
      { host: 'b', node: 1, ranks: [3, 4], remote: true },
      { host: 'c', node: 2, ranks: [5, 6], remote: true },
    ]);
    expect(r.report.launch?.connectMs.every((ms) => ms > 0)).toBe(true);
    expect(r.report.nodesReported).toBe(3);
    expect(r.report.connections).toBe(3);
  });

  it('mixes this machine (localhost, started directly) with agent hosts', async () => {
    const r = await launch({ ranks: 3, hosts: parseHostList('localhost:1,far:2'), launchAgent: agent, program: where, arenaMb: 32, jobTimeoutMs: 120_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(wheres(r.stdout).every((x) => x.ok)).toBe(true);
    expect(r.report.launch?.hosts.map((h) => h.remote)).toEqual([false, true]);
  });

  it('a failing rank ends the job on every host, naming the rank', async () => {
    const r = await launch({ ranks: 4, hosts: parseHostList('a:2,b:2'), launchAgent: agent, program: where, args: ['fail'], arenaMb: 32, jobTimeoutMs: 120_000, env: { COLL_FAULT_MARKER: marker() } });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/coll: rank 3 failed: .*rank program failed on purpose/);
  });

  it('an unreachable host: a clear error naming it, within seconds, nothing left running', async () => {
    const m = marker();
    const t0 = Date.now();
    const r = await launch({ ranks: 4, hosts: parseHostList('a:2,down1:2'), launchAgent: agent, program: where, arenaMb: 32, jobTimeoutMs: 120_000, env: { COLL_FAULT_MARKER: m } });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/coll: host down1 \(node 1, ranks 2–3\) did not start: the launch agent \(.*ssh-like\.sh\) ended with exit code 255 before the node connected back: ssh: connect to host down1 port 22: Connection refused/);
    expect(Date.now() - t0).toBeLessThan(30_000);
    expect(await leftBehind(m)).toEqual([]);
  });

  it('a host that never starts its node: the start-up timeout names it, nothing left running', async () => {
    const m = marker();
    const r = await launch({ ranks: 3, hosts: parseHostList('a:1,hang:2'), launchAgent: agent, startupTimeoutMs: 4000, program: where, arenaMb: 32, jobTimeoutMs: 120_000, env: { COLL_FAULT_MARKER: m } });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/coll: host hang \(node 1, ranks 1–2\) did not connect back within 4 s/);
    expect(await leftBehind(m)).toEqual([]);
  });

  it('more ranks than slots is refused unless oversubscribed', async () => {
    await expect(launch({ ranks: 5, hosts: parseHostList('a:2,b:2'), launchAgent: agent, program: where })).rejects.toThrow(/5 ranks do not fit in the 4 slot\(s\) of a:2,b:2/);
    const r = await launch({ ranks: 5, hosts: parseHostList('a:2,b:2'), oversubscribe: true, launchAgent: agent, program: where, arenaMb: 32, jobTimeoutMs: 120_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.report.launch?.hosts.map((h) => h.ranks)).toEqual([
      [0, 2],
      [3, 4],
    ]);
  });

  it('the launcher killed: every remote node ends (an ssh-started process would not)', async () => {
    const m = marker();
    const child = await startUntilReady(process.execPath, ['--import', 'tsx', 'src/cli/bin.ts', 'run', '-n', '4', '--hosts', 'a:2,b:2', '--launch-agent', agent, where, 'spin'], { cwd: root, env: { ...process.env, COLL_FAULT_MARKER: m } }, 4);
    const isNode = (p: number): boolean => cmdline(p).startsWith(process.execPath) && cmdline(p).includes('node-main');
    const nodes = processesWith(m).filter(isNode);
    // The ssh-like agents are the nodes' parents; the nodes are not in their process group.
    child.kill('SIGKILL');
    expect(nodes.length).toBe(2);
    const t0 = Date.now();
    expect((await leftBehind(m)).filter(isNode)).toEqual([]);
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it('coll run --hostfile with the agent, from the command line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'coll-hf-'));
    writeFileSync(join(dir, 'hosts'), '# two hosts\nx slots=1\ny slots=2\n');
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/bin.ts', 'run', '-n', '3', '--hostfile', join(dir, 'hosts'), '--launch-agent', agent, where], { cwd: root, encoding: 'utf8', timeout: 120_000 });
    expect(r.status, r.stderr).toBe(0);
    const w = wheres(r.stdout);
    expect(w.map((x) => x.node)).toEqual([0, 1, 1]);
    const bad = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/bin.ts', 'run', '-n', '3', '--hosts', 'a:1', '--hostfile', join(dir, 'hosts'), where], { cwd: root, encoding: 'utf8' });
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/give --hosts or --hostfile, not both/);
  });
});
