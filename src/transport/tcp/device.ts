/**
 * TCP NodeLink: one connection per pair of nodes, opened lazily by the first node
 * that has a frame for the other, authenticated (handshake.ts) before any frame is
 * accepted, Nagle off, length-prefixed frames (framing.ts).
 *
 * Each side sends all its frames to a peer over one connection (the one it dialled,
 * or the one the peer dialled when that came first), so frames to a node stay in
 * order. If both dial at the same moment the pair ends up with two connections,
 * one per direction, which keeps that property.
 *
 * Small frames are copied into one buffer and written at once; large payloads are
 * written as they are (a view, e.g. of the shared arena) together with their header
 * in one corked write, and `onSent` runs from the write callback.
 */
import net from 'node:net';
import { TransportError } from '../../core/errors.js';
import type { FrameHeader, NodeLink } from '../types.js';
import { median } from '../../core/stats.js';
import { encodeHeader, FRAME_HEADER_BYTES, FrameParser } from './framing.js';
import { acceptHandshake, connectHandshake } from './handshake.js';
import { pairKey, type PairIds } from './endpoint-ids.js';
import type { DirectTable } from './direct.js';
import { HeldFrames, type FrameReceiver } from '../held-frames.js';

/** The descriptor of a connected socket (libuv's handle; undefined where there is none). */
function socketFd(s: net.Socket): number | undefined {
  const fd = (s as unknown as { _handle?: { fd?: number } })._handle?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : undefined;
}

export interface PeerAddress {
  readonly host: string;
  readonly port: number;
}

/** `host:port`, as addresses travel in messages, key-value stores and command lines. */
export function addressText(a: PeerAddress): string {
  return `${a.host}:${a.port}`;
}

/** The inverse of addressText: the port follows the last colon; IPv6 brackets are dropped. */
export function parseAddress(text: string): PeerAddress {
  const i = text.lastIndexOf(':');
  return { host: text.slice(0, i).replace(/^\[|\]$/g, ''), port: Number(text.slice(i + 1)) };
}

/** Listen on `bindHost` (port chosen by the system); the address peers reach it at (a wildcard bind: loopback). */
export function listenOn(server: net.Server, bindHost: string): Promise<PeerAddress> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, bindHost, () => {
      const a = server.address() as net.AddressInfo;
      resolve({ host: bindHost === '0.0.0.0' || bindHost === '::' ? '127.0.0.1' : bindHost, port: a.port });
    });
  });
}

export interface TcpDeviceOptions {
  readonly node: number;
  readonly secret: Buffer;
  readonly bindHost: string;
  /**
   * Called for connection failures (not for graceful closes): with the peer node when
   * a connection to one failed, and the frames (and their bytes) queued for it that
   * were not written and are dropped.
   */
  readonly onError: (e: Error, lost?: { peer: number; frames: number; bytes: number }) => void;
  /**
   * Fault injection for tests (COLL_TCP_RESET=node:frames): after sending this many
   * frames the device resets (TCP RST) every connection it has, as a failed link would.
   */
  readonly resetAfterFrames?: number;
  /** Where rejected-connection lines go (default: stderr). */
  readonly log?: (line: string) => void;
  /**
   * The node's direct-write table (direct.ts): when given, every write of this device
   * takes the peer's lock and marks the peer busy while libuv holds queued bytes, and
   * openDirect(peer) lets rank threads write their small frames to it themselves.
   */
  readonly direct?: DirectTable;
}

/** Counters of this transport for the job report (runtime/job-report.ts). */
export interface TcpCounters {
  /** Connections this node dialled and accepted (authenticated ones only). */
  readonly dialled: number;
  readonly accepted: number;
  /** Nodes this node had an authenticated connection with. */
  readonly peers: readonly number[];
  readonly framesSent: number;
  readonly framesReceived: number;
  readonly bytesSent: number;
  readonly bytesReceived: number;
  /** Connections refused in the handshake (wrong secret, idle, too many). */
  readonly rejected: number;
  /** Median time from dialling a connection to its authenticated use, µs (0: none dialled). */
  readonly connectionSetupUs: number;
  /** Of framesSent, those rank threads wrote themselves (direct.ts; set by the node process). */
  readonly directFramesSent?: number;
}

