/**
 * An I/O server of the `pfs:` parallel file system (seed 003 ch. 7, PVFS2's model): it
 * keeps the stripes of every file it serves in one datafile per file under
 * `<dir>/data/`, and, when clients use it as their first server, the metadata service
 * too (`<dir>/meta/`: name → handle, stripe size, server count, layout). Everything is
 * on disk, so a restarted server serves the same files.
 *
 * Clients join and leave dynamically (P3): a connection says hello and gets the
 * server's messaging settings; its state is freed when it disconnects or stays silent
 * for `clientTimeoutMs`. Requests carry list I/O (P10): a list of datafile regions
 * whose data travels as one stream; the server writes each region straight from the
 * received frame and reads each straight into the outgoing one (no pack, no unpack).
 * Small data rides with the request or answer (eager); large data goes by rendezvous
 * under the throttle and the adaptive rule of policy.ts. Counters for the job report
 * come from the `stats` request.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fdatasyncSync, fstatSync, ftruncateSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { ArgumentError } from '../../core/errors.js';
import { chooseMode, DEFAULT_MESSAGING, type MessagingOptions } from './policy.js';
import { StreamPieces } from './stream.js';
import { FrameReader, sendFrame, type Frame, type Header } from './wire.js';

export interface FileMeta {
  readonly name: string;
  readonly handle: string;
  readonly stripe: number;
  readonly servers: number;
  readonly layout: 'round-robin';
}

export interface IoServerOptions extends Partial<MessagingOptions> {
  readonly dir: string;
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port?: number;
  /** Free a silent client's state after this long (ms). */
  readonly clientTimeoutMs?: number;
  /** fdatasync after every write (PVFS2's TroveSyncData; off = notrovesync). */
  readonly syncWrites?: boolean;
}

export interface IoServerCounters {
  requests: Record<string, number>;
  bytesWritten: number;
  bytesRead: number;
  /** Data requests whose data rode with the request or answer. */
  eager: number;
  /** Data requests moved by rendezvous, by who moved the bytes. */
  rendezvousPull: number;
  rendezvousPush: number;
  /** FIN / FIN_ACK messages (only with completion 'fin'). */
  finMessages: number;
  /** Bulk transfers that waited for the throttle, and the most in progress at once. */
  throttled: number;
  maxConcurrentBulk: number;
  /** Datafile regions of list requests, and list requests. */
  listRegions: number;
  listRequests: number;
  clientsJoined: number;
  clientsLeft: number;
  clientsTimedOut: number;
  clientsActive: number;
  framesSent: number;
  framesReceived: number;
}

/** A bulk transfer in progress on one connection. */
interface Bulk {
  readonly dir: 'write' | 'read';
  readonly fd: number;
  readonly regions: [number, number][];
  /** Which regions hold which bytes of the transfer. */
  readonly stream: StreamPieces;
  readonly len: number;
  readonly clientLoad: number;
  mode: 'pull' | 'push';
  got: number;
  nextPull: number;
  sent: number;
  /** A read's first pull came (it is counted then). */
  pulled: boolean;
  /** It holds one of the throttle's slots. */
  started: boolean;
  finished: boolean;
}

interface ClientState {
  name: string;
  lastSeen: number;
  readonly bulks: Map<number, Bulk>;
}

class RequestError extends Error {}

const PULL_WINDOW = 2;

const streamOf = (regions: readonly [number, number][]): StreamPieces => new StreamPieces(regions.map(([, n]) => n));

function checkRegions(x: unknown): [number, number][] {
  if (!Array.isArray(x)) throw new RequestError('regions must be a list');
  for (const r of x) {
    if (!Array.isArray(r) || r.length !== 2 || !r.every((v) => Number.isSafeInteger(v) && (v as number) >= 0)) throw new RequestError('a region is [offset, bytes] with non-negative integers');
  }
  return x as [number, number][];
}

