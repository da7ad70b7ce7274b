/**
 * Reliable broadcast over an unreliable multicast (seed 003 ch. 5, B4–B12, A2, A4, A5),
 * one instance per node process: a deterministic state machine driven by the messages
 * its ranks multicast (`send`), the datagrams it receives (`onDatagram`), control
 * frames from other nodes (`onControl`) and timers. It never touches sockets or clocks
 * itself (McastEnv), so tests run it on a simulated lossy network.
 *
 * Streams. Each (communicator context, sending node) is a stream with its own array of
 * `channels` broadcast channels, the same on every node of the group: fragment g of the
 * stream (numbered by the sender, contiguous within a message) travels in channel
 * g mod channels. Giving each sending node its own channels keeps channel choice a
 * local decision of the sender, so broadcasts from different roots are in flight at
 * once without agreeing on channels first; the sender is the stream's manager.
 *
 * Channel sets and split-phase synchronisation (B8, B9, A4). The channels form `sets`
 * sets of S = channels/sets; round r is the r-th use of a set (fragments [r·S, (r+1)·S)).
 * A set is synchronised only once it is used up (B8) — or after `idleUs` without new
 * data, when the sender closes it early with a CLOSE datagram naming its end —:
 * receivers that hold every fragment of the round and whose children in a binomial
 * combining tree rooted at the sender have reported it send SYNC_UP to their parent
 * (sync-up; these double as ACKs, B10), and the sender, having heard from all its
 * children, multicasts SYNC_DOWN and frees the set. The sender may bind round r to its
 * set while round r − sets is synchronised, so with 4 sets one set is in use while the
 * others are reclaimed, synced up and synced down; it stalls (counted) only when none
 * is free. With sets = 1 every use of the channels ends in a blocking sync (the elan
 * style of claim 2).
 *
 * The root returns once its message is bound to channels (B5): `onBuffered`.
 *
 * Reliability (B10, A5; reliable mode): every datagram carries a CRC-32; a receiver
 * drops a corrupted one and NACKs it straight to the manager (the sender) at once, and
 * NACKs holes that stay open for `nackUs` (datagrams may be reordered) or that a CLOSE
 * or poll reveals. The manager rebroadcasts each NACKed fragment once per NACK batch
 * (a resync: every node that missed it gets it, the others drop the duplicate). A set
 * not synchronised within `rtoUs` (or twice the smoothed sync time, if longer) of
 * being used up is polled (its CLOSE is multicast again, the wait doubling). A fragment
 * rebroadcast more than 4·`maxFail` times (each receiver that lost it may ask), or a set
 * polled more than `maxFail` times in a row without a new report, is a hardware
 * failure: the stream fails over to a point-to-point binomial tree over the reliable
 * node links (C_TREE frames forwarded by every node), for the fragments not yet
 * synchronised and for everything after.
 * Unreliable mode (B12) keeps the channels and their synchronisation (flow control)
 * but sends no checksums, NACKs, polls or rebroadcasts: a lost datagram is lost.
 *
 * Delivery: a node passes each message, once whole, to the destination rank it hosts
 * (one per node: the node's leader; it shares the data on-host, B11).
 */
import { TransportError } from '../../core/errors.js';
import type { FrameHeader } from '../types.js';
import type { McastOptions } from './options.js';
import {
  C_NACK,
  C_SYNC_UP,
  C_TREE,
  decodeDatagram,
  encodeDatagram,
  F_CHECKSUM,
  markResent,
  T_CLOSE,
  T_DATA,
  T_SYNC_DOWN,
  type McastHeader,
} from './wire.js';

export interface TimerHandle {
  cancel(): void;
}

export interface McastEnv {
  /** World rank → node. */
  readonly nodeOf: ArrayLike<number>;
  /** Send a datagram to every node of the job's multicast group. */
  multicast(datagram: Buffer): void;
  /** A control frame to `node` over the reliable point-to-point path. */
  control(node: number, kind: number, context: number, sender: number, value: number, data: Uint8Array): void;
  /** Microseconds. */
  now(): number;
  setTimer(delayUs: number, callback: () => void): TimerHandle;
  /** A whole broadcast message for the local rank `h.dst`. */
  deliver(h: FrameHeader, payload: Uint8Array): void;
}

