/**
 * Real hosts: three network namespaces on one bridge, each running sshd
 * (scripts/hosts/up.sh), and jobs started from inside the first one with
 * `coll run --hosts … --launch-agent "ssh -F …"`: nodes on three hosts, bound to their
 * own addresses, talking over the bridge; the orphan that ssh alone leaves, measured
 * beside the runtime's nodes ending; a daemon ring over ssh; a host that does not
 * exist; a host that dies; multicast broadcasts over the bridge; a checkpointed job
 * restarted after its node on another host was killed.
 * Skipped, saying what is missing, without root, iproute2 or openssh-server (CI has them).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { JobReport } from '../../src/index.js';
import { startUntilReady } from '../helpers/processes.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const where = fileURLToPath(new URL('./programs/where.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'coll-hosts-'));

function missing(): string | undefined {
  if (process.getuid?.() !== 0) return 'root (network namespaces)';
  if (spawnSync('ip', ['-V']).status !== 0) return 'iproute2';
  if (!existsSync('/usr/sbin/sshd')) return 'openssh-server';
  return undefined;
}
const lacking = missing();
if (lacking) console.warn(`netns.test.ts skipped: needs ${lacking}`);

const agent = `ssh -x -F ${dir}/ssh_config`;

// The tests here wait for their commands synchronously (spawnSync), which blocks this
// worker's event loop: one turn of it after each test lets vitest's RPC calls be answered,
// which otherwise time out once a file's tests have blocked it for 60 s in all (an
// unhandled error that fails the run although every test passed).
afterEach(() => new Promise<void>((resolve) => setImmediate(resolve)));

/** A command inside host h0's namespace. */
function inH0(args: string[], timeout = 120_000): { status: number | null; stdout: string; stderr: string; ms: number } {
  const t0 = Date.now();
  const r = spawnSync('ip', ['netns', 'exec', 'coll-h0', ...args], { cwd: root, encoding: 'utf8', timeout, env: { ...process.env, COLL_HOSTS_DIR: dir } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, ms: Date.now() - t0 };
}

const coll = (args: string[]): string[] => [process.execPath, '--import', 'tsx', 'src/cli/bin.ts', 'run', '--launch-agent', agent, ...args];

/** Processes of a namespace other than its sshd listener. */
function inNamespace(ns: string): string[] {
  const pids = execFileSync('ip', ['netns', 'pids', ns], { encoding: 'utf8' }).split('\n').filter(Boolean);
  return pids
    .map((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'latin1').replace(/\0/g, ' ').trim();
      } catch {
        return '';
      }
    })
    .filter((c) => c !== '' && !c.includes('sshd_config'));
}