const COPY_LIMIT = 16 * 1024;
/** Received frames larger than this are handed on in pieces as they arrive (FrameParser). */
const STREAM_ABOVE = 64 * 1024;
/**
 * Connections allowed in the handshake at once (a job needs at most a few per peer
 * node): a new one beyond it closes the oldest pending one — a real node authenticates
 * within milliseconds, so it is never the oldest for long, while idle clients are.
 */
export const MAX_HANDSHAKES = 64;
/** How long an accepted connection may take to authenticate. */
const HANDSHAKE_MS = 5000;
/** Rejected connections are logged at most once per this interval, with a count of the others. */
const REJECT_LOG_MS = 10_000;

interface Pending {
  readonly header: FrameHeader;
  readonly payload: Uint8Array;
  readonly onSent: (() => void) | undefined;
}

/** A frame to write later: small payloads are copied (the caller may reuse its buffer, a ring entry). */
function later(header: FrameHeader, payload: Uint8Array, onSent: (() => void) | undefined): Pending {
  return { header, payload: payload.byteLength <= COPY_LIMIT ? new Uint8Array(payload) : payload, onSent };
}

class Conn {
  ready = false;
  /** libuv holds queued bytes of this connection (direct writes wait; see write()). */
  busy = false;
  /** Rank threads may write to this connection's descriptor (openDirect). */
  published = false;
  /** Frames written while a rank held the connection's lock: written in order once it is free. */
  held: Pending[] = [];
  queue: Pending[] = [];
  /** performance.now() when this side dialled (undefined: accepted). */
  dialledAt: number | undefined;
  /** Resolves when the connection is established (its queue written) or lost. */
  readonly settled: Promise<void>;
  settle!: () => void;
  constructor(
    readonly socket: net.Socket,
    public peer: number,
  ) {
    this.settled = new Promise((resolve) => (this.settle = resolve));
  }
}

export class TcpDevice implements NodeLink {
  readonly node: number;
  /** Frames that arrived before a receiver was attached (views of the socket's chunks, which are not reused). */
  private readonly held = new HeldFrames();

  get onFrame(): FrameReceiver {
    return this.held.get();
  }

  /** Attach the receiver; frames held until now are delivered to it first, in order. */
  set onFrame(f: FrameReceiver) {
    this.held.set(f);
  }
  private readonly server: net.Server;
  private peers: readonly PeerAddress[] = [];
  /** The pairs' endpoint ids, once the start-up exchange has brought them (a peer may connect before). */
  private ids: Promise<PairIds | undefined>;
  private gotIds!: (ids: PairIds | undefined) => void;
  private readonly sendConn = new Map<number, Conn>();
  private readonly all = new Set<Conn>();
  private closing = false;
  /** Accepted connections still in the handshake, oldest first. */
  private readonly handshaking = new Set<net.Socket>();
  private readonly rejects: RejectLog;
  /** Connections rejected so far (failed or refused handshakes). */
  get rejected(): number {
    return this.rejects.total;
  }
  private framesSent = 0;
  private framesReceived = 0;
  private bytesSent = 0;
  private bytesReceived = 0;
  private dialled = 0;
  private accepted = 0;
  private readonly connectedPeers = new Set<number>();
  private readonly setupUs: number[] = [];

  /** This node's counters for the job report (runtime/job-report.ts). */
  counters(): TcpCounters {
    return {
      dialled: this.dialled,
      accepted: this.accepted,
      peers: [...this.connectedPeers].sort((a, b) => a - b),
      framesSent: this.framesSent,
      framesReceived: this.framesReceived,
      bytesSent: this.bytesSent,
      bytesReceived: this.bytesReceived,
      rejected: this.rejected,
      connectionSetupUs: this.setupUs.length > 0 ? Math.round(median(this.setupUs)) : 0,
    };
  }

