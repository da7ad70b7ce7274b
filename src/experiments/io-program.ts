/**
 * Rank program of the parallel I/O experiment (`coll experiment io`, io-measure.ts;
 * seed 003 ch. 7, issue 20): a list of cases run in order on one shared file, local
 * (a plain path) or striped over the job's I/O servers (`pfs:name`).
 *
 * - `phases`: the methodology of src/bench/peer/mpi_io_bench.c, step for step, so that
 *   the figures compare like for like with Open MPI's MPI-IO. Each repetition opens the
 *   file collectively ('w': created or truncated, as the C program's create on a file it
 *   deleted), sets the tile view, then
 *     barrier, t0, write, t_w, sync, t_ws, barrier        (write phase)
 *     sync (untimed), barrier, t2, read, t_r, barrier     (read phase)
 *   closes it, checks every byte read against the bytes written and deletes a local
 *   file (rank 0). The phase times are each rank's t_w − t0, t_ws − t0 and t_r − t2,
 *   reduced with MAX: the slowest rank is the phase. Patterns as the C program's:
 *   `contiguous` (rank r's block at offset r · bytesPerRank) and `tile` (MPI-Tile-IO: a
 *   px × py grid, px the largest divisor of P ≤ √P, each rank a tr × tc tile of
 *   elemBytes-byte elements, tc = 256 elements unless a rank has fewer, tr =
 *   bytesPerRank / (elemBytes · tc), through a subarray view, access at offset 0).
 *   `collective`: writeAtAll / readAtAll, else writeAt / readAt. The first `warmup`
 *   repetitions are not reported (both sides drop a warm-up repetition).
 * - `breakdown`: writeAtAll and readAtAll of the pattern as in `phases` (without the
 *   timed sync), each call taken apart on every rank: the communicator's collectives and
 *   the storage's calls it makes are wrapped with timers while it runs (allgather,
 *   alltoall, alltoallv of the piece lists, alltoallv of the data, barrier, the file's
 *   write or read, its size); the rest of the call is computation in the rank (views,
 *   plans, packing). Rank 0 (an aggregator when the call aggregates) reports its split.
 * - `latency`: rank 0 alone, independent writeAt then readAt of each size at offset 0,
 *   `ops` calls each timed one by one after `warmup` untimed ones, and as many
 *   getSize() calls (the round trip with no data). Medians per size, µs.
 *
 * Rank 0 prints `EXP IOCASE {…}` per case (IoCaseRecord). Argument: the JSON of an
 * IoProgramConfig.
 */
import { unlinkSync } from 'node:fs';
import { median } from '../core/stats.js';
import { openFile, type CollFile, type OpenOptions } from '../io/file.js';
import { LocalStorage, PfsStorage } from '../io/storage.js';
import type { FileViewSpec } from '../io/view.js';
import type { Communicator } from '../runtime/communicator.js';
import { init } from '../runtime/init.js';
import { emit, programConfig } from './program-io.js';

export type IoPattern = 'contiguous' | 'tile';

interface CaseBase {
  /** A label echoed in the record. */
  readonly name: string;
  /** A local path, or pfs:name. */
  readonly path: string;
  /** openFile options (listIo, stripeSize, …). */
  readonly open?: Pick<OpenOptions, 'listIo' | 'stripeSize' | 'stripeServers' | 'alignBytes'>;
}

export interface PhasesCase extends CaseBase {
  readonly kind: 'phases';
  readonly pattern: IoPattern;
  readonly bytesPerRank: number;
  readonly elemBytes?: number;
  readonly collective: boolean;
  readonly warmup: number;
  readonly reps: number;
}

export interface BreakdownCase extends CaseBase {
  readonly kind: 'breakdown';
  readonly pattern: IoPattern;
  readonly bytesPerRank: number;
  readonly elemBytes?: number;
  readonly warmup: number;
  readonly reps: number;
}

export interface LatencyCase extends CaseBase {
  readonly kind: 'latency';
  readonly sizes: readonly number[];
  readonly ops: number;
  readonly warmup: number;
}

export type IoCase = PhasesCase | BreakdownCase | LatencyCase;

export interface IoProgramConfig {
  readonly cases: readonly IoCase[];
}

