/**
 * Adaptive connection management (seed 003, Ch. 3: MVAPICH's ACM over UD): a NodeLink
 * that starts every pair of nodes on the reliable datagram path (udp/datagram-path.ts,
 * the UD queue pair) and gives a pair a TCP connection (tcp/device.ts, the RC queue
 * pair) by policy:
 *
 * - `static`: a connection to every peer at start (the original MVAPICH);
 * - `on-demand`: a connection once the pair has exchanged more than `threshold`
 *   messages (default 16), counting both directions; the messages until then, and the
 *   one that crosses it, travel as datagrams;
 * - `partial`: at start, connections to the peers at rank distance ±2^i mod N,
 *   i = 0..⌈log2 N⌉−1 (partialPeers: 2·log2 N − 1 peers for power-of-two N), the rest
 *   on demand.
 * Initial connections (static, partial) are dialled by the lower node of the pair, so a
 * pair has exactly one; start() resolves when all of this node's are up.
 *
 * On-demand set-up is the seed's three-way handshake over the datagram path, as control
 * frames (space SPACE_CTRL, context CM_CONTEXT, src = dst = −2: never a rank's key;
 * tag = kind, index = the request's sequence number, payload 1 byte for a reply):
 *
 *   a → b  REQUEST(seq)        a has passed the threshold with b
 *   b → a  REPLY(seq, yes|no)  yes: b will accept a's connection
 *   a      dials b (TCP, authenticated); once it is established:
 *   a → b  CONFIRM(seq)        a's side is usable; b switches when it has both the
 *                              CONFIRM and the accepted connection
 *
 * The datagram path is reliable, yet a REQUEST that has no reply within requestRetryMs
 * goes again with the same sequence number (backoff ×2); the responder remembers the
 * last request of each peer and answers a repeat of it with the same reply, never
 * deciding twice, and the requester acts only on the reply to its current request in
 * state `requested`: a duplicate request never makes a second connection.
 * Race rule (simultaneous requests): b answers yes only when it has not itself
 * requested a connection to a, or b's node index is higher than a's (b then drops its
 * own request, whose reply will be no). So the lower node's request wins, the other
 * side gets a negative reply and waits for the winner's connection (state `yielded`),
 * and exactly one TCP connection is made per pair. A node that is dialling answers a
 * crossing request no (its connection serves both directions); a connected node
 * answers yes (the requester's connect() reuses the connection it has).
 *
 * Connection-management frames are not handled when they arrive but by a
 * reduced-frequency poll, controlPollMs (default 1 ms) after the first one waiting, as
 * the seed polls its separate UD completion queue less often than the data path (the
 * timer runs only while control frames wait, not when idle). Data frames are delivered
 * at once.
 *
 * Order across the switch: when a starts sending to b over TCP, its first TCP frame to
 * b is SWITCH (same control header, tag CM_SWITCH, 8-byte payload) carrying the number
 * of data frames a sent to b as datagrams; b holds a's TCP frames until it has delivered
 * that many datagram frames from a. Datagram frames from a beyond that number are a
 * protocol error (a never sends data as datagrams once it has switched).
 *
 * Not handled: a TCP connection that fails after the switch is reported by the
 * TcpDevice's onError and not re-established; idle connections are not dismantled.
 */
import { TransportError, ArgumentError } from '../core/errors.js';
import { median } from '../core/stats.js';
import { SPACE_CTRL, type FrameHeader, type NodeLink } from './types.js';
import { HeldFrames, type FrameReceiver } from './held-frames.js';
import type { DatagramCounters, DatagramPath } from './udp/datagram-path.js';
import type { TcpCounters, TcpDevice } from './tcp/device.js';

export type ConnectionPolicy = 'static' | 'on-demand' | 'partial';
export const CONNECTION_POLICIES: readonly ConnectionPolicy[] = ['static', 'on-demand', 'partial'];
/** Messages a pair exchanges (both directions) before on-demand connects it: more than this many (the seed's 16). */
export const DEFAULT_THRESHOLD = 16;

/**
 * Bytes a pair may move as datagrams before on-demand connects it whatever the message
 * count (default 64 KiB): an extension of the seed's rule, which counts messages only,
 * so that a bulk transfer early in a job does not crawl over the datagram path.
 */
export const DEFAULT_BYTE_THRESHOLD = 64 * 1024;