/** What a rank's multicast send names (its MessageKey without `dst`). */
export interface McastKey {
  readonly context: number;
  readonly space: number;
  readonly tag: number;
  readonly src: number;
  readonly index: number;
  readonly sig: number;
}

export interface McastCounters {
  messagesSent: number;
  messagesDelivered: number;
  fragmentsSent: number;
  fragmentsReceived: number;
  bytesSent: number;
  duplicates: number;
  corrupt: number;
  /** SYNC_UP frames sent (the ACKs of B10). */
  acks: number;
  nacksSent: number;
  nacksReceived: number;
  /** Fragments rebroadcast on a NACK or a poll. */
  retransmissions: number;
  /** NACK batches that led to a rebroadcast (global resyncs). */
  resyncs: number;
  polls: number;
  closes: number;
  syncDowns: number;
  /** Sets synchronised (sender side), and the time from a set's closing to its sync (ms, sum and maximum). */
  setsSynced: number;
  syncMs: number;
  syncMsMax: number;
  /** Times a sender found no free channel set, and the time it waited (ms). */
  stalls: number;
  stallMs: number;
  failovers: number;
  /** Frames sent down the point-to-point tree after a fail-over. */
  treeFrames: number;
}

export function emptyCounters(): McastCounters {
  return {
    messagesSent: 0, messagesDelivered: 0, fragmentsSent: 0, fragmentsReceived: 0, bytesSent: 0, duplicates: 0, corrupt: 0, acks: 0,
    nacksSent: 0, nacksReceived: 0, retransmissions: 0, resyncs: 0, polls: 0, closes: 0, syncDowns: 0, setsSynced: 0, stalls: 0, stallMs: 0, syncMs: 0, syncMsMax: 0,
    failovers: 0, treeFrames: 0,
  };
}

/** Binomial combining tree over positions (0 = the sender). */
function treeOf(nodes: readonly number[], me: number): { parent: number; children: number[] } {
  const p = nodes.indexOf(me);
  const n = nodes.length;
  const children: number[] = [];
  for (let b = 1; b < n; b <<= 1) {
    if ((p & b) !== 0) break;
    if (p + b < n) children.push(nodes[p + b]);
  }
  return { parent: p === 0 ? -1 : nodes[p & (p - 1)], children };
}

interface Group {
  readonly context: number;
  readonly sender: number;
  /** [sender, then the receiving nodes ascending]. */
  readonly nodes: readonly number[];
  readonly dsts: readonly number[];
  readonly parent: number;
  readonly children: readonly number[];
  failedOver: boolean;
}

function makeGroup(context: number, sender: number, dsts: readonly number[], nodeOf: ArrayLike<number>, me: number): Group {
  const others = [...new Set(dsts.map((d) => nodeOf[d]))].filter((n) => n !== sender).sort((a, b) => a - b);
  const nodes = [sender, ...others];
  const { parent, children } = treeOf(nodes, me);
  return { context, sender, nodes, dsts, parent, children, failedOver: false };
}

interface PendingMessage {
  readonly key: McastKey;
  /** This message's destinations (communicators sharing a context and node set share the stream, not the leaders). */
  readonly dsts: readonly number[];
  readonly payload: Uint8Array;
  readonly fragments: number;
  first: number;
  next: number;
  readonly onBuffered: (() => void) | undefined;
}

interface SendRound {
  /** End of the round (exclusive g); set when closed. */
  end: number;
  closed: boolean;
  readonly datagrams: Buffer[];
  /** Last (re)transmission time per fragment, µs. */
  readonly sentAt: number[];
  readonly reported: Set<number>;
  polls: number;
  timer: TimerHandle | undefined;
  closeDatagram: Buffer | undefined;
  /** When the round was closed (µs). */
  closedAt: number;
  /** Reports counted at the last poll (a poll without progress counts toward fail-over). */
  reportedAtPoll: number;
  /** Polls in a row without progress. */
  idlePolls: number;
}