export interface IoCaseRecord {
  readonly name: string;
  readonly kind: IoCase['kind'];
  readonly ranks: number;
  readonly nodes: number;
  readonly pattern?: IoPattern;
  readonly bytesPerRank?: number;
  readonly collective?: boolean;
  /** phases: per timed repetition, slowest rank, seconds. */
  readonly writeS?: number[];
  readonly writeSyncS?: number[];
  readonly readS?: number[];
  /** breakdown: rank 0's writeAtAll / readAtAll per timed repetition, ms: `total`, and the time inside each step (STEPS). */
  readonly writeSteps?: Record<string, number[]>;
  readonly readSteps?: Record<string, number[]>;
  /** latency: per size, median µs per call. */
  readonly sizes?: number[];
  readonly writeUs?: number[];
  readonly readUs?: number[];
  readonly sizeUs?: number[];
  /** Bytes that read back wrong (summed over ranks) and bytes checked. */
  readonly errors: number;
  readonly checked: number;
  /** Wall time of the case on rank 0, ms. */
  readonly ms: number;
}

/** The tile grid and shape of mpi_io_bench.c for P ranks and `bytes` per rank (undefined when the C program would refuse it). */
export function tileShape(P: number, bytes: number, elem = 32): { px: number; py: number; tr: number; tc: number } | undefined {
  let px = 1;
  for (let d = 1; d * d <= P; d++) if (P % d === 0) px = d;
  const py = P / px;
  if (bytes % elem !== 0) return undefined;
  const elems = bytes / elem;
  const tc = Math.min(256, elems);
  if (tc < 1 || elems % tc !== 0) return undefined;
  return { px, py, tr: elems / tc, tc };
}

/** Rank r's view: the tile as MPI_Type_create_subarray(…, MPI_BYTE) of the C program, or the default view. */
export function viewOf(pattern: IoPattern, P: number, r: number, bytes: number, elem = 32): FileViewSpec {
  if (pattern === 'contiguous') return {};
  const t = tileShape(P, bytes, elem);
  if (t === undefined) throw new Error(`tile: ${bytes} bytes per rank is not a multiple of ${elem} × 256 (the tile's row)`);
  return {
    etype: 'uint8',
    filetype: { kind: 'subarray', sizes: [t.py * t.tr, t.px * t.tc * elem], subsizes: [t.tr, t.tc * elem], starts: [Math.floor(r / t.px) * t.tr, (r % t.px) * t.tc * elem] },
  };
}

/** Rank r's access offset (elements of its view): r · bytes for contiguous, 0 for the tile. */
export const offsetOf = (pattern: IoPattern, r: number, bytes: number): number => (pattern === 'contiguous' ? r * bytes : 0);

/** The data of rank r in repetition k: differs between ranks, repetitions and positions (a fast 32-bit mix per word). */
function fill(b: Uint8Array, r: number, k: number): void {
  const w = new Uint32Array(b.buffer, b.byteOffset, b.byteLength >>> 2);
  const seed = Math.imul(r + 1, 0x9e3779b1) ^ Math.imul(k + 7, 0x85ebca77);
  for (let i = 0; i < w.length; i++) {
    let x = seed ^ i;
    x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
    x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
    w[i] = x ^ (x >>> 16);
  }
  for (let i = w.length * 4; i < b.length; i++) b[i] = (r * 31 + k * 7 + i) & 0xff;
}

function mismatches(a: Uint8Array, b: Uint8Array): number {
  let bad = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) bad++;
  return bad;
}

const now = (): number => performance.now() / 1000;

/** Remove a local file once every rank has closed it; pfs: files are truncated by the next 'w' open. */
function remove(comm: Communicator, path: string): void {
  if (comm.rank === 0 && !path.startsWith('pfs:')) {
    try {
      unlinkSync(path);
    } catch {
      // already gone
    }
  }
  comm.barrier(); // the next repetition's open must not meet the old file
}

function slowest(comm: Communicator, mine: number[]): number[] {
  if (mine.length === 0) return [];
  return Array.from(comm.allreduce(Float64Array.from(mine), null, { op: 'max' }));
}