  constructor(private readonly o: TcpDeviceOptions) {
    this.node = o.node;
    this.ids = new Promise((resolve) => (this.gotIds = resolve));
    this.rejects = new RejectLog(o.log ?? ((line) => process.stderr.write(line)));
    this.server = net.createServer((s) => this.accept(s));
    this.server.on('error', (e) => o.onError(new TransportError(`node ${this.node}: server error: ${e.message}`)));
  }

  /** Start listening on the bind host (port chosen by the system). */
  listen(): Promise<PeerAddress> {
    return listenOn(this.server, this.o.bindHost);
  }

  /**
   * Addresses of every node, by node index, and the endpoint ids of this node's pairs
   * (endpoint-ids.ts): each connection authenticates with its pair's key. Without ids every
   * pair uses the job secret itself (tests of the device alone).
   */
  setPeers(peers: readonly PeerAddress[], ids?: PairIds): void {
    this.peers = peers;
    this.gotIds(ids);
  }

  /** The key of the pair (this node, peer); waits for setPeers (a peer may be faster to learn the ids). */
  private readonly keyFor = async (peer: number): Promise<Buffer> => {
    const ids = await this.ids;
    if (!ids) return this.o.secret;
    if (peer === this.node || peer >= ids.mine.length) throw new TransportError(`node ${peer} is not a peer of node ${this.node}`);
    return pairKey(this.o.secret, this.node, peer, ids);
  };

  /**
   * Called when a connection is authenticated and usable: `dialled` true when this node
   * dialled it, false when it accepted it (connections.ts switches a pair to TCP on it).
   */
  onConnection: ((peer: number, dialled: boolean) => void) | undefined = undefined;

  /** Whether frames to `node` would go out on an established connection now (no dialling). */
  isConnected(node: number): boolean {
    return this.sendConn.get(node)?.ready === true;
  }

  /**
   * Dial `node` now, or reuse the connection to it (dialled or accepted); resolves once
   * it is established (authenticated, its queued frames written), rejects if it failed
   * (the failure is also reported through onError).
   */
  async connect(node: number): Promise<void> {
    const c = this.sendConn.get(node) ?? this.dial(node);
    await c.settled;
    if (!c.ready || !this.all.has(c)) throw new TransportError(`node ${this.node}: could not connect to node ${node}`);
  }

  /** Send a frame only over an established connection to `node`; false (nothing sent, nothing dialled) when there is none. */
  sendIfConnected(node: number, header: FrameHeader, payload: Uint8Array, onSent?: () => void): boolean {
    if (!this.isConnected(node)) return false;
    this.send(node, header, payload, onSent);
    return true;
  }

  send(node: number, header: FrameHeader, payload: Uint8Array, onSent?: () => void): void {
    this.bytesSent += payload.byteLength;
    if (++this.framesSent === this.o.resetAfterFrames) this.resetAll();
    let c = this.sendConn.get(node);
    if (!c) c = this.dial(node);
    if (!c.ready) c.queue.push(later(header, payload, onSent));
    else this.write(c, header, payload, onSent);
  }

  /**
   * Rank threads may now write small frames to `node` directly (direct.ts), on the
   * connection this device sends to it on; nothing without a direct table or a
   * ready connection (or under COLL_TCP_RESET, which counts the frames of this device).
   */
  openDirect(node: number): void {
    const c = this.sendConn.get(node);
    const fd = c ? socketFd(c.socket) : undefined;
    if (!this.o.direct || !c?.ready || fd === undefined || this.o.resetAfterFrames !== undefined) return;
    this.o.direct.publish(node, fd);
    c.published = true;
  }

  /** Rank threads stop writing to the connection (before it is ended or destroyed: its descriptor may be reused). */
  private revokeDirect(c: Conn): void {
    if (!c.published) return;
    c.published = false;
    this.o.direct?.revoke(c.peer);
  }

