/**
 * A reliable, authenticated datagram path between node processes over UDP
 * (`node:dgram`): the commodity stand-in for the InfiniBand UD queue pair that
 * MVAPICH's adaptive connection management (seed 003, A3.x) uses before, and instead
 * of, a reliable connection. Every node opens one socket and reaches every other node
 * through it at once; connections.ts upgrades busy pairs to TCP.
 *
 * It is a NodeLink: frames (FrameHeader + payload) to a node arrive whole and in send
 * order, once, or the sender's onError names the node that stopped answering.
 *
 * Datagram (little-endian; at most fragmentBytes of frame payload, 1200 by default, so
 * 1200 + 32 + 36 + 16 bytes stay under a 1500-byte MTU with the IP and UDP headers):
 *
 *    0  magic "CUDP" u32      4  version u8 = 1   5  type u8 (1 DATA, 2 ACK)
 *    6  flags u8 (1: first datagram of a frame)   7  reserved u8
 *    8  from node u32        12  to node u32
 *   16  seq u32 (DATA: the sender's per-peer datagram number; ACK: 0)
 *   20  ack u32: the next seq the sender of this datagram expects from its receiver
 *   24  sack u32 ×2: bit i set = seq ack+1+i arrived (a 64-datagram selective ack)
 *   32  DATA with flag 1: the frame's 36-byte header (framing.ts; its length field is
 *       the frame's payload bytes); then this fragment's payload bytes
 *  end  HMAC-SHA256(pair key, everything before it), truncated to 16 bytes
 *
 * Reliability: a frame is cut into datagrams with consecutive sequence numbers; at
 * most `window` (64) datagrams per peer are unacknowledged, the rest wait in the
 * peer's queue. The receiver keeps datagrams that arrive out of order (up to 4 windows
 * ahead), drops duplicates (counted), and delivers frames strictly in sequence order,
 * reassembled. Acknowledgements are cumulative with a 64-bit SACK bitmap, piggybacked
 * on every DATA datagram going back and otherwise sent as an ACK datagram at the end
 * of the current event-loop turn (setImmediate: one ACK for everything a turn read).
 * A sender retransmits a datagram that is not acknowledged within the peer's RTO
 * (starting at retransmitMs, doubled per timeout up to 32×, back to retransmitMs when
 * the cumulative ack advances), and at once (fast retransmit) a hole that three later
 * datagrams have been selectively acknowledged past. Datagrams that are SACKed are
 * never retransmitted. `onSent` runs when the frame's last datagram is acknowledged.
 * A peer that acknowledges nothing for giveUpMs while datagrams wait for it is given
 * up: onError with a TransportError naming it, its queue dropped.
 *
 * Authentication: every datagram carries the truncated HMAC with the pair's key
 * (keyFor(peer), default the job secret; keys are cached, and datagrams to or from a
 * peer whose key is still being computed wait for it). A datagram that is malformed,
 * fails the check, is not addressed to this node, or claims to come from a node that
 * is not a peer is dropped and counted (foreignDropped), never delivered, never
 * answered. Replies go to the address given by setPeers, not the datagram's source.
 * Replayed datagrams fall behind the receive sequence and are dropped as duplicates
 * (within one run of the node: sequence numbers start at 0 per process).
 *
 * Fault injection (tests, COLL_UDP_FAULT=loss=0.2,duplicate=0.1,reorder=0.1,seed=7):
 * each outgoing datagram, data or ack, is dropped, sent twice or held back 1–4 ms
 * (so later ones overtake it) with the given probabilities, from a seeded PRNG.
 */
import dgram from 'node:dgram';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ArgumentError, TransportError } from '../../core/errors.js';
import { Rng } from '../../core/random.js';
import type { FrameHeader, NodeLink } from '../types.js';
import { decodeHeader, encodeHeader, FRAME_HEADER_BYTES } from '../tcp/framing.js';
import { HeldFrames, type FrameReceiver } from '../held-frames.js';
import type { PeerAddress } from '../tcp/device.js';