/** A job's connection settings (coll run --connections, COLL_CONNECTIONS, launch()). */
export interface ConnectionSettings {
  readonly policy: ConnectionPolicy;
  /** More than this many messages between a pair connect it (on-demand, partial). */
  readonly threshold: number;
  /** More than this many bytes between a pair connect it (on-demand, partial); Infinity: messages only. */
  readonly byteThreshold: number;
}

/**
 * The default policy, partial. Measured here (docs/runtime.md, `coll experiment
 * connections --measure`): a pair's first round trips on the datagram path cost several
 * times a connection's (about 0.4–1.2 ms against 0.06–0.6 ms; close in steady state), so
 * on-demand makes each pair's first 16 messages slow and puts the set-up (about 7 ms) in
 * the middle of the job (first pass of a collective mix +10–14 %); static pays N − 1 connections per
 * node before the ranks run (87 ms at 8 nodes here), which grows with N. Partial
 * connects the ±2^i peers at start, 2·log2 N − 1 of them: the partners of recursive
 * doubling (r XOR 2^i = r ± 2^i), dissemination, binomial trees and rings, i.e. nearly
 * all collective traffic, so collectives never wait on datagrams, at a start-up cost
 * that grows with log N; at 4 nodes or fewer it is static.
 */
export const DEFAULT_CONNECTIONS: ConnectionSettings = { policy: 'partial', threshold: DEFAULT_THRESHOLD, byteThreshold: DEFAULT_BYTE_THRESHOLD };

export function parseConnectionPolicy(value: string, where = '--connections'): ConnectionPolicy {
  if ((CONNECTION_POLICIES as readonly string[]).includes(value)) return value as ConnectionPolicy;
  throw new ArgumentError(`${where} '${value}' is not a connection policy`, `use one of ${CONNECTION_POLICIES.join(', ')}`);
}

/** A threshold: a non-negative integer, or Infinity (never). */
function isThreshold(n: number): boolean {
  return n === Infinity || (Number.isSafeInteger(n) && n >= 0);
}

function checkThreshold(name: string, n: number): number {
  if (!isThreshold(n)) throw new ArgumentError(`${name} must be a non-negative integer, got ${n}`);
  return n;
}

function parseCount(value: string, where: string): number {
  const n = value === 'inf' || value === 'Infinity' ? Infinity : Number(value);
  if (!isThreshold(n)) throw new ArgumentError(`${where} must be a non-negative integer (or inf), got '${value}'`);
  return n;
}

/**
 * The settings of a job: explicit values over the environment (COLL_CONNECTIONS,
 * COLL_CONNECTION_THRESHOLD, COLL_CONNECTION_BYTES) over the defaults.
 */
export function connectionSettings(
  o: { policy?: ConnectionPolicy; threshold?: number; byteThreshold?: number } = {},
  env: Readonly<Record<string, string | undefined>> = process.env,
): ConnectionSettings {
  const policy = o.policy ?? (env.COLL_CONNECTIONS ? parseConnectionPolicy(env.COLL_CONNECTIONS, 'COLL_CONNECTIONS') : DEFAULT_CONNECTIONS.policy);
  const threshold = o.threshold ?? (env.COLL_CONNECTION_THRESHOLD ? parseCount(env.COLL_CONNECTION_THRESHOLD, 'COLL_CONNECTION_THRESHOLD') : DEFAULT_CONNECTIONS.threshold);
  const byteThreshold = o.byteThreshold ?? (env.COLL_CONNECTION_BYTES ? parseCount(env.COLL_CONNECTION_BYTES, 'COLL_CONNECTION_BYTES') : DEFAULT_CONNECTIONS.byteThreshold);
  return { policy, threshold: checkThreshold('connection threshold', threshold), byteThreshold: checkThreshold('connection byte threshold', byteThreshold) };
}

/** Context of connection-management frames (communicator contexts are never negative). */
export const CM_CONTEXT = -0x434d;
/** src and dst of connection-management frames (never a world rank, nor ANY). */
export const CM_ADDRESS = -2;
export const CM_REQUEST = 1;
export const CM_REPLY = 2;
export const CM_CONFIRM = 3;
export const CM_SWITCH = 4;

