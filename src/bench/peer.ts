/**
 * The MPI side of side-by-side benchmarks: builds src/bench/peer/mpi_coll_bench.c
 * with the system MPI's compiler wrapper (Open MPI or MPICH from the distribution),
 * caches the binary, runs it under that MPI's mpirun and parses its JSON lines.
 * The C program times each call the way bench-program.ts does, so a ratio of the
 * two is a like-for-like comparison. peerBinary also builds the other C programs in
 * src/bench/peer/ (peer-io.ts runs mpi_io_bench.c the same way).
 */
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ArgumentError, CollectivesError } from '../core/errors.js';
import type { CollectiveKind } from '../schedule/types.js';

export type PeerMpi = 'openmpi' | 'mpich';
export const PEER_MPIS: readonly PeerMpi[] = ['openmpi', 'mpich'];

/** One measurement of the MPI program (the fields of a BenchRecord it can know). */
export interface PeerRecord {
  readonly collective: CollectiveKind;
  readonly ranks: number;
  readonly bytes: number;
  readonly iterations: number;
  readonly min_us: number;
  readonly avg_us: number;
  readonly max_us: number;
}

export interface PeerRun {
  readonly collective: CollectiveKind;
  readonly ranks: number;
  /** Exact sizes (bytes per rank), or the doubling range minBytes..maxBytes. */
  readonly sizes?: readonly number[];
  readonly minBytes?: number;
  readonly maxBytes?: number;
  readonly iterations: number;
  readonly datatype?: string;
  readonly op?: string;
  /** Extra mpirun arguments (e.g. ['--mca', 'btl', 'tcp,self']). */
  readonly mpirunArgs?: readonly string[];
}

/** Each MPI's compiler wrapper, launcher, the launcher's arguments and its Debian/Ubuntu packages. */
export const TOOLS: Record<PeerMpi, { cc: string; run: string; runArgs: string[]; packages: string }> = {
  openmpi: { cc: 'mpicc.openmpi', run: 'mpirun.openmpi', runArgs: ['--oversubscribe', '--bind-to', 'none'], packages: 'openmpi-bin libopenmpi-dev' },
  mpich: { cc: 'mpicc.mpich', run: 'mpirun.mpich', runArgs: [], packages: 'mpich libmpich-dev' },
};

function onPath(cmd: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Whether an MPI's compiler wrapper and launcher are installed. */
export function peerAvailable(mpi: PeerMpi): boolean {
  return onPath(TOOLS[mpi].cc) && onPath(TOOLS[mpi].run);
}

function source(program: string): string {
  // dist/bench/peer.js and src/bench/peer.ts both sit next to peer/<program>.c (copied by the build).
  return fileURLToPath(new URL(`./peer/${program}.c`, import.meta.url));
}

/**
 * Compile (once per source version and MPI) and return the binary's path. `program`
 * is the basename of a C file in src/bench/peer/ (mpi_coll_bench, mpi_io_bench).
 */
export function peerBinary(mpi: PeerMpi, program = 'mpi_coll_bench'): string {
  if (!(PEER_MPIS as readonly string[]).includes(mpi)) throw new ArgumentError(`unknown MPI '${String(mpi)}'`, `use ${PEER_MPIS.join(' or ')}`);
  if (!/^[A-Za-z0-9_-]+$/.test(program) || !existsSync(source(program))) {
    throw new ArgumentError(`there is no MPI program '${program}' (no src/bench/peer/${program}.c)`, 'use mpi_coll_bench or mpi_io_bench');
  }
  const t = TOOLS[mpi];
  if (!peerAvailable(mpi)) {
    throw new ArgumentError(`${t.cc} or ${t.run} is not installed, so there is no ${mpi} to compare with`, `install it: apt-get install -y ${t.packages}`);
  }
  const src = source(program);
  const hash = createHash('sha256').update(readFileSync(src)).digest('hex').slice(0, 12);
  const dir = join(tmpdir(), 'collectives-peer');
  mkdirSync(dir, { recursive: true });
  const bin = join(dir, `${program}-${mpi}-${hash}`);
  if (!existsSync(bin)) execFileSync(t.cc, ['-O2', '-o', bin, src], { stdio: ['ignore', 'ignore', 'pipe'] });
  return bin;
}

function sizeArgs(r: PeerRun): [string, string] {
  // A list needs a comma even with one size.
  if (r.sizes !== undefined) return [r.sizes.length === 1 ? `${r.sizes[0]},` : r.sizes.join(','), '0'];
  return [String(r.minBytes ?? 8), String(r.maxBytes ?? r.minBytes ?? 8)];
}

/** The launcher's own arguments for this MPI: --allow-run-as-root when Open MPI runs as root, then TOOLS' runArgs. */
export function peerRunArgs(mpi: PeerMpi): string[] {
  const root = process.getuid?.() === 0 && mpi === 'openmpi' ? ['--allow-run-as-root'] : [];
  return [...root, ...TOOLS[mpi].runArgs];
}

/**
 * Run a peer program under the MPI's launcher and parse its JSON lines (those starting
 * with `prefix`); on failure reject with a RANK_FAILED error whose text `failure` makes.
 */
export function mpirunJson<T>(mpi: PeerMpi, args: readonly string[], prefix: string, failure: (stdout: string, stderr: string, message: string) => string): Promise<T[]> {
  return new Promise((resolve, reject) => {
    execFile(TOOLS[mpi].run, args, { encoding: 'utf8', maxBuffer: 1 << 24, timeout: 600_000 }, (err, stdout, stderr) => {
      if (err) {
        reject(new CollectivesError('RANK_FAILED', failure(stdout, stderr, err.message)));
        return;
      }
      resolve(
        stdout
          .split('\n')
          .filter((l) => l.startsWith(prefix))
          .map((l) => JSON.parse(l) as T),
      );
    });
  });
}

/** Run the MPI program for one collective over a size range. */
export function runPeer(mpi: PeerMpi, r: PeerRun): Promise<PeerRecord[]> {
  const t = TOOLS[mpi];
  const bin = peerBinary(mpi);
  const args = [...peerRunArgs(mpi), ...(r.mpirunArgs ?? []), '-np', String(r.ranks), bin, r.collective, ...sizeArgs(r), String(r.iterations), r.datatype ?? 'float64', r.op ?? 'sum'];
  return mpirunJson<PeerRecord>(mpi, args, '{', (_out, stderr, message) => `${t.run} ${r.collective} on ${r.ranks} ranks failed: ${(stderr || message).trim().split('\n').slice(0, 5).join(' | ')}`);
}