export const DATAGRAM_MAGIC = 0x50445543; // "CUDP" little-endian
export const DATAGRAM_VERSION = 1;
export const DATAGRAM_HEADER_BYTES = 32;
export const DATAGRAM_MAC_BYTES = 16;
export const TYPE_DATA = 1;
export const TYPE_ACK = 2;
const FLAG_FIRST = 1;
/** Frame payload bytes per datagram by default (1200 + 84 header bytes + 28 IP/UDP < 1500). */
export const DEFAULT_FRAGMENT_BYTES = 1200;
const DEFAULT_RETRANSMIT_MS = 20;
const DEFAULT_GIVE_UP_MS = 10_000;
/** Unacknowledged datagrams per peer. */
const DEFAULT_WINDOW = 64;
const SACK_BITS = 64;
/** How far ahead of the next expected datagram the receiver keeps what arrives. */
const RECV_AHEAD_WINDOWS = 4;
const MAX_BACKOFF = 32;
/** Later datagrams SACKed past a hole before it is retransmitted at once. */
const FAST_RETRANSMIT_AFTER = 3;
/** Datagrams held per peer while its key is being computed. */
const MAX_HELD_FOR_KEY = 1024;

/** Probabilities applied to every outgoing datagram (tests). */
export interface DatagramFault {
  readonly loss?: number;
  readonly duplicate?: number;
  readonly reorder?: number;
  readonly seed?: number;
}

/** Parse `loss=0.2,duplicate=0.1,reorder=0.1,seed=7` (COLL_UDP_FAULT); empty or undefined: none. */
export function parseDatagramFault(text: string | undefined): DatagramFault | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const out: { loss?: number; duplicate?: number; reorder?: number; seed?: number } = {};
  for (const part of text.split(',')) {
    const [k, v, ...extra] = part.split('=').map((s) => s.trim());
    const x = Number(v);
    if (extra.length > 0 || v === undefined || v === '' || !Number.isFinite(x)) {
      throw new ArgumentError(`COLL_UDP_FAULT: '${part}' is not key=number`, 'e.g. COLL_UDP_FAULT=loss=0.2,duplicate=0.1,reorder=0.1,seed=7');
    }
    if (k === 'loss' || k === 'duplicate' || k === 'reorder') {
      if (x < 0 || x >= 1) throw new ArgumentError(`COLL_UDP_FAULT: ${k}=${v} is not a probability in [0, 1)`);
      out[k] = x;
    } else if (k === 'seed') {
      if (!Number.isInteger(x)) throw new ArgumentError(`COLL_UDP_FAULT: seed=${v} is not an integer`);
      out.seed = x;
    } else throw new ArgumentError(`COLL_UDP_FAULT: unknown key '${k}'`, 'keys: loss, duplicate, reorder, seed');
  }
  return out;
}

export interface DatagramPathOptions {
  readonly node: number;
  readonly bindHost: string;
  /** The job secret: the pair key when keyFor is not given. */
  readonly secret: Buffer;
  /** The key of the pair (this node, peer), e.g. pairKey(secret, node, peer, ids, 'udp'). */
  readonly keyFor?: (peer: number) => Buffer | Promise<Buffer>;
  /** Frame payload bytes per datagram (default 1200). */
  readonly fragmentBytes?: number;
  /** Initial retransmission timeout (default 20 ms). */
  readonly retransmitMs?: number;
  /** A peer that acknowledges nothing for this long is given up (default 10 s). */
  readonly giveUpMs?: number;
  /** Unacknowledged datagrams per peer (default 64). */
  readonly window?: number;
  readonly fault?: DatagramFault;
  /**
   * Failures; a peer given up on comes with `lost`: the peer and the frames (and their
   * payload bytes) to it that were not acknowledged and are dropped.
   */
  readonly onError: (e: Error, lost?: { peer: number; frames: number; bytes: number }) => void;
  /** Where diagnostic lines go (default: nowhere). */
  readonly log?: (line: string) => void;
}

/** Counters for the job report. */
export interface DatagramCounters {
  readonly datagramsSent: number;
  readonly datagramsReceived: number;
  readonly retransmissions: number;
  readonly duplicatesDropped: number;
  readonly foreignDropped: number;
  readonly framesSent: number;
  readonly framesReceived: number;
  readonly bytesSent: number;
  readonly bytesReceived: number;
}

/** A datagram in flight: its bytes without ack fields and MAC, and what completes with it. */
interface Out {
  readonly seq: number;
  readonly buf: Buffer;
  sentAt: number;
  sacked: boolean;
  fastDone: boolean;
  /** Set on a frame's last datagram. */
  onSent: (() => void) | undefined;
  /** On a frame's last datagram: the frame's payload bytes (−1 on the others). */
  readonly frameBytes: number;
}