/** Header of a connection-management frame of `kind` with sequence number `seq`. */
export function controlHeader(kind: number, seq: number, bytes = 0): FrameHeader {
  return { context: CM_CONTEXT, space: SPACE_CTRL, sig: 0, tag: kind, src: CM_ADDRESS, dst: CM_ADDRESS, index: seq, total: bytes, offset: 0 };
}

export function isControl(h: FrameHeader): boolean {
  return h.space === SPACE_CTRL && h.context === CM_CONTEXT && h.src === CM_ADDRESS && h.dst === CM_ADDRESS;
}

/** Peers of `node` at rank distance ±2^i mod `nodes`, i = 0..⌈log2 nodes⌉−1, ascending. */
export function partialPeers(node: number, nodes: number): number[] {
  const out = new Set<number>();
  for (let d = 1; d < nodes; d *= 2) {
    out.add((node + d) % nodes);
    out.add((((node - d) % nodes) + nodes) % nodes);
  }
  out.delete(node);
  return [...out].sort((a, b) => a - b);
}

/** The connections each node ends up with under a policy, for a communication pattern. */
export interface ConnectionPlan {
  /** peers[n]: the nodes node n is connected to, ascending. */
  readonly peers: readonly (readonly number[])[];
  /** Connections per node, and their mean (the seed's Table 3.2 quantity). */
  readonly perNode: readonly number[];
  readonly average: number;
}

/**
 * Which pairs end up connected when `pattern` (one (src, dst) entry per message; messages
 * of a node to itself are ignored) runs under `policy`: static connects every pair;
 * partial the partialPeers pairs plus, like on-demand, every pair that exchanged more
 * than `threshold` messages, both directions counted.
 */
export function connectionsFor(policy: ConnectionPolicy, nodes: number, pattern: Iterable<readonly [number, number]>, threshold = DEFAULT_THRESHOLD): ConnectionPlan {
  if (!Number.isInteger(nodes) || nodes < 1) throw new ArgumentError(`nodes ${nodes} is not a positive integer`);
  const sets = Array.from({ length: nodes }, () => new Set<number>());
  const link = (a: number, b: number): void => {
    sets[a].add(b);
    sets[b].add(a);
  };
  if (policy === 'static') {
    for (let a = 0; a < nodes; a++) for (let b = a + 1; b < nodes; b++) link(a, b);
  } else {
    if (policy === 'partial') for (let a = 0; a < nodes; a++) for (const b of partialPeers(a, nodes)) link(a, b);
    const count = new Map<number, number>();
    for (const [s, d] of pattern) {
      if (!(s >= 0 && s < nodes && d >= 0 && d < nodes && Number.isInteger(s) && Number.isInteger(d))) {
        throw new ArgumentError(`message (${s}, ${d}) names a node outside 0..${nodes - 1}`);
      }
      if (s === d) continue;
      const k = Math.min(s, d) * nodes + Math.max(s, d);
      const c = (count.get(k) ?? 0) + 1;
      count.set(k, c);
      if (c > threshold) link(s, d);
    }
  }
  const peers = sets.map((s) => [...s].sort((a, b) => a - b));
  const perNode = peers.map((p) => p.length);
  return { peers, perNode, average: perNode.reduce((a, b) => a + b, 0) / nodes };
}

export interface AdaptiveLinkOptions {
  readonly node: number;
  readonly nodes: number;
  readonly policy: ConnectionPolicy;
  /** On-demand: connect a pair after more than this many messages (default 16). */
  readonly threshold?: number;
  /** On-demand: connect a pair after more than this many bytes either way (default Infinity: messages only, the seed's rule). */
  readonly byteThreshold?: number;
  /** The datagram path every pair starts on (listening, its peers set). */
  readonly datagram: DatagramPath;
  /** The TCP device connections are made with (listening, its peers set). */
  readonly tcp: TcpDevice;
  /** Period of the connection-management poll (default 1 ms). */
  readonly controlPollMs?: number;
  /** A request without a reply goes again after this long, doubling (default 500 ms). */
  readonly requestRetryMs?: number;
  /** Protocol failures of connection management (the devices report their own). */
  readonly onError: (e: Error) => void;
}

export interface PeerTraffic {
  readonly peer: number;
  readonly messagesSent: number;
  readonly messagesReceived: number;
  readonly bytesSent: number;
  readonly bytesReceived: number;
}

