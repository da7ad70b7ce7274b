/**
 * Where a CollFile's bytes live: a file of the local (or a shared) file system, or a
 * `pfs:` file striped over the job's I/O servers. Both take lists of pieces (file
 * offset, memory), so a collective call's aggregator and a strided view hand their
 * whole list to one call: the local file walks it with pread/pwrite, the striped file
 * sends each server one list request.
 */
import { closeSync, fstatSync, fsyncSync, ftruncateSync, readSync, writeSync, writevSync } from 'node:fs';
import { open as openAsync, type FileHandle } from 'node:fs/promises';
import { FileError } from './errors.js';
import type { PfsBridge } from './pfs/blocking.js';
import type { FileMeta } from './pfs/server.js';

/** Buffers per writev (Linux's IOV_MAX). */
const IOV_MAX = 1024;

export interface WritePiece {
  readonly at: number;
  readonly data: Uint8Array;
}

export interface ReadPiece {
  readonly at: number;
  readonly dst: Uint8Array;
}

export interface Storage {
  /** Default alignment of collective file domains (a stripe for pfs). */
  readonly alignBytes: number;
  /** Collective reads read the whole span of the pieces at once (data sieving) rather than the list of pieces. */
  readonly sieve: boolean;
  write(pieces: readonly WritePiece[]): void;
  /** Fill each piece; bytes past the end of the file are an error for the caller to prevent (check size()). */
  read(pieces: readonly ReadPiece[]): void;
  size(): number;
  setSize(bytes: number): void;
  sync(): void;
  iwrite(pieces: readonly WritePiece[]): Promise<void>;
  iread(pieces: readonly ReadPiece[]): Promise<void>;
  isize(): Promise<number>;
  close(): void;
}

export class LocalStorage implements Storage {
  readonly alignBytes = 1 << 20;
  readonly sieve = true;
  private handle: Promise<FileHandle> | undefined;

  constructor(
    private readonly path: string,
    private readonly fd: number,
    private readonly readOnly: boolean,
  ) {}

  /** Pieces that follow each other in the file go out in one writev (up to IOV_MAX buffers), without being copied together. */
  write(pieces: readonly WritePiece[]): void {
    let i = 0;
    while (i < pieces.length) {
      let j = i + 1;
      let end = pieces[i].at + pieces[i].data.byteLength;
      while (j < pieces.length && j - i < IOV_MAX && pieces[j].at === end) end += pieces[j++].data.byteLength;
      const at = pieces[i].at;
      const wrote = j - i > 1 ? writevSync(this.fd, pieces.slice(i, j).map((p) => p.data), at) : 0;
      // The rest (all of a single piece, or what a short writev left), piece by piece.
      let off = at;
      for (let k = i; k < j; k++) {
        const d = pieces[k].data;
        const skip = Math.min(d.byteLength, Math.max(0, at + wrote - off));
        for (let done = skip; done < d.byteLength; ) done += writeSync(this.fd, d, done, d.byteLength - done, off + done);
        off += d.byteLength;
      }
      i = j;
    }
  }

  read(pieces: readonly ReadPiece[]): void {
    for (const { at, dst } of pieces) {
      for (let done = 0; done < dst.byteLength; ) {
        const n = readSync(this.fd, dst, done, dst.byteLength - done, at + done);
        if (n === 0) throw new FileError(`${this.path}: unexpected end of file at ${at + done}`);
        done += n;
      }
    }
  }

  size(): number {
    return fstatSync(this.fd).size;
  }

  setSize(bytes: number): void {
    ftruncateSync(this.fd, bytes);
  }

  sync(): void {
    fsyncSync(this.fd);
  }

  async iwrite(pieces: readonly WritePiece[]): Promise<void> {
    const h = await this.asyncHandle();
    for (const { at, data } of pieces) for (let done = 0; done < data.byteLength; ) done += (await h.write(data, done, data.byteLength - done, at + done)).bytesWritten;
  }

  async iread(pieces: readonly ReadPiece[]): Promise<void> {
    const h = await this.asyncHandle();
    for (const { at, dst } of pieces) {
      for (let done = 0; done < dst.byteLength; ) {
        const { bytesRead } = await h.read(dst, done, dst.byteLength - done, at + done);
        if (bytesRead === 0) throw new FileError(`${this.path}: unexpected end of file at ${at + done}`);
        done += bytesRead;
      }
    }
  }