interface QueuedFrame {
  readonly header: FrameHeader;
  readonly payload: Uint8Array;
  readonly onSent: (() => void) | undefined;
  /** Payload bytes already cut into datagrams. */
  at: number;
  started: boolean;
}

interface Arrived {
  readonly first: boolean;
  readonly body: Buffer;
}

class Peer {
  key: Buffer | undefined;
  keyPending = false;
  /** Datagrams received before the key was known. */
  held: Buffer[] = [];
  // sending
  readonly queue: QueuedFrame[] = [];
  readonly flight: Out[] = [];
  /** Oldest unacknowledged seq and the next seq to use (u32). */
  una = 0;
  nextSeq = 0;
  rto: number;
  /** When the cumulative ack last advanced, or the flight last became non-empty. */
  lastProgress = 0;
  /** Give up at this time whatever the progress (finished(): the peer's ranks have all returned). */
  deadline = Infinity;
  dead = false;
  // receiving
  expected = 0;
  readonly ahead = new Map<number, Arrived>();
  ackDue = false;
  assembling: { header: FrameHeader; buf: Buffer; fill: number } | undefined;
  constructor(retransmitMs: number) {
    this.rto = retransmitMs;
  }
}

/** Signed distance a − b of two u32 sequence numbers. */
function seqDiff(a: number, b: number): number {
  return (a - b) | 0;
}

/** HMAC-SHA256 of `b[0, end)` under `key`, truncated to DATAGRAM_MAC_BYTES. */
function macOf(key: Buffer, b: Buffer, end: number): Buffer {
  return createHmac('sha256', key).update(b.subarray(0, end)).digest().subarray(0, DATAGRAM_MAC_BYTES);
}

/** Write the MAC of `b[0, end)` under `key` at `end`. */
export function signDatagram(key: Buffer, b: Buffer, end: number): void {
  macOf(key, b, end).copy(b, end);
}

export class DatagramPath implements NodeLink {
  readonly node: number;
  private readonly held = new HeldFrames();

  get onFrame(): FrameReceiver {
    return this.held.get();
  }

  /** Attach the receiver; frames held until now are delivered to it first, in order. */
  set onFrame(f: FrameReceiver) {
    this.held.set(f);
  }

  private readonly socket: dgram.Socket;
  private peerAddrs: readonly PeerAddress[] = [];
  private readonly peers = new Map<number, Peer>();
  private readonly fragment: number;
  private readonly retransmitMs: number;
  private readonly giveUpMs: number;
  private readonly window: number;
  private readonly rng: Rng | undefined;
  private timer: NodeJS.Timeout | undefined;
  private ackFlush: NodeJS.Immediate | undefined;
  private closed = false;
  private lastDataIn = -Infinity;
  private readonly drained: (() => void)[] = [];
  private c = {
    datagramsSent: 0,
    datagramsReceived: 0,
    retransmissions: 0,
    duplicatesDropped: 0,
    foreignDropped: 0,
    framesSent: 0,
    framesReceived: 0,
    bytesSent: 0,
    bytesReceived: 0,
  };

  constructor(private readonly o: DatagramPathOptions) {
    this.node = o.node;
    this.fragment = o.fragmentBytes ?? DEFAULT_FRAGMENT_BYTES;
    if (!Number.isInteger(this.fragment) || this.fragment < 1 || this.fragment > 60_000) {
      throw new ArgumentError(`fragmentBytes ${this.fragment} is not an integer in [1, 60000]`);
    }
    this.retransmitMs = o.retransmitMs ?? DEFAULT_RETRANSMIT_MS;
    this.giveUpMs = o.giveUpMs ?? DEFAULT_GIVE_UP_MS;
    this.window = o.window ?? DEFAULT_WINDOW;
    this.rng = o.fault ? new Rng(o.fault.seed ?? 1, o.node) : undefined;
    const ipv6 = o.bindHost.includes(':');
    this.socket = dgram.createSocket({ type: ipv6 ? 'udp6' : 'udp4' });
    this.socket.on('message', (msg) => this.receive(msg));
    this.socket.on('error', (e) => this.o.onError(new TransportError(`node ${this.node}: datagram socket error: ${e.message}`)));
  }