/** Connection management for the job report. */
export interface ConnectionCounters {
  readonly policy: ConnectionPolicy;
  readonly threshold: number;
  /** Bytes that connect a pair too (null: messages only). */
  readonly byteThreshold: number | null;
  /** Pairs this node sends over TCP on (each pair once), and those peers. */
  readonly connections: number;
  readonly peers: readonly number[];
  /** Peers connected at start (static, partial). */
  readonly initialPeers: readonly number[];
  readonly connectionsDialled: number;
  readonly connectionsAccepted: number;
  readonly requestsSent: number;
  readonly requestRetries: number;
  readonly requestsReceived: number;
  /** Requests received again (same sequence number), answered with the same reply. */
  readonly duplicateRequests: number;
  /** Replies this node sent. */
  readonly positiveReplies: number;
  readonly negativeReplies: number;
  /** Replies to this node's requests. */
  readonly positiveRepliesReceived: number;
  readonly negativeRepliesReceived: number;
  /** Replies that answered no current request (repeats, abandoned requests). */
  readonly staleReplies: number;
  readonly confirmsSent: number;
  readonly confirmsReceived: number;
  /** Median µs from a request to its connection being usable (0: none), and how many. */
  readonly setupUs: number;
  readonly setups: number;
  /** Data frames and bytes over each path (connection-management frames not counted). */
  readonly datagramFramesSent: number;
  readonly datagramFramesReceived: number;
  readonly datagramBytesSent: number;
  readonly datagramBytesReceived: number;
  readonly tcpFramesSent: number;
  readonly tcpFramesReceived: number;
  readonly tcpBytesSent: number;
  readonly tcpBytesReceived: number;
  readonly traffic: readonly PeerTraffic[];
  readonly datagram: DatagramCounters;
  readonly tcp: TcpCounters;
}

type CmState = 'none' | 'requested' | 'yielded' | 'accepting' | 'dialling' | 'connected';

class PeerState {
  messagesSent = 0;
  messagesReceived = 0;
  bytesSent = 0;
  bytesReceived = 0;
  cm: CmState = 'none';
  initial = false;
  /** Our current request: its sequence number, when it went, its retry timer and delay. */
  reqSeq = 0;
  reqAt = 0;
  retry: NodeJS.Timeout | undefined;
  retryMs = 0;
  /** The peer's last request and our reply to it. */
  lastPeerReq: { seq: number; yes: boolean } | undefined;
  confirmed = false;
  viaTcp = false;
  datagramFramesSent = 0;
  datagramFramesReceived = 0;
  /** From the peer's SWITCH: its datagram frames before its first TCP frame. */
  switchAt: number | undefined;
  held: [FrameHeader, Uint8Array][] = [];
  waiters: (() => void)[] = [];
}

interface ControlIn {
  readonly from: number;
  readonly kind: number;
  readonly seq: number;
  readonly payload: Uint8Array;
}

export class AdaptiveLink implements NodeLink {
  readonly node: number;
  readonly policy: ConnectionPolicy;
  readonly threshold: number;
  readonly byteThreshold: number;
  /** Held payloads are copied: the devices hand on views of their receive buffers. */
  private readonly held = new HeldFrames(true);

  get onFrame(): FrameReceiver {
    return this.held.get();
  }

  /** Attach the receiver; frames held until now are delivered to it first, in order. */
  set onFrame(f: FrameReceiver) {
    this.held.set(f);
  }

  private readonly dp: DatagramPath;
  private readonly tcp: TcpDevice;
  private readonly peers: PeerState[];
  private readonly controlPollMs: number;
  private readonly requestRetryMs: number;
  private readonly inbox: ControlIn[] = [];
  private poll: NodeJS.Timeout | undefined;
  private nextReq = 0;
  private closing = false;
  private readonly setupUs: number[] = [];
  private n = {
    requestsSent: 0,
    requestRetries: 0,
    requestsReceived: 0,
    duplicateRequests: 0,
    positiveReplies: 0,
    negativeReplies: 0,
    positiveRepliesReceived: 0,
    negativeRepliesReceived: 0,
    staleReplies: 0,
    confirmsSent: 0,
    confirmsReceived: 0,
    datagramFramesSent: 0,
    datagramFramesReceived: 0,
    datagramBytesSent: 0,
    datagramBytesReceived: 0,
    tcpFramesSent: 0,
    tcpFramesReceived: 0,
    tcpBytesSent: 0,
    tcpBytesReceived: 0,
  };

