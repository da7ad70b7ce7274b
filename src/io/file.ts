/**
 * Parallel file access in the spirit of MPI-IO (and mpi4py's MPI.File), on a
 * communicator (seed 003 ch. 7, issue 20): `openFile(comm, path, mode)` is collective
 * and returns a `CollFile` (the name avoids Node's global `File`).
 *
 * - Independent access: `readAt(offset, buf)` / `writeAt(offset, buf)` at an offset in
 *   elements of the rank's view (bytes with the default view), and the promises
 *   `ireadAt` / `iwriteAt`.
 * - Collective access: `readAtAll` / `writeAtAll` (and `ireadAtAll` / `iwriteAtAll`)
 *   with ROMIO's two-phase aggregation: the ranks agree on the extent the call covers,
 *   cut it into one file domain per node (aggregator: the node's lowest rank; domain
 *   boundaries aligned to `alignBytes`), send each aggregator the pieces of its domain
 *   (an alltoallv of the piece lists, one of the data), and each aggregator reads or
 *   writes its domain in as few large, sorted, coalesced accesses as the pieces allow
 *   (a read covers the whole span of the pieces at once: data sieving), then, for a
 *   read, returns each rank its pieces. Uneven contributions and empty ranks are fine.
 * - Views: `setView({ disp, etype, filetype })` (view.ts; each rank its own, as in MPI).
 * - `sync()`, `getSize()`, `setSize(n)` (collective), `close()` (collective).
 *
 * Back end: a file of the local file system (on one machine, or a file system shared by
 * every host of the job); the striped I/O servers of the seed are the `pfs:` back end
 * the issue asks for next. Writes by different ranks to the same bytes in one
 * collective call resolve in rank order (MPI leaves them undefined).
 */
import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import { open as openAsync } from 'node:fs/promises';
import { ArgumentError, CollectivesError, checkCount } from '../core/errors.js';
import type { Communicator } from '../runtime/communicator.js';
import { FileView, type FileViewSpec, type Run } from './view.js';

export type FileMode = 'r' | 'w' | 'rw' | 'a';

/** A file operation failed in the file system (the message names the file and the call). */
export class FileError extends CollectivesError {
  constructor(message: string, hint?: string) {
    super('IO', message, hint);
  }
}

export interface OpenOptions {
  /** File domains of collective calls start at multiples of this (bytes; default 1 MiB, a stripe). */
  readonly alignBytes?: number;
}

type Bytes = ArrayBufferView;