  private write(c: Conn, h: FrameHeader, payload: Uint8Array, onSent: (() => void) | undefined): void {
    const d = this.o.direct;
    if (!d || this.sendConn.get(c.peer) !== c) return this.writeNow(c, h, payload, onSent);
    // Frames of rank threads and of this thread must not interleave: write holding the
    // peer's lock, keep ranks out while libuv holds queued bytes, and never wait for a
    // rank (a rank writing a large message waits for this thread's peer to read, and a
    // main thread waiting here would not read for its own ranks): when a rank holds the
    // lock, queue the frame and try again on the next turn of the event loop.
    if (c.held.length > 0 || !d.tryLock(c.peer)) {
      c.held.push(later(h, payload, onSent));
      // Ranks keep out meanwhile: a rank's earlier message may be among the held frames.
      d.setBusy(c.peer, true);
      if (c.held.length === 1) setImmediate(() => this.flushHeld(c, d));
      return;
    }
    this.writeLocked(c, d, h, payload, onSent);
  }

  private writeLocked(c: Conn, d: DirectTable, h: FrameHeader, payload: Uint8Array, onSent: (() => void) | undefined): void {
    try {
      this.writeNow(c, h, payload, onSent);
      if (c.socket.writableLength > 0 && !c.busy) {
        c.busy = true;
        d.setBusy(c.peer, true);
        const check = (): void => {
          if (c.socket.writableLength > 0 && !c.socket.destroyed) return void setImmediate(check);
          c.busy = false;
          if (c.held.length === 0) d.setBusy(c.peer, false);
        };
        setImmediate(check);
      } else if (!c.busy && c.held.length === 0) d.setBusy(c.peer, false);
    } finally {
      d.unlock(c.peer);
    }
  }

  /** Write the frames held while a rank had the lock, in order. */
  private flushHeld(c: Conn, d: DirectTable): void {
    if (c.socket.destroyed) return void (c.held = []);
    while (c.held.length > 0) {
      if (!d.tryLock(c.peer)) return void setImmediate(() => this.flushHeld(c, d));
      const f = c.held.shift() as Pending;
      this.writeLocked(c, d, f.header, f.payload, f.onSent);
    }
  }

  private writeNow(c: Conn, h: FrameHeader, payload: Uint8Array, onSent: (() => void) | undefined): void {
    const n = payload.byteLength;
    if (n <= COPY_LIMIT) {
      const b = Buffer.allocUnsafe(FRAME_HEADER_BYTES + n);
      encodeHeader(h, n, b, 0);
      if (n > 0) b.set(payload, FRAME_HEADER_BYTES);
      c.socket.write(b);
      onSent?.();
      return;
    }
    const hb = Buffer.allocUnsafe(FRAME_HEADER_BYTES);
    encodeHeader(h, n, hb, 0);
    c.socket.cork();
    c.socket.write(hb);
    c.socket.write(Buffer.from(payload.buffer, payload.byteOffset, n), onSent ? () => onSent() : undefined);
    c.socket.uncork();
  }

  /** Injected link failure: reset every connection (the peers see ECONNRESET). */
  private resetAll(): void {
    for (const c of [...this.all]) this.lost(c, new TransportError('connection reset (injected by COLL_TCP_RESET)'), true);
  }

  private dial(node: number): Conn {
    const addr = this.peers[node];
    if (!addr) throw new TransportError(`node ${this.node} has no address for node ${node}`, 'the launcher must pass every node address');
    const socket = net.connect(addr.port, addr.host);
    socket.setNoDelay(true);
    const c = new Conn(socket, node);
    c.dialledAt = performance.now();
    this.sendConn.set(node, c);
    this.all.add(c);
    socket.once('connect', () => {
      connectHandshake(socket, this.keyFor, this.node, node).then(
        (rest) => this.established(c, rest),
        (e: Error) => this.lost(c, e),
      );
    });
    socket.on('error', (e) => this.lost(c, e));
    return c;
  }

  private accept(socket: net.Socket): void {
    socket.on('error', () => {});
    if (this.handshaking.size >= MAX_HANDSHAKES) {
      const oldest = this.handshaking.values().next().value as net.Socket;
      this.handshaking.delete(oldest);
      oldest.destroy(); // its handshake fails and is logged below
    }
    socket.setNoDelay(true);
    this.handshaking.add(socket);
    acceptHandshake(socket, this.keyFor, this.node, HANDSHAKE_MS).then(
      ({ node, rest }) => {
        this.handshaking.delete(socket);
        const c = new Conn(socket, node);
        this.all.add(c);
        socket.on('error', (e) => this.lost(c, e));
        if (!this.sendConn.has(node)) this.sendConn.set(node, c);
        this.established(c, rest);
      },
      (e: Error) => {
        this.handshaking.delete(socket);
        this.rejects.note(this.node, socket.remoteAddress, e.message);
        socket.destroy();
      },
    );
  }

