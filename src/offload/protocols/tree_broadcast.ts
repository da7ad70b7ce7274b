/**
 * Reliable, ordered NIC broadcast down a spanning tree: multisend at every sender,
 * forwarding at intermediate ranks and per-group, per-child Go-back-N (seed 003
 * ch. 6 §6.4, M7–M10, §3 A8–A9). One instance is one rank's state for one group
 * (unique group id, its own queue, so groups never block each other: M10).
 *
 * Sender side (root and forwarders):
 * - one sequence number and one send record per packet for all children (M9), sent by
 *   multisend (M7); each child's ACKed sequence is kept (cumulative);
 * - a record lives until every child has ACKed it: the host copy stays "registered"
 *   until then (M8); `onReleased(msg)` tells when a message's copy may go;
 * - when a record times out, the packet and all later ones are resent only to the
 *   children that have not ACKed it, each from its own first un-ACKed packet; the
 *   records' timestamps restart.
 * Receiver side: only the expected sequence is accepted and ACKed, in order;
 * out-of-order packets are dropped without an ACK (the parent will go back). A
 * duplicate of an accepted packet is answered with the cumulative ACK of the last
 * in-order packet, or a lost ACK would stall the parent forever (the seed is silent
 * on duplicates).
 * Forwarding: the accepted packet object itself is forwarded at once (the receive
 * token becomes the send token, M8) — pipelining: a message longer than the MTU is
 * split into packets at the root and every packet moves on as soon as it arrives.
 * Retransmissions are built from the host copy (the reassembled message buffer).
 *
 * Go-back-N expects mostly FIFO links (Myrinet's are): a packet overtaken on the
 * wire is dropped like a lost one and costs a go-back after the timeout.
 *
 * Window: the root keeps at most `window` packets not yet ACKed by all its children
 * (default unbounded, as GM uses no credit-based flow control, M10); forwarders
 * never hold packets back.
 *
 * Deadlock avoidance needs ID-ordered trees (bcast_tree.ts); the constructor checks.
 *
 * Packet cost without loss, per message of k = max(1, ⌈bytes/MTU⌉) packets:
 * (P − 1)·k data packets (one per tree edge and packet) and as many ACKs.
 */
import { assertIdOrdered, type BroadcastTree } from './bcast_tree.js';
import { isLastPiece, type BcastData, type BcastPacket } from './bcast_packets.js';
import { multisend, type SendRecord } from './multisend.js';
import type { PacketHandler, ProtocolEnv, TimerHandle } from './packet_network.js';

export interface TreeBroadcastOptions {
  readonly group: number;
  readonly tree: BroadcastTree;
  /** Maximum payload bytes per packet. */
  readonly mtu: number;
  /** Retransmission timeout of a send record. */
  readonly rto: number;
  /** Root only: packets in flight not ACKed by every child (default Infinity). */
  readonly window?: number;
  /** Non-root: message `msg` has arrived completely. */
  readonly onMessage?: (msg: number, data: Uint8Array) => void;
  /** Every child has ACKed every packet of `msg`: its host copy may be released (the root's send buffer is free). */
  readonly onReleased?: (msg: number) => void;
  /** Instrumentation: packet `seq` is being resent to `child`. */
  readonly onRetransmit?: (child: number, seq: number) => void;
  /** Instrumentation: the send record of `seq` is dropped (all children ACKed it). */
  readonly onRecordReleased?: (seq: number) => void;
}

export interface TreeBroadcastStats {
  /** Send records created (one per packet sent, whatever the number of children). */
  records: number;
  /** First transmissions of data packets (records × children). */
  transmissions: number;
  retransmissions: number;
  acksSent: number;
  /** Accepted in-order packets. */
  accepted: number;
  /** Dropped because ahead of the expected sequence (never ACKed). */
  outOfOrder: number;
  /** Copies of already accepted packets (re-ACKed). */
  duplicates: number;
  /** Packets from a rank that is not the parent / a child, or of another group. */
  unexpected: number;
}

export class TreeBroadcast implements PacketHandler<BcastPacket> {
  readonly stats: TreeBroadcastStats = {
    records: 0, transmissions: 0, retransmissions: 0, acksSent: 0, accepted: 0, outOfOrder: 0, duplicates: 0, unexpected: 0,
  };
  private readonly parent: number;
  private readonly children: readonly number[];
  /** acked[i]: packets child i has ACKed in order (= the next sequence it expects). */
  private readonly acked: number[];
  /** Send records of sequences [base, nextSeq), oldest first. */
  private readonly records: SendRecord<BcastData>[] = [];
  private base = 0;
  private nextSeq = 0;
  /** Root: packets not sent yet because of the window. */
  private readonly backlog: BcastData[] = [];
  private messages = 0;
  /** Receiver: next expected sequence and the message being reassembled. */
  private expected = 0;
  private host: Uint8Array | undefined;
  private timer: TimerHandle | undefined;

  constructor(
    private readonly env: ProtocolEnv<BcastPacket>,
    private readonly o: TreeBroadcastOptions,
  ) {
    const t = o.tree;
    if (t.size !== env.size) throw new Error(`tree over ${t.size} ranks on a network of ${env.size}`);
    assertIdOrdered(t);
    if (!(Number.isInteger(o.mtu) && o.mtu > 0)) throw new RangeError(`mtu must be a positive integer, got ${o.mtu}`);
    if (!(o.rto > 0)) throw new RangeError(`rto must be positive, got ${o.rto}`);
    this.parent = t.parent[env.rank];
    this.children = t.children[env.rank];
    this.acked = new Array<number>(this.children.length).fill(0);
  }

