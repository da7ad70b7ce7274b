/**
 * Jobs started by the cluster launchers from Debian: Open MPI's `mpirun` (PMIx, through
 * koffi and libpmix) and MPICH's `mpiexec` (hydra, PMI-1 on PMI_FD). Both forms: one
 * task per rank (`mpirun -np 3 node prog.js`: init() joins the launcher's job) and one
 * task per node with rank threads (`coll node -r 2`). Plus the launcher variables read
 * against hand-made environments, inconsistent ones, and a fence that never completes.
 * A launcher that is not installed skips its tests, saying which package brings it
 * (CI installs both).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { wheres } from './where.js';
import { afterEach, describe, expect, it } from 'vitest';
import { detectLaunch } from '../../src/launch/external.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const where = fileURLToPath(new URL('./programs/where.ts', import.meta.url));
const lateInit = fileURLToPath(new URL('./programs/late-init.ts', import.meta.url));
const node = [process.execPath, '--import', 'tsx'];
const coll = [...node, 'src/cli/bin.ts'];

// The tests here wait for their commands synchronously (spawnSync), which blocks this
// worker's event loop: one turn of it after each test lets vitest's RPC calls be answered,
// which otherwise time out once a file's tests have blocked it for 60 s in all (an
// unhandled error that fails the run although every test passed).
afterEach(() => new Promise<void>((resolve) => setImmediate(resolve)));

const LAUNCHERS = [
  { name: 'Open MPI mpirun', bin: 'mpirun.openmpi', pkg: 'openmpi-bin', np: (n: number) => ['--allow-run-as-root', '--oversubscribe', '-x', 'COLL_STARTUP_TIMEOUT_MS', '-x', 'COLL_STARTUP', '-np', String(n)] },
  { name: 'MPICH mpiexec', bin: 'mpiexec.mpich', pkg: 'mpich', np: (n: number) => ['-n', String(n)] },
] as const;

function installed(bin: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${bin}`]).status === 0;
}

function run(cmd: string[], env: Record<string, string> = {}, timeout = 120_000): { status: number | null; stdout: string; stderr: string; ms: number } {
  const t0 = Date.now();
  const r = spawnSync(cmd[0], cmd.slice(1), { cwd: root, encoding: 'utf8', timeout, env: { ...process.env, COLL_STARTUP_TIMEOUT_MS: '60000', COLL_STARTUP: 'reassembly', ...env } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, ms: Date.now() - t0 };
}


for (const l of LAUNCHERS) {
  const have = installed(l.bin);
  if (!have) console.warn(`mpi-launchers.test.ts: ${l.name} tests skipped: apt-get install ${l.pkg}`);
  describe.skipIf(!have)(`under ${l.name}`, () => {
    it('one task per rank: `node prog.js` in 3 tasks is a 3-rank job with correct collectives', () => {
      const r = run([l.bin, ...l.np(3), ...node, where]);
      expect(r.status, r.stderr).toBe(0);
      const w = wheres(r.stdout);
      expect(w.map((x) => x.rank)).toEqual([0, 1, 2]);
      expect(w.every((x) => x.ok && x.size === 3 && x.nodeOf.join() === '0,1,2')).toBe(true);
    });

    it('one task per node: `coll node -r 2` in 2 tasks is a 4-rank job, 2 ranks sharing memory per task', () => {
      const r = run([l.bin, ...l.np(2), ...coll, 'node', '-r', '2', where]);
      expect(r.status, r.stderr).toBe(0);
      const w = wheres(r.stdout);
      expect(w.map((x) => x.rank)).toEqual([0, 1, 2, 3]);
      expect(w.every((x) => x.ok && x.nodeOf.join() === '0,0,1,1')).toBe(true);
      expect(r.stdout).toMatch(/^\[3\] WHERE /m);
    });

    it('the other start-up schemes through the launcher\'s key-value store: original (every row) and bootstrap (neighbours only, then the ring)', () => {
      for (const scheme of ['original', 'bootstrap']) {
        const r = run([l.bin, ...l.np(3), ...node, where], { COLL_STARTUP: scheme });
        expect(r.status, `${scheme}: ${r.stderr}`).toBe(0);
        expect(wheres(r.stdout).map((x) => x.ok)).toEqual([true, true, true]);
      }
    });

    it('a rank that throws fails the job with its error, in both forms', () => {
      const a = run([l.bin, ...l.np(2), ...node, where, 'fail']);
      expect(a.status).not.toBe(0);
      expect(a.stderr).toMatch(/rank program failed on purpose/);
      const b = run([l.bin, ...l.np(2), ...coll, 'node', '-r', '2', where, 'fail']);
      expect(b.status).not.toBe(0);
      expect(b.stderr).toMatch(/coll: rank 3 failed: Error: rank program failed on purpose/);
      expect(b.ms).toBeLessThan(60_000);
    });

    it('a task that never arrives: the others fail after the start-up timeout, saying so', () => {
      const r = run([l.bin, ...l.np(2), ...node, lateInit, '30000'], { COLL_STARTUP_TIMEOUT_MS: '1000' });
      expect(r.status).not.toBe(0);
      expect(r.stderr).toMatch(/rank 0 of 2 \(\w+\): the other tasks did not all arrive within 1 s/);
      expect(r.ms).toBeLessThan(30_000);
    });
  });
}

describe('the launcher variables', () => {
  it('reads Open MPI, hydra and Slurm (pmi2) environments', () => {
    expect(detectLaunch({ OMPI_COMM_WORLD_SIZE: '4', OMPI_COMM_WORLD_RANK: '2', OMPI_COMM_WORLD_LOCAL_RANK: '0', OMPI_COMM_WORLD_LOCAL_SIZE: '2', PMIX_NAMESPACE: 'ns1' })).toEqual({
      launcher: 'openmpi',
      rank: 2,
      size: 4,
      localRank: 0,
      localSize: 2,
      kvs: { kind: 'pmix' },
      jobKey: 'ns1',
    });
    expect(detectLaunch({ PMI_FD: '7', PMI_RANK: '1', PMI_SIZE: '3', MPI_LOCALRANKID: '1', MPI_LOCALNRANKS: '3' })).toMatchObject({ launcher: 'pmi', rank: 1, size: 3, localRank: 1, localSize: 3, kvs: { kind: 'pmi1', fd: 7 } });
    const slurm = { PMI_FD: '5', PMI_RANK: '6', PMI_SIZE: '7', SLURM_JOB_ID: '42', SLURM_STEP_ID: '0', SLURM_NODEID: '3', SLURM_LOCALID: '0', SLURM_STEP_TASKS_PER_NODE: '2(x3),1' };
    expect(detectLaunch(slurm)).toMatchObject({ launcher: 'slurm', rank: 6, size: 7, localRank: 0, localSize: 1, jobKey: '42.0' });
    expect(detectLaunch({ ...slurm, SLURM_NODEID: '1', SLURM_LOCALID: '1', PMI_RANK: '3' })).toMatchObject({ localRank: 1, localSize: 2 });
  });

  it('no launcher, or one task, is a singleton; inconsistent variables are named', () => {
    expect(detectLaunch({})).toBeUndefined();
    expect(detectLaunch({ OMPI_COMM_WORLD_SIZE: '1', OMPI_COMM_WORLD_RANK: '0' })).toBeUndefined();
    expect(detectLaunch({ OMPI_COMM_WORLD_SIZE: '1', OMPI_COMM_WORLD_RANK: '0' }, { single: true })).toMatchObject({ size: 1 });
    expect(() => detectLaunch({ OMPI_COMM_WORLD_SIZE: '2', OMPI_COMM_WORLD_RANK: '5' })).toThrow(/launcher variables say rank 5 of 2 tasks/);
    expect(() => detectLaunch({ OMPI_COMM_WORLD_SIZE: '2' })).toThrow(/OMPI_COMM_WORLD_RANK is not set/);
    expect(() => detectLaunch({ PMI_FD: 'x', PMI_RANK: '0', PMI_SIZE: '2' })).toThrow(/PMI_FD='x' is not a non-negative integer/);
    expect(() => detectLaunch({ SLURM_STEP_ID: '0', SLURM_STEP_NUM_TASKS: '4' })).toThrow(/srun without a PMI server.*/);
  });

  it('a program given inconsistent variables fails at init() with that message; coll node outside a launcher says what to use', () => {
    const r = run([...node, where], { OMPI_COMM_WORLD_SIZE: '2', OMPI_COMM_WORLD_RANK: '5' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/launcher variables say rank 5 of 2 tasks/);
    const c = run([...coll, 'node', '-r', '2', where]);
    expect(c.status).not.toBe(0);
    expect(c.stderr).toMatch(/coll node runs as a task of a cluster launcher.*coll run -n N/s);
  });
});