export class IoServer {
  readonly options: MessagingOptions;
  readonly counters: IoServerCounters = {
    requests: {},
    bytesWritten: 0,
    bytesRead: 0,
    eager: 0,
    rendezvousPull: 0,
    rendezvousPush: 0,
    finMessages: 0,
    throttled: 0,
    maxConcurrentBulk: 0,
    listRegions: 0,
    listRequests: 0,
    clientsJoined: 0,
    clientsLeft: 0,
    clientsTimedOut: 0,
    clientsActive: 0,
    framesSent: 0,
    framesReceived: 0,
  };
  private readonly server: Server;
  private readonly clients = new Map<Socket, ClientState>();
  private readonly fds = new Map<string, number>();
  private activeBulk = 0;
  /** Bulk transfers waiting for the throttle; each returns whether it took a slot (a departed client's does not). */
  private readonly waiting: (() => boolean)[] = [];
  private sweeper: NodeJS.Timeout | undefined;
  private readonly dataDir: string;
  private readonly metaDir: string;

  constructor(private readonly o: IoServerOptions) {
    this.options = {
      eager: o.eager ?? DEFAULT_MESSAGING.eager,
      chunk: o.chunk ?? DEFAULT_MESSAGING.chunk,
      rendezvous: o.rendezvous ?? DEFAULT_MESSAGING.rendezvous,
      completion: o.completion ?? DEFAULT_MESSAGING.completion,
      maxBulk: o.maxBulk ?? DEFAULT_MESSAGING.maxBulk,
      loadedAt: o.loadedAt ?? DEFAULT_MESSAGING.loadedAt,
    };
    const m = this.options;
    if (!(Number.isSafeInteger(m.eager) && m.eager >= 0)) throw new ArgumentError(`the eager limit must be a non-negative integer, got ${m.eager}`);
    if (!(Number.isSafeInteger(m.chunk) && m.chunk >= 4096 && m.chunk <= 16 << 20)) throw new ArgumentError(`the chunk must be 4 KiB to 16 MiB, got ${m.chunk}`);
    if (!(Number.isSafeInteger(m.maxBulk) && m.maxBulk >= 1)) throw new ArgumentError(`the throttle (maxBulk) must be at least 1, got ${m.maxBulk}`);
    this.dataDir = join(o.dir, 'data');
    this.metaDir = join(o.dir, 'meta');
    mkdirSync(this.dataDir, { recursive: true });
    mkdirSync(this.metaDir, { recursive: true });
    this.server = createServer((s) => this.accept(s));
  }

