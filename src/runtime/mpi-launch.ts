/**
 * `coll run --transport mpi` (launch({ transport: 'mpi' })): the job's node processes
 * are started by the installed MPI's own launcher — Open MPI's `mpirun` or MPICH's
 * `mpiexec` — as `coll node -r K --transport mpi` tasks, one per node, so that their
 * frames travel through that MPI (transport/mpi) while the caller keeps what `coll run`
 * gives: rank-prefixed output, the first failure, the exit code, a job timeout and the
 * job report (each node leaves its part in COLL_REPORT_DIR when it finishes; they are
 * combined here). COLL_MPIRUN_ARGS adds options to the MPI launcher's command line.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ArgumentError } from '../core/errors.js';
import { MPI_FLAVOURS, mpiUnavailable, type MpiFlavour } from '../transport/mpi/binding.js';
import { combineReports, type NodeReport } from './job-report.js';
import type { LaunchOptions, LaunchResult } from './launcher.js';
import { tsxLoader } from './tsx-loader.js';

/** The Debian names of each MPI's launcher, then the generic ones (told apart by --version). */
const LAUNCHERS: Record<MpiFlavour, readonly string[]> = { openmpi: ['mpirun.openmpi', 'mpirun', 'mpiexec'], mpich: ['mpiexec.mpich', 'mpiexec.hydra', 'mpiexec', 'mpirun'] };

function flavourOf(bin: string): MpiFlavour | undefined {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) return undefined;
  const text = `${r.stdout}${r.stderr}`;
  return /Open MPI|OpenRTE/i.test(text) ? 'openmpi' : /HYDRA|MPICH/i.test(text) ? 'mpich' : undefined;
}

const found = new Map<MpiFlavour | undefined, { flavour: MpiFlavour; bin: string }>();

/** The launcher of `wanted` (or of the first MPI found: Open MPI, then MPICH), with its flavour (asked once per process). */
export function findMpiLauncher(wanted?: MpiFlavour): { flavour: MpiFlavour; bin: string } {
  const known = found.get(wanted);
  if (known) return known;
  for (const flavour of wanted ? [wanted] : MPI_FLAVOURS) {
    for (const bin of LAUNCHERS[flavour]) {
      if (flavourOf(bin) !== flavour) continue;
      found.set(wanted, { flavour, bin });
      return { flavour, bin };
    }
  }
  throw new ArgumentError(
    `no ${wanted ?? 'MPI'} launcher found (tried ${(wanted ? LAUNCHERS[wanted] : [...LAUNCHERS.openmpi, ...LAUNCHERS.mpich]).join(', ')})`,
    'install Open MPI (apt-get install openmpi-bin libopenmpi-dev) or MPICH (mpich libmpich-dev), then reinstall collectives so that its MPI binding is built',
  );
}