  private established(c: Conn, rest: Buffer): void {
    if (c.dialledAt !== undefined) {
      this.dialled++;
      this.setupUs.push((performance.now() - c.dialledAt) * 1000);
    } else this.accepted++;
    this.connectedPeers.add(c.peer);
    // Large frames arrive in pieces as their bytes do (framing.ts): the proxy places each at its offset.
    const parser = new FrameParser((h, p, last) => {
      if (last) this.framesReceived++;
      this.bytesReceived += p.byteLength;
      this.onFrame(c.peer, h, p);
    }, STREAM_ABOVE);
    c.socket.on('data', (d: Buffer) => parser.push(d));
    c.socket.on('close', () => {
      this.revokeDirect(c);
      this.all.delete(c);
      if (this.sendConn.get(c.peer) === c) this.sendConn.delete(c.peer);
    });
    c.ready = true;
    if (rest.length > 0) parser.push(rest);
    const q = c.queue;
    c.queue = [];
    for (const p of q) this.write(c, p.header, p.payload, p.onSent);
    c.settle();
    this.onConnection?.(c.peer, c.dialledAt !== undefined);
  }

  private lost(c: Conn, e: Error, reset = false): void {
    if (!this.all.delete(c)) return;
    this.revokeDirect(c);
    if (this.sendConn.get(c.peer) === c) this.sendConn.delete(c.peer);
    if (reset) c.socket.resetAndDestroy();
    else c.socket.destroy();
    const frames = c.queue.length;
    const bytes = c.queue.reduce((n, p) => n + p.payload.byteLength, 0);
    c.queue = [];
    c.settle();
    if (!this.closing) this.o.onError(new TransportError(`node ${this.node}: connection to node ${c.peer} failed: ${e.message}`), { peer: c.peer, frames, bytes });
  }

  /**
   * Close every connection once what was sent is written: a connection still in its
   * handshake is first allowed to finish it and write its queued frames (a node whose
   * ranks returned right after sending must not take their last messages with it).
   */
  async close(): Promise<void> {
    this.closing = true;
    this.rejects.flush(this.node);
    const closed = [...this.all].map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.socket.destroyed) return resolve();
          const t = setTimeout(() => {
            c.socket.destroy();
            resolve();
          }, 5000);
          c.socket.once('close', () => {
            clearTimeout(t);
            resolve();
          });
          void c.settled.then(() => {
            this.revokeDirect(c);
            c.socket.end();
          });
        }),
    );
    await Promise.all(closed);
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  abort(_reason: string): void {
    this.closing = true;
    for (const c of this.all) {
      this.revokeDirect(c);
      c.socket.destroy();
    }
    this.server.close();
  }
}

/**
 * Rejected connections on stderr without flooding it: the first one, then at most one
 * line per REJECT_LOG_MS with the number rejected since (and a final count at close).
 */
class RejectLog {
  total = 0;
  private since = 0;
  private last = -Infinity;
  private lastReason = '';

  constructor(private readonly write: (line: string) => void) {}

  note(node: number, from: string | undefined, reason: string): void {
    this.total++;
    this.lastReason = reason;
    const now = Date.now();
    if (now - this.last < REJECT_LOG_MS) {
      this.since++;
      return;
    }
    this.last = now;
    const more = this.since > 0 ? ` (and ${this.since} more since the last report)` : '';
    this.since = 0;
    this.write(`coll: node ${node} rejected a connection from ${from ?? '?'}: ${reason}${more}\n`);
  }

  flush(node: number): void {
    if (this.since === 0) return;
    this.write(`coll: node ${node} rejected ${this.since} more connection(s), the last: ${this.lastReason}\n`);
    this.since = 0;
  }
}