  /** Listen; resolves to host:port. */
  async listen(): Promise<string> {
    const host = this.o.host ?? '127.0.0.1';
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.o.port ?? 0, host, () => resolve());
    });
    const timeout = this.o.clientTimeoutMs ?? 600_000;
    this.sweeper = setInterval(() => this.sweep(timeout), Math.max(50, Math.min(timeout / 4, 10_000)));
    this.sweeper.unref();
    const a = this.server.address();
    if (a === null || typeof a === 'string') throw new Error('no address');
    return `${host.includes(':') ? `[${host}]` : host}:${a.port}`;
  }

  async close(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    for (const s of this.clients.keys()) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }

  // ---------------------------------------------------------------------------

  private accept(s: Socket): void {
    s.setNoDelay(true);
    const st: ClientState = { name: '?', lastSeen: Date.now(), bulks: new Map() };
    const reader = new FrameReader((f) => {
      this.counters.framesReceived++;
      st.lastSeen = Date.now();
      this.onFrame(s, st, f);
    });
    s.on('data', (b: Buffer) => {
      try {
        reader.push(b);
      } catch {
        s.destroy();
      }
    });
    s.on('error', () => undefined);
    s.on('close', () => {
      if (!this.clients.delete(s)) return;
      this.counters.clientsActive--;
      this.counters.clientsLeft++;
      for (const b of st.bulks.values()) if (!b.finished) this.release(b);
    });
  }

  private sweep(timeout: number): void {
    const now = Date.now();
    for (const [s, st] of this.clients) {
      if (now - st.lastSeen > timeout) {
        this.counters.clientsTimedOut++;
        s.destroy();
      }
    }
  }

  private send(s: Socket, h: Header, payload: readonly Uint8Array[] = []): boolean {
    this.counters.framesSent++;
    return sendFrame(s, h, payload);
  }

  private onFrame(s: Socket, st: ClientState, f: Frame): void {
    const h = f.h;
    const id = typeof h.id === 'number' ? h.id : -1;
    this.counters.requests[h.t] = (this.counters.requests[h.t] ?? 0) + 1;
    try {
      if (h.t !== 'hello' && !this.clients.has(s)) throw new RequestError(`'${h.t}' before hello: a client says hello first`);
      switch (h.t) {
        case 'hello':
          if (!this.clients.has(s)) {
            this.clients.set(s, st);
            this.counters.clientsJoined++;
            this.counters.clientsActive++;
          }
          st.name = String(h.client ?? '?');
          this.send(s, { t: 'ok', id, messaging: this.options });
          return;
        case 'create':
          this.send(s, { t: 'ok', id, ...this.create(String(h.name), h.mode as string, Number(h.stripe), Number(h.servers)) });
          return;
        case 'lookup':
          this.send(s, { t: 'ok', id, meta: this.meta(String(h.name)) });
          return;
        case 'remove': {
          const meta = this.meta(String(h.name));
          rmSync(this.metaPath(meta.name), { force: true });
          this.send(s, { t: 'ok', id, meta });
          return;
        }
        case 'list':
          this.send(s, { t: 'ok', id, names: readdirSync(this.metaDir).filter((n) => n.endsWith('.json')).map((n) => decodeURIComponent(n.slice(0, -5))) });
          return;
        case 'dcreate': {
          const path = this.dataPath(String(h.handle));
          closeSync(openSync(path, 'a'));
          this.send(s, { t: 'ok', id });
          return;
        }
        case 'dremove': {
          const handle = String(h.handle);
          const fd = this.fds.get(handle);
          if (fd !== undefined) closeSync(fd);
          this.fds.delete(handle);
          rmSync(this.dataPath(handle), { force: true });
          this.send(s, { t: 'ok', id });
          return;
        }
        case 'size':
          this.send(s, { t: 'ok', id, size: fstatSync(this.fd(String(h.handle))).size });
          return;
        case 'truncate':
          ftruncateSync(this.fd(String(h.handle)), Number(h.size));
          this.send(s, { t: 'ok', id });
          return;
        case 'sync':
          fdatasyncSync(this.fd(String(h.handle)));
          this.send(s, { t: 'ok', id });
          return;
        case 'stats':
          this.send(s, { t: 'ok', id, counters: { ...this.counters, activeBulk: this.activeBulk, waitingBulk: this.waiting.length } });
          return;
        case 'write':
        case 'read':
          this.data(s, st, id, h, f.payload);
          return;
        case 'data':
          this.bulkData(s, st, id, Number(h.at), f.payload);
          return;
        case 'pull':
          this.bulkPull(s, st, id, Number(h.at), Number(h.bytes));
          return;
        case 'cts':
          this.bulkPush(s, st, id);
          return;
        case 'fin': {
          this.counters.finMessages++;
          const b = st.bulks.get(id);
          if (b) this.finish(s, st, id, b);
          return;
        }
        default:
          throw new RequestError(`unknown request '${h.t}'`);
      }
    } catch (e) {
      // A transfer that failed gives its throttle slot back.
      const b = st.bulks.get(id);
      if (b !== undefined) {
        st.bulks.delete(id);
        this.release(b);
      }
      const err = e as NodeJS.ErrnoException;
      this.send(s, { t: 'err', id, message: err instanceof RequestError ? err.message : `${err.code ?? 'error'}: ${err.message}` });
    }
  }

  // --- metadata ---------------------------------------------------------------

  private metaPath(name: string): string {
    return join(this.metaDir, `${encodeURIComponent(name)}.json`);
  }

  private meta(name: string): FileMeta {
    const p = this.metaPath(name);
    if (!existsSync(p)) throw new RequestError(`no file 'pfs:${name}'`);
    return JSON.parse(readFileSync(p, 'utf8')) as FileMeta;
  }

  /** mode 'open': must exist; 'create': existing or new; 'truncate': the same, the client truncates. */
  private create(name: string, mode: string, stripe: number, servers: number): { meta: FileMeta; isNew: boolean } {
    if (name === '' || name.length > 200) throw new RequestError('a pfs file name is 1 to 200 characters');
    const p = this.metaPath(name);
    if (existsSync(p)) return { meta: this.meta(name), isNew: false };
    if (mode === 'open') throw new RequestError(`no file 'pfs:${name}'`);
    if (!(Number.isSafeInteger(stripe) && stripe >= 1 && Number.isSafeInteger(servers) && servers >= 1)) throw new RequestError('stripe and server count must be positive integers');
    const meta: FileMeta = { name, handle: randomBytes(8).toString('hex'), stripe, servers, layout: 'round-robin' };
    // Atomic: a crash leaves the old state or the new one.
    writeFileSync(`${p}.tmp`, JSON.stringify(meta));
    renameSync(`${p}.tmp`, p);
    return { meta, isNew: true };
  }

  // --- data -------------------------------------------------------------------

  private dataPath(handle: string): string {
    if (!/^[0-9a-f]{16}$/.test(handle)) throw new RequestError(`bad handle '${handle}'`);
    return join(this.dataDir, handle);
  }

  private fd(handle: string): number {
    let fd = this.fds.get(handle);
    if (fd !== undefined) return fd;
    const path = this.dataPath(handle);
    if (!existsSync(path) || !statSync(path).isFile()) throw new RequestError(`stripe datafile ${handle} is missing on this server`);
    fd = openSync(path, 'r+');
    this.fds.set(handle, fd);
    return fd;
  }

  private data(s: Socket, st: ClientState, id: number, h: Header, payload: Uint8Array): void {
    const fd = this.fd(String(h.handle));
    const regions = checkRegions(h.regions);
    const len = regions.reduce((a, [, n]) => a + n, 0);
    this.counters.listRequests++;
    this.counters.listRegions += regions.length;
    if (h.t === 'write' && !h.rdv) {
      if (payload.byteLength !== len) throw new RequestError(`a write of ${len} bytes came with ${payload.byteLength}`);
      this.counters.eager++;
      this.writeStream(fd, regions, streamOf(regions), 0, payload);
      this.send(s, { t: 'ok', id });
      return;
    }
    if (h.t === 'read' && len <= this.options.eager) {
      this.counters.eager++;
      this.send(s, { t: 'ok', id }, [this.readStream(fd, regions, streamOf(regions), 0, len)]);
      return;
    }
    const b: Bulk = { dir: h.t === 'write' ? 'write' : 'read', fd, regions, stream: streamOf(regions), len, clientLoad: Number(h.load ?? 0), mode: 'pull', got: 0, nextPull: 0, sent: 0, pulled: false, started: false, finished: false };
    st.bulks.set(id, b);
    const start = (): boolean => {
      if (!this.clients.has(s) || b.finished) return false;
      b.started = true;
      this.activeBulk++;
      this.counters.maxConcurrentBulk = Math.max(this.counters.maxConcurrentBulk, this.activeBulk);
      const load = this.activeBulk + this.waiting.length;
      if (b.dir === 'write') {
        // The server receives: it chooses.
        b.mode = chooseMode(this.options.rendezvous, 'write', load, b.clientLoad, this.options.loadedAt);
        if (b.mode === 'pull') {
          this.counters.rendezvousPull++;
          this.pullMore(s, id, b);
        } else {
          this.counters.rendezvousPush++;
          this.send(s, { t: 'cts', id });
        }
      } else {
        // The client receives: it answers the RTS with pull or cts.
        this.send(s, { t: 'rts', id, len, load });
      }
      return true;
    };
    if (this.activeBulk < this.options.maxBulk) start();
    else {
      this.counters.throttled++;
      this.waiting.push(start);
    }
  }

  private pullMore(s: Socket, id: number, b: Bulk): void {
    const c = this.options.chunk;
    while (b.nextPull < b.len && b.nextPull - b.got < PULL_WINDOW * c) {
      const n = Math.min(c, b.len - b.nextPull);
      this.send(s, { t: 'pull', id, at: b.nextPull, bytes: n });
      b.nextPull += n;
    }
  }

  private bulkData(s: Socket, st: ClientState, id: number, at: number, payload: Uint8Array): void {
    const b = st.bulks.get(id);
    if (b === undefined || b.dir !== 'write') throw new RequestError(`data for no write in progress (${id})`);
    if (!(at >= 0 && at + payload.byteLength <= b.len)) throw new RequestError(`data at ${at} outside a ${b.len}-byte transfer`);
    this.writeStream(b.fd, b.regions, b.stream, at, payload);
    b.got += payload.byteLength;
    if (b.mode === 'pull') this.pullMore(s, id, b);
    // Completion by event: the last byte's arrival. With 'fin', the client's FIN completes it.
    if (b.got === b.len && this.options.completion === 'event') this.finish(s, st, id, b);
  }

  /** The client pulls a chunk of a read. */
  private bulkPull(s: Socket, st: ClientState, id: number, at: number, bytes: number): void {
    const b = st.bulks.get(id);
    if (b === undefined || b.dir !== 'read') throw new RequestError(`pull for no read in progress (${id})`);
    if (!b.pulled) this.counters.rendezvousPull++;
    b.pulled = true;
    this.sendChunk(s, id, b, at, bytes);
    b.sent += bytes;
    if (b.sent >= b.len && this.options.completion === 'event') this.finish(s, st, id, b);
  }

  /** The client asks the server to push a read: every chunk, pacing on the socket's drain. */
  private bulkPush(s: Socket, st: ClientState, id: number): void {
    const b = st.bulks.get(id);
    if (b === undefined || b.dir !== 'read') throw new RequestError(`cts for no read in progress (${id})`);
    this.counters.rendezvousPush++;
    b.mode = 'push';
    const next = (): void => {
      while (b.sent < b.len && !b.finished) {
        const n = Math.min(this.options.chunk, b.len - b.sent);
        const ok = this.sendChunk(s, id, b, b.sent, n);
        b.sent += n;
        if (!ok && b.sent < b.len) {
          s.once('drain', next);
          return;
        }
      }
      if (b.sent >= b.len && this.options.completion === 'event') this.finish(s, st, id, b);
    };
    next();
  }

  private sendChunk(s: Socket, id: number, b: Bulk, at: number, n: number): boolean {
    if (!(at >= 0 && n >= 0 && at + n <= b.len)) throw new RequestError(`a chunk at ${at} of ${n} bytes is outside a ${b.len}-byte transfer`);
    return this.send(s, { t: 'data', id, at }, [this.readStream(b.fd, b.regions, b.stream, at, n)]);
  }

  private finish(s: Socket, st: ClientState, id: number, b: Bulk): void {
    if (b.finished) return;
    st.bulks.delete(id);
    this.release(b);
    // A write's answer says it is on the server; a read's last chunk was its answer.
    if (b.dir === 'write') this.send(s, { t: 'ok', id });
  }

  private release(b: Bulk): void {
    if (b.finished) return;
    b.finished = true;
    if (!b.started) return;
    this.activeBulk--;
    // The next waiting transfer whose client is still here takes the slot.
    while (this.waiting.length > 0) if (this.waiting.shift()?.()) break;
  }

  /** Write stream bytes [at, at + data.length) to the regions they belong to, each straight from `data`. */
  private writeStream(fd: number, regions: readonly [number, number][], stream: StreamPieces, at: number, data: Uint8Array): void {
    stream.forEach(at, at + data.byteLength, (i, from, to, into) => {
      for (let done = 0; done < to - from; ) done += writeSync(fd, data, from - at + done, to - from - done, regions[i][0] + into + done);
    });
    this.counters.bytesWritten += data.byteLength;
    if (this.o.syncWrites) fdatasyncSync(fd);
  }

  /** Stream bytes [at, at + n) read from their regions straight into the outgoing buffer; bytes past the datafile's end are zeros (holes). */
  private readStream(fd: number, regions: readonly [number, number][], stream: StreamPieces, at: number, n: number): Uint8Array {
    const out = Buffer.alloc(n);
    stream.forEach(at, at + n, (i, from, to, into) => {
      for (let done = 0; done < to - from; ) {
        const got = readSync(fd, out, from - at + done, to - from - done, regions[i][0] + into + done);
        if (got === 0) break;
        done += got;
      }
    });
    this.counters.bytesRead += n;
    return out;
  }
}