  async isize(): Promise<number> {
    return (await (await this.asyncHandle()).stat()).size;
  }

  close(): void {
    closeSync(this.fd);
    void this.handle?.then((h) => h.close(), () => undefined);
  }

  /** The event loop's handle for the nonblocking calls, opened on first use. */
  private asyncHandle(): Promise<FileHandle> {
    this.handle ??= openAsync(this.path, this.readOnly ? 'r' : 'r+');
    return this.handle;
  }
}

/** One view of the pieces when they lie back to back on one SharedArrayBuffer (another thread can use it in place). */
function sharedSpan(views: readonly Uint8Array[]): Uint8Array | undefined {
  const first = views[0];
  if (first === undefined || !(first.buffer instanceof SharedArrayBuffer)) return undefined;
  let end = first.byteOffset;
  for (const v of views) {
    if (v.buffer !== first.buffer || v.byteOffset !== end) return undefined;
    end += v.byteLength;
  }
  return new Uint8Array(first.buffer, first.byteOffset, end - first.byteOffset);
}

/** A `pfs:` file through this thread's bridge to the I/O servers. */
export class PfsStorage implements Storage {
  readonly alignBytes: number;
  readonly sieve = false;

  constructor(
    private readonly bridge: PfsBridge,
    readonly meta: FileMeta,
  ) {
    this.alignBytes = meta.stripe;
  }

  write(pieces: readonly WritePiece[]): void {
    if (pieces.length > 0) this.bridge.callSync(this.writeCall(pieces));
  }

  read(pieces: readonly ReadPiece[]): void {
    if (pieces.length === 0) return;
    const { call, done } = this.readCall(pieces);
    done(this.bridge.callSync(call).data);
  }

  size(): number {
    return this.bridge.callSync({ op: 'size', meta: this.meta }).size ?? 0;
  }

  setSize(bytes: number): void {
    this.bridge.callSync({ op: 'setSize', meta: this.meta, size: bytes });
  }

  sync(): void {
    this.bridge.callSync({ op: 'sync', meta: this.meta });
  }

  async iwrite(pieces: readonly WritePiece[]): Promise<void> {
    if (pieces.length > 0) await this.bridge.call(this.writeCall(pieces));
  }

  async iread(pieces: readonly ReadPiece[]): Promise<void> {
    if (pieces.length === 0) return;
    const { call, done } = this.readCall(pieces);
    done((await this.bridge.call(call)).data);
  }

  async isize(): Promise<number> {
    return (await this.bridge.call({ op: 'size', meta: this.meta })).size ?? 0;
  }

  close(): void {
    // The bridge serves every pfs file of this thread and ends with it.
  }

  /** The pieces' bytes for the helper thread: in place on shared memory, else one copy (moved to the helper, not cloned). */
  private writeCall(pieces: readonly WritePiece[]): { op: 'write'; meta: FileMeta; runs: { offset: number; bytes: number }[]; data: Uint8Array } {
    let data = sharedSpan(pieces.map((p) => p.data));
    if (data === undefined) {
      data = new Uint8Array(pieces.reduce((a, p) => a + p.data.byteLength, 0));
      let at = 0;
      for (const p of pieces) {
        data.set(p.data, at);
        at += p.data.byteLength;
      }
    }
    return { op: 'write', meta: this.meta, runs: pieces.map((p) => ({ offset: p.at, bytes: p.data.byteLength })), data };
  }

  /** Pieces back to back on shared memory are read in place by the helper; otherwise the answer's bytes are scattered here. */
  private readCall(pieces: readonly ReadPiece[]): { call: { op: 'read'; meta: FileMeta; runs: { offset: number; bytes: number }[]; into?: Uint8Array }; done(data: Uint8Array | undefined): void } {
    const runs = pieces.map((p) => ({ offset: p.at, bytes: p.dst.byteLength }));
    const into = sharedSpan(pieces.map((p) => p.dst));
    return {
      call: { op: 'read', meta: this.meta, runs, ...(into ? { into } : {}) },
      done: (data) => {
        if (data === undefined) return;
        let at = 0;
        for (const p of pieces) {
          p.dst.set(data.subarray(at, at + p.dst.byteLength));
          at += p.dst.byteLength;
        }
      },
    };
  }
}