class SenderStream {
  nextG = 0;
  readonly rounds = new Map<number, SendRound>();
  /** Rounds below this are synchronised. */
  syncedBelow = 0;
  readonly syncedAbove = new Set<number>();
  readonly queue: PendingMessage[] = [];
  idleTimer: TimerHandle | undefined;
  stallStart = -1;
  /** Smoothed time from closing a set to its sync (µs; TCP's SRTT weights). */
  syncUs = 0;
  constructor(readonly g: Group) {}
}

interface RecvRound {
  readonly have: Uint8Array;
  count: number;
  /** Known end (exclusive g), or −1. */
  end: number;
  /** Fragments in the round: S, or fewer once a CLOSE named an earlier end. */
  need: number;
  readonly reported: Set<number>;
  reportedUp: boolean;
}

interface RecvMessage {
  readonly data: Uint8Array;
  got: number;
  readonly fragments: number;
}

class ReceiverStream {
  readonly rounds = new Map<number, RecvRound>();
  /** Rounds below this, and those in reclaimedAbove, are synchronised everywhere: their state is gone. */
  reclaimedBelow = 0;
  readonly reclaimedAbove = new Set<number>();
  highest = -1;
  readonly messages = new Map<number, RecvMessage>();
  nackTimer: TimerHandle | undefined;
  nackBackoff = 1;
  lastNackAt = -Infinity;
  /** Whether a fragment arrived ahead of the next expected one since the last check found no holes. */
  holes = false;
  /** The destination list last seen (most datagrams repeat it: no node-set check then). */
  lastDsts: readonly number[] = [];
  constructor(readonly g: Group) {}
}

/** Most fragments one NACK names, and most one resync rebroadcasts (the oldest first): a burst of rebroadcasts overflowing the receivers' buffers would make the next losses. */
const MAX_NACK = 64;
const MAX_RESEND = 16;
/** Rebroadcasts of one fragment per `maxFail` unit (several receivers NACK one loss at different times). */
const REBROADCASTS_PER_FAIL = 4;

export class McastBroadcaster {
  readonly counters = emptyCounters();
  private readonly senders = new Map<number, SenderStream>();
  private readonly receivers = new Map<string, ReceiverStream>();
  /** SYNC_UPs from children for streams this node has not heard of yet. */
  private readonly earlyReports = new Map<string, { from: number; round: number }[]>();
  private readonly S: number;
  private closed = false;

  constructor(
    readonly node: number,
    readonly options: McastOptions,
    private readonly env: McastEnv,
  ) {
    this.S = options.channels / options.sets;
  }

  /** Largest number of destinations a message may name (their list travels in every datagram). */
  static maxDestinations(o: McastOptions): number {
    return Math.floor(o.fragmentBytes / 4);
  }

  /** Multicast `payload` to `dsts` (world ranks, one per receiving node); `onBuffered` once it is bound to channels. */
  send(key: McastKey, dsts: readonly number[], payload: Uint8Array, onBuffered?: () => void): void {
    if (dsts.length > McastBroadcaster.maxDestinations(this.options)) {
      throw new TransportError(
        `a multicast to ${dsts.length} nodes does not fit the channel layout (fragments of ${this.options.fragmentBytes} bytes carry a 4-byte address per node)`,
      );
    }
    let s = this.senders.get(key.context);
    if (s === undefined) {
      s = new SenderStream(makeGroup(key.context, this.node, dsts, this.env.nodeOf, this.node));
      this.senders.set(key.context, s);
    } else if (!sameNodes(s.g, dsts, this.env.nodeOf)) {
      // A communicator's multicasts from one node always reach the same other nodes; a new
      // node set under the same context (a freed and reused context id) starts a new stream.
      this.flushSender(s);
      s = new SenderStream(makeGroup(key.context, this.node, dsts, this.env.nodeOf, this.node));
      this.senders.set(key.context, s);
    }
    const F = this.options.fragmentBytes;
    s.queue.push({ key, dsts, payload, fragments: Math.max(1, Math.ceil(payload.byteLength / F)), first: -1, next: 0, onBuffered });
    this.counters.messagesSent++;
    this.pump(s);
  }

