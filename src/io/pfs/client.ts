/**
 * The client side of the `pfs:` file system (seed 003 ch. 7): one connection per I/O
 * server, opened on first use and again after a server restarts (a client joins and
 * leaves at will, P3). A call on a file splits its regions over the servers
 * (layout.ts) and sends each server one list request (P10) at once; the data of a
 * request is the caller's memory pieces gathered onto the wire and scattered straight
 * into the caller's memory on the way back. Small data rides with the request (eager);
 * large data goes by rendezvous, the receiver choosing pull or push by the rule of
 * policy.ts, completed by the arrival of the last byte or by an explicit FIN.
 *
 * With `listIo: false` each contiguous region is its own request, one at a time per
 * server: the baseline list I/O is measured against.
 *
 * Errors are FileErrors that name the server: unreachable, closed during a call, no
 * answer within `requestTimeoutMs`, a missing stripe.
 */
import { connect, type Socket } from 'node:net';
import { ArgumentError } from '../../core/errors.js';
import type { Run } from '../view.js';
import { FileError } from '../errors.js';
import { localSize, logicalEnd, split } from './layout.js';
import { chooseMode, type MessagingOptions } from './policy.js';
import type { FileMeta } from './server.js';
import { StreamPieces } from './stream.js';
import { FrameReader, sendFrame, type Frame, type Header } from './wire.js';

export type PfsOpenMode = 'r' | 'w' | 'rw' | 'a';

export interface PfsClientOptions {
  /** Shown in the servers' logs and counters. */
  readonly name?: string;
  readonly connectTimeoutMs?: number;
  readonly requestTimeoutMs?: number;
  /** One list request per server (default), or one request per contiguous region. */
  readonly listIo?: boolean;
}

export interface PfsLayoutOptions {
  /** Stripe size in bytes (default 64 KiB, PVFS2's). */
  readonly stripe?: number;
  /** Servers to stripe over (default all of the client's). */
  readonly servers?: number;
}

export interface PfsClientCounters {
  requests: number;
  eager: number;
  rendezvousPull: number;
  rendezvousPush: number;
  finMessages: number;
  bytesWritten: number;
  bytesRead: number;
  connects: number;
}

interface Pending {
  readonly what: string;
  onFrame(f: Frame): void;
  fail(e: Error): void;
}

interface Connection {
  readonly socket: Socket;
  readonly pending: Map<number, Pending>;
  messaging: MessagingOptions;
  nextId: number;
}

export const DEFAULT_STRIPE = 64 * 1024;

/** The connection closed under a request: the request is tried once more on a new connection (every request is idempotent). */
class ConnectionLost extends FileError {}

/** Run a request; if its connection was lost (a server restarted, or a stale connection), once more on a new one. */
async function retried<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (!(e instanceof ConnectionLost)) throw e;
    return f();
  }
}

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

/** The subarrays of `parts` (a stream cut into pieces) covering stream bytes [at, at + n). */
function piecesOf(parts: readonly Uint8Array[], stream: StreamPieces, at: number, n: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  stream.forEach(at, at + n, (i, from, to, into) => out.push(parts[i].subarray(into, into + to - from)));
  return out;
}

/** Copy stream bytes [at, at + data.length) into the pieces of `parts` they belong to. */
function scatter(parts: readonly Uint8Array[], stream: StreamPieces, at: number, data: Uint8Array): void {
  stream.forEach(at, at + data.byteLength, (i, from, to, into) => parts[i].set(data.subarray(from - at, to - at), into));
}

const streamOf = (parts: readonly Uint8Array[]): StreamPieces => new StreamPieces(parts.map((p) => p.byteLength));

export class PfsClient {
  readonly counters: PfsClientCounters = { requests: 0, eager: 0, rendezvousPull: 0, rendezvousPush: 0, finMessages: 0, bytesWritten: 0, bytesRead: 0, connects: 0 };
  private readonly conns = new Map<number, Promise<Connection>>();
  /** Bulk transfers in progress (this client's load). */
  private bulk = 0;
  private closed = false;