  counters(): DatagramCounters {
    return { ...this.c };
  }

  /**
   * Bind `port` (default 0: the system picks) on bindHost; the address peers reach this
   * node at (a wildcard bind: loopback). A failed bind leaves this path unusable.
   */
  listen(port = 0): Promise<PeerAddress> {
    return new Promise((resolve, reject) => {
      this.socket.once('error', reject);
      this.socket.bind(port, this.o.bindHost, () => {
        this.socket.off('error', reject);
        for (const set of [(n: number) => this.socket.setRecvBufferSize(n), (n: number) => this.socket.setSendBufferSize(n)]) {
          try {
            set(4 << 20); // the kernel caps it at its maximum; a larger buffer only saves retransmissions
          } catch {
            /* keep the default */
          }
        }
        const a = this.socket.address();
        const wildcard = this.o.bindHost === '0.0.0.0' || this.o.bindHost === '::';
        resolve({ host: wildcard ? '127.0.0.1' : this.o.bindHost, port: a.port });
      });
    });
  }

  /** The datagram address of every node, by node index. */
  setPeers(peers: readonly PeerAddress[]): void {
    this.peerAddrs = peers;
    for (const [node, p] of this.peers) if (p.key) this.pump(node, p);
  }

  private peer(node: number): Peer {
    let p = this.peers.get(node);
    if (!p) {
      p = new Peer(this.retransmitMs);
      this.peers.set(node, p);
      this.fetchKey(node, p);
    }
    return p;
  }

  private fetchKey(node: number, p: Peer): void {
    if (!this.o.keyFor) {
      p.key = this.o.secret;
      return;
    }
    let k: Buffer | Promise<Buffer>;
    try {
      k = this.o.keyFor(node);
    } catch (e) {
      this.o.onError(new TransportError(`node ${this.node}: no datagram key for node ${node}: ${(e as Error).message}`));
      return;
    }
    if (Buffer.isBuffer(k)) {
      p.key = k;
      return;
    }
    p.keyPending = true;
    k.then(
      (key) => {
        p.key = key;
        p.keyPending = false;
        for (const d of p.held.splice(0)) this.receive(d);
        this.pump(node, p);
      },
      (e: Error) => this.o.onError(new TransportError(`node ${this.node}: no datagram key for node ${node}: ${e.message}`)),
    );
  }

  send(node: number, header: FrameHeader, payload: Uint8Array, onSent?: () => void): void {
    if (node === this.node || !Number.isInteger(node) || node < 0) throw new TransportError(`node ${this.node}: cannot send a datagram frame to node ${node}`);
    if (this.closed) throw new TransportError(`node ${this.node}: datagram path is closed; frame to node ${node} not sent`);
    const p = this.peer(node);
    this.c.framesSent++;
    this.c.bytesSent += payload.byteLength;
    if (p.dead) return; // already reported through onError
    // Without onSent the caller may reuse its buffer at once: keep a copy.
    p.queue.push({ header, payload: onSent ? payload : new Uint8Array(payload), onSent, at: 0, started: false });
    this.pump(node, p);
  }

  /** Cut queued frames into datagrams while the window has room. */
  private pump(node: number, p: Peer): void {
    if (!p.key || p.dead || this.peerAddrs[node] === undefined) return;
    while (p.flight.length < this.window && p.queue.length > 0) {
      const f = p.queue[0];
      const first = !f.started;
      const total = f.payload.byteLength;
      const n = Math.min(this.fragment, total - f.at);
      const hdr = DATAGRAM_HEADER_BYTES + (first ? FRAME_HEADER_BYTES : 0);
      const b = Buffer.allocUnsafe(hdr + n + DATAGRAM_MAC_BYTES);
      b.writeUInt32LE(DATAGRAM_MAGIC, 0);
      b.writeUInt8(DATAGRAM_VERSION, 4);
      b.writeUInt8(TYPE_DATA, 5);
      b.writeUInt8(first ? FLAG_FIRST : 0, 6);
      b.writeUInt8(0, 7);
      b.writeUInt32LE(this.node, 8);
      b.writeUInt32LE(node, 12);
      b.writeUInt32LE(p.nextSeq, 16);
      if (first) encodeHeader(f.header, total, b, DATAGRAM_HEADER_BYTES);
      if (n > 0) b.set(f.payload.subarray(f.at, f.at + n), hdr);
      f.started = true;
      f.at += n;
      const last = f.at >= total;
      if (last) p.queue.shift();
      const out: Out = { seq: p.nextSeq, buf: b, sentAt: 0, sacked: false, fastDone: false, onSent: last ? f.onSent : undefined, frameBytes: last ? total : -1 };
      p.nextSeq = (p.nextSeq + 1) >>> 0;
      if (p.flight.length === 0) p.lastProgress = performance.now();
      p.flight.push(out);
      this.transmit(node, p, out);
    }
    if (p.flight.length > 0) this.armTimer();
  }