export async function launchUnderMpi(o: LaunchOptions, program: string): Promise<LaunchResult> {
  const nodes = o.hosts?.length ?? o.nodes ?? 1;
  if (o.ring !== undefined) throw new ArgumentError('a daemon ring does not start MPI jobs', 'drop --ring, or use --transport tcp');
  if (o.ranks % nodes !== 0) throw new ArgumentError(`--transport mpi runs the same number of ranks in every node process: ${o.ranks} ranks do not split evenly over ${nodes} nodes`, 'choose -n a multiple of --nodes');
  const ppn = o.ranks / nodes;
  const wanted = o.env?.COLL_MPI_FLAVOUR ?? process.env.COLL_MPI_FLAVOUR;
  const { flavour, bin } = findMpiLauncher(wanted as MpiFlavour | undefined);
  const why = mpiUnavailable(flavour, {});
  if (why) throw new ArgumentError(`--transport mpi: ${why}`, 'use --transport tcp');

  const reportDir = mkdtempSync(join(tmpdir(), 'coll-mpi-report-'));
  const selfTs = import.meta.url.endsWith('.ts');
  const cli = fileURLToPath(new URL(`../cli/bin.${selfTs ? 'ts' : 'js'}`, import.meta.url));
  const loader = selfTs ? tsxLoader(program) : undefined;
  const env: Record<string, string> = {
    COLL_TRANSPORT: 'mpi',
    COLL_MPI_FLAVOUR: flavour,
    COLL_REPORT_DIR: reportDir,
    ...(o.arenaMb !== undefined ? { COLL_ARENA_MB: String(o.arenaMb) } : {}),
    ...(o.debug ? { COLL_DEBUG: '1' } : {}),
    ...(o.timeoutMs ? { COLL_TIMEOUT_MS: String(o.timeoutMs) } : {}),
    ...(o.startupTimeoutMs ? { COLL_STARTUP_TIMEOUT_MS: String(o.startupTimeoutMs) } : {}),
    ...(o.engine === false ? { COLL_ENGINE: '0' } : {}),
    ...o.env,
  };
  const passed = Object.keys({ ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('COLL_'))), ...env });
  const task = [process.execPath, ...(o.nodeArgs ?? []), ...(loader ? ['--import', loader.process] : []), cli, 'node', '-r', String(ppn), '--transport', 'mpi', program, ...(o.args ?? [])];
  const hosts = o.hosts?.map((h) => h.host);
  // Extra launcher options (e.g. --mca btl tcp,self), as words.
  const extra = (env.COLL_MPIRUN_ARGS ?? process.env.COLL_MPIRUN_ARGS ?? '').split(/\s+/).filter(Boolean);
  const args =
    flavour === 'openmpi'
      ? [
          ...(process.getuid?.() === 0 ? ['--allow-run-as-root'] : []),
          '--oversubscribe',
          ...(hosts ? ['--host', hosts.map((h) => `${h}:1`).join(',')] : []),
          ...passed.flatMap((k) => ['-x', k]),
          ...extra,
          '-np',
          String(nodes),
          ...task,
        ]
      : [...(hosts ? ['-hosts', hosts.join(',')] : []), ...extra, '-n', String(nodes), ...task];

  const t0 = performance.now();
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  const out = { stdout: '', stderr: '' };
  let failure: LaunchResult['failure'];
  const read = (stream: 'stdout' | 'stderr'): Promise<void> =>
    new Promise((resolve) => {
      const lines = createInterface({ input: child[stream] });
      lines.on('line', (line) => {
        out[stream] += `${line}\n`;
        if (o.stdio === 'inherit') (stream === 'stdout' ? process.stdout : process.stderr).write(`${line}\n`);
        o.onLine?.(stream, line);
        const m = stream === 'stderr' ? /^coll: rank (-?\d+) failed: (.*)$/.exec(line) : null;
        if (m && !failure) failure = { rank: Number(m[1]), reason: m[2] };
      });
      lines.on('close', () => resolve());
    });
  let timedOut = false;
  const timer = o.jobTimeoutMs ? setTimeout(() => ((timedOut = true), child.kill('SIGTERM')), o.jobTimeoutMs) : undefined;
  const [code] = await Promise.all([
    new Promise<number>((resolve) => child.on('exit', (c, sig) => resolve(c ?? (sig ? 128 : 1)))),
    read('stdout'),
    read('stderr'),
  ]);
  if (timer) clearTimeout(timer);
  const exitCode = timedOut ? 124 : code;
  const reports: NodeReport[] = existsSync(reportDir)
    ? readdirSync(reportDir)
        .filter((f) => f.endsWith('.json'))
        .map((f) => JSON.parse(readFileSync(join(reportDir, f), 'utf8')) as NodeReport)
    : [];
  rmSync(reportDir, { recursive: true, force: true });
  const wallMs = performance.now() - t0;
  const report = combineReports({
    ranks: o.ranks,
    nodeCount: nodes,
    exitCode,
    // The nodes' own start times: from each task's start to its ranks running.
    initMs: reports.length ? Math.max(...reports.map((r) => r.startMs)) : 0,
    wallMs,
    reports,
  });
  if (exitCode !== 0 && !failure) failure = { rank: -1, reason: timedOut ? `the job ran longer than ${o.jobTimeoutMs} ms` : `${bin} exited with code ${exitCode}` };
  return { exitCode, stdout: out.stdout, stderr: out.stderr, ...(failure ? { failure } : {}), pids: child.pid ? [child.pid] : [], report };
}
