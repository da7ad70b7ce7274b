/**
 * Parallel file access in the spirit of MPI-IO (and mpi4py's MPI.File), on a
 * communicator (seed 003 ch. 7, issue 20): `openFile(comm, path, mode)` is collective
 * and returns a `CollFile` (the name avoids Node's global `File`).
 *
 * - Independent access: `readAt(offset, buf)` / `writeAt(offset, buf)` at an offset in
 *   elements of the rank's view (bytes with the default view), and the promises
 *   `ireadAt` / `iwriteAt`.
 * - Collective access: `readAtAll` / `writeAtAll` (and `ireadAtAll` / `iwriteAtAll`)
 *   with ROMIO's two-phase aggregation when the ranks' accesses interleave (otherwise
 *   each rank accesses its own bytes, ROMIO's automatic rule; `collectiveBuffering`
 *   overrides it): the ranks agree on the extent the call covers,
 *   cut it into one file domain per aggregator (the node's lowest rank, or its lowest
 *   `aggregatorsPerNode` ranks; domain boundaries aligned to `alignBytes`), send each aggregator the pieces of its domain
 *   (an alltoallv of the piece lists, one of the data), and each aggregator reads or
 *   writes its domain in as few large, sorted, coalesced accesses as the pieces allow
 *   (a local file's read covers the whole span of the pieces at once: data sieving; a
 *   pfs: file's read is one list request of the pieces), then, for a read, returns each
 *   rank its pieces. Uneven contributions and empty ranks are fine.
 * - Views: `setView({ disp, etype, filetype })` (view.ts; each rank its own, as in MPI).
 * - `sync()`, `getSize()`, `setSize(n)` (collective), `close()` (collective).
 *
 * Back ends (storage.ts), chosen by the path as ROMIO does: `pfs:name` is a file striped
 * over the job's I/O servers (src/io/pfs; domains then align to its stripes), any other
 * path a file of the local file system (on one machine, or one shared by every host).
 * Writes by different ranks to the same bytes in one collective call resolve in rank
 * order (MPI leaves them undefined).
 */
import { closeSync, openSync, statSync } from 'node:fs';
import { ArgumentError, checkCount } from '../core/errors.js';
import { FileError } from './errors.js';
import type { Communicator } from '../runtime/communicator.js';
import { pfsBridge } from './pfs/blocking.js';
import type { FileMeta } from './pfs/server.js';
import { LocalStorage, PfsStorage, type ReadPiece, type Storage, type WritePiece } from './storage.js';
import { FileView, type FileViewSpec, type Run } from './view.js';

export type FileMode = 'r' | 'w' | 'rw' | 'a';


export interface OpenOptions {
  /** File domains of collective calls start at multiples of this (bytes; default the stripe size for pfs: files, 1 MiB otherwise). */
  readonly alignBytes?: number;
  /** pfs: files created by this call: stripe size in bytes (default 64 KiB). */
  readonly stripeSize?: number;
  /** pfs: files created by this call: how many of the I/O servers to stripe over (default all). */
  readonly stripeServers?: number;
  /** The I/O servers (host:port) of pfs: paths; default COLL_IO_SERVERS, which `coll run --io-servers K` / `--io-server` set. */
  readonly ioServers?: readonly string[];
  /** pfs: one list request per server and call (default), or one request per contiguous region (for comparison). */
  readonly listIo?: boolean;
  /**
   * Two-phase aggregation in collective calls (ROMIO's romio_cb_write/read hints): 'auto'
   * (default) aggregates only when the ranks' extents interleave, else each rank accesses
   * its own bytes; 'always'; 'never'.
   */
  readonly collectiveBuffering?: 'auto' | 'always' | 'never';
  /** Aggregators per node in two-phase calls: the node's lowest ranks (ROMIO's cb_config_list "*:N"; default 1). */
  readonly aggregatorsPerNode?: number;
}

type Bytes = ArrayBufferView;