  /** A datagram from the multicast group (authenticated; faults already injected). */
  onDatagram(b: Buffer, viaTree = false): void {
    const d = decodeDatagram(b);
    if (d === undefined) return;
    const h = d.h;
    if (h.sender === this.node) return; // our own, looped back
    if (h.sender >= 0x10000 || h.dsts.some((x) => x < 0 || x >= this.env.nodeOf.length)) return;
    if (!d.intact) {
      this.counters.corrupt++;
      const r = this.receivers.get(`${h.context}/${h.sender}`);
      // The header may be what was corrupted: NACK only a plausible fragment of a known stream.
      if (r !== undefined && h.type === T_DATA && h.g < r.highest + this.options.channels + 1) this.nack(r, [h.g]);
      return;
    }
    const r = this.receiver(h);
    if (r === undefined) return;
    if (h.type === T_DATA) this.onData(r, h, d.payload, viaTree);
    else if (h.type === T_CLOSE) this.onClose(r, h.round, h.g);
    else if (h.type === T_SYNC_DOWN) this.reclaim(r, h.round);
  }

  /** A control frame from another node's broadcaster. */
  onControl(from: number, kind: number, context: number, sender: number, value: number, data: Uint8Array): void {
    if (kind === C_TREE) {
      const b = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
      const d = decodeDatagram(b);
      if (d === undefined) return;
      const r = this.receiver(d.h);
      if (r === undefined) return;
      if (!r.g.failedOver) r.g.failedOver = true;
      for (const c of r.g.children) this.tree(c, b);
      this.onDatagram(b, true);
      return;
    }
    if (kind === C_SYNC_UP) {
      if (sender === this.node) {
        const s = this.senders.get(context);
        if (s !== undefined) this.senderReport(s, value, from);
      } else {
        const key = `${context}/${sender}`;
        const r = this.receivers.get(key);
        if (r === undefined) {
          // A child heard from the sender before this node did: keep its report for the stream.
          const early = this.earlyReports.get(key) ?? [];
          early.push({ from, round: value });
          this.earlyReports.set(key, early);
        } else if (!this.reclaimed(r, value)) {
          this.recvRound(r, value).reported.add(from);
          this.checkDone(r, value);
        }
      }
      return;
    }
    if (kind === C_NACK && sender === this.node) {
      const s = this.senders.get(context);
      if (s === undefined) return;
      this.counters.nacksReceived++;
      const gs = new Uint32Array(data.buffer.slice(data.byteOffset, data.byteOffset + (data.byteLength & ~3)));
      this.resync(s, gs);
    }
  }

  /** Stop every timer (the node is closing). */
  close(): void {
    this.closed = true;
    for (const s of this.senders.values()) {
      s.idleTimer?.cancel();
      for (const r of s.rounds.values()) r.timer?.cancel();
    }
    for (const r of this.receivers.values()) r.nackTimer?.cancel();
  }

  // ----------------------------------------------------------------- sender

