/**
 * Jobs under a real Slurm: a two-node cluster on this host from Debian's slurm-wlm
 * (scripts/slurm/up.sh: slurmctld and one slurmd per node on loopback, auth/none). Both
 * forms through `srun --mpi=pmi2` (PMI-1 wire protocol on PMI_FD, served by slurmstepd):
 * one task per rank (`srun -N2 -n4 node prog.js`) and one task per node with rank
 * threads (`coll node -r 2`); a rank that throws; a task that never arrives; `srun`
 * without a PMI plugin (the clear error); and `--mpi=pmix` when Slurm has the plugin.
 * Skipped, saying what is missing, without root or slurm-wlm (CI has both).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { wheres } from './where.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const where = fileURLToPath(new URL('./programs/where.ts', import.meta.url));
const lateInit = fileURLToPath(new URL('./programs/late-init.ts', import.meta.url));
const node = [process.execPath, '--import', 'tsx'];
const coll = [...node, 'src/cli/bin.ts'];
// Its own directory and ports: a cluster someone started with up.sh is left alone.
const dir = mkdtempSync(join(tmpdir(), 'coll-slurm-'));
const slurmEnv = { COLL_SLURM_DIR: dir, COLL_SLURM_PORT: '26817' };

// The tests here wait for their commands synchronously (spawnSync), which blocks this
// worker's event loop: one turn of it after each test lets vitest's RPC calls be answered,
// which otherwise time out once a file's tests have blocked it for 60 s in all (an
// unhandled error that fails the run although every test passed).
afterEach(() => new Promise<void>((resolve) => setImmediate(resolve)));

function missing(): string | undefined {
  if (process.getuid?.() !== 0) return 'root (the Slurm daemons)';
  for (const b of ['slurmctld', 'slurmd', 'srun', 'sinfo']) {
    if (spawnSync('sh', ['-c', `command -v ${b}`]).status !== 0) return `slurm-wlm (no ${b}): apt-get install slurmctld slurmd`;
  }
  return undefined;
}
const lacking = missing();
if (lacking) console.warn(`slurm.test.ts skipped: needs ${lacking}`);

/** The environment of this process without another launcher's variables, plus the cluster's. */
function jobEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^(SLURM_|PMI_|PMIX_|OMPI_)/.test(k)) env[k] = v;
  const file = readFileSync(join(dir, 'env'), 'utf8');
  const conf = /^(?:export )?SLURM_CONF=(.+)$/m.exec(file)?.[1];
  if (conf === undefined || !existsSync(conf)) throw new Error(`${dir}/env names no slurm.conf: ${file}`);
  return { ...env, ...slurmEnv, SLURM_CONF: conf, COLL_STARTUP_TIMEOUT_MS: '60000', ...extra };
}

/** One srun, ended after `timeout` (below the test's own: spawnSync blocks vitest's timer). */
function srun(args: string[], env: Record<string, string> = {}, timeout = 40_000): { status: number | null; stdout: string; stderr: string; ms: number } {
  const t0 = Date.now();
  const r = spawnSync('srun', args, { cwd: root, encoding: 'utf8', timeout, env: jobEnv(env) });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, ms: Date.now() - t0 };
}


