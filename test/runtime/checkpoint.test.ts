/**
 * Coordinated checkpoint/restart (runtime/checkpoint.ts, issue 19): a program of a few
 * hundred iterations of collectives, point-to-point messages in flight across the
 * checkpoint and a nonblocking allreduce completed by it (src/experiments/checkpoint-program.ts),
 * killed — a node process, then the launcher — at a random point after a checkpoint,
 * and restarted from the last complete one: every rank's final vector is bitwise that
 * of an uninterrupted run. Broken checkpoints are refused with errors naming them.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { launch, type LaunchResult } from '../../src/runtime/launcher.js';
import { commitCheckpoint, latestCheckpoint, listCheckpoints, readRankFile, writeRankFile } from '../../src/runtime/checkpoint-files.js';
import { leftBehind, marker, processesWith } from '../helpers/processes.js';
import { checkpointRows } from '../../src/experiments/checkpoint-reproduce.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const program = fileURLToPath(new URL('../../src/experiments/checkpoint-program.ts', import.meta.url));
const ITERATIONS = '150';

interface Result {
  rank: number;
  hash: string;
  iterations: number;
  restoredFrom: string;
}

function results(r: LaunchResult | { stdout: string }): Result[] {
  return r.stdout
    .split('\n')
    .filter((l) => l.includes('RESULT '))
    .map((l) => JSON.parse(l.slice(l.indexOf('{'))) as Result)
    .sort((a, b) => a.rank - b.rank);
}

const hashes = (r: LaunchResult | { stdout: string }): string[] => results(r).map((x) => x.hash);

/** Wait until `dir` holds a complete checkpoint, then a random 0–300 ms more. */
async function afterACheckpoint(dir: string): Promise<number> {
  for (let i = 0; i < 600 && listCheckpoints(dir).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
  expect(listCheckpoints(dir).length, 'no checkpoint was completed').toBeGreaterThan(0);
  const extra = Math.floor(Math.random() * 300);
  await new Promise((r) => setTimeout(r, extra));
  return extra;
}

const tmp = (): string => mkdtempSync(join(tmpdir(), 'coll-ckpt-'));
const reference = new Map<string, Promise<string[]>>();
/** The uninterrupted run's hashes (one run per mode, shared by the tests). */
function uninterrupted(mode: 'host' | 'offload'): Promise<string[]> {
  let p = reference.get(mode);
  if (!p) {
    p = launch({ ranks: 4, nodes: 2, program, args: [ITERATIONS, mode], jobTimeoutMs: 120_000 }).then((r) => {
      expect(r.exitCode, r.stderr).toBe(0);
      return hashes(r);
    });
    reference.set(mode, p);
  }
  return p;
}

describe('checkpoint files', () => {
  it('commit atomically, keep the last K, refuse corrupted and truncated files', () => {
    const dir = tmp();
    for (let e = 1; e <= 4; e++) {
      for (let r = 0; r < 2; r++) writeRankFile(dir, e, r, { e, r, v: Float64Array.of(e, r) });
      commitCheckpoint(dir, { version: 1, epoch: e, ranks: 2, nodes: 1, program: 'p', created: '', files: [] }, 2);
    }
    expect(listCheckpoints(dir)).toEqual([3, 4]);
    // A crash while checkpoint 5 was written: its .tmp directory is never taken for complete.
    writeRankFile(dir, 5, 0, { broken: true });
    expect(latestCheckpoint(dir)?.manifest.epoch).toBe(4);
    const d = latestCheckpoint(dir)?.dir as string;
    expect(readRankFile(d, 1)).toEqual({ e: 4, r: 1, v: Float64Array.of(4, 1) });
    const f = join(d, 'rank-1.ckpt');
    const bytes = readFileSync(f);
    bytes[bytes.length - 3] ^= 1;
    writeFileSync(f, bytes);
    expect(() => readRankFile(d, 1)).toThrow(/rank-1\.ckpt is corrupted \(its SHA-256 does not match\); it is not loaded/);
    truncateSync(join(d, 'rank-0.ckpt'), 60);
    expect(() => readRankFile(d, 0)).toThrow(/rank-0\.ckpt is truncated/);
    writeFileSync(join(d, 'rank-0.ckpt'), 'not a checkpoint');
    expect(() => readRankFile(d, 0)).toThrow(/not a checkpoint file/);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('checkpoint and restart of a job', () => {
  it('a node process killed after a checkpoint: --max-restarts resumes from it, bitwise the uninterrupted results', async () => {
    const want = await uninterrupted('host');
    const dir = tmp();
    const m = marker('ckpt');
    const job = launch({ ranks: 4, nodes: 2, program, args: [ITERATIONS], checkpoint: { dir, everyMs: 150 }, maxRestarts: 2, env: { COLL_FAULT_MARKER: m }, jobTimeoutMs: 120_000 });
    const extra = await afterACheckpoint(dir);
    const nodes = processesWith(m);
    expect(nodes.length).toBe(2);
    process.kill(nodes[Math.floor(Math.random() * 2)], 'SIGKILL');
    const r = await job;
    expect(r.exitCode, `${r.stderr} (killed ${extra} ms after the first checkpoint)`).toBe(0);
    expect(r.stderr).toMatch(/coll: the job failed \(node \d \(ranks \d–\d\) died: killed by SIGKILL[^)]*\); restarting from checkpoint \d+ \(restart 1 of 2\)/);
    expect(hashes(r)).toEqual(want);
    expect(results(r).every((x) => x.restoredFrom === 'checkpoint' && x.iterations === Number(ITERATIONS))).toBe(true);
    expect(r.report.checkpoint).toMatchObject({ restarts: 1 });
    expect(r.report.checkpoint?.restartedFrom).toHaveLength(1);
    expect(r.report.checkpoint?.count).toBeGreaterThan(0);
    expect(r.report.checkpoint?.messagesDrained).toBeGreaterThan(0);
    rmSync(dir, { recursive: true, force: true });
  });

  it('the launcher killed after a checkpoint: its nodes end, coll run --restart resumes bitwise', async () => {
    const want = await uninterrupted('host');
    const dir = tmp();
    const m = marker('ckpt');
    const cli = spawn(process.execPath, ['--import', 'tsx', 'src/cli/bin.ts', 'run', '-n', '4', '--nodes', '2', '--checkpoint-dir', dir, '--checkpoint-every', '150ms', program, ITERATIONS], {
      cwd: root,
      env: { ...process.env, COLL_FAULT_MARKER: m },
      stdio: 'ignore',
    });
    await afterACheckpoint(dir);
    cli.kill('SIGKILL');
    expect(await leftBehind(m)).toEqual([]);
    const before = latestCheckpoint(dir)?.manifest.epoch;
    expect(before).toBeGreaterThan(0);
    const r = await launch({ ranks: 4, nodes: 2, program, args: [ITERATIONS], restart: dir, jobTimeoutMs: 120_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(hashes(r)).toEqual(want);
    expect(r.report.checkpoint?.restartedFrom).toEqual([before]);
    expect(results(r).every((x) => x.restoredFrom === 'checkpoint')).toBe(true);
    rmSync(dir, { recursive: true, force: true });
  });

  it('SIGUSR1 to coll run makes a checkpoint due; the job goes on to its end', async () => {
    const dir = tmp();
    const report = join(dir, 'report.json');
    const m = marker('ckpt');
    const cli = spawn(process.execPath, ['--import', 'tsx', 'src/cli/bin.ts', 'run', '-n', '2', '--nodes', '2', '--checkpoint-dir', join(dir, 'c'), '--report', report, program, '1200'], {
      cwd: root,
      env: { ...process.env, COLL_FAULT_MARKER: m },
      stdio: 'ignore',
    });
    const ended = new Promise<number | null>((resolve) => cli.once('close', resolve));
    for (let i = 0; i < 200 && processesWith(m).length < 3; i++) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 1500));
    cli.kill('SIGUSR1');
    expect(await ended).toBe(0);
    const rep = JSON.parse(readFileSync(report, 'utf8')) as LaunchResult['report'];
    expect(rep.checkpoint?.count).toBe(1);
    expect(listCheckpoints(join(dir, 'c'))).toEqual([1]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('offload mode: killed and restarted, bitwise the uninterrupted offloaded run', async () => {
    const want = await uninterrupted('offload');
    const dir = tmp();
    const m = marker('ckpt');
    const job = launch({ ranks: 4, nodes: 2, program, args: [ITERATIONS, 'offload'], checkpoint: { dir, everyMs: 150 }, maxRestarts: 1, env: { COLL_FAULT_MARKER: m }, jobTimeoutMs: 120_000 });
    await afterACheckpoint(dir);
    process.kill(processesWith(m)[0], 'SIGKILL');
    const r = await job;
    expect(r.exitCode, r.stderr).toBe(0);
    expect(hashes(r)).toEqual(want);
    expect(r.report.checkpoint?.restarts).toBe(1);
    rmSync(dir, { recursive: true, force: true });
  });

  it('broken checkpoints: the latest corrupted is refused naming the file; another rank count is refused; a .tmp left by a crash is skipped', async () => {
    const dir = tmp();
    const first = await launch({ ranks: 4, nodes: 2, program, args: ['60'], checkpoint: { dir, everyMs: 50, keep: 3 }, jobTimeoutMs: 120_000 });
    expect(first.exitCode, first.stderr).toBe(0);
    const epochs = listCheckpoints(dir);
    expect(epochs.length).toBeGreaterThanOrEqual(2);
    // A crash in the middle of writing a newer checkpoint: restart takes the last complete one.
    const last = epochs[epochs.length - 1];
    cpSync(join(dir, `ckpt-${String(last).padStart(6, '0')}`), join(dir, `ckpt-${String(last + 1).padStart(6, '0')}.tmp`), { recursive: true });
    rmSync(join(dir, `ckpt-${String(last + 1).padStart(6, '0')}.tmp`, 'manifest.json'));
    const ok = await launch({ ranks: 4, nodes: 2, program, args: ['60'], restart: dir, checkpoint: { dir: tmp() }, jobTimeoutMs: 120_000 });
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(ok.report.checkpoint?.restartedFrom).toEqual([last]);
    expect(hashes(ok)).toEqual(hashes(first));
    // Corrupt one rank's file of the latest: the job fails with a clear error, nothing loaded.
    const f = join(dir, `ckpt-${String(last).padStart(6, '0')}`, 'rank-2.ckpt');
    const b = readFileSync(f);
    b[b.length - 1] ^= 0xff;
    writeFileSync(f, b);
    const bad = await launch({ ranks: 4, nodes: 2, program, args: ['60'], restart: dir, checkpoint: { dir: tmp() }, jobTimeoutMs: 60_000 });
    expect(bad.exitCode).not.toBe(0);
    expect(bad.stderr).toMatch(/rank 2 failed: CheckpointError: checkpoint file .*rank-2\.ckpt is corrupted \(its SHA-256 does not match\); it is not loaded/);
    await expect(launch({ ranks: 3, nodes: 1, program, args: ['60'], restart: dir })).rejects.toThrow(/was taken with 4 ranks, not 3/);
    await expect(launch({ ranks: 4, nodes: 1, program, args: ['60'], restart: tmp() })).rejects.toThrow(/no complete checkpoint in/);
    rmSync(dir, { recursive: true, force: true });
  });

  it('a receive pending across the checkpoint is refused on every rank; force without a directory says what to do', async () => {
    const dir = tmp();
    const src = join(dir, 'pending.mjs');
    writeFileSync(
      src,
      `import { init } from ${JSON.stringify(join(root, 'src/index.ts'))};
const w = init();
const req = w.rank === 0 ? w.irecv(new Float64Array(1), 1, 99) : undefined;
try { w.checkpoint({}, { force: true }); console.log('TOOK'); } catch (e) { console.log('REFUSED ' + e.message.split('\\n')[0]); }
if (w.rank === 1) w.send(Float64Array.of(1), 0, 99);
req?.wait();
`,
    );
    const r = await launch({ ranks: 2, nodes: 2, program: src, checkpoint: { dir: join(dir, 'c') }, jobTimeoutMs: 60_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.split('\n').filter((l) => l.includes('REFUSED'));
    expect(lines).toHaveLength(2);
    expect(r.stdout).toMatch(/\[0\] REFUSED checkpoint 1: rank 0 has receives posted before the checkpoint that no message matched \(from world rank 1, tag 99\)/);
    expect(r.stdout).toMatch(/\[1\] REFUSED checkpoint 1: another rank has receives posted before the checkpoint/);
    const force = join(dir, 'force.mjs');
    copyFileSync(src, force);
    const n = await launch({ ranks: 2, nodes: 1, program: force, jobTimeoutMs: 60_000 });
    expect(n.stdout).toMatch(/REFUSED checkpoint\(\{ force: true \}\) in a job without a checkpoint directory/);
    expect(existsSync(join(dir, 'c'))).toBe(true);
    expect(readdirSync(join(dir, 'c'))).toEqual([]);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe("coll reproduce 003's checkpoint rows", () => {
  const m = { t0Ms: 1000, t1Ms: 1300, count: 30, drainMs: 120, writeMs: 40, commitMs: 110, restoreMs: 0.7, bytesPerRank: 2600, messagesDrained: 120, identical: true, restartedFrom: 1 };
  it('claim 14 passes only when the restart is identical and the drain saved messages; 16–18 are information with the numbers', () => {
    const rows = checkpointRows(m);
    expect(rows.map((r) => r.status)).toEqual(['pass', 'info', 'info', 'info']);
    expect(rows[3].ours).toBe('model 270.0 ms (30 × 9.0 ms) against measured 300.0 ms (1300.0 − 1000.0 ms wall)');
    expect(checkpointRows({ ...m, identical: false })[0].status).toBe('fail');
    expect(checkpointRows({ ...m, messagesDrained: 0 })[0].status).toBe('fail');
  });
});