  private pump(s: SenderStream): void {
    const S = this.S;
    const F = this.options.fragmentBytes;
    while (s.queue.length > 0) {
      const g = s.nextG;
      const round = Math.floor(g / S);
      if (round >= s.syncedBelow + this.options.sets) {
        if (s.stallStart < 0) {
          s.stallStart = this.env.now();
          this.counters.stalls++;
        }
        return;
      }
      if (s.stallStart >= 0) {
        this.counters.stallMs += (this.env.now() - s.stallStart) / 1000;
        s.stallStart = -1;
      }
      const m = s.queue[0];
      if (m.next === 0) m.first = g;
      const off = m.next * F;
      const piece = m.payload.subarray(off, Math.min(off + F, m.payload.byteLength));
      const d = encodeDatagram(this.header(s, T_DATA, g, round, { first: m.first, fragments: m.fragments, total: m.payload.byteLength, offset: off, key: m.key, dsts: m.dsts }), piece);
      const sr = this.sendRound(s, round);
      sr.datagrams[g - round * S] = d;
      sr.sentAt[g - round * S] = this.env.now();
      this.transmit(s, d);
      this.counters.fragmentsSent++;
      this.counters.bytesSent += piece.byteLength;
      s.nextG++;
      m.next++;
      if (s.nextG === (round + 1) * S) this.closeRound(s, round, s.nextG);
      if (m.next === m.fragments) {
        s.queue.shift();
        m.onBuffered?.();
      }
    }
    // Nothing left to send: close a partly used set if no new data comes for idleUs.
    s.idleTimer?.cancel();
    s.idleTimer = undefined;
    const open = Math.floor(s.nextG / S);
    if (s.nextG % S !== 0 && !this.closed) {
      s.idleTimer = this.env.setTimer(this.options.idleUs, () => {
        s.idleTimer = undefined;
        if (s.queue.length === 0 && Math.floor(s.nextG / S) === open && s.nextG % S !== 0) {
          const end = s.nextG;
          s.nextG = (open + 1) * S;
          this.closeRound(s, open, end);
          this.pump(s);
        }
      });
    }
  }

  private header(
    s: SenderStream,
    type: number,
    g: number,
    round: number,
    m?: { first: number; fragments: number; total: number; offset: number; key: McastKey; dsts: readonly number[] },
  ): McastHeader {
    return {
      type,
      flags: this.options.reliable ? F_CHECKSUM : 0,
      retries: 0,
      sender: this.node,
      context: s.g.context,
      g,
      round,
      first: m?.first ?? 0,
      fragments: m?.fragments ?? 0,
      total: m?.total ?? 0,
      offset: m?.offset ?? 0,
      src: m?.key.src ?? -1,
      tag: m?.key.tag ?? 0,
      index: m?.key.index ?? 0,
      space: m?.key.space ?? 0,
      sig: m?.key.sig ?? 0,
      timestamp: Math.floor(this.env.now()) >>> 0,
      dsts: m?.dsts ?? s.g.dsts,
    };
  }

  private sendRound(s: SenderStream, round: number): SendRound {
    let r = s.rounds.get(round);
    if (r === undefined) {
      r = { end: (round + 1) * this.S, closed: false, datagrams: [], sentAt: [], reported: new Set(), polls: 0, timer: undefined, closeDatagram: undefined, closedAt: 0, reportedAtPoll: 0, idlePolls: 0 };
      s.rounds.set(round, r);
    }
    return r;
  }

  private transmit(s: SenderStream, d: Buffer): void {
    if (s.g.failedOver) {
      for (const c of s.g.children) this.tree(c, d);
    } else this.env.multicast(d);
  }

  private tree(child: number, d: Buffer): void {
    this.counters.treeFrames++;
    this.env.control(child, C_TREE, 0, 0, 0, d);
  }

  private closeRound(s: SenderStream, round: number, end: number): void {
    const r = this.sendRound(s, round);
    r.end = end;
    r.closed = true;
    r.closedAt = this.env.now();
    if (end < (round + 1) * this.S) {
      // Closed early: tell the receivers where the round ends.
      r.closeDatagram = encodeDatagram(this.header(s, T_CLOSE, end, round), new Uint8Array(0));
      this.counters.closes++;
      this.transmit(s, r.closeDatagram);
    }
    if (r.reported.size === s.g.children.length) this.synced(s, round);
    else this.armPoll(s, round, r);
  }