function runPhases(comm: Communicator, c: PhasesCase): IoCaseRecord {
  const t00 = performance.now();
  const n = c.bytesPerRank;
  const out = new Uint8Array(n);
  const got = new Uint8Array(n);
  const view = viewOf(c.pattern, comm.size, comm.rank, n, c.elemBytes);
  const offset = offsetOf(c.pattern, comm.rank, n);
  const w: number[] = [];
  const ws: number[] = [];
  const rd: number[] = [];
  let errors = 0;
  let checked = 0;
  for (let k = 0; k < c.warmup + c.reps; k++) {
    fill(out, comm.rank, k);
    got.fill(0);
    const f: CollFile = openFile(comm, c.path, 'w', c.open);
    f.setView(view);
    comm.barrier();
    const t0 = now();
    if (c.collective) f.writeAtAll(offset, out);
    else f.writeAt(offset, out);
    const tw = now();
    f.sync();
    const tws = now();
    comm.barrier();
    f.sync();
    comm.barrier();
    const t2 = now();
    if (c.collective) f.readAtAll(offset, got);
    else f.readAt(offset, got);
    const tr = now();
    comm.barrier();
    f.close();
    remove(comm, c.path);
    errors += mismatches(out, got);
    checked += n;
    if (k >= c.warmup) {
      w.push(tw - t0);
      ws.push(tws - t0);
      rd.push(tr - t2);
    }
  }
  const all = slowest(comm, [...w, ...ws, ...rd]);
  const errs = comm.allreduce(Float64Array.of(errors, checked), null, { op: 'sum' });
  const R = c.reps;
  return {
    name: c.name,
    kind: 'phases',
    ranks: comm.size,
    nodes: comm.nodeCount,
    pattern: c.pattern,
    bytesPerRank: n,
    collective: c.collective,
    writeS: all.slice(0, R),
    writeSyncS: all.slice(R, 2 * R),
    readS: all.slice(2 * R, 3 * R),
    errors: errs[0],
    checked: errs[1],
    ms: Math.round(performance.now() - t00),
  };
}

/** Steps of a collective call, timed on this rank by wrapping the communicator's and the storage's methods. */
export const STEPS = ['allgather', 'alltoall', 'lists', 'exchange', 'barrier', 'file', 'size'] as const;
export type Step = (typeof STEPS)[number];

type Method = (...a: unknown[]) => unknown;

/**
 * Time every communicator collective and storage call made between start() and stop():
 * the methods of `comm` (own properties shadowing the prototype's) and of the storage
 * classes' prototypes are wrapped while the timer is installed. alltoallv of numbers is
 * the piece lists, of bytes the data exchange.
 */
class StepTimer {
  private acc: Record<Step, number> = this.zero();
  private undo: (() => void)[] = [];
  private on = false;

  constructor(comm: Communicator) {
    const c = comm as unknown as Record<string, Method>;
    this.wrap(c, 'allgather', () => 'allgather');
    this.wrap(c, 'alltoall', () => 'alltoall');
    this.wrap(c, 'alltoallv', (a) => (a[0] instanceof Float64Array ? 'lists' : 'exchange'));
    this.wrap(c, 'barrier', () => 'barrier');
    for (const proto of [LocalStorage.prototype, PfsStorage.prototype] as unknown as Record<string, Method>[]) {
      this.wrap(proto, 'write', () => 'file');
      this.wrap(proto, 'read', () => 'file');
      this.wrap(proto, 'size', () => 'size');
    }
  }

  private zero(): Record<Step, number> {
    return { allgather: 0, alltoall: 0, lists: 0, exchange: 0, barrier: 0, file: 0, size: 0 };
  }

  private wrap(obj: Record<string, Method>, name: string, step: (a: unknown[]) => Step): void {
    const own = Object.prototype.hasOwnProperty.call(obj, name);
    const orig = obj[name];
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const timer = this;
    obj[name] = function (this: unknown, ...a: unknown[]): unknown {
      if (!timer.on) return orig.apply(this, a);
      const t = performance.now();
      try {
        return orig.apply(this, a);
      } finally {
        timer.acc[step(a)] += performance.now() - t;
      }
    };
    this.undo.push(() => {
      if (own) obj[name] = orig;
      else delete obj[name];
    });
  }

  /** Time `f`: its total and each step, ms. */
  time(f: () => void): { total: number; steps: Record<Step, number> } {
    this.acc = this.zero();
    this.on = true;
    const t = performance.now();
    try {
      f();
    } finally {
      this.on = false;
    }
    return { total: performance.now() - t, steps: this.acc };
  }

  remove(): void {
    for (const u of this.undo.reverse()) u();
    this.undo = [];
  }
}

