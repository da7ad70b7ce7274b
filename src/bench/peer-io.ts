/**
 * The MPI side of side-by-side parallel I/O benchmarks: builds src/bench/peer/mpi_io_bench.c
 * with the system MPI's compiler wrapper (through peerBinary, cached like the
 * collective peer), runs it under that MPI's mpirun and parses its JSON lines.
 * The C program measures IOR-style: every repetition opens one shared file
 * collectively, times a write phase (without and with MPI_File_sync) and a read
 * phase between barriers, checks the bytes read against the bytes written and
 * deletes the file; a phase takes as long as its slowest rank (MPI_Reduce MAX) and
 * the aggregate bandwidth is ranks * bytesPerRank / that time, MB = 1e6 bytes.
 * Patterns: 'contiguous' (rank r's block at offset r * bytesPerRank) and 'tile'
 * (MPI-Tile-IO: each rank a tile of a row-major 2-D array through a subarray file
 * view; see the C file's header for the grid and tile shape).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ArgumentError } from '../core/errors.js';
import { mpirunJson, peerBinary, peerRunArgs, TOOLS, type PeerMpi } from './peer.js';

export type PeerIoPattern = 'contiguous' | 'tile';

export interface PeerIoRun {
  readonly ranks: number;
  readonly pattern: PeerIoPattern;
  readonly bytesPerRank: number;
  /** Repetitions; one record each. */
  readonly reps: number;
  /** An existing directory for the file (it is created and deleted on every repetition). */
  readonly dir: string;
  /** MPI_File_write_at_all / read_at_all (default), or the independent write_at / read_at. */
  readonly collective?: boolean;
  /** Tile pattern: bytes per array element (default 32). */
  readonly elemBytes?: number;
  /** Extra mpirun arguments (e.g. ['--mca', 'io', 'romio321'] for ROMIO instead of OMPIO under Open MPI 4). */
  readonly mpirunArgs?: readonly string[];
}

/** One repetition as the MPI program reports it. */
export interface PeerIoRecord {
  readonly pattern: PeerIoPattern;
  readonly ranks: number;
  readonly bytesPerRank: number;
  readonly collective: boolean;
  /** 0-based repetition. */
  readonly rep: number;
  /** Write phase without MPI_File_sync, slowest rank, seconds. */
  readonly write_s: number;
  /** Write phase including MPI_File_sync, slowest rank, seconds. */
  readonly write_sync_s: number;
  readonly read_s: number;
  /** ranks * bytesPerRank / write_s / 1e6. */
  readonly write_MBps: number;
  /** ranks * bytesPerRank / read_s / 1e6. */
  readonly read_MBps: number;
}

function positiveInt(name: string, v: number): void {
  if (!Number.isSafeInteger(v) || v < 1) throw new ArgumentError(`${name} must be a positive integer, got ${v}`);
}

/** What went wrong, in a line: the program's {"error":...} lines and its own stderr lines first, else mpirun's. */
function excerpt(stdout: string, stderr: string, fallback: string): string {
  const errors = stdout.split('\n').filter((l) => l.startsWith('{"error"'));
  const lines = stderr.split('\n').filter((l) => l.trim() !== '');
  const own = lines.filter((l) => l.startsWith('mpi_io_bench:'));
  const picked = [...errors, ...(own.length > 0 ? own : lines)].slice(0, 5);
  return picked.length > 0 ? picked.join(' | ') : fallback.trim();
}

/** Run mpi_io_bench: one record per repetition. */
export function runPeerIo(mpi: PeerMpi, r: PeerIoRun): Promise<PeerIoRecord[]> {
  positiveInt('ranks', r.ranks);
  positiveInt('bytesPerRank', r.bytesPerRank);
  if (r.bytesPerRank > 2 ** 31 - 1) throw new ArgumentError(`bytesPerRank must be below 2 GiB (an MPI int count), got ${r.bytesPerRank}`);
  positiveInt('reps', r.reps);
  if (r.pattern !== 'contiguous' && r.pattern !== 'tile') throw new ArgumentError(`unknown I/O pattern '${String(r.pattern)}'`, 'use contiguous or tile');
  if (r.elemBytes !== undefined) positiveInt('elemBytes', r.elemBytes);
  if (!existsSync(r.dir) || !statSync(r.dir).isDirectory()) throw new ArgumentError(`'${r.dir}' is not a directory`, 'pass an existing directory on the file system to measure');
  const t = TOOLS[mpi];
  const bin = peerBinary(mpi, 'mpi_io_bench');
  const file = join(r.dir, `collectives-peer-io-${process.pid}-${randomBytes(6).toString('hex')}.dat`);
  const collective = r.collective ?? true;
  const args = [...peerRunArgs(mpi), ...(r.mpirunArgs ?? []), '-np', String(r.ranks), bin, r.pattern, String(r.bytesPerRank), String(r.reps), file, collective ? '1' : '0'];
  if (r.pattern === 'tile') args.push(String(r.elemBytes ?? 32));
  return mpirunJson<PeerIoRecord>(mpi, args, '{"pattern"', (stdout, stderr, message) => {
    rmSync(file, { force: true }); // the program deletes it on success only
    return `${t.run} mpi_io_bench ${r.pattern} (${collective ? 'collective' : 'independent'}) on ${r.ranks} ranks in ${r.dir} failed: ${excerpt(stdout, stderr, message)}`;
  });
}