  /** (Re)send a data datagram with the current ack fields. */
  private transmit(node: number, p: Peer, out: Out): void {
    out.sentAt = performance.now();
    const b = Buffer.from(out.buf); // a fresh copy: a held-back (reordered) send must not see later edits
    this.writeAck(p, b);
    p.ackDue = false;
    signDatagram(p.key as Buffer, b, b.length - DATAGRAM_MAC_BYTES);
    this.emit(node, b);
  }

  private writeAck(p: Peer, b: Buffer): void {
    let lo = 0;
    let hi = 0;
    for (const seq of p.ahead.keys()) {
      const i = seqDiff(seq, p.expected) - 1;
      if (i >= 0 && i < 32) lo |= 1 << i;
      else if (i >= 32 && i < SACK_BITS) hi |= 1 << (i - 32);
    }
    b.writeUInt32LE(p.expected, 20);
    b.writeUInt32LE(lo >>> 0, 24);
    b.writeUInt32LE(hi >>> 0, 28);
  }

  private sendAck(node: number, p: Peer): void {
    if (!p.key || this.peerAddrs[node] === undefined) return;
    p.ackDue = false;
    const b = Buffer.alloc(DATAGRAM_HEADER_BYTES + DATAGRAM_MAC_BYTES);
    b.writeUInt32LE(DATAGRAM_MAGIC, 0);
    b.writeUInt8(DATAGRAM_VERSION, 4);
    b.writeUInt8(TYPE_ACK, 5);
    b.writeUInt32LE(this.node, 8);
    b.writeUInt32LE(node, 12);
    this.writeAck(p, b);
    signDatagram(p.key, b, DATAGRAM_HEADER_BYTES);
    this.emit(node, b);
  }

  /** Put a datagram on the wire, through the injected faults if any. */
  private emit(node: number, b: Buffer): void {
    const addr = this.peerAddrs[node];
    if (!addr || this.socketClosed) return;
    const f = this.o.fault;
    const rng = this.rng;
    const out = (): void => {
      if (this.socketClosed) return;
      this.c.datagramsSent++;
      this.socket.send(b, addr.port, addr.host);
    };
    if (!f || !rng) return out();
    if (rng.chance(f.loss ?? 0)) {
      this.c.datagramsSent++; // sent, and lost on the way
      return;
    }
    const copies = rng.chance(f.duplicate ?? 0) ? 2 : 1;
    for (let i = 0; i < copies; i++) {
      if (rng.chance(f.reorder ?? 0)) setTimeout(out, 1 + rng.int(4)).unref();
      else out();
    }
  }

  private socketClosed = false;

  private receive(msg: Buffer): void {
    if (this.socketClosed) return;
    if (msg.length < DATAGRAM_HEADER_BYTES + DATAGRAM_MAC_BYTES || msg.readUInt32LE(0) !== DATAGRAM_MAGIC || msg.readUInt8(4) !== DATAGRAM_VERSION) return this.foreign();
    const type = msg.readUInt8(5);
    const from = msg.readUInt32LE(8);
    const to = msg.readUInt32LE(12);
    if ((type !== TYPE_DATA && type !== TYPE_ACK) || to !== this.node || from === this.node) return this.foreign();
    // Until setPeers the node count is unknown: drop; the sender retransmits.
    if (this.peerAddrs.length === 0) return;
    if (from >= this.peerAddrs.length) return this.foreign();
    const p = this.peer(from);
    if (!p.key) {
      if (p.held.length < MAX_HELD_FOR_KEY) p.held.push(msg);
      return;
    }
    const end = msg.length - DATAGRAM_MAC_BYTES;
    if (!timingSafeEqual(macOf(p.key, msg, end), msg.subarray(end))) return this.foreign();
    const flags = msg.readUInt8(6);
    if (type === TYPE_DATA && (flags & FLAG_FIRST) !== 0 && end < DATAGRAM_HEADER_BYTES + FRAME_HEADER_BYTES) return this.foreign();
    this.c.datagramsReceived++;
    this.acked(from, p, msg.readUInt32LE(20), msg.readUInt32LE(24), msg.readUInt32LE(28));
    if (type === TYPE_DATA) this.data(from, p, msg.readUInt32LE(16), (flags & FLAG_FIRST) !== 0, msg.subarray(DATAGRAM_HEADER_BYTES, end));
  }