  private armPoll(s: SenderStream, round: number, r: SendRound): void {
    // Unreliable mode has no polls; after a fail-over the tree is reliable.
    if (this.closed || !this.options.reliable || s.g.failedOver) return;
    r.timer?.cancel();
    // The poll waits for rtoUs, or twice the smoothed sync time when syncs are slower
    // (a loaded machine), doubling per poll.
    const base = Math.max(this.options.rtoUs, 2 * s.syncUs);
    r.timer = this.env.setTimer(base * 2 ** Math.min(r.polls, 5), () => {
      r.timer = undefined;
      if (!s.rounds.has(round)) return;
      r.polls++;
      this.counters.polls++;
      // A poll answered by new reports is progress (a slow sync, not a failure).
      r.idlePolls = r.reported.size > r.reportedAtPoll ? 1 : r.idlePolls + 1;
      r.reportedAtPoll = r.reported.size;
      if (r.idlePolls > this.options.maxFail && !s.g.failedOver) {
        this.failover(s);
      } else {
        // The poll: the CLOSE again (receivers answer with NACKs for what they lack).
        r.closeDatagram ??= encodeDatagram(this.header(s, T_CLOSE, r.end, round), new Uint8Array(0));
        this.transmit(s, r.closeDatagram);
      }
      this.armPoll(s, round, r);
    });
  }

  private senderReport(s: SenderStream, round: number, from: number): void {
    const r = s.rounds.get(round);
    if (r === undefined) return;
    r.reported.add(from);
    if (r.closed && r.reported.size === s.g.children.length) this.synced(s, round);
  }

  private synced(s: SenderStream, round: number): void {
    const r = s.rounds.get(round);
    r?.timer?.cancel();
    s.rounds.delete(round);
    this.counters.setsSynced++;
    if (r !== undefined) {
      const us = this.env.now() - r.closedAt;
      s.syncUs = s.syncUs === 0 ? us : 0.875 * s.syncUs + 0.125 * us;
      const ms = us / 1000;
      this.counters.syncMs += ms;
      if (ms > this.counters.syncMsMax) this.counters.syncMsMax = ms;
    }
    this.counters.syncDowns++;
    this.transmit(s, encodeDatagram(this.header(s, T_SYNC_DOWN, round, round), new Uint8Array(0)));
    s.syncedAbove.add(round);
    while (s.syncedAbove.delete(s.syncedBelow)) s.syncedBelow++;
    if (s.queue.length > 0) this.pump(s);
  }

  private resync(s: SenderStream, gs: Uint32Array): void {
    const now = this.env.now();
    let resent = 0;
    const closes = new Set<number>();
    for (const g of gs) {
      if (resent >= MAX_RESEND) break;
      const round = Math.floor(g / this.S);
      const r = s.rounds.get(round);
      if (r === undefined || g >= s.nextG) continue;
      if (g >= r.end) {
        if (r.closed) closes.add(round);
        continue;
      }
      const i = g - round * this.S;
      const old = r.datagrams[i];
      if (old === undefined || now - r.sentAt[i] < this.options.nackUs / 2) continue;
      // A copy: the kernel may still be sending the previous one.
      const d = Buffer.from(old);
      markResent(d);
      r.datagrams[i] = d;
      r.sentAt[i] = now;
      // Every NACKing receiver can cost a fragment a rebroadcast: count a fragment as
      // failing only past REBROADCASTS_PER_FAIL rebroadcasts per allowed failure.
      if (d.readUInt16LE(6) > REBROADCASTS_PER_FAIL * this.options.maxFail && !s.g.failedOver) {
        this.failover(s);
        return;
      }
      this.transmit(s, d);
      resent++;
    }
    for (const round of closes) {
      const r = s.rounds.get(round) as SendRound;
      r.closeDatagram ??= encodeDatagram(this.header(s, T_CLOSE, r.end, round), new Uint8Array(0));
      this.transmit(s, r.closeDatagram);
    }
    if (resent > 0) {
      this.counters.resyncs++;
      this.counters.retransmissions += resent;
    }
  }

  /** Repeated failures: every fragment not yet synchronised, and all later traffic, down the point-to-point tree. */
  private failover(s: SenderStream): void {
    s.g.failedOver = true;
    this.counters.failovers++;
    for (const round of [...s.rounds.keys()].sort((a, b) => a - b)) {
      const r = s.rounds.get(round) as SendRound;
      for (const d of r.datagrams) if (d !== undefined) this.transmit(s, d);
      if (r.closeDatagram !== undefined) this.transmit(s, r.closeDatagram);
    }
  }