function bytesOf(buf: Bytes): Uint8Array {
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

/** Every rank's piece lists (offset, bytes) for every rank, exchanged: what each rank asked of this one, by source. */
function exchangeLists(c: Communicator, out: readonly (readonly { offset: number; bytes: number }[])[]): [number, number][][] {
  const counts = Float64Array.from(out, (ps) => 2 * ps.length);
  const theirs = new Float64Array(c.size);
  c.alltoall(counts, theirs);
  const send = new Float64Array(counts.reduce((a, b) => a + b, 0));
  let at = 0;
  for (const ps of out) for (const p of ps) {
    send[at++] = p.offset;
    send[at++] = p.bytes;
  }
  const recv = new Float64Array(theirs.reduce((a, b) => a + b, 0));
  c.alltoallv(send, [...counts], recv, [...theirs]);
  const lists: [number, number][][] = [];
  at = 0;
  for (let r = 0; r < c.size; r++) {
    const l: [number, number][] = [];
    for (let k = 0; k < theirs[r]; k += 2) l.push([recv[at + k], recv[at + k + 1]]);
    lists.push(l);
    at += theirs[r];
  }
  return lists;
}

/** Open `path` on every rank of `comm` (collective). */
export function openFile(comm: Communicator, path: string, mode: FileMode, o: OpenOptions = {}): CollFile {
  if (!['r', 'w', 'rw', 'a'].includes(mode)) throw new ArgumentError(`file mode '${String(mode)}' is not one of 'r', 'w', 'rw', 'a'`);
  const align = o.alignBytes ?? 1 << 20;
  checkCount('alignBytes', align);
  if (align < 1) throw new ArgumentError('alignBytes must be at least 1');
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
  return new CollFile(comm, path, mode, fd, align);
}

export class CollFile {
  private view = new FileView();
  private closed = false;

  /** @internal Use openFile(). */
  constructor(
    readonly comm: Communicator,
    readonly path: string,
    readonly mode: FileMode,
    private readonly fd: number,
    private readonly align: number,
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
    this.checkInFile(runs);
    const dst = bytesOf(buf);
    let at = 0;
    for (const r of runs) at += this.pread(dst.subarray(at, at + r.bytes), r.offset);
  }

  writeAt(offset: number, buf: Bytes): void {
    this.writable();
    const src = bytesOf(buf);
    let at = 0;
    for (const r of this.runsOf(offset, buf)) {
      this.pwrite(src.subarray(at, at + r.bytes), r.offset);
      at += r.bytes;
    }
  }

  /** Nonblocking readAt through the event loop's file system calls. */
  async ireadAt(offset: number, buf: Bytes): Promise<void> {
    this.readable();
    const runs = this.runsOf(offset, buf);
    this.checkInFile(runs);
    const h = await openAsync(this.path, 'r');
    try {
      const dst = bytesOf(buf);
      let at = 0;
      for (const r of runs) {
        const { bytesRead } = await h.read(dst, at, r.bytes, r.offset);
        if (bytesRead !== r.bytes) throw new FileError(`${this.path}: read ${bytesRead} of ${r.bytes} bytes at ${r.offset}`);
        at += r.bytes;
      }
    } finally {
      await h.close();
    }
  }

  async iwriteAt(offset: number, buf: Bytes): Promise<void> {
    this.writable();
    const runs = this.runsOf(offset, buf);
    const h = await openAsync(this.path, 'r+');
    try {
      const src = bytesOf(buf);
      let at = 0;
      for (const r of runs) {
        await h.write(src, at, r.bytes, r.offset);
        at += r.bytes;
      }
    } finally {
      await h.close();
    }
  }

  /** Collective write (two-phase): every rank calls it, each with its own offset and buffer (possibly empty). */
  writeAtAll(offset: number, buf: Bytes): void {
    this.writable();
    const src = bytesOf(buf);
    const plan = this.plan(this.runsOf(offset, buf));
    const c = this.comm;
    // Phase 1: the pieces to their aggregators (lists, then data).
    const lists = exchangeLists(c, plan.out);
    const sendBytes = plan.out.map((ps) => ps.reduce((s, p) => s + p.bytes, 0));
    const recvBytes = lists.map((l) => l.reduce((s, [, b]) => s + b, 0));
    const send = new Uint8Array(sendBytes.reduce((a, b) => a + b, 0));
    let at = 0;
    for (const ps of plan.out) for (const p of ps) {
      send.set(src.subarray(p.bufAt, p.bufAt + p.bytes), at);
      at += p.bytes;
    }
    const recv = new Uint8Array(recvBytes.reduce((a, b) => a + b, 0));
    c.alltoallv(send, sendBytes, recv, recvBytes);
    // Phase 2: the aggregator writes its domain, pieces sorted, adjacent ones coalesced (rank order wins on overlaps).
    const pieces: { offset: number; bytes: number; at: number; rank: number }[] = [];
    at = 0;
    lists.forEach((l, rank) => {
      for (const [offset, bytes] of l) {
        pieces.push({ offset, bytes, at, rank });
        at += bytes;
      }
    });
    pieces.sort((a, b) => a.offset - b.offset || a.rank - b.rank);
    let i = 0;
    while (i < pieces.length) {
      let j = i + 1;
      let end = pieces[i].offset + pieces[i].bytes;
      while (j < pieces.length && pieces[j].offset === end) end += pieces[j++].bytes;
      if (j === i + 1) this.pwrite(recv.subarray(pieces[i].at, pieces[i].at + pieces[i].bytes), pieces[i].offset);
      else {
        const run = new Uint8Array(end - pieces[i].offset);
        for (let k = i; k < j; k++) run.set(recv.subarray(pieces[k].at, pieces[k].at + pieces[k].bytes), pieces[k].offset - pieces[i].offset);
        this.pwrite(run, pieces[i].offset);
      }
      // Overlapping pieces (several ranks writing the same bytes): rank order, one by one.
      for (; j < pieces.length && pieces[j].offset < end; j++) this.pwrite(recv.subarray(pieces[j].at, pieces[j].at + pieces[j].bytes), pieces[j].offset);
      i = j;
    }
    c.barrier();
  }

  /** Collective read (two-phase with data sieving); throws on every rank if any rank reads past the end of the file. */
  readAtAll(offset: number, buf: Bytes): void {
    this.readable();
    const dst = bytesOf(buf);
    const runs = this.runsOf(offset, buf);
    const size = this.size();
    const past = runs.find((r) => r.offset + r.bytes > size);
    const c = this.comm;
    const bad = c.allgatherObject(past ? `rank ${c.rank} reads bytes ${past.offset}–${past.offset + past.bytes} of a ${size}-byte file` : '');
    const why = bad.find((b) => b !== '');
    if (why !== undefined) throw new ArgumentError(`readAtAll on ${this.path}: ${why}`, 'read within the file (getSize()), or write it first');
    const plan = this.plan(runs);
    const lists = exchangeLists(c, plan.out);
    // The aggregator reads the span of the pieces asked of it in one access, and answers each rank.
    const answers = lists.map(() => new Uint8Array(0));
    const all = lists.flat();
    if (all.length > 0) {
      const lo = Math.min(...all.map(([o]) => o));
      const hi = Math.max(...all.map(([o, b]) => o + b));
      const span = new Uint8Array(hi - lo);
      this.pread(span, lo);
      lists.forEach((l, r) => {
        const out = new Uint8Array(l.reduce((s, [, b]) => s + b, 0));
        let at = 0;
        for (const [o, b] of l) {
          out.set(span.subarray(o - lo, o - lo + b), at);
          at += b;
        }
        answers[r] = out;
      });
    }
    const sendBytes = answers.map((a) => a.byteLength);
    const send = new Uint8Array(sendBytes.reduce((a, b) => a + b, 0));
    let at = 0;
    for (const a of answers) {
      send.set(a, at);
      at += a.byteLength;
    }
    const recvBytes = plan.out.map((ps) => ps.reduce((s, p) => s + p.bytes, 0));
    const recv = new Uint8Array(recvBytes.reduce((a, b) => a + b, 0));
    c.alltoallv(send, sendBytes, recv, recvBytes);
    at = 0;
    for (const ps of plan.out) for (const p of ps) {
      dst.set(recv.subarray(at, at + p.bytes), p.bufAt);
      at += p.bytes;
    }
  }

  /** Nonblocking collective write: the same two phases, started now; await it (every rank must). */
  iwriteAtAll(offset: number, buf: Bytes): Promise<void> {
    return Promise.resolve().then(() => this.writeAtAll(offset, buf));
  }

  ireadAtAll(offset: number, buf: Bytes): Promise<void> {
    return Promise.resolve().then(() => this.readAtAll(offset, buf));
  }

  /** Flush this rank's writes to stable storage. */
  sync(): void {
    this.open();
    fsyncSync(this.fd);
  }

  /** The file's size in bytes. */
  getSize(): number {
    this.open();
    return this.size();
  }

  /** Truncate or extend the file to `bytes` (collective). */
  setSize(bytes: number): void {
    this.writable();
    checkCount('size', bytes);
    const agreed = this.comm.bcastObject(bytes);
    if (agreed !== bytes) throw new ArgumentError(`setSize(${bytes}) on rank ${this.comm.rank}, but rank 0 asked for ${agreed}`, 'every rank passes the same size');
    if (this.comm.rank === 0) ftruncateSync(this.fd, bytes);
    this.comm.barrier();
  }

  /** Close on every rank (collective). */
  close(): void {
    if (this.closed) return;
    this.comm.barrier();
    this.closed = true;
    closeSync(this.fd);
  }

  // -------------------------------------------------------------------------

  private open(): void {
    if (this.closed) throw new ArgumentError(`${this.path} is closed`, 'open it again with openFile()');
  }

  private readable(): void {
    this.open();
    if (this.mode === 'w' || this.mode === 'a') {
      // MPI allows reading files opened for writing only with MPI_MODE_RDWR.
      throw new ArgumentError(`${this.path} was opened with mode '${this.mode}', which cannot read`, "open it with 'rw' (or 'r')");
    }
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

  private size(): number {
    return fstatSync(this.fd).size;
  }

  private checkInFile(runs: readonly Run[]): void {
    const size = this.size();
    const past = runs.find((r) => r.offset + r.bytes > size);
    if (past) throw new ArgumentError(`read of bytes ${past.offset}–${past.offset + past.bytes} past the end of ${this.path} (${size} bytes)`, 'read within the file (getSize()), or write it first');
  }

  private pread(dst: Uint8Array, at: number): number {
    let done = 0;
    while (done < dst.byteLength) {
      const n = readSync(this.fd, dst, done, dst.byteLength - done, at + done);
      if (n === 0) throw new FileError(`${this.path}: unexpected end of file at ${at + done}`);
      done += n;
    }
    return done;
  }

  private pwrite(src: Uint8Array, at: number): void {
    let done = 0;
    while (done < src.byteLength) done += writeSync(this.fd, src, done, src.byteLength - done, at + done);
  }

  /**
   * The pieces of this rank's runs per aggregator (indexed by communicator rank; empty for
   * non-aggregators): the ranks agree on the extent of the call, which is cut into one
   * domain per node, aligned.
   */
  private plan(runs: readonly Run[]): { out: { offset: number; bytes: number; bufAt: number }[][] } {
    const c = this.comm;
    const lo = runs.length > 0 ? runs[0].offset : Infinity;
    const hi = runs.length > 0 ? Math.max(...runs.map((r) => r.offset + r.bytes)) : -Infinity;
    const ext = c.allgatherObject([Math.min(lo, ...runs.map((r) => r.offset)), hi]);
    const L = Math.min(...ext.map(([a]) => a));
    const H = Math.max(...ext.map(([, b]) => b));
    const out = Array.from({ length: c.size }, () => [] as { offset: number; bytes: number; bufAt: number }[]);
    if (!(H > L)) return { out };
    const aggregators = Array.from({ length: c.nodeCount }, (_, n) => c.topology.ranksOn(n)[0]);
    const A = aggregators.length;
    const start = Math.floor(L / this.align) * this.align;
    const per = Math.ceil((H - start) / A / this.align) * this.align;
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
    return { out };
  }
}