async function settle(ns: string, ms = 10_000): Promise<string[]> {
  const until = Date.now() + ms;
  for (;;) {
    const left = inNamespace(ns);
    if (left.length === 0 || Date.now() > until) return left;
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe.skipIf(lacking !== undefined)('jobs across network-namespace hosts over ssh', () => {
  beforeAll(() => {
    execFileSync(join(root, 'scripts/hosts/up.sh'), ['3'], { env: { ...process.env, COLL_HOSTS_DIR: dir }, stdio: 'pipe' });
  }, 60_000);
  afterAll(() => {
    spawnSync(join(root, 'scripts/hosts/down.sh'), { env: { ...process.env, COLL_HOSTS_DIR: dir } });
  });

  it('6 ranks on h0:2,h1:2,h2:2: each node on its host address, collectives correct', () => {
    const report = join(dir, 'report.json');
    const r = inH0(coll(['-n', '6', '--hosts', 'h0:2,h1:2,h2:2', '--report', report, where]));
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.split('\n').filter((l) => l.includes('WHERE '));
    expect(lines).toHaveLength(6);
    expect(lines.every((l) => l.includes('"ok":true') && l.includes('"nodeOf":[0,0,1,1,2,2]'))).toBe(true);
    const rep = JSON.parse(readFileSync(report, 'utf8')) as JobReport;
    expect(rep.nodes.map((n) => n.address?.split(':')[0])).toEqual(['10.77.0.1', '10.77.0.2', '10.77.0.3']);
    expect(rep.launch?.hosts.map((h) => h.host)).toEqual(['h0', 'h1', 'h2']);
    expect(rep.connections).toBe(3);
  });

  it('multicast broadcasts across the hosts: each node joins the group on its own address, every result right', () => {
    const mix = fileURLToPath(new URL('../runtime/programs/multicast-mix.ts', import.meta.url));
    const report = join(dir, 'mcast-report.json');
    const r = inH0(coll(['-n', '6', '--hosts', 'h0:2,h1:2,h2:2', '--report', report, mix]));
    expect(r.status, r.stderr).toBe(0);
    const checks = r.stdout.split('\n').filter((l) => l.includes('REPORT '));
    expect(checks).toHaveLength(6);
    expect(checks.every((l) => l.includes('"failures":[]')), checks.join('\n')).toBe(true);
    const rep = JSON.parse(readFileSync(report, 'utf8')) as JobReport;
    expect(rep.nodes.map((n) => n.multicast?.iface)).toEqual(['10.77.0.1', '10.77.0.2', '10.77.0.3']);
    expect(rep.multicast?.fragmentsReceived).toBe(2 * (rep.multicast?.fragments ?? 0));
    // Fail-over when a node hears nothing: test/runtime/multicast.test.ts (the same code on loopback).
  });

  it('checkpoints across the hosts: the node on h1 killed after a checkpoint, --max-restarts resumes on the same hosts, results bitwise those of an uninterrupted run', async () => {
    const prog = fileURLToPath(new URL('../../src/experiments/checkpoint-program.ts', import.meta.url));
    const hashesOf = (out: string): string[] =>
      out
        .split('\n')
        .filter((l) => l.includes('RESULT '))
        .map((l) => JSON.parse(l.slice(l.indexOf('{'))) as { rank: number; hash: string })
        .sort((a, b) => a.rank - b.rank)
        .map((x) => x.hash);
    const plain = inH0(coll(['-n', '4', '--hosts', 'h0:2,h1:2', prog, '250']));
    expect(plain.status, plain.stderr).toBe(0);
    const ckdir = join(dir, 'ckpt');
    const report = join(dir, 'ckpt-report.json');
    const job = spawn('ip', ['netns', 'exec', 'coll-h0', ...coll(['-n', '4', '--hosts', 'h0:2,h1:2', '--checkpoint-dir', ckdir, '--checkpoint-every', '150ms', '--max-restarts', '1', '--report', report, prog, '250'])], { cwd: root, env: { ...process.env, COLL_HOSTS_DIR: dir } });
    let out = '';
    let err = '';
    job.stdout.on('data', (d: Buffer) => void (out += String(d)));
    job.stderr.on('data', (d: Buffer) => void (err += String(d)));
    const ended = new Promise<number | null>((resolve) => job.once('close', resolve));
    for (let i = 0; i < 600 && !(existsSync(ckdir) && readdirSync(ckdir).some((n) => /^ckpt-\d+$/.test(n))); i++) await new Promise((r) => setTimeout(r, 50));
    const node = execFileSync('ip', ['netns', 'pids', 'coll-h1'], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .find((p) => readFileSync(`/proc/${p}/cmdline`, 'latin1').includes('node-main'));
    expect(node, 'no node process on h1').toBeDefined();
    spawnSync('kill', ['-9', node as string]);
    expect(await ended, err).toBe(0);
    expect(err).toMatch(/restarting from checkpoint \d+ \(restart 1 of 1\)/);
    expect(hashesOf(out)).toEqual(hashesOf(plain.stdout));
    const rep = JSON.parse(readFileSync(report, 'utf8')) as JobReport;
    expect(rep.checkpoint?.restarts).toBe(1);
    expect(rep.nodes.map((n) => n.address?.split(':')[0])).toEqual(['10.77.0.1', '10.77.0.2']);
  });

  it('ssh alone leaves its remote command running when killed; the runtime ends its nodes', async () => {
    // The measurement: a remote command started by ssh outlives the killed ssh client.
    const plain = spawn('ip', ['netns', 'exec', 'coll-h0', ...agent.split(' '), 'h1', 'sleep', '3600'], { stdio: 'ignore' });
    const sleeping = (): boolean => inNamespace('coll-h1').some((c) => c.startsWith('sleep 3600'));
    for (const until = Date.now() + 10_000; !sleeping() && Date.now() < until; ) await new Promise((r) => setTimeout(r, 100));
    plain.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 1500));
    const orphans = inNamespace('coll-h1').filter((c) => c.startsWith('sleep 3600'));
    expect(orphans).toHaveLength(1);
    spawnSync('ip', ['netns', 'exec', 'coll-h1', 'pkill', '-f', 'sleep 3600']);

    // The runtime: kill the launcher mid-job; every node on h1 and h2 ends.
    const job = await startUntilReady('ip', ['netns', 'exec', 'coll-h0', ...coll(['-n', '4', '--hosts', 'h1:2,h2:2', where, 'spin'])], { cwd: root }, 4);
    expect(inNamespace('coll-h1').some((c) => c.includes('node-main'))).toBe(true);
    job.kill('SIGKILL');
    expect(await settle('coll-h1')).toEqual([]);
    expect(await settle('coll-h2')).toEqual([]);
  });

  it('a host that does not exist: the error names it, within the ssh connect timeout', () => {
    const r = inH0(coll(['-n', '4', '--hosts', 'h1:2,10.77.0.99:2', where]));
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/coll: host 10\.77\.0\.99 \(node 1, ranks 2–3\) did not start: the launch agent \(ssh .*\) ended with exit code 255 before the node connected back: ssh: connect to host 10\.77\.0\.99 port 22/);
    expect(r.ms).toBeLessThan(30_000);
  });

  it('a daemon ring over ssh: up on h0,h1,h2, a job through it with the bootstrap scheme, down leaves nothing', async () => {
    const ringFile = join(dir, 'ring.json');
    const cli = [process.execPath, '--import', 'tsx', 'src/cli/bin.ts'];
    const up = inH0([...cli, 'ring', 'up', '--hosts', 'h0:2,h1:2,h2:2', '--launch-agent', agent, '--ring-file', ringFile]);
    expect(up.status, up.stderr).toBe(0);
    expect(inNamespace('coll-h1').filter((c) => c.includes(' daemon '))).toHaveLength(1);
    const report = join(dir, 'ring-report.json');
    const r = inH0([...cli, 'run', '-n', '6', '--ring-file', ringFile, '--startup', 'bootstrap', '--report', report, where]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.split('\n').filter((l) => l.includes('"ok":true') && l.includes('"nodeOf":[0,0,1,1,2,2]'))).toHaveLength(6);
    const rep = JSON.parse(readFileSync(report, 'utf8')) as JobReport;
    expect(rep.nodes.map((n) => n.address?.split(':')[0])).toEqual(['10.77.0.1', '10.77.0.2', '10.77.0.3']);
    expect(rep.startup?.ring.messagesSent).toBe(6);
    expect(rep.launch?.ring?.reachedMs).toHaveLength(3);
    const down = inH0([...cli, 'ring', 'down', '--ring-file', ringFile]);
    expect(down.status, down.stderr).toBe(0);
    expect(await settle('coll-h1')).toEqual([]);
    expect(await settle('coll-h2')).toEqual([]);
  });

  it('a host that dies mid-job: the job ends naming it, nothing left on the other hosts', async () => {
    const job = await startUntilReady('ip', ['netns', 'exec', 'coll-h0', ...coll(['-n', '4', '--hosts', 'h1:2,h2:2', where, 'spin'])], { cwd: root }, 4);
    let err = '';
    job.stderr.on('data', (d: Buffer) => void (err += String(d)));
    const ended = new Promise<number | null>((resolve) => job.once('close', resolve));
    // Everything on h2 dies at once, sshd's session included, as when the host fails.
    for (const pid of execFileSync('ip', ['netns', 'pids', 'coll-h2'], { encoding: 'utf8' }).split('\n').filter(Boolean)) {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('sshd_config')) spawnSync('kill', ['-9', pid]);
    }
    expect(await ended).toBe(1);
    expect(err).toMatch(/coll: host h2 \(node 1, ranks 2–3\) died|coll: network failure: .*node 1/);
    expect(await settle('coll-h1')).toEqual([]);
  });
});