  constructor(
    readonly servers: readonly string[],
    private readonly o: PfsClientOptions = {},
  ) {
    if (servers.length === 0) throw new ArgumentError('a pfs client needs at least one I/O server', 'start them with coll run --io-servers K, or give --io-server host:port,…');
    for (const s of servers) if (!/^(\[[^\]]+\]|[^:]+):\d+$/.test(s)) throw new ArgumentError(`I/O server address '${s}' is not host:port`);
  }

  // --- files ------------------------------------------------------------------

  /** Open (create, truncate) a file; the metadata service is server 0. */
  async open(name: string, mode: PfsOpenMode, l: PfsLayoutOptions = {}): Promise<FileMeta> {
    const stripe = l.stripe ?? DEFAULT_STRIPE;
    const servers = l.servers ?? this.servers.length;
    if (!(Number.isSafeInteger(stripe) && stripe >= 1)) throw new ArgumentError(`the stripe size must be a positive integer, got ${stripe}`);
    if (!(Number.isSafeInteger(servers) && servers >= 1 && servers <= this.servers.length)) throw new ArgumentError(`a file can be striped over 1 to ${this.servers.length} servers, not ${servers}`);
    const how = mode === 'w' ? 'truncate' : mode === 'a' ? 'create' : 'open';
    const r = await this.call(0, { t: 'create', name, mode: how, stripe, servers }, `open pfs:${name}`);
    const meta = r.h.meta as FileMeta;
    if (meta.servers > this.servers.length) {
      throw new FileError(`pfs:${name} is striped over ${meta.servers} I/O servers, but this job has ${this.servers.length}`, 'run with the same servers it was written with');
    }
    if (r.h.isNew === true) await this.each(meta, (s) => this.call(s, { t: 'dcreate', handle: meta.handle }, `create pfs:${name}`));
    else if (mode === 'w') await this.setSize(meta, 0);
    return meta;
  }

  async lookup(name: string): Promise<FileMeta> {
    return (await this.call(0, { t: 'lookup', name }, `look up pfs:${name}`)).h.meta as FileMeta;
  }

  async remove(name: string): Promise<void> {
    const meta = (await this.call(0, { t: 'remove', name }, `remove pfs:${name}`)).h.meta as FileMeta;
    await this.each(meta, (s) => this.call(s, { t: 'dremove', handle: meta.handle }, `remove pfs:${name}`));
  }

  /** The logical size: the largest end any server's datafile implies. */
  async size(meta: FileMeta): Promise<number> {
    const ends = await this.each(meta, async (s) => logicalEnd(Number((await this.call(s, { t: 'size', handle: meta.handle }, `size of pfs:${meta.name}`)).h.size), s, meta));
    return Math.max(0, ...ends);
  }

  async setSize(meta: FileMeta, bytes: number): Promise<void> {
    await this.each(meta, (s) => this.call(s, { t: 'truncate', handle: meta.handle, size: localSize(bytes, s, meta) }, `resize pfs:${meta.name}`));
  }

  async sync(meta: FileMeta): Promise<void> {
    await this.each(meta, (s) => this.call(s, { t: 'sync', handle: meta.handle }, `sync pfs:${meta.name}`));
  }

  /**
   * Write pieces of memory to the file (each piece `data` at logical offset `at`): one
   * list request per server, the pieces' bytes gathered onto the wire as they are.
   */
  async write(meta: FileMeta, pieces: readonly { readonly at: number; readonly data: Uint8Array }[]): Promise<void> {
    const datas = pieces.map((p) => p.data);
    await this.perServer(meta, pieces.map((p) => ({ offset: p.at, bytes: p.data.byteLength })), datas, (s, regions, mem) => this.writeList(s, meta, regions, mem));
  }

  /** Read file bytes into pieces of memory (each piece `dst` from logical offset `at`); holes read as zeros. */
  async read(meta: FileMeta, pieces: readonly { readonly at: number; readonly dst: Uint8Array }[]): Promise<void> {
    const dsts = pieces.map((p) => p.dst);
    await this.perServer(meta, pieces.map((p) => ({ offset: p.at, bytes: p.dst.byteLength })), dsts, (s, regions, mem) => this.readList(s, meta, regions, mem));
  }

  /** Split the runs over the servers; each server's memory is the caller's pieces cut at the same places (no copy). */
  private async perServer(meta: FileMeta, runs: readonly Run[], bufs: readonly Uint8Array[], go: (s: number, regions: [number, number][], mem: Uint8Array[]) => Promise<void>): Promise<void> {
    const stream = streamOf(bufs);
    await Promise.all(
      split(runs, meta).map(async (p) => {
        const mem = p.regions.map(([, n], i) => piecesOf(bufs, stream, p.bufAt[i], n));
        if (this.o.listIo === false) for (let i = 0; i < p.regions.length; i++) await retried(() => go(p.server, [p.regions[i]], mem[i]));
        else await retried(() => go(p.server, p.regions, mem.flat()));
      }),
    );
  }

  /** Each server's counters (the `stats` request). */
  async stats(): Promise<Record<string, unknown>[]> {
    return Promise.all(this.servers.map(async (_, s) => (await this.call(s, { t: 'stats' }, 'stats')).h.counters as Record<string, unknown>));
  }

  /** Leave: close every connection (the servers free this client's state). */
  close(): void {
    this.closed = true;
    for (const c of this.conns.values()) c.then((x) => x.socket.destroy(), () => undefined);
    this.conns.clear();
  }

  // --- list requests ----------------------------------------------------------

  private async writeList(s: number, meta: FileMeta, regions: [number, number][], mem: Uint8Array[]): Promise<void> {
    const c = await this.conn(s);
    const len = sum(mem.map((m) => m.byteLength));
    const what = `write to pfs:${meta.name}`;
    this.counters.bytesWritten += len;
    if (len <= c.messaging.eager) {
      this.counters.eager++;
      await this.request(s, c, { t: 'write', handle: meta.handle, regions }, mem, what);
      return;
    }
    const stream = streamOf(mem);
    const fin = c.messaging.completion === 'fin';
    this.bulk++;
    try {
      await this.exchange(s, c, { t: 'write', handle: meta.handle, regions, rdv: true, load: this.bulk }, what, (f, id, done) => {
        const t = f.h.t;
        if (t === 'pull') {
          if (f.h.at === 0) this.counters.rendezvousPull++;
          const at = Number(f.h.at);
          const n = Number(f.h.bytes);
          sendFrame(c.socket, { t: 'data', id, at }, piecesOf(mem, stream, at, n));
          if (fin && at + n === len) this.fin(c, id);
        } else if (t === 'cts') {
          this.counters.rendezvousPush++;
          void this.push(c, id, mem, stream, len).then(() => fin && this.fin(c, id));
        } else if (t === 'ok') done();
      });
    } finally {
      this.bulk--;
    }
  }

  private async readList(s: number, meta: FileMeta, regions: [number, number][], mem: Uint8Array[]): Promise<void> {
    const c = await this.conn(s);
    const stream = streamOf(mem);
    const len = sum(mem.map((m) => m.byteLength));
    const what = `read of pfs:${meta.name}`;
    this.counters.bytesRead += len;
    let got = 0;
    let nextPull = 0;
    let bulk = false;
    const pull = (id: number): void => {
      const chunk = c.messaging.chunk;
      while (nextPull < len && nextPull - got < 2 * chunk) {
        const n = Math.min(chunk, len - nextPull);
        sendFrame(c.socket, { t: 'pull', id, at: nextPull, bytes: n });
        nextPull += n;
      }
    };
    let mode: 'pull' | 'push' = 'pull';
    try {
      await this.exchange(s, c, { t: 'read', handle: meta.handle, regions, load: this.bulk }, what, (f, id, done) => {
        const t = f.h.t;
        if (t === 'ok') {
          this.counters.eager++;
          scatter(mem, stream, 0, f.payload);
          done();
        } else if (t === 'rts') {
          bulk = true;
          this.bulk++;
          mode = chooseMode(c.messaging.rendezvous, 'read', Number(f.h.load), this.bulk, c.messaging.loadedAt);
          if (mode === 'pull') {
            this.counters.rendezvousPull++;
            pull(id);
          } else {
            this.counters.rendezvousPush++;
            sendFrame(c.socket, { t: 'cts', id });
          }
        } else if (t === 'data') {
          scatter(mem, stream, Number(f.h.at), f.payload);
          got += f.payload.byteLength;
          if (mode === 'pull') pull(id);
          if (got === len) {
            if (c.messaging.completion === 'fin') this.fin(c, id);
            done();
          }
        }
      });
    } finally {
      if (bulk) this.bulk--;
    }
  }

  private fin(c: Connection, id: number): void {
    this.counters.finMessages++;
    sendFrame(c.socket, { t: 'fin', id });
  }

  /** Push every chunk of a write, pacing on the socket's drain. */
  private async push(c: Connection, id: number, mem: Uint8Array[], stream: StreamPieces, len: number): Promise<void> {
    for (let at = 0; at < len; ) {
      const n = Math.min(c.messaging.chunk, len - at);
      const ok = sendFrame(c.socket, { t: 'data', id, at }, piecesOf(mem, stream, at, n));
      at += n;
      if (!ok && at < len && !c.socket.destroyed) await new Promise<void>((r) => c.socket.once('drain', r));
    }
  }

  // --- connections and requests -----------------------------------------------

  private each<T>(meta: FileMeta, f: (server: number) => Promise<T>): Promise<T[]> {
    return Promise.all(Array.from({ length: meta.servers }, (_, s) => f(s)));
  }

  private label(s: number): string {
    return `I/O server ${s} (${this.servers[s]})`;
  }

  private conn(s: number): Promise<Connection> {
    if (this.closed) return Promise.reject(new FileError('this pfs client is closed'));
    let c = this.conns.get(s);
    if (c === undefined) {
      c = this.dial(s);
      this.conns.set(s, c);
      c.catch(() => this.conns.delete(s));
    }
    return c;
  }

  private dial(s: number): Promise<Connection> {
    const addr = this.servers[s];
    const cut = addr.lastIndexOf(':');
    const host = addr.slice(0, cut).replace(/^\[|\]$/g, '');
    const port = Number(addr.slice(cut + 1));
    return new Promise<Connection>((resolve, reject) => {
      const socket = connect({ host, port });
      socket.setNoDelay(true);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new FileError(`${this.label(s)} did not accept a connection within ${this.o.connectTimeoutMs ?? 10_000} ms`, 'is the server running and reachable?'));
      }, this.o.connectTimeoutMs ?? 10_000);
      const c: Connection = { socket, pending: new Map(), messaging: { eager: 0, chunk: 1 << 20, rendezvous: 'adaptive', completion: 'event', maxBulk: 1, loadedAt: 1 }, nextId: 1 };
      const reader = new FrameReader((f) => {
        const p = c.pending.get(typeof f.h.id === 'number' ? f.h.id : -1);
        if (p) p.onFrame(f);
      });
      socket.on('data', (b: Buffer) => {
        try {
          reader.push(b);
        } catch (e) {
          socket.destroy(e as Error);
        }
      });
      let why = 'closed the connection';
      socket.on('error', (e: NodeJS.ErrnoException) => {
        why = e.code === 'ECONNREFUSED' ? 'is unreachable (connection refused)' : `failed: ${e.code ?? e.message}`;
        clearTimeout(timer);
        reject(new FileError(`${this.label(s)} ${why}`, 'start it (coll io-server), or check --io-server'));
      });
      socket.on('close', () => {
        clearTimeout(timer);
        if (this.conns.get(s) !== undefined) this.conns.delete(s);
        for (const p of c.pending.values()) p.fail(new ConnectionLost(`${this.label(s)} ${why} during the ${p.what}`, 'the server stopped; data it acknowledged is on its disk, retry once it is back'));
        c.pending.clear();
      });
      socket.once('connect', () => {
        clearTimeout(timer);
        this.counters.connects++;
        this.request(s, c, { t: 'hello', client: this.o.name ?? `pid ${process.pid}` }, [], 'hello').then((f) => {
          c.messaging = f.h.messaging as MessagingOptions;
          resolve(c);
        }, reject);
      });
    });
  }

  /** A request answered by one 'ok' (or 'err'). */
  private call(s: number, h: Header, what: string): Promise<Frame> {
    return retried(async () => this.request(s, await this.conn(s), h, [], what));
  }

  private request(s: number, c: Connection, h: Header, payload: readonly Uint8Array[], what: string): Promise<Frame> {
    return this.exchange(s, c, h, what, (f, _id, done) => {
      if (f.h.t === 'ok') done(f);
    }, payload);
  }

  /** Send a request and feed its answers to `onFrame` until it calls done (an 'err' answer rejects). */
  private exchange(s: number, c: Connection, h: Header, what: string, onFrame: (f: Frame, id: number, done: (f?: Frame) => void) => void, payload: readonly Uint8Array[] = []): Promise<Frame> {
    this.counters.requests++;
    const id = c.nextId++;
    return new Promise<Frame>((resolve, reject) => {
      const timer = setTimeout(() => {
        c.pending.delete(id);
        reject(new FileError(`${this.label(s)} did not answer the ${what} within ${this.o.requestTimeoutMs ?? 120_000} ms`, 'the server may be overloaded or stopped'));
      }, this.o.requestTimeoutMs ?? 120_000);
      const finish = (): void => {
        clearTimeout(timer);
        c.pending.delete(id);
      };
      c.pending.set(id, {
        what,
        onFrame: (f) => {
          if (f.h.t === 'err') {
            finish();
            reject(new FileError(`${this.label(s)}: ${what}: ${String(f.h.message)}`));
            return;
          }
          try {
            onFrame(f, id, (g) => {
              finish();
              resolve(g ?? f);
            });
          } catch (e) {
            finish();
            reject(e as Error);
          }
        },
        fail: (e) => {
          finish();
          reject(e);
        },
      });
      sendFrame(c.socket, { ...h, id }, payload);
    });
  }
}
