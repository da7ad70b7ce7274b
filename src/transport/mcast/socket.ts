/**
 * The node's UDP multicast socket (seed 003 ch. 5's hardware broadcast, on Ethernet):
 * bound to the job's group and port, joined on one named interface (the default
 * multicast route of a machine may leave the host), loopback on so that node processes
 * of one host hear each other, TTL 1. Datagrams carry an HMAC-SHA256 with a key derived
 * from the job secret, truncated to 16 bytes; anything else arriving on the group —
 * another job's traffic, a forgery — is dropped and counted, never delivered.
 *
 * Faults (COLL_MCAST_FAULTS) are applied to what this node receives, after the MAC
 * check: drop, duplicate, hold back 0.2–2 ms (reorder) or flip one byte (corrupt).
 */
import dgram from 'node:dgram';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Rng } from '../../core/random.js';
import type { McastFaults } from './options.js';
import { MAC_BYTES } from './wire.js';

export interface McastSocketOptions {
  readonly node: number;
  readonly group: { readonly address: string; readonly port: number };
  /** IPv4 address of the interface to join and send on. */
  readonly iface: string;
  readonly secret: Buffer;
  readonly faults?: McastFaults;
  readonly onDatagram: (b: Buffer) => void;
  readonly onError: (e: Error) => void;
}

export interface McastSocketCounters {
  datagramsSent: number;
  datagramsReceived: number;
  bytesSent: number;
  /** Failed the MAC check or too short: not this job's. */
  foreignDropped: number;
  /** Injected faults. */
  injectedLoss: number;
  injectedDup: number;
  injectedReorder: number;
  injectedCorrupt: number;
}

/** Receive buffer asked of the kernel (it caps it at net.core.rmem_max). */
const RECV_BUFFER_BYTES = 4 * 1024 * 1024;

export class McastSocket {
  readonly counters: McastSocketCounters = {
    datagramsSent: 0, datagramsReceived: 0, bytesSent: 0, foreignDropped: 0, injectedLoss: 0, injectedDup: 0, injectedReorder: 0, injectedCorrupt: 0,
  };
  private readonly socket = dgram.createSocket({ type: 'udp4', reuseAddr: true });
  private readonly key: Buffer;
  private readonly faults: McastFaults | undefined;
  private readonly rng: Rng;
  private closed = false;

  constructor(private readonly o: McastSocketOptions) {
    this.key = createHmac('sha256', o.secret).update('collectives multicast').digest();
    this.faults = o.faults !== undefined && (o.faults.node === undefined || o.faults.node === o.node) ? o.faults : undefined;
    this.rng = new Rng(o.faults?.seed ?? 1, o.node);
    this.socket.on('message', (b) => this.received(b));
    this.socket.on('error', (e) => {
      if (!this.closed) o.onError(e);
    });
  }

  /** Bind, join the group on the interface; rejects with the system's reason. */
  async open(): Promise<void> {
    const { address, port } = this.o.group;
    await new Promise<void>((resolve, reject) => {
      this.socket.once('error', reject);
      // Bound to the group address, the socket hears only the group's datagrams.
      this.socket.bind({ port, address, exclusive: false }, () => {
        this.socket.off('error', reject);
        resolve();
      });
    });
    this.socket.addMembership(address, this.o.iface);
    this.socket.setMulticastInterface(this.o.iface);
    this.socket.setMulticastLoopback(true);
    this.socket.setMulticastTTL(1);
    try {
      this.socket.setRecvBufferSize(RECV_BUFFER_BYTES);
      this.socket.setSendBufferSize(RECV_BUFFER_BYTES);
    } catch {
      // Keep the system's default sizes.
    }
  }

  /** Sign and send to the group. The buffer must not change until the send is done (send a copy to resend). */
  send(b: Buffer): void {
    if (this.closed) return;
    this.sign(b);
    this.counters.datagramsSent++;
    this.counters.bytesSent += b.byteLength;
    this.socket.send(b, this.o.group.port, this.o.group.address, (e) => {
      if (e && !this.closed) this.o.onError(e);
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.socket.close();
    } catch {
      // already closed
    }
  }

  private sign(b: Buffer): void {
    const end = b.byteLength - MAC_BYTES;
    createHmac('sha256', this.key).update(b.subarray(0, end)).digest().copy(b, end, 0, MAC_BYTES);
  }

  private authentic(b: Buffer): boolean {
    if (b.byteLength <= MAC_BYTES) return false;
    const end = b.byteLength - MAC_BYTES;
    const mac = createHmac('sha256', this.key).update(b.subarray(0, end)).digest().subarray(0, MAC_BYTES);
    return timingSafeEqual(mac, b.subarray(end));
  }

  private received(b: Buffer): void {
    if (this.closed) return;
    // Our own datagrams come back (loopback is on for the other nodes of this host): drop
    // them before the MAC check (a forgery claiming to be ours is dropped all the same).
    if (b.byteLength >= 12 && b.readUInt32LE(8) === this.o.node) return;
    if (!this.authentic(b)) {
      this.counters.foreignDropped++;
      return;
    }
    this.counters.datagramsReceived++;
    const f = this.faults;
    if (f === undefined) {
      this.o.onDatagram(b);
      return;
    }
    if (f.loss > 0 && this.rng.next() < f.loss) {
      this.counters.injectedLoss++;
      return;
    }
    const copies = f.dup > 0 && this.rng.next() < f.dup ? 2 : 1;
    if (copies === 2) this.counters.injectedDup++;
    for (let c = 0; c < copies; c++) {
      const d = c === 0 ? b : Buffer.from(b);
      if (f.corrupt > 0 && this.rng.next() < f.corrupt) {
        this.counters.injectedCorrupt++;
        d[Math.floor(this.rng.next() * (d.byteLength - MAC_BYTES))] ^= 0x5a;
      }
      if (f.reorder > 0 && this.rng.next() < f.reorder) {
        this.counters.injectedReorder++;
        setTimeout(() => !this.closed && this.o.onDatagram(d), 0.2 + this.rng.next() * 1.8);
      } else this.o.onDatagram(d);
    }
  }
}