  private foreign(): void {
    this.c.foreignDropped++;
  }

  /** The peer's acknowledgement of our datagrams: cumulative `ack`, SACK bits beyond it. */
  private acked(node: number, p: Peer, ack: number, lo: number, hi: number): void {
    if (p.dead) return;
    const advance = seqDiff(ack, p.una);
    if (advance > 0 && advance <= p.flight.length) {
      const done = p.flight.splice(0, advance);
      p.una = ack;
      p.rto = this.retransmitMs;
      p.lastProgress = performance.now();
      for (const d of done) d.onSent?.();
    }
    if ((lo | hi) !== 0 && p.flight.length > 0) {
      // Mark SACKed datagrams; a hole with FAST_RETRANSMIT_AFTER SACKed ones after it goes again at once.
      let sackedAfter = 0;
      for (let i = p.flight.length - 1; i >= 0; i--) {
        const d = p.flight[i];
        const rel = seqDiff(d.seq, ack) - 1; // SACK bits are relative to this datagram's `ack`
        if (rel >= 0 && rel < SACK_BITS && ((rel < 32 ? lo >>> rel : hi >>> (rel - 32)) & 1) === 1) d.sacked = true;
        if (d.sacked) sackedAfter++;
        else if (sackedAfter >= FAST_RETRANSMIT_AFTER && !d.fastDone) {
          d.fastDone = true;
          this.c.retransmissions++;
          this.transmit(node, p, d);
        }
      }
    }
    if (p.flight.length === 0) this.notifyDrained();
    this.pump(node, p);
  }

  private data(from: number, p: Peer, seq: number, first: boolean, body: Buffer): void {
    this.lastDataIn = performance.now();
    this.scheduleAck(p);
    const d = seqDiff(seq, p.expected);
    if (d < 0 || p.ahead.has(seq)) {
      this.c.duplicatesDropped++;
      return;
    }
    if (d >= this.window * RECV_AHEAD_WINDOWS) return; // too far ahead: the sender retransmits it later
    p.ahead.set(seq, { first, body });
    for (let a = p.ahead.get(p.expected); a !== undefined; a = p.ahead.get(p.expected)) {
      p.ahead.delete(p.expected);
      p.expected = (p.expected + 1) >>> 0;
      this.consume(from, p, a);
      if (p.dead) return;
    }
  }

  /** The next datagram in sequence: start, continue or complete a frame. */
  private consume(from: number, p: Peer, a: Arrived): void {
    let body = a.body;
    if (a.first) {
      if (p.assembling) return this.protocolError(from, p, 'a frame started before the previous one was complete');
      const { h, bytes } = decodeHeader(body, 0);
      body = body.subarray(FRAME_HEADER_BYTES);
      if (body.length > bytes) return this.protocolError(from, p, 'a fragment longer than its frame');
      if (body.length === bytes) return this.deliver(from, h, body);
      const buf = Buffer.allocUnsafe(bytes);
      body.copy(buf, 0);
      p.assembling = { header: h, buf, fill: body.length };
      return;
    }
    const f = p.assembling;
    if (!f) return this.protocolError(from, p, 'a fragment outside any frame');
    if (f.fill + body.length > f.buf.length) return this.protocolError(from, p, 'fragments longer than their frame');
    body.copy(f.buf, f.fill);
    f.fill += body.length;
    if (f.fill === f.buf.length) {
      p.assembling = undefined;
      this.deliver(from, f.header, f.buf);
    }
  }

  private deliver(from: number, h: FrameHeader, payload: Uint8Array): void {
    this.c.framesReceived++;
    this.c.bytesReceived += payload.byteLength;
    this.onFrame(from, h, payload);
  }

