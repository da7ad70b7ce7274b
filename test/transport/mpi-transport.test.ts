/**
 * The MPI transport (transport/mpi): node processes started by Open MPI's mpirun or
 * MPICH's mpiexec move their frames through that MPI (the binding built by the install
 * step) and run the start-up exchange over it. The collectives check program
 * (runtime/programs/check.ts: every collective against the sequential reference) runs
 * in both task forms — one task per rank, and `coll node -r 2` with rank threads — plus
 * the transport choice and its errors. A launcher or binding that is missing skips its
 * tests, saying why (CI installs both MPIs).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { addonPath, chooseTransport, launcherFlavour, mpiUnavailable, type MpiFlavour } from '../../src/transport/mpi/binding.js';
import { ArgumentError } from '../../src/core/errors.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const check = fileURLToPath(new URL('../runtime/programs/check.ts', import.meta.url));
const node = [process.execPath, '--import', 'tsx'];

// The tests here wait for their commands synchronously (spawnSync), which blocks this
// worker's event loop: one turn of it after each test lets vitest's RPC calls be answered,
// which otherwise time out once a file's tests have blocked it for 60 s in all (an
// unhandled error that fails the run although every test passed).
afterEach(() => new Promise<void>((resolve) => setImmediate(resolve)));

const LAUNCHERS: { flavour: MpiFlavour; bin: string; np: (n: number) => string[] }[] = [
  { flavour: 'openmpi', bin: 'mpirun.openmpi', np: (n) => ['--allow-run-as-root', '--oversubscribe', '-x', 'COLL_TRANSPORT', '-x', 'OMPI_MCA_mpi_yield_when_idle', '-np', String(n)] },
  { flavour: 'mpich', bin: 'mpiexec.mpich', np: (n) => ['-n', String(n)] },
];

function installed(bin: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${bin}`]).status === 0;
}

interface Report {
  rank: number;
  checks: number;
  failures: string[];
}

function run(cmd: string[], env: Record<string, string>): { status: number | null; stdout: string; stderr: string; reports: Report[] } {
  // Open MPI's processes yield the core while they wait (they outnumber the cores here).
  const r = spawnSync(cmd[0], cmd.slice(1), { cwd: root, encoding: 'utf8', timeout: 240_000, env: { ...process.env, COLL_STARTUP_TIMEOUT_MS: '60000', OMPI_MCA_mpi_yield_when_idle: '1', ...env } });
  const reports = r.stdout
    .split('\n')
    .filter((l) => l.includes('REPORT '))
    .map((l) => JSON.parse(l.slice(l.indexOf('{'))) as Report)
    .sort((a, b) => a.rank - b.rank);
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, reports };
}

function expectPassed(r: ReturnType<typeof run>, ranks: number): void {
  const why = `${r.stderr.slice(-3000)}\n${r.stdout.slice(-2000)}`;
  expect(r.status, why).toBe(0);
  expect(r.reports.map((x) => x.rank), why).toEqual(Array.from({ length: ranks }, (_, i) => i));
  for (const rep of r.reports) {
    expect(rep.failures, why).toEqual([]);
    expect(rep.checks).toBeGreaterThan(20);
  }
}

for (const l of LAUNCHERS) {
  const why = !installed(l.bin) ? `${l.bin} not installed` : !existsSync(addonPath(l.flavour)) ? (mpiUnavailable(l.flavour) ?? '') : undefined;
  if (why) console.warn(`mpi-transport.test.ts: ${l.flavour} tests skipped: ${why}`);
  describe.skipIf(why !== undefined)(`over ${l.flavour} (${l.bin})`, () => {
    it('one task per rank: 3 tasks run every collective against the reference', () => {
      const env = { COLL_TRANSPORT: 'mpi' };
      const cmd = l.flavour === 'mpich' ? [l.bin, ...l.np(3), '-env', 'COLL_TRANSPORT', 'mpi', ...node, check, 'quick'] : [l.bin, ...l.np(3), ...node, check, 'quick'];
      expectPassed(run(cmd, env), 3);
    });

    it("{ algorithm: 'mpi' }: MPI's own collectives for every collective, blocking and not, on the world and a reversed split, against the reference", () => {
      const program = fileURLToPath(new URL('./programs/mpi-algorithm.ts', import.meta.url));
      // 2 processes on this 2-core machine: MPI's blocking collectives spin, and 3 spinning
      // processes starve the test runner itself.
      const cmd = l.flavour === 'mpich' ? [l.bin, ...l.np(2), '-env', 'COLL_TRANSPORT', 'mpi', ...node, program] : [l.bin, ...l.np(2), ...node, program];
      expectPassed(run(cmd, { COLL_TRANSPORT: 'mpi' }), 2);
    });

    it('coll run --transport mpi: started by the MPI launcher, output, exit code and a job report with the MPI traffic', () => {
      const report = join(mkdtempSync(join(tmpdir(), 'coll-mpi-')), 'report.json');
      const r = spawnSync(node[0], [...node.slice(1), 'src/cli/bin.ts', 'run', '-n', '4', '--nodes', '2', '--transport', 'mpi', '--report', report, 'examples/allreduce.mjs'], {
        cwd: root,
        encoding: 'utf8',
        timeout: 120_000,
        env: { ...process.env, COLL_MPI_FLAVOUR: l.flavour },
      });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout.split('\n').filter((x) => x.includes('sum 10 (expected 10), allgather [0,1,2,3]'))).toHaveLength(4);
      const rep = JSON.parse(readFileSync(report, 'utf8')) as { transport: string; nodesReported: number; mpi: { flavour: string; framesSent: number }; nodes: { mpi?: { framesReceived: number } }[] };
      expect(rep.transport).toBe('mpi');
      expect(rep.nodesReported).toBe(2);
      expect(rep.mpi.flavour).toBe(l.flavour);
      expect(rep.mpi.framesSent).toBeGreaterThan(0);
      expect(rep.nodes.every((n) => (n.mpi?.framesReceived ?? 0) > 0)).toBe(true);
    });

    it('one task per node: `coll node -r 2` in 2 tasks, 4 ranks', () => {
      const env = { COLL_TRANSPORT: 'mpi' };
      const cmd = l.flavour === 'mpich' ? [l.bin, ...l.np(2), '-env', 'COLL_TRANSPORT', 'mpi'] : [l.bin, ...l.np(2)];
      expectPassed(run([...cmd, ...node, 'src/cli/bin.ts', 'node', '-r', '2', check, 'quick'], env), 4);
    });
  });
}

describe('choosing the transport', () => {
  it('coll run --transport mpi needs the same number of ranks in every node', async () => {
    const { launch } = await import('../../src/runtime/launcher.js');
    await expect(launch({ ranks: 3, nodes: 2, transport: 'mpi', program: join(root, 'examples', 'allreduce.mjs') })).rejects.toThrow(/do not split evenly over 2 nodes/);
  });
  const ompi = { OMPI_COMM_WORLD_SIZE: '2', OMPI_COMM_WORLD_RANK: '0' };
  it('takes TCP unless asked, when no MPI launcher started the job', () => {
    expect(chooseTransport(undefined, {})).toEqual({ transport: 'tcp' });
    expect(chooseTransport('auto', {})).toEqual({ transport: 'tcp' });
    expect(chooseTransport('tcp', ompi)).toEqual({ transport: 'tcp' });
  });
  it('knows the launcher from its environment; COLL_MPI_FLAVOUR overrides, and a wrong one is an error', () => {
    expect(launcherFlavour(ompi)).toBe('openmpi');
    expect(launcherFlavour({ PMI_FD: '5', MPI_LOCALRANKID: '0' })).toBe('mpich');
    expect(launcherFlavour({ PMI_FD: '5', MPI_LOCALRANKID: '0', SLURM_STEP_ID: '0' })).toBeUndefined();
    expect(launcherFlavour({ COLL_MPI_FLAVOUR: 'mpich' })).toBe('mpich');
    expect(() => launcherFlavour({ COLL_MPI_FLAVOUR: 'lam' })).toThrow(ArgumentError);
  });
  it('an explicit mpi that cannot run says why; auto falls back to TCP', () => {
    expect(() => chooseTransport('mpi', {})).toThrow(/needs the job started by an MPI launcher/);
    expect(() => chooseTransport(undefined, { COLL_TRANSPORT: 'mpi' })).toThrow(ArgumentError);
    expect(() => chooseTransport(undefined, { COLL_TRANSPORT: 'ib' })).toThrow(/not a transport/);
    const built = existsSync(addonPath('openmpi'));
    expect(chooseTransport('auto', ompi)).toEqual(built ? { transport: 'mpi', mpiFlavour: 'openmpi' } : { transport: 'tcp' });
  });
});