  constructor(private readonly o: AdaptiveLinkOptions) {
    if (!CONNECTION_POLICIES.includes(o.policy)) throw new ArgumentError(`unknown connection policy '${String(o.policy)}'`, `policies: ${CONNECTION_POLICIES.join(', ')}`);
    this.node = o.node;
    this.policy = o.policy;
    this.threshold = checkThreshold('connection threshold', o.threshold ?? DEFAULT_THRESHOLD);
    this.byteThreshold = checkThreshold('connection byte threshold', o.byteThreshold ?? Infinity);
    this.controlPollMs = o.controlPollMs ?? 1;
    this.requestRetryMs = o.requestRetryMs ?? 500;
    this.dp = o.datagram;
    this.tcp = o.tcp;
    this.peers = Array.from({ length: o.nodes }, () => new PeerState());
    this.dp.onFrame = (from, h, p) => this.fromDatagram(from, h, p);
    this.tcp.onFrame = (from, h, p) => this.fromTcp(from, h, p);
    this.tcp.onConnection = (peer, dialled) => this.connection(peer, dialled);
  }

  /** The initial peers of this node under its policy. */
  initialPeers(): number[] {
    if (this.policy === 'static') return Array.from({ length: this.peers.length }, (_, i) => i).filter((i) => i !== this.node);
    if (this.policy === 'partial') return partialPeers(this.node, this.peers.length);
    return [];
  }

  /** Establish the initial connections (the lower node of each pair dials); resolves when all are up. */
  async start(): Promise<void> {
    const initial = this.initialPeers();
    for (const peer of initial) {
      const st = this.peers[peer];
      st.initial = true;
      if (st.cm !== 'none') continue; // traffic before start() began an on-demand handshake: it finishes the job
      if (this.node < peer) {
        st.cm = 'dialling';
        this.tcp.connect(peer).then(
          () => this.usable(peer),
          (e: Error) => this.fail(peer, `initial connection to node ${peer} failed: ${e.message}`),
        );
      } else {
        st.cm = 'accepting';
        st.confirmed = true; // nothing to confirm: both sides know the initial set
        this.maybeAccepted(peer);
      }
    }
    await Promise.all(initial.map((peer) => this.whenConnected(peer)));
  }

  /** Resolves once frames to `peer` go over TCP. */
  whenConnected(peer: number): Promise<void> {
    const st = this.peers[peer];
    if (st.viaTcp) return Promise.resolve();
    return new Promise((resolve) => st.waiters.push(resolve));
  }

  send(node: number, header: FrameHeader, payload: Uint8Array, onSent?: () => void): void {
    const st = this.peers[node];
    if (!st || node === this.node) throw new TransportError(`node ${this.node}: no node ${node} to send a frame to`);
    const n = payload.byteLength;
    if (header.offset === 0) st.messagesSent++;
    st.bytesSent += n;
    if (st.viaTcp) {
      this.n.tcpFramesSent++;
      this.n.tcpBytesSent += n;
      this.tcp.send(node, header, payload, onSent);
    } else {
      st.datagramFramesSent++;
      this.n.datagramFramesSent++;
      this.n.datagramBytesSent += n;
      this.dp.send(node, header, payload, onSent);
    }
    this.maybeRequest(node, st);
  }

  // ---- data path -------------------------------------------------------------

  private fromDatagram(from: number, h: FrameHeader, p: Uint8Array): void {
    if (isControl(h)) {
      this.inbox.push({ from, kind: h.tag, seq: h.index, payload: Uint8Array.from(p) });
      this.poll ??= setTimeout(() => this.processControl(), this.controlPollMs).unref();
      return;
    }
    const st = this.peers[from];
    if (!st) return;
    this.n.datagramFramesReceived++;
    this.n.datagramBytesReceived += p.byteLength;
    this.count(st, h, p);
    if (st.switchAt !== undefined && st.datagramFramesReceived >= st.switchAt) {
      return this.fail(from, `node ${from} sent a data frame as a datagram after switching to TCP`);
    }
    st.datagramFramesReceived++;
    this.onFrame(from, h, p);
    this.release(from, st);
    this.maybeRequest(from, st);
  }

