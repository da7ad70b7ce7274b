/**
 * Regenerates test/view/fixtures/*: real outputs of the commands `coll view` reads,
 * run small (a few seconds each; the benchmark matrix and the fit about a minute).
 * JSON files are rewritten compact (same content, no indentation) to keep the
 * fixtures small; JSON lines are kept as printed. The big timeline (1,024 ranks,
 * 10⁵ spans) is simulated by test/view/timeline.e2e.test.ts itself rather than kept
 * here.
 *
 *   npx tsx scripts/view-fixtures.ts            # all
 *   npx tsx scripts/view-fixtures.ts bench tune # the fixtures whose name contains a word
 *
 * The bench fixtures compare with Open MPI when it is installed (mpirun.openmpi;
 * apt-get install openmpi-bin libopenmpi-dev), else they are ours alone.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = join(root, 'test', 'view', 'fixtures');
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const hasOpenMpi = spawnSync('sh', ['-c', 'command -v mpirun.openmpi']).status === 0;

/** `coll …` from source; resolves to its stdout (throws with its stderr on a non-zero exit). */
function coll(args: readonly string[]): string {
  process.stderr.write(`  coll ${args.join(' ')}\n`);
  const r = spawnSync(tsx, [join(root, 'src', 'cli', 'bin.ts'), ...args], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0) throw new Error(`coll ${args.join(' ')} exited with ${r.status}:\n${r.stderr}`);
  return r.stdout;
}

/** Whether `coll <command> --help` lists an option (for outputs other helpers are adding). */
function hasOption(command: string, option: string): boolean {
  return coll([command, '--help']).includes(`--${option} `);
}

const json = (path: string, text: string): void => writeFileSync(path, `${JSON.stringify(JSON.parse(text))}\n`);
const compact = (path: string): void => json(path, readFileSync(path, 'utf8'));

interface Fixture {
  readonly file: string;
  /** Writes the file at `path`. */
  readonly make: (path: string) => void;
}

const simTrace = (args: readonly string[], path: string): void => {
  // `--trace` is the tagged timeline; `--timeline` wrote the untagged trace before it.
  coll(['sim', ...args, hasOption('sim', 'trace') ? '--trace' : '--timeline', path, '--quiet']);
  compact(path);
};

const FIXTURES: Fixture[] = [
  { file: 'schedule-allreduce-ring-8.json', make: (p) => json(p, coll(['schedule', 'allreduce', 'ring', '-n', '8', '--json'])) },
  { file: 'schedule-bcast-binomial-16.json', make: (p) => json(p, coll(['schedule', 'bcast', 'binomial', '-n', '16', '--json'])) },
  {
    // 16 ranks on 8 nodes with OS noise: sends, receives, reductions, noise detours.
    file: 'timeline-sim-allreduce-16.json',
    make: (p) => simTrace(['allreduce', '--machine', 'crescendo', '--procs', '16', '--ppn', '2', '--bytes', '64KiB', '--algorithm', 'recursive_doubling', '--noise', 'periodic:50us/10us'], p),
  },
  {
    file: 'timeline-run-allreduce-4.json',
    make: (p) => {
      if (!hasOption('run', 'trace')) throw new Error('coll run has no --trace yet');
      coll(['run', '-n', '4', '--nodes', '2', '--trace', p, 'test/view/programs/run-trace.ts']);
      compact(p);
    },
  },
  {
    file: 'bench-allreduce-2.jsonl',
    make: (p) => writeFileSync(p, coll(['bench', 'allreduce', '-n', '2', '-a', 'auto', '-a', 'ring', '--min-bytes', '8', '--max-bytes', '64KiB', '--iterations', '50', '--json', ...(hasOpenMpi ? ['--compare', 'openmpi'] : [])])),
  },
  {
    file: 'bench-matrix.json',
    make: (p) => {
      coll(['bench', 'matrix', '--ranks', '2', '--sizes', '8,65536', '--reps', '1', '--collectives', 'allreduce,bcast', '--idle', '1', '--compare', 'openmpi', '--json', p]);
      compact(p);
    },
  },
  {
    file: 'tune-report.json',
    make: (p) => {
      const table = join(dir, '.tune-table.json');
      coll(['tune', '--machine', 'this-machine', '--collectives', 'allreduce,bcast', '--procs', '2', '--bytes', '8,64K', '--verify', '--verify-reps', '1', '--report', p, '--out', table]);
      rmSync(table, { force: true });
      compact(p);
    },
  },
  {
    file: 'fit-report.json',
    make: (p) => {
      if (!hasOption('fit', 'report')) throw new Error('coll fit has no --report yet');
      const machine = join(dir, '.fit-machine.json');
      coll(['fit', '--quick', '--out', machine, '--report', p]);
      rmSync(machine, { force: true });
      compact(p);
    },
  },
];

const words = process.argv.slice(2);
mkdirSync(dir, { recursive: true });
let failed = 0;
for (const f of FIXTURES) {
  if (words.length && !words.some((w) => f.file.includes(w))) continue;
  const path = join(dir, f.file);
  const t0 = Date.now();
  try {
    f.make(path);
    console.log(`${f.file}: ${(statSync(path).size / 1024).toFixed(1)} KiB (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  } catch (e) {
    failed++;
    console.error(`${f.file}: ${(e as Error).message}`);
  }
}
process.exitCode = failed ? 1 : 0;
