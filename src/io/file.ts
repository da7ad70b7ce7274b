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

/** One communication or file step of a collective file call (CollFile runs them blocking or not). */
type IoStep =
  | { readonly op: 'allgather' | 'alltoall'; readonly send: Float64Array; readonly recv: Float64Array }
  | { readonly op: 'alltoallv'; readonly send: Float64Array | Uint8Array; readonly sendCounts: readonly number[]; readonly recv: Float64Array | Uint8Array; readonly recvCounts: readonly number[] }
  | { readonly op: 'barrier' }
  | { readonly op: 'pwrite'; readonly data: Uint8Array; readonly at: number }
  | { readonly op: 'pread'; readonly dst: Uint8Array; readonly at: number }
  | { readonly op: 'size' };

/** A piece of a rank's runs for one aggregator: where in the file, how long, where in the rank's buffer. */
interface Piece {
  readonly offset: number;
  readonly bytes: number;
  readonly bufAt: number;
}

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

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
 * that order): sorted by offset, adjacent pieces coalesced into one write, pieces that
 * overlap written one by one after, in rank order.
 */
function coalesce(lists: readonly (readonly [number, number])[][], recv: Uint8Array): { at: number; data: Uint8Array }[] {
  const pieces: { offset: number; bytes: number; at: number; rank: number }[] = [];
  let at = 0;
  lists.forEach((l, rank) => {
    for (const [offset, bytes] of l) {
      pieces.push({ offset, bytes, at, rank });
      at += bytes;
    }
  });
  pieces.sort((a, b) => a.offset - b.offset || a.rank - b.rank);
  const writes: { at: number; data: Uint8Array }[] = [];
  const slice = (p: (typeof pieces)[number]): Uint8Array => recv.subarray(p.at, p.at + p.bytes);
  let i = 0;
  while (i < pieces.length) {
    let j = i + 1;
    let end = pieces[i].offset + pieces[i].bytes;
    while (j < pieces.length && pieces[j].offset === end) end += pieces[j++].bytes;
    if (j === i + 1) writes.push({ at: pieces[i].offset, data: slice(pieces[i]) });
    else {
      const run = new Uint8Array(end - pieces[i].offset);
      for (let k = i; k < j; k++) run.set(slice(pieces[k]), pieces[k].offset - pieces[i].offset);
      writes.push({ at: pieces[i].offset, data: run });
    }
    for (; j < pieces.length && pieces[j].offset < end; j++) writes.push({ at: pieces[j].offset, data: slice(pieces[j]) });
    i = j;
  }
  return writes;
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
    const plan = yield* this.planSteps(runs);
    const lists = yield* exchangeLists(this.comm.size, plan);
    const sendBytes = plan.map((ps) => ps.reduce((s, p) => s + p.bytes, 0));
    const recvBytes = lists.map((l) => l.reduce((s, [, b]) => s + b, 0));
    const send = new Uint8Array(sum(sendBytes));
    let at = 0;
    for (const ps of plan) for (const p of ps) {
      send.set(src.subarray(p.bufAt, p.bufAt + p.bytes), at);
      at += p.bytes;
    }
    const recv = new Uint8Array(sum(recvBytes));
    yield { op: 'alltoallv', send, sendCounts: sendBytes, recv, recvCounts: recvBytes };
    for (const w of coalesce(lists, recv)) yield { op: 'pwrite', data: w.data, at: w.at };
    yield { op: 'barrier' };
  }

  /** The two phases of a collective read: the aggregators read the span asked of them once (data sieving) and answer each rank. */
  private *readAllSteps(runs: readonly Run[], dst: Uint8Array): Generator<IoStep, void, unknown> {
    const c = this.comm;
    const size = (yield { op: 'size' }) as number;
    const past = runs.find((r) => r.offset + r.bytes > size);
    const bad = new Float64Array(3 * c.size);
    yield { op: 'allgather', send: Float64Array.of(past ? 1 : 0, past?.offset ?? 0, past ? past.offset + past.bytes : 0), recv: bad };
    for (let r = 0; r < c.size; r++) {
      if (bad[3 * r] === 1) {
        throw new ArgumentError(`readAtAll on ${this.path}: rank ${r} reads bytes ${bad[3 * r + 1]}–${bad[3 * r + 2]} of a ${size}-byte file`, 'read within the file (getSize()), or write it first');
      }
    }
    const plan = yield* this.planSteps(runs);
    const lists = yield* exchangeLists(c.size, plan);
    const all = lists.flat();
    const answers = lists.map(() => new Uint8Array(0));
    if (all.length > 0) {
      const lo = Math.min(...all.map(([o]) => o));
      const span = new Uint8Array(Math.max(...all.map(([o, b]) => o + b)) - lo);
      yield { op: 'pread', dst: span, at: lo };
      lists.forEach((l, r) => {
        const out = new Uint8Array(sum(l.map(([, b]) => b)));
        let at = 0;
        for (const [o, b] of l) {
          out.set(span.subarray(o - lo, o - lo + b), at);
          at += b;
        }
        answers[r] = out;
      });
    }
    const sendBytes = answers.map((a) => a.byteLength);
    const send = new Uint8Array(sum(sendBytes));
    let at = 0;
    for (const a of answers) {
      send.set(a, at);
      at += a.byteLength;
    }
    const recvBytes = plan.map((ps) => ps.reduce((s, p) => s + p.bytes, 0));
    const recv = new Uint8Array(sum(recvBytes));
    yield { op: 'alltoallv', send, sendCounts: sendBytes, recv, recvCounts: recvBytes };
    at = 0;
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
      else if (st.op === 'pwrite') this.pwrite(st.data, st.at);
      else if (st.op === 'pread') this.pread(st.dst, st.at);
      else result = this.size();
      s = steps.next(result);
    }
  }

  /** Nonblocking: the same steps on nonblocking collectives and promise-based file calls. */
  private async runAsync(steps: Generator<IoStep, void, unknown>): Promise<void> {
    const c = this.comm;
    const h = await openAsync(this.path, this.mode === 'r' ? 'r' : 'r+');
    try {
      for (let s = steps.next(); !s.done; ) {
        const st = s.value;
        let result: unknown;
        if (st.op === 'allgather') await c.iallgather(st.send, st.recv);
        else if (st.op === 'alltoall') await c.ialltoall(st.send, st.recv);
        else if (st.op === 'alltoallv') await c.ialltoallv(st.send, st.sendCounts, st.recv, st.recvCounts);
        else if (st.op === 'barrier') await c.ibarrier();
        else if (st.op === 'pwrite') {
          for (let done = 0; done < st.data.byteLength; ) done += (await h.write(st.data, done, st.data.byteLength - done, st.at + done)).bytesWritten;
        } else if (st.op === 'pread') {
          for (let done = 0; done < st.dst.byteLength; ) {
            const { bytesRead } = await h.read(st.dst, done, st.dst.byteLength - done, st.at + done);
            if (bytesRead === 0) throw new FileError(`${this.path}: unexpected end of file at ${st.at + done}`);
            done += bytesRead;
          }
        } else result = (await h.stat()).size;
        s = steps.next(result);
      }
    } finally {
      await h.close();
    }
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
  private *planSteps(runs: readonly Run[]): Generator<IoStep, Piece[][], unknown> {
    const c = this.comm;
    const ext = new Float64Array(2 * c.size);
    yield {
      op: 'allgather',
      send: Float64Array.of(runs.length > 0 ? Math.min(...runs.map((r) => r.offset)) : Infinity, runs.length > 0 ? Math.max(...runs.map((r) => r.offset + r.bytes)) : -Infinity),
      recv: ext,
    };
    let L = Infinity;
    let H = -Infinity;
    for (let r = 0; r < c.size; r++) {
      L = Math.min(L, ext[2 * r]);
      H = Math.max(H, ext[2 * r + 1]);
    }
    const out = Array.from({ length: c.size }, () => [] as Piece[]);
    if (!(H > L)) return out;
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
    return out;
  }
}