function bytesOf(buf: Bytes): Uint8Array {
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

/** One communication or file step of a collective file call (CollFile runs them blocking or not). */
type IoStep =
  | { readonly op: 'allgather' | 'alltoall'; readonly send: Float64Array; readonly recv: Float64Array }
  | { readonly op: 'alltoallv'; readonly send: Float64Array | Uint8Array; readonly sendCounts: readonly number[]; readonly recv: Float64Array | Uint8Array; readonly recvCounts: readonly number[] }
  | { readonly op: 'barrier' }
  | { readonly op: 'write'; readonly pieces: readonly WritePiece[] }
  | { readonly op: 'read'; readonly pieces: readonly ReadPiece[] }
  | { readonly op: 'size' };

/** A piece of a rank's runs for one aggregator: where in the file, how long, where in the rank's buffer. */
interface Piece {
  readonly offset: number;
  readonly bytes: number;
  readonly bufAt: number;
}

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

/** A buffer the caller fills completely (no zeroing). */
const scratch = (bytes: number): Uint8Array => Buffer.allocUnsafe(bytes);

/** The piece lists (offset, bytes) exchanged: what each rank asked of this one, by source rank. */
function* exchangeLists(P: number, out: readonly (readonly Piece[])[]): Generator<IoStep, [number, number][][], unknown> {
  const counts = Float64Array.from(out, (ps) => 2 * ps.length);
  const theirs = new Float64Array(P);
  yield { op: 'alltoall', send: counts, recv: theirs };
  const send = new Float64Array(sum([...counts]));
  let at = 0;
  for (const ps of out) for (const p of ps) {
    send[at++] = p.offset;
    send[at++] = p.bytes;
  }
  const recv = new Float64Array(sum([...theirs]));
  yield { op: 'alltoallv', send, sendCounts: [...counts], recv, recvCounts: [...theirs] };
  const lists: [number, number][][] = [];
  at = 0;
  for (let r = 0; r < P; r++) {
    const l: [number, number][] = [];
    for (let k = 0; k < theirs[r]; k += 2) l.push([recv[at + k], recv[at + k + 1]]);
    lists.push(l);
    at += theirs[r];
  }
  return lists;
}

/**
 * The aggregator's writes for the pieces it received (by source rank, data in `recv` in
 * that order), as views of `recv`: sorted by offset (the storage writes adjacent ones in
 * one call); if pieces overlap, in rank order instead, so that the highest rank's bytes
 * land last.
 */
function coalesce(lists: readonly (readonly [number, number])[][], recv: Uint8Array): WritePiece[] {
  const pieces: { offset: number; bytes: number; at: number; rank: number }[] = [];
  let at = 0;
  lists.forEach((l, rank) => {
    for (const [offset, bytes] of l) {
      pieces.push({ offset, bytes, at, rank });
      at += bytes;
    }
  });
  const byOffset = [...pieces].sort((a, b) => a.offset - b.offset || a.rank - b.rank);
  const overlap = byOffset.some((p, i) => i > 0 && p.offset < byOffset[i - 1].offset + byOffset[i - 1].bytes);
  return (overlap ? pieces : byOffset).map((p) => ({ at: p.offset, data: recv.subarray(p.at, p.at + p.bytes) }));
}

/** Regions sorted by offset, overlapping and adjacent ones merged. */
function merged(regions: readonly (readonly [number, number])[]): [number, number][] {
  const out: [number, number][] = [];
  for (const [o, b] of [...regions].sort((x, y) => x[0] - y[0])) {
    const last = out[out.length - 1];
    if (last !== undefined && o <= last[0] + last[1]) last[1] = Math.max(last[1], o + b - last[0]);
    else out.push([o, b]);
  }
  return out;
}

/** One past the last byte of the runs (0 for none). */
function endOf(runs: readonly Run[]): number {
  let end = 0;
  for (const r of runs) end = Math.max(end, r.offset + r.bytes);
  return end;
}

/** Pieces of a buffer laid over the runs it fills, in order. */
function writePieces(runs: readonly Run[], src: Uint8Array): WritePiece[] {
  let at = 0;
  return runs.map((r) => ({ at: r.offset, data: src.subarray(at, (at += r.bytes)) }));
}

function readPieces(runs: readonly Run[], dst: Uint8Array): ReadPiece[] {
  let at = 0;
  return runs.map((r) => ({ at: r.offset, dst: dst.subarray(at, (at += r.bytes)) }));
}

/** The I/O servers of pfs: paths: the option, else COLL_IO_SERVERS. */
function ioServers(o: OpenOptions): string[] {
  const list = o.ioServers ?? (process.env.COLL_IO_SERVERS ?? '').split(',').filter(Boolean);
  if (list.length === 0) throw new FileError('pfs: paths need I/O servers, and this job has none', 'run with coll run --io-servers K (or --io-server host:port,…), or pass ioServers to openFile');
  return [...list];
}

/**
 * Open `path` on every rank of `comm` (collective). A path `pfs:name` is a file striped
 * over the job's I/O servers (src/io/pfs); any other path is a file of the local (or a
 * shared) file system.
 */
export function openFile(comm: Communicator, path: string, mode: FileMode, o: OpenOptions = {}): CollFile {
  if (!['r', 'w', 'rw', 'a'].includes(mode)) throw new ArgumentError(`file mode '${String(mode)}' is not one of 'r', 'w', 'rw', 'a'`);
  if (o.collectiveBuffering !== undefined && !['auto', 'always', 'never'].includes(o.collectiveBuffering)) throw new ArgumentError(`collectiveBuffering '${String(o.collectiveBuffering)}' is not one of 'auto', 'always', 'never'`);
  if (o.aggregatorsPerNode !== undefined && !(Number.isSafeInteger(o.aggregatorsPerNode) && o.aggregatorsPerNode >= 1)) throw new ArgumentError(`aggregatorsPerNode must be a positive integer, got ${o.aggregatorsPerNode}`);
  if (o.alignBytes !== undefined) {
    checkCount('alignBytes', o.alignBytes);
    if (o.alignBytes < 1) throw new ArgumentError('alignBytes must be at least 1');
  }
  const storage = path.startsWith('pfs:') ? openPfs(comm, path, mode, o) : openLocal(comm, path, mode);
  return new CollFile(comm, path, mode, storage, { align: o.alignBytes ?? storage.alignBytes, buffering: o.collectiveBuffering ?? 'auto', perNode: o.aggregatorsPerNode ?? 1 });
}

/** Rank 0 opens (creates, truncates) through the metadata service; every rank gets the layout. */
function openPfs(comm: Communicator, path: string, mode: FileMode, o: OpenOptions): Storage {
  const servers = ioServers(o);
  const bridge = pfsBridge(servers, o.listIo === false ? { listIo: false } : {});
  let r: { meta?: FileMeta; err?: string; hint?: string } = {};
  if (comm.rank === 0) {
    try {
      r = { meta: bridge.callSync({ op: 'open', name: path.slice(4), mode, layout: { stripe: o.stripeSize, servers: o.stripeServers } }).meta };
    } catch (e) {
      const err = e as FileError;
      r = { err: err.message.split('\n  hint: ')[0], hint: err.hint };
    }
  }
  r = comm.bcastObject(r);
  if (r.meta === undefined) throw new FileError(`cannot open ${path} (${mode}): ${r.err ?? 'no answer'}`, r.hint ?? (mode === 'r' || mode === 'rw' ? 'the file must exist for modes r and rw' : undefined));
  return new PfsStorage(bridge, r.meta);
}

function openLocal(comm: Communicator, path: string, mode: FileMode): Storage {
  // Rank 0 creates or truncates; the others open what it made. Every rank learns whether it worked.
  let err = '';
  if (comm.rank === 0) {
    try {
      if (mode === 'w') closeSync(openSync(path, 'w'));
      else if (mode === 'a') closeSync(openSync(path, 'a'));
      else if (statSync(path).isDirectory()) err = `${path} is a directory`;
    } catch (e) {
      err = (e as Error).message;
    }
  }
  err = comm.bcastObject(err);
  if (err !== '') {
    const hint = err.endsWith('is a directory') ? 'give the path of a file' : mode === 'r' || mode === 'rw' ? 'the file must exist for modes r and rw' : 'check the directory and its permissions';
    throw new FileError(`cannot open ${path} (${mode}): ${err}`, hint);
  }
  let fd: number;
  try {
    if (statSync(path).isDirectory()) throw new Error('it is a directory');
    fd = openSync(path, mode === 'r' ? 'r' : 'r+');
  } catch (e) {
    throw new FileError(`rank ${comm.rank} cannot open ${path}: ${(e as Error).message}`);
  }
  const ok = comm.allgatherObject(true);
  if (ok.length !== comm.size) throw new FileError(`not every rank opened ${path}`);
  return new LocalStorage(path, fd, mode === 'r');
}

export class CollFile {
  private view = new FileView();
  /**
   * A size the file has at least: it grows by writes and changes through setSize, so a
   * read that ends within it needs no size query (for pfs: one round trip to every
   * server). Another job truncating the file meanwhile is not seen.
   */
  private knownSize = 0;
  private closed = false;

  /** @internal Use openFile(). */
  constructor(
    readonly comm: Communicator,
    readonly path: string,
    readonly mode: FileMode,
    private readonly storage: Storage,
    private readonly two: { readonly align: number; readonly buffering: 'auto' | 'always' | 'never'; readonly perNode: number },
  ) {}

  /** This rank's view (MPI_File_set_view): offsets and counts count its elements from then on. */
  setView(spec: FileViewSpec): void {
    this.open();
    this.view = new FileView(spec);
  }

  /** Read `buf.byteLength` bytes' worth of elements at view offset `offset`; throws past the end of the file. */
  readAt(offset: number, buf: Bytes): void {
    this.readable();
    const runs = this.runsOf(offset, buf);
    if (endOf(runs) > this.knownSize) this.checkInFile(runs, (this.knownSize = this.storage.size()));
    this.storage.read(readPieces(runs, bytesOf(buf)));
  }

  writeAt(offset: number, buf: Bytes): void {
    this.writable();
    const runs = this.runsOf(offset, buf);
    this.storage.write(writePieces(runs, bytesOf(buf)));
    this.knownSize = Math.max(this.knownSize, endOf(runs));
  }

  /** Nonblocking readAt (the event loop's file calls, or the pfs client's thread). */
  async ireadAt(offset: number, buf: Bytes): Promise<void> {
    this.readable();
    const runs = this.runsOf(offset, buf);
    if (endOf(runs) > this.knownSize) this.checkInFile(runs, (this.knownSize = await this.storage.isize()));
    await this.storage.iread(readPieces(runs, bytesOf(buf)));
  }

  async iwriteAt(offset: number, buf: Bytes): Promise<void> {
    this.writable();
    const runs = this.runsOf(offset, buf);
    await this.storage.iwrite(writePieces(runs, bytesOf(buf)));
    this.knownSize = Math.max(this.knownSize, endOf(runs));
  }

  /** Collective write (two-phase): every rank calls it, each with its own offset and buffer (possibly empty). */
  writeAtAll(offset: number, buf: Bytes): void {
    this.writable();
    this.runSync(this.writeAllSteps(this.runsOf(offset, buf), bytesOf(buf)));
  }

  /** Collective read (two-phase with data sieving); throws on every rank if any rank reads past the end of the file. */
  readAtAll(offset: number, buf: Bytes): void {
    this.readable();
    this.runSync(this.readAllSteps(this.runsOf(offset, buf), bytesOf(buf)));
  }

  /**
   * Nonblocking collective write: the same steps on nonblocking collectives and the event
   * loop's file system calls; every rank must await it (or its promise) before the next
   * collective call on the communicator.
   */
  async iwriteAtAll(offset: number, buf: Bytes): Promise<void> {
    this.writable();
    await this.runAsync(this.writeAllSteps(this.runsOf(offset, buf), bytesOf(buf)));
  }

  async ireadAtAll(offset: number, buf: Bytes): Promise<void> {
    this.readable();
    await this.runAsync(this.readAllSteps(this.runsOf(offset, buf), bytesOf(buf)));
  }

  /**
   * The two phases of a collective write, once, as the communication and file steps they
   * take (run by runSync or runAsync): the agreed extent, the piece lists and the data to
   * the aggregators, the aggregators' sorted, coalesced writes (rank order wins where
   * ranks write the same bytes), a barrier.
   */
  private *writeAllSteps(runs: readonly Run[], src: Uint8Array): Generator<IoStep, void, unknown> {
    const { plan, hi } = yield* this.planSteps(runs);
    if (plan === undefined) {
      yield { op: 'write', pieces: writePieces(runs, src) };
      yield { op: 'barrier' };
      this.knownSize = Math.max(this.knownSize, hi);
      return;
    }
    const lists = yield* exchangeLists(this.comm.size, plan);
    const sendBytes = plan.map((ps) => ps.reduce((s, p) => s + p.bytes, 0));
    const recvBytes = lists.map((l) => l.reduce((s, [, b]) => s + b, 0));
    const send = scratch(sum(sendBytes));
    let at = 0;
    for (const ps of plan) for (const p of ps) {
      send.set(src.subarray(p.bufAt, p.bufAt + p.bytes), at);
      at += p.bytes;
    }
    const recv = scratch(sum(recvBytes));
    yield { op: 'alltoallv', send, sendCounts: sendBytes, recv, recvCounts: recvBytes };
    yield { op: 'write', pieces: coalesce(lists, recv) };
    yield { op: 'barrier' };
    this.knownSize = Math.max(this.knownSize, hi);
  }

  /** The two phases of a collective read: the aggregators read what was asked of them at once and answer each rank. */
  private *readAllSteps(runs: readonly Run[], dst: Uint8Array): Generator<IoStep, void, unknown> {
    const c = this.comm;
    const size = endOf(runs) > this.knownSize ? (this.knownSize = (yield { op: 'size' }) as number) : this.knownSize;
    const past = runs.find((r) => r.offset + r.bytes > size);
    const bad = new Float64Array(3 * c.size);
    yield { op: 'allgather', send: Float64Array.of(past ? 1 : 0, past?.offset ?? 0, past ? past.offset + past.bytes : 0), recv: bad };
    for (let r = 0; r < c.size; r++) {
      if (bad[3 * r] === 1) {
        throw new ArgumentError(`readAtAll on ${this.path}: rank ${r} reads bytes ${bad[3 * r + 1]}–${bad[3 * r + 2]} of a ${size}-byte file`, 'read within the file (getSize()), or write it first');
      }
    }
    const { plan } = yield* this.planSteps(runs);
    if (plan === undefined) {
      yield { op: 'read', pieces: readPieces(runs, dst) };
      return;
    }
    const lists = yield* exchangeLists(c.size, plan);
    const all = lists.flat();
    // Each rank's answer, back to back in rank order: the send buffer of the alltoallv.
    const sendBytes = lists.map((l) => sum(l.map(([, b]) => b)));
    const send = scratch(sum(sendBytes));
    if (all.length > 0) {
      let lo = Infinity;
      let hi = -Infinity;
      for (const [o, b] of all) {
        lo = Math.min(lo, o);
        hi = Math.max(hi, o + b);
      }
      const span = scratch(hi - lo);
      // A local file: the whole span at once (data sieving); pfs: one list request of the pieces.
      yield { op: 'read', pieces: this.storage.sieve ? [{ at: lo, dst: span }] : merged(all).map(([o, b]) => ({ at: o, dst: span.subarray(o - lo, o - lo + b) })) };
      let at = 0;
      for (const [o, b] of all) {
        send.set(span.subarray(o - lo, o - lo + b), at);
        at += b;
      }
    }
    const recvBytes = plan.map((ps) => ps.reduce((s, p) => s + p.bytes, 0));
    const recv = scratch(sum(recvBytes));
    yield { op: 'alltoallv', send, sendCounts: sendBytes, recv, recvCounts: recvBytes };
    let at = 0;
    for (const ps of plan) for (const p of ps) {
      dst.set(recv.subarray(at, at + p.bytes), p.bufAt);
      at += p.bytes;
    }
  }

  /** Blocking: each step as it comes. */
  private runSync(steps: Generator<IoStep, void, unknown>): void {
    const c = this.comm;
    for (let s = steps.next(); !s.done; ) {
      const st = s.value;
      let result: unknown;
      if (st.op === 'allgather') c.allgather(st.send, st.recv);
      else if (st.op === 'alltoall') c.alltoall(st.send, st.recv);
      else if (st.op === 'alltoallv') c.alltoallv(st.send, st.sendCounts, st.recv, st.recvCounts);
      else if (st.op === 'barrier') c.barrier();
      else if (st.op === 'write') this.storage.write(st.pieces);
      else if (st.op === 'read') this.storage.read(st.pieces);
      else result = this.storage.size();
      s = steps.next(result);
    }
  }

  /** Nonblocking: the same steps on nonblocking collectives and promise-based file calls. */
  private async runAsync(steps: Generator<IoStep, void, unknown>): Promise<void> {
    const c = this.comm;
    for (let s = steps.next(); !s.done; ) {
      const st = s.value;
      let result: unknown;
      if (st.op === 'allgather') await c.iallgather(st.send, st.recv);
      else if (st.op === 'alltoall') await c.ialltoall(st.send, st.recv);
      else if (st.op === 'alltoallv') await c.ialltoallv(st.send, st.sendCounts, st.recv, st.recvCounts);
      else if (st.op === 'barrier') await c.ibarrier();
      else if (st.op === 'write') await this.storage.iwrite(st.pieces);
      else if (st.op === 'read') await this.storage.iread(st.pieces);
      else result = await this.storage.isize();
      s = steps.next(result);
    }
  }

  /** Flush this rank's writes to stable storage. */
  sync(): void {
    this.open();
    this.storage.sync();
  }

  /** The file's size in bytes. */
  getSize(): number {
    this.open();
    return (this.knownSize = this.storage.size());
  }

  /** Truncate or extend the file to `bytes` (collective). */
  setSize(bytes: number): void {
    this.writable();
    checkCount('size', bytes);
    const agreed = this.comm.bcastObject(bytes);
    if (agreed !== bytes) throw new ArgumentError(`setSize(${bytes}) on rank ${this.comm.rank}, but rank 0 asked for ${agreed}`, 'every rank passes the same size');
    if (this.comm.rank === 0) this.storage.setSize(bytes);
    this.comm.barrier();
    this.knownSize = bytes;
  }

  /** Close on every rank (collective). */
  close(): void {
    if (this.closed) return;
    this.comm.barrier();
    this.closed = true;
    this.storage.close();
  }

  // -------------------------------------------------------------------------

  private open(): void {
    if (this.closed) throw new ArgumentError(`${this.path} is closed`, 'open it again with openFile()');
  }

  /** Every mode reads ('w' and 'a' open the file for reading and writing, as fopen's 'w+' and 'a+'). */
  private readable(): void {
    this.open();
  }

  private writable(): void {
    this.open();
    if (this.mode === 'r') throw new ArgumentError(`${this.path} was opened read-only`, "open it with 'w', 'rw' or 'a'");
  }

  private runsOf(offset: number, buf: Bytes): Run[] {
    if (!Number.isSafeInteger(offset) || offset < 0) throw new ArgumentError(`file offset must be a non-negative integer, got ${offset}`);
    const es = this.view.esize;
    if (buf.byteLength % es !== 0) throw new ArgumentError(`a buffer of ${buf.byteLength} bytes is not a whole number of ${this.view.etype} elements (${es} bytes)`);
    return this.view.runs(offset, buf.byteLength / es);
  }

  private checkInFile(runs: readonly Run[], size: number): void {
    const past = runs.find((r) => r.offset + r.bytes > size);
    if (past) throw new ArgumentError(`read of bytes ${past.offset}–${past.offset + past.bytes} past the end of ${this.path} (${size} bytes)`, 'read within the file (getSize()), or write it first');
  }

  /**
   * The pieces of this rank's runs per aggregator (indexed by communicator rank; empty for
   * non-aggregators): the ranks agree on the extent of the call, which is cut into one
   * domain per node, aligned. Undefined when the ranks' extents do not interleave (or
   * collective buffering is off): then each rank accesses its own runs, as ROMIO's
   * automatic collective buffering does.
   */
  private *planSteps(runs: readonly Run[]): Generator<IoStep, { plan: Piece[][] | undefined; hi: number }, unknown> {
    const c = this.comm;
    const ext = new Float64Array(2 * c.size);
    let lo = Infinity;
    let hi = -Infinity;
    for (const r of runs) {
      lo = Math.min(lo, r.offset);
      hi = Math.max(hi, r.offset + r.bytes);
    }
    yield { op: 'allgather', send: Float64Array.of(lo, hi), recv: ext };
    let L = Infinity;
    let H = -Infinity;
    for (let r = 0; r < c.size; r++) {
      L = Math.min(L, ext[2 * r]);
      H = Math.max(H, ext[2 * r + 1]);
    }
    if (this.two.buffering === 'never') return { plan: undefined, hi: H };
    const extents: [number, number][] = [];
    for (let r = 0; r < c.size; r++) if (ext[2 * r + 1] > ext[2 * r]) extents.push([ext[2 * r], ext[2 * r + 1]]);
    extents.sort((a, b) => a[0] - b[0]);
    const interleaved = extents.some(([l], i) => i > 0 && l < extents[i - 1][1]);
    if (this.two.buffering === 'auto' && !interleaved) return { plan: undefined, hi: H };
    const out = Array.from({ length: c.size }, () => [] as Piece[]);
    if (!(H > L)) return { plan: out, hi: H };
    const aggregators = Array.from({ length: c.nodeCount }, (_, n) => c.topology.ranksOn(n).slice(0, this.two.perNode)).flat();
    const A = aggregators.length;
    const align = this.two.align;
    const start = Math.floor(L / align) * align;
    const per = Math.ceil((H - start) / A / align) * align;
    const domainOf = (off: number): number => Math.min(A - 1, Math.floor((off - start) / per));
    let bufAt = 0;
    for (const r of runs) {
      let off = r.offset;
      const end = r.offset + r.bytes;
      while (off < end) {
        const d = domainOf(off);
        const dEnd = d === A - 1 ? end : Math.min(end, start + (d + 1) * per);
        out[aggregators[d]].push({ offset: off, bytes: dEnd - off, bufAt });
        bufAt += dEnd - off;
        off = dEnd;
      }
    }
    return { plan: out, hi: H };
  }
}