describe.skipIf(lacking !== undefined)('jobs under Slurm (srun on a two-node local cluster)', () => {
  let plugins = '';
  beforeAll(() => {
    execFileSync(join(root, 'scripts/slurm/up.sh'), ['2'], { env: { ...process.env, ...slurmEnv }, stdio: 'pipe', timeout: 110_000 });
    const list = srun(['--mpi=list']);
    plugins = list.stdout + list.stderr;
  }, 120_000);
  afterAll(() => {
    spawnSync(join(root, 'scripts/slurm/down.sh'), { env: { ...process.env, ...slurmEnv }, timeout: 60_000 });
  }, 70_000);

  it('the cluster: two nodes, and srun places tasks on both', () => {
    const r = srun(['-N2', '--ntasks-per-node=2', '-l', 'sh', '-c', 'echo "$SLURMD_NODENAME $SLURM_NODEID $SLURM_LOCALID"']);
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.split('\n').filter(Boolean).sort();
    expect(lines).toEqual(['0: n0 0 0', '1: n0 0 1', '2: n1 1 0', '3: n1 1 1']);
    expect(plugins).toMatch(/pmi2/);
  });

  it('one task per rank: `srun --mpi=pmi2 -N2 -n4 node prog.js` is a 4-rank job with correct collectives', () => {
    const r = srun(['--mpi=pmi2', '-N2', '-n4', ...node, where]);
    expect(r.status, r.stderr).toBe(0);
    const w = wheres(r.stdout);
    expect(w.map((x) => x.rank)).toEqual([0, 1, 2, 3]);
    expect(w.every((x) => x.ok && x.size === 4 && x.nodeOf.join() === '0,1,2,3')).toBe(true);
  });

  it('one task per node: `coll node -r 2` in 2 tasks on 2 nodes is a 4-rank job, 2 ranks sharing memory per task', () => {
    const r = srun(['--mpi=pmi2', '-N2', '--ntasks-per-node=1', ...coll, 'node', '-r', '2', where]);
    expect(r.status, r.stderr).toBe(0);
    const w = wheres(r.stdout);
    expect(w.map((x) => x.rank)).toEqual([0, 1, 2, 3]);
    expect(w.every((x) => x.ok && x.size === 4 && x.nodeOf.join() === '0,0,1,1')).toBe(true);
    expect(r.stdout).toMatch(/^\[3\] WHERE /m);
  });

  it('a rank that throws fails the job with its error, in both forms', () => {
    const a = srun(['--mpi=pmi2', '-N2', '-n4', ...node, where, 'fail']);
    expect(a.status).not.toBe(0);
    expect(a.stderr).toMatch(/rank program failed on purpose/);
    expect(a.stderr).toMatch(/task 3: Exited with exit code 1/);
    const b = srun(['--mpi=pmi2', '-N2', '--ntasks-per-node=1', ...coll, 'node', '-r', '2', where, 'fail']);
    expect(b.status).not.toBe(0);
    expect(b.stderr).toMatch(/coll: rank 3 failed: Error: rank program failed on purpose/);
    expect(b.ms).toBeLessThan(40_000);
  }, 120_000);

  it('a task that never arrives: the others abort the step after the start-up timeout, saying so', () => {
    const r = srun(['--mpi=pmi2', '-N2', '-n2', ...node, lateInit, '30000'], { COLL_STARTUP_TIMEOUT_MS: '1000' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/rank 0 of 2 \(slurm\): the other tasks did not all arrive within 1 s/);
    expect(r.ms).toBeLessThan(30_000);
  });

  it('srun without a PMI plugin: every task fails at init() with the clear error', () => {
    const r = srun(['--mpi=none', '-N2', '-n2', ...node, where]);
    expect(r.status).not.toBe(0);
    expect(r.stdout).not.toMatch(/WHERE /);
    expect(r.stderr.match(/started by srun without a PMI server, so the tasks cannot find each other/g)).toHaveLength(2);
    expect(r.stderr).toMatch(/run with srun --mpi=pmi2/);
  });

  it('--mpi=pmix (PMIx through koffi and libpmix), both forms, when Slurm has the plugin', (ctx) => {
    // Slurm's plugin loads libpmix.so, the development link (libpmix-dev, which Open MPI's
    // libopenmpi-dev brings).
    const lib = spawnSync('sh', ['-c', 'ldconfig -p | grep -q "libpmix\\.so "']).status === 0;
    if (!/\bpmix\b/.test(plugins) || !lib) {
      console.warn(`slurm.test.ts: --mpi=pmix skipped: ${lib ? 'this Slurm has no pmix plugin' : 'no libpmix.so: apt-get install libpmix-dev'}`);
      ctx.skip();
    }
    const a = srun(['--mpi=pmix', '-N2', '-n4', ...node, where]);
    expect(a.status, a.stderr).toBe(0);
    const w = wheres(a.stdout);
    expect(w.map((x) => x.rank)).toEqual([0, 1, 2, 3]);
    expect(w.every((x) => x.ok && x.nodeOf.join() === '0,1,2,3')).toBe(true);
    const b = srun(['--mpi=pmix', '-N2', '--ntasks-per-node=1', ...coll, 'node', '-r', '2', where]);
    expect(b.status, b.stderr).toBe(0);
    expect(wheres(b.stdout).map((x) => `${x.rank}:${x.nodeOf.join()}:${x.ok}`)).toEqual(['0:0,0,1,1:true', '1:0,0,1,1:true', '2:0,0,1,1:true', '3:0,0,1,1:true']);
  }, 120_000);
});