  private protocolError(from: number, p: Peer, what: string): void {
    p.dead = true;
    this.o.onError(new TransportError(`node ${this.node}: datagram protocol error from node ${from}: ${what}`));
  }

  private scheduleAck(p: Peer): void {
    p.ackDue = true;
    this.ackFlush ??= setImmediate(() => {
      this.ackFlush = undefined;
      for (const [node, q] of this.peers) if (q.ackDue) this.sendAck(node, q);
    });
  }

  private armTimer(): void {
    if (this.timer) return;
    const every = Math.max(1, Math.floor(this.retransmitMs / 4));
    this.timer = setInterval(() => this.tick(), every);
    this.timer.unref();
  }

  /** Retransmit what timed out, give up on silent peers; stop when nothing is in flight. */
  private tick(): void {
    const now = performance.now();
    let busy = false;
    for (const [node, p] of this.peers) {
      if (p.dead || p.flight.length === 0) continue;
      if (now - p.lastProgress > this.giveUpMs || now > p.deadline) {
        this.giveUp(node, p);
        continue;
      }
      busy = true;
      let timedOut = false;
      for (const d of p.flight) {
        if (d.sacked || now - d.sentAt < p.rto) continue;
        timedOut = true;
        d.fastDone = false;
        this.c.retransmissions++;
        this.transmit(node, p, d);
      }
      if (timedOut) p.rto = Math.min(p.rto * 2, this.retransmitMs * MAX_BACKOFF);
    }
    if (!busy && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
      this.notifyDrained();
    }
  }

  private giveUp(node: number, p: Peer): void {
    p.dead = true;
    // Frames not (completely) acknowledged: those queued, and those whose last datagram is in flight.
    const ends = p.flight.filter((d) => d.frameBytes >= 0);
    const frames = p.queue.length + ends.length;
    const bytes = p.queue.reduce((n, q) => n + q.payload.byteLength, 0) + ends.reduce((n, d) => n + d.frameBytes, 0);
    p.flight.length = 0;
    p.queue.length = 0;
    const waited = p.deadline < Infinity ? 'after its ranks had returned' : `for ${this.giveUpMs} ms`;
    this.o.onError(
      new TransportError(
        `node ${this.node}: node ${node} acknowledged no datagram ${waited}; ${frames} frame(s) to it are lost`,
        'the node may have died or a firewall may drop UDP between the nodes',
      ),
      { peer: node, frames, bytes },
    );
    this.notifyDrained();
  }

  /**
   * Every rank of `node` has returned: what it has not acknowledged within `graceMs`
   * (its process acknowledges until it closes) never will be; give up on it then
   * instead of after giveUpMs.
   */
  finished(node: number, graceMs = 300): void {
    const p = this.peers.get(node);
    if (!p || p.dead) return;
    p.deadline = Math.min(p.deadline, performance.now() + graceMs);
  }

  private pendingOut(): boolean {
    for (const p of this.peers.values()) if (!p.dead && (p.flight.length > 0 || p.queue.length > 0)) return true;
    return false;
  }

  private notifyDrained(): void {
    if (this.drained.length === 0 || this.pendingOut()) return;
    for (const f of this.drained.splice(0)) f();
  }

  /**
   * Wait until everything sent is acknowledged (at most giveUpMs), linger while peers
   * still send (so that the acks of their last datagrams are not lost with the
   * socket: up to 2 RTOs after the last data datagram, at most giveUpMs), then close.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const deadline = performance.now() + this.giveUpMs;
    if (this.pendingOut()) {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, this.giveUpMs);
        t.unref();
        this.drained.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    const linger = 2 * this.retransmitMs;
    while (!this.socketClosed && performance.now() - this.lastDataIn < linger && performance.now() < deadline) {
      await new Promise((r) => setTimeout(r, Math.max(1, linger - (performance.now() - this.lastDataIn))));
    }
    this.shut();
  }

  abort(_reason: string): void {
    this.closed = true;
    this.shut();
  }

  private shut(): void {
    if (this.socketClosed) return;
    this.socketClosed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.ackFlush) clearImmediate(this.ackFlush);
    this.ackFlush = undefined;
    for (const f of this.drained.splice(0)) f();
    this.socket.close();
  }
}