  private fromTcp(from: number, h: FrameHeader, p: Uint8Array): void {
    const st = this.peers[from];
    if (!st) return;
    if (isControl(h)) {
      if (h.tag !== CM_SWITCH || p.byteLength !== 8) return this.fail(from, `unexpected connection-management frame ${h.tag} from node ${from} over TCP`);
      const b = Buffer.from(p.buffer, p.byteOffset, 8);
      st.switchAt = b.readUInt32LE(0) + b.readUInt32LE(4) * 2 ** 32;
      this.release(from, st);
      return;
    }
    this.n.tcpFramesReceived++;
    this.n.tcpBytesReceived += p.byteLength;
    this.count(st, h, p);
    if (st.switchAt !== undefined && st.held.length === 0 && st.datagramFramesReceived >= st.switchAt) this.onFrame(from, h, p);
    else st.held.push([h, Uint8Array.from(p)]); // the payload is a view of the socket's chunk
  }

  /** Deliver the peer's held TCP frames once all its datagram frames before the switch are delivered. */
  private release(from: number, st: PeerState): void {
    if (st.switchAt === undefined || st.datagramFramesReceived < st.switchAt || st.held.length === 0) return;
    for (const [h, p] of st.held.splice(0)) this.onFrame(from, h, p);
  }

  private count(st: PeerState, h: FrameHeader, p: Uint8Array): void {
    if (h.offset === 0) st.messagesReceived++;
    st.bytesReceived += p.byteLength;
  }

  private maybeRequest(peer: number, st: PeerState): void {
    if (this.policy === 'static' || st.cm !== 'none' || this.closing) return;
    if (st.messagesSent + st.messagesReceived <= this.threshold && st.bytesSent + st.bytesReceived <= this.byteThreshold) return;
    st.cm = 'requested';
    st.reqSeq = ++this.nextReq;
    st.reqAt = performance.now();
    st.retryMs = this.requestRetryMs;
    this.n.requestsSent++;
    this.control(peer, CM_REQUEST, st.reqSeq);
    this.armRetry(peer, st);
  }

  private armRetry(peer: number, st: PeerState): void {
    st.retry = setTimeout(() => {
      st.retry = undefined;
      if (st.cm !== 'requested' || this.closing) return;
      this.n.requestRetries++;
      this.control(peer, CM_REQUEST, st.reqSeq);
      st.retryMs *= 2;
      this.armRetry(peer, st);
    }, st.retryMs).unref();
  }

  private control(peer: number, kind: number, seq: number, payload: Uint8Array = new Uint8Array(0)): void {
    if (this.closing) return;
    this.dp.send(peer, controlHeader(kind, seq, payload.byteLength), payload);
  }

  // ---- connection management (the reduced-frequency poll) --------------------

  private processControl(): void {
    this.poll = undefined;
    for (const m of this.inbox.splice(0)) {
      const st = this.peers[m.from];
      if (!st) continue;
      if (m.kind === CM_REQUEST) this.request(m.from, st, m.seq);
      else if (m.kind === CM_REPLY) this.reply(m.from, st, m.seq, m.payload[0] === 1);
      else if (m.kind === CM_CONFIRM) {
        this.n.confirmsReceived++;
        if (st.cm === 'accepting') {
          st.confirmed = true;
          this.maybeAccepted(m.from);
        }
      } else this.fail(m.from, `unknown connection-management message ${m.kind} from node ${m.from}`);
    }
  }

  private request(from: number, st: PeerState, seq: number): void {
    this.n.requestsReceived++;
    if (st.lastPeerReq?.seq === seq) {
      this.n.duplicateRequests++;
      return this.answer(from, seq, st.lastPeerReq.yes);
    }
    let yes: boolean;
    switch (st.cm) {
      case 'requested':
        // The race rule: the lower node's request wins.
        yes = this.node > from;
        if (yes) {
          clearTimeout(st.retry);
          st.retry = undefined;
          st.cm = 'accepting';
        }
        break;
      case 'dialling':
        yes = false; // our own connection is on its way and serves both directions
        break;
      case 'none':
      case 'yielded':
        yes = true;
        st.cm = 'accepting';
        break;
      default:
        yes = true; // accepting already, or connected: the requester's connect() reuses the connection
    }
    st.lastPeerReq = { seq, yes };
    this.answer(from, seq, yes);
    if (yes) this.maybeAccepted(from);
  }

  private answer(to: number, seq: number, yes: boolean): void {
    if (yes) this.n.positiveReplies++;
    else this.n.negativeReplies++;
    this.control(to, CM_REPLY, seq, Uint8Array.of(yes ? 1 : 0));
  }