  /** Before a stream is replaced: whatever is queued goes on the old one's tree. */
  private flushSender(s: SenderStream): void {
    s.idleTimer?.cancel();
    for (const r of s.rounds.values()) r.timer?.cancel();
    if (s.queue.length > 0) throw new TransportError(`communicator context ${s.g.context}: a multicast to another node set while earlier ones are still queued`);
  }

  // --------------------------------------------------------------- receiver

  private receiver(h: McastHeader): ReceiverStream | undefined {
    const key = `${h.context}/${h.sender}`;
    let r = this.receivers.get(key);
    if (r !== undefined && !sameList(r.lastDsts, h.dsts)) {
      if (!sameNodes(r.g, h.dsts, this.env.nodeOf)) {
        r.nackTimer?.cancel();
        r = undefined;
      } else r.lastDsts = h.dsts;
    }
    if (r === undefined) {
      if (!h.dsts.some((d) => this.env.nodeOf[d] === this.node)) return undefined; // not for this node
      r = new ReceiverStream(makeGroup(h.context, h.sender, h.dsts, this.env.nodeOf, this.node));
      r.lastDsts = h.dsts;
      this.receivers.set(key, r);
      for (const e of this.earlyReports.get(key) ?? []) this.recvRound(r, e.round).reported.add(e.from);
      this.earlyReports.delete(key);
    }
    return r;
  }

  private recvRound(r: ReceiverStream, round: number): RecvRound {
    let x = r.rounds.get(round);
    if (x === undefined) {
      x = { have: new Uint8Array(this.S), count: 0, end: -1, need: this.S, reported: new Set(), reportedUp: false };
      r.rounds.set(round, x);
    }
    return x;
  }

  private onData(r: ReceiverStream, h: McastHeader, payload: Uint8Array, viaTree: boolean): void {
    const S = this.S;
    const round = Math.floor(h.g / S);
    // Data of round q means round q − sets was synchronised everywhere.
    if (round - this.options.sets + 1 > r.reclaimedBelow) this.reclaimUpTo(r, round - this.options.sets + 1);
    if (this.reclaimed(r, round)) {
      this.counters.duplicates++;
      return;
    }
    const x = this.recvRound(r, round);
    const i = h.g - round * S;
    if (x.have[i] === 1) {
      this.counters.duplicates++;
      return;
    }
    x.have[i] = 1;
    x.count++;
    this.counters.fragmentsReceived++;
    if (h.g !== r.highest + 1) r.holes = true;
    if (h.g > r.highest) r.highest = h.g;
    this.collect(r, h, payload);
    if (this.complete(x)) this.checkDone(r, round);
    // In-order arrivals with no hole seen since the last check need no scan.
    if (!viaTree && this.options.reliable && r.holes) this.watchHoles(r);
  }

  /**
   * Reassemble the message in its own buffer and pass it on whole: a rank's ring takes
   * the pieces of one sender's messages one message at a time (the node link's order),
   * and fragments of different messages from one root may arrive interleaved.
   */
  private collect(r: ReceiverStream, h: McastHeader, payload: Uint8Array): void {
    let m = r.messages.get(h.first);
    if (m === undefined) {
      m = { data: new Uint8Array(h.total), got: 0, fragments: h.fragments };
      r.messages.set(h.first, m);
    }
    if (h.offset + payload.byteLength <= m.data.byteLength) m.data.set(payload, h.offset);
    m.got++;
    if (m.got < m.fragments) return;
    r.messages.delete(h.first);
    this.counters.messagesDelivered++;
    for (const dst of h.dsts) {
      if (this.env.nodeOf[dst] !== this.node) continue;
      this.env.deliver({ context: h.context, space: h.space as FrameHeader['space'], sig: h.sig, tag: h.tag, src: h.src, dst, index: h.index, total: h.total, offset: 0 }, m.data);
    }
  }

  private complete(x: RecvRound): boolean {
    return x.count >= x.need;
  }