  get isRoot(): boolean {
    return this.parent < 0;
  }

  /** Sequence number child `child` has ACKed up to (exclusive). */
  ackedBy(child: number): number {
    const i = this.children.indexOf(child);
    if (i < 0) throw new RangeError(`${child} is not a child of ${this.env.rank}`);
    return this.acked[i];
  }

  /** Send records held (packets some child has not ACKed). */
  get held(): number {
    return this.records.length;
  }

  /** Root: broadcast `data` (kept by reference until onReleased); returns its message number. */
  broadcast(data: Uint8Array): number {
    if (!this.isRoot) throw new Error(`rank ${this.env.rank} is not the root of group ${this.o.group}`);
    const msg = this.messages++;
    const pieces = Math.max(1, Math.ceil(data.length / this.o.mtu));
    for (let i = 0; i < pieces; i++) {
      const offset = i * this.o.mtu;
      this.backlog.push({
        kind: 'bcast-data',
        group: this.o.group,
        seq: 0, // assigned when sent
        msg,
        offset,
        length: data.length,
        payload: data.subarray(offset, Math.min(data.length, offset + this.o.mtu)),
      });
    }
    this.pump();
    return msg;
  }

  onPacket(from: number, p: BcastPacket): void {
    if (p.group !== this.o.group) {
      this.stats.unexpected++;
      return;
    }
    if (p.kind === 'bcast-ack') this.onAck(from, p.seq);
    else this.onData(from, p);
  }

  private onData(from: number, p: BcastData): void {
    if (from !== this.parent) {
      this.stats.unexpected++;
      return;
    }
    if (p.seq > this.expected) {
      this.stats.outOfOrder++;
      return;
    }
    if (p.seq < this.expected) {
      this.stats.duplicates++;
      this.ack(this.expected - 1);
      return;
    }
    this.stats.accepted++;
    this.expected++;
    this.ack(p.seq);
    // Host copy (DMA to host); the forwarded packet is the received one.
    if (p.offset === 0) this.host = new Uint8Array(p.length);
    const host = this.host as Uint8Array;
    host.set(p.payload, p.offset);
    if (this.children.length > 0) {
      const copy: BcastData = { ...p, payload: host.subarray(p.offset, p.offset + p.payload.length) };
      this.send(p, copy);
    }
    if (isLastPiece(p)) {
      this.host = undefined;
      this.o.onMessage?.(p.msg, host);
    }
    // A leaf holds nothing: a message is released as soon as it is delivered.
    if (this.children.length === 0 && isLastPiece(p)) this.o.onReleased?.(p.msg);
  }

  private ack(seq: number): void {
    this.stats.acksSent++;
    this.env.send(this.parent, { kind: 'bcast-ack', group: this.o.group, seq });
  }

  private onAck(from: number, seq: number): void {
    const i = this.children.indexOf(from);
    if (i < 0 || seq >= this.nextSeq) {
      this.stats.unexpected++;
      return;
    }
    if (seq + 1 <= this.acked[i]) return;
    this.acked[i] = seq + 1;
    const all = Math.min(...this.acked);
    while (this.base < all) {
      const rec = this.records.shift() as SendRecord<BcastData>;
      this.base++;
      this.o.onRecordReleased?.(rec.seq);
      if (isLastPiece(rec.packet)) this.o.onReleased?.(rec.packet.msg);
    }
    if (this.records.length === 0) {
      this.timer?.cancel();
      this.timer = undefined;
    }
    this.pump();
  }

  /** Root: move packets from the backlog into the window. */
  private pump(): void {
    const window = this.o.window ?? Number.POSITIVE_INFINITY;
    while (this.backlog.length > 0 && this.nextSeq - this.base < window) {
      const p = { ...(this.backlog.shift() as BcastData), seq: this.nextSeq };
      if (this.children.length === 0) {
        this.nextSeq++;
        this.base++;
        if (isLastPiece(p)) this.o.onReleased?.(p.msg);
        continue;
      }
      this.send(p, p);
    }
  }

  /** Multisend `p` to every child under one new record (whose packet `copy` is used for resends). */
  private send(p: BcastData, copy: BcastData): void {
    if (p.seq !== this.nextSeq) throw new Error(`internal: sending seq ${p.seq}, expected ${this.nextSeq}`);
    this.nextSeq++;
    this.records.push({ seq: p.seq, packet: copy, sentAt: this.env.now() });
    this.stats.records++;
    this.stats.transmissions += multisend(this.env, this.children, p);
    this.arm();
  }

  private arm(): void {
    if (this.timer || this.records.length === 0) return;
    const due = Math.min(...this.records.map((r) => r.sentAt)) + this.o.rto;
    this.timer = this.env.setTimer(due - this.env.now(), () => {
      this.timer = undefined;
      this.onTimeout();
    });
  }

  private onTimeout(): void {
    const now = this.env.now();
    let latest = -1; // highest timed-out sequence
    for (const r of this.records) if (r.sentAt + this.o.rto <= now) latest = r.seq;
    if (latest >= 0) {
      let from = this.nextSeq;
      for (const [i, child] of this.children.entries()) {
        if (this.acked[i] > latest) continue; // this child has ACKed the timed-out packet
        from = Math.min(from, this.acked[i]);
        for (let s = this.acked[i]; s < this.nextSeq; s++) {
          this.stats.retransmissions++;
          this.o.onRetransmit?.(child, s);
          this.env.send(child, this.records[s - this.base].packet);
        }
      }
      for (let s = from; s < this.nextSeq; s++) this.records[s - this.base].sentAt = now;
    }
    this.arm();
  }
}