function runBreakdown(comm: Communicator, c: BreakdownCase): IoCaseRecord {
  const t00 = performance.now();
  const n = c.bytesPerRank;
  const out = new Uint8Array(n);
  const got = new Uint8Array(n);
  const view = viewOf(c.pattern, comm.size, comm.rank, n, c.elemBytes);
  const offset = offsetOf(c.pattern, comm.rank, n);
  const timer = new StepTimer(comm);
  const w: number[] = [];
  const rd: number[] = [];
  const ws: Record<Step, number>[] = [];
  const rs: Record<Step, number>[] = [];
  let errors = 0;
  let checked = 0;
  try {
    for (let k = 0; k < c.warmup + c.reps; k++) {
      fill(out, comm.rank, k);
      got.fill(0);
      const f = openFile(comm, c.path, 'w', c.open);
      f.setView(view);
      comm.barrier();
      const a = timer.time(() => f.writeAtAll(offset, out));
      f.sync();
      comm.barrier();
      const b = timer.time(() => f.readAtAll(offset, got));
      comm.barrier();
      f.close();
      remove(comm, c.path);
      errors += mismatches(out, got);
      checked += n;
      if (k >= c.warmup) {
        w.push(a.total);
        rd.push(b.total);
        ws.push(a.steps);
        rs.push(b.steps);
      }
    }
  } finally {
    timer.remove();
  }
  const R = c.reps;
  const all = slowest(comm, [...w, ...rd]);
  const errs = comm.allreduce(Float64Array.of(errors, checked), null, { op: 'sum' });
  const r2 = (x: number): number => Math.round(x * 1000) / 1000;
  const split = (xs: Record<Step, number>[], totals: number[]): Record<string, number[]> => {
    const o: Record<string, number[]> = { total: totals.map(r2) };
    for (const st of STEPS) o[st] = xs.map((x) => r2(x[st]));
    return o;
  };
  return {
    name: c.name,
    kind: 'breakdown',
    ranks: comm.size,
    nodes: comm.nodeCount,
    pattern: c.pattern,
    bytesPerRank: n,
    collective: true,
    writeS: all.slice(0, R).map((x) => x / 1000),
    readS: all.slice(R, 2 * R).map((x) => x / 1000),
    writeSteps: split(ws, w),
    readSteps: split(rs, rd),
    errors: errs[0],
    checked: errs[1],
    ms: Math.round(performance.now() - t00),
  };
}

function runLatency(comm: Communicator, c: LatencyCase): IoCaseRecord {
  const t00 = performance.now();
  const f = openFile(comm, c.path, 'w', c.open);
  const writeUs: number[] = [];
  const readUs: number[] = [];
  const sizeUs: number[] = [];
  let errors = 0;
  let checked = 0;
  if (comm.rank === 0) {
    for (const size of c.sizes) {
      const out = new Uint8Array(size);
      const got = new Uint8Array(size);
      fill(out, 0, size);
      const w: number[] = [];
      const r: number[] = [];
      const s: number[] = [];
      for (let i = 0; i < c.warmup + c.ops; i++) {
        const a = performance.now();
        f.writeAt(0, out);
        const b = performance.now();
        if (i >= c.warmup) w.push((b - a) * 1000);
      }
      for (let i = 0; i < c.warmup + c.ops; i++) {
        const a = performance.now();
        f.getSize();
        const b = performance.now();
        if (i >= c.warmup) s.push((b - a) * 1000);
      }
      for (let i = 0; i < c.warmup + c.ops; i++) {
        got.fill(0);
        const a = performance.now();
        f.readAt(0, got);
        const b = performance.now();
        if (i >= c.warmup) r.push((b - a) * 1000);
        if (i === c.warmup + c.ops - 1) {
          errors += mismatches(out, got);
          checked += size;
        }
      }
      writeUs.push(Math.round(median(w) * 10) / 10);
      readUs.push(Math.round(median(r) * 10) / 10);
      sizeUs.push(Math.round(median(s) * 10) / 10);
    }
  }
  comm.barrier();
  f.close();
  remove(comm, c.path);
  return { name: c.name, kind: 'latency', ranks: comm.size, nodes: comm.nodeCount, sizes: [...c.sizes], writeUs, readUs, sizeUs, errors, checked, ms: Math.round(performance.now() - t00) };
}

export function runIoProgram(comm: Communicator, config: IoProgramConfig): void {
  for (const c of config.cases) {
    const rec = c.kind === 'phases' ? runPhases(comm, c) : c.kind === 'breakdown' ? runBreakdown(comm, c) : runLatency(comm, c);
    emit(comm, 'IOCASE', rec);
  }
  comm.barrier();
}

const config = programConfig<IoProgramConfig>();
if (config) runIoProgram(init({ timeoutMs: 300_000 }), config);