  private checkDone(r: ReceiverStream, round: number): void {
    const x = r.rounds.get(round);
    if (x === undefined || x.reportedUp || !this.complete(x) || x.reported.size < r.g.children.length) return;
    x.reportedUp = true;
    this.counters.acks++;
    this.env.control(r.g.parent, C_SYNC_UP, r.g.context, r.g.sender, round, new Uint8Array(0));
  }

  private onClose(r: ReceiverStream, round: number, end: number): void {
    if (this.reclaimed(r, round)) return;
    const x = this.recvRound(r, round);
    if (x.end < 0) {
      x.end = end;
      x.need = end - round * this.S;
      // Fragments beyond the end never come.
      if (end > r.highest) r.highest = end - 1;
    }
    if (this.complete(x)) this.checkDone(r, round);
    else if (this.options.reliable) this.nack(r, this.missing(r));
  }

  private reclaimed(r: ReceiverStream, round: number): boolean {
    return round < r.reclaimedBelow || r.reclaimedAbove.has(round);
  }

  /** SYNC_DOWN: round `round` is synchronised (rounds may finish out of order). */
  private reclaim(r: ReceiverStream, round: number): void {
    if (this.reclaimed(r, round)) return;
    r.rounds.delete(round);
    r.reclaimedAbove.add(round);
    while (r.reclaimedAbove.delete(r.reclaimedBelow)) r.reclaimedBelow++;
  }

  /** Every round below `below` is synchronised. */
  private reclaimUpTo(r: ReceiverStream, below: number): void {
    for (let q = r.reclaimedBelow; q < below; q++) {
      r.rounds.delete(q);
      r.reclaimedAbove.delete(q);
    }
    r.reclaimedBelow = below;
    while (r.reclaimedAbove.delete(r.reclaimedBelow)) r.reclaimedBelow++;
  }

  /** Fragments below the highest seen that have not arrived. */
  private missing(r: ReceiverStream): number[] {
    const out: number[] = [];
    const S = this.S;
    for (let q = r.reclaimedBelow; q * S <= r.highest && out.length < MAX_NACK; q++) {
      if (r.reclaimedAbove.has(q)) continue;
      const x = r.rounds.get(q);
      const end = Math.min(x !== undefined && x.end >= 0 ? x.end : (q + 1) * S, r.highest + 1);
      for (let g = q * S; g < end && out.length < MAX_NACK; g++) if (x === undefined || x.have[g - q * S] === 0) out.push(g);
    }
    return out;
  }

  private watchHoles(r: ReceiverStream): void {
    if (r.nackTimer !== undefined || this.closed) return;
    if (this.missing(r).length === 0) {
      r.nackBackoff = 1;
      r.holes = false;
      return;
    }
    r.nackTimer = this.env.setTimer(this.options.nackUs * r.nackBackoff, () => {
      r.nackTimer = undefined;
      const gs = this.missing(r);
      if (gs.length === 0) {
        r.nackBackoff = 1;
        r.holes = false;
        return;
      }
      this.nack(r, gs);
      r.nackBackoff = Math.min(r.nackBackoff * 2, 16);
      this.watchHoles(r);
    });
  }

  private nack(r: ReceiverStream, gs: readonly number[]): void {
    if (gs.length === 0 || r.g.failedOver) return;
    const now = this.env.now();
    // One NACK per nackUs / 2 is enough: the manager rebroadcasts everything it names.
    if (now - r.lastNackAt < this.options.nackUs / 2) return;
    r.lastNackAt = now;
    this.counters.nacksSent++;
    this.env.control(r.g.sender, C_NACK, r.g.context, r.g.sender, 0, new Uint8Array(Uint32Array.from(gs).buffer));
  }
}

function sameList(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function sameNodes(g: Group, dsts: readonly number[], nodeOf: ArrayLike<number>): boolean {
  if (dsts.length === 0) return true;
  const others = [...new Set(dsts.map((d) => nodeOf[d]))].filter((n) => n !== g.sender).sort((a, b) => a - b);
  if (others.length !== g.nodes.length - 1) return false;
  for (let i = 0; i < others.length; i++) if (others[i] !== g.nodes[i + 1]) return false;
  return true;
}