  private reply(from: number, st: PeerState, seq: number, yes: boolean): void {
    if (yes) this.n.positiveRepliesReceived++;
    else this.n.negativeRepliesReceived++;
    if (st.cm !== 'requested' || seq !== st.reqSeq) {
      this.n.staleReplies++;
      return;
    }
    clearTimeout(st.retry);
    st.retry = undefined;
    if (!yes) {
      st.cm = 'yielded'; // the peer's request won; it will dial us
      return;
    }
    st.cm = 'dialling';
    this.tcp.connect(from).then(
      () => {
        if (this.closing) return;
        this.setupUs.push((performance.now() - st.reqAt) * 1000);
        this.n.confirmsSent++;
        this.control(from, CM_CONFIRM, seq);
        this.usable(from);
      },
      (e: Error) => this.fail(from, `connection to node ${from} failed: ${e.message}`),
    );
  }

  /** TcpDevice hook: a connection is authenticated. */
  private connection(peer: number, dialled: boolean): void {
    const st = this.peers[peer];
    if (!st || dialled) return; // a dialled one is handled where it was dialled
    if (st.cm === 'accepting') this.maybeAccepted(peer);
    else if (st.cm !== 'connected' && st.cm !== 'dialling') this.usable(peer); // a peer that connected unasked: use it
  }

  /** The responder's side is usable once it has the accepted connection and the requester's CONFIRM. */
  private maybeAccepted(peer: number): void {
    const st = this.peers[peer];
    if (st.cm === 'accepting' && st.confirmed && this.tcp.isConnected(peer)) this.usable(peer);
  }

  /** Switch sending to `peer` to TCP: SWITCH first, with the number of datagram frames before it. */
  private usable(peer: number): void {
    const st = this.peers[peer];
    st.cm = 'connected';
    if (st.viaTcp || this.closing) return;
    const b = Buffer.alloc(8);
    b.writeUInt32LE(st.datagramFramesSent >>> 0, 0);
    b.writeUInt32LE(Math.floor(st.datagramFramesSent / 2 ** 32), 4);
    if (!this.tcp.sendIfConnected(peer, controlHeader(CM_SWITCH, 0, 8), b)) return this.fail(peer, `the connection to node ${peer} closed before it was used`);
    st.viaTcp = true;
    this.tcp.openDirect(peer);
    for (const w of st.waiters.splice(0)) w();
  }

  private fail(peer: number, what: string): void {
    if (this.closing) return;
    this.o.onError(new TransportError(`node ${this.node}: connection management with node ${peer}: ${what}`));
  }

  counters(): ConnectionCounters {
    const peers: number[] = [];
    const traffic: PeerTraffic[] = [];
    this.peers.forEach((st, peer) => {
      if (st.viaTcp) peers.push(peer);
      if (peer !== this.node) {
        traffic.push({ peer, messagesSent: st.messagesSent, messagesReceived: st.messagesReceived, bytesSent: st.bytesSent, bytesReceived: st.bytesReceived });
      }
    });
    const tcp = this.tcp.counters();
    return {
      policy: this.policy,
      threshold: this.threshold,
      byteThreshold: Number.isFinite(this.byteThreshold) ? this.byteThreshold : null,
      connections: peers.length,
      peers,
      initialPeers: this.initialPeers(),
      connectionsDialled: tcp.dialled,
      connectionsAccepted: tcp.accepted,
      ...this.n,
      setupUs: this.setupUs.length > 0 ? Math.round(median(this.setupUs)) : 0,
      setups: this.setupUs.length,
      traffic,
      datagram: this.dp.counters(),
      tcp,
    };
  }

  private stopTimers(): void {
    this.closing = true;
    if (this.poll) clearTimeout(this.poll);
    this.poll = undefined;
    for (const st of this.peers) {
      clearTimeout(st.retry);
      st.retry = undefined;
      for (const w of st.waiters.splice(0)) w();
    }
  }

  /** Close both paths once what was sent is acknowledged (datagrams) or written (TCP). */
  async close(): Promise<void> {
    this.stopTimers();
    await Promise.all([this.dp.close(), this.tcp.close()]);
  }

  abort(reason: string): void {
    this.stopTimers();
    this.dp.abort(reason);
    this.tcp.abort(reason);
  }
}
