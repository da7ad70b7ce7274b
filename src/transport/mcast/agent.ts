/**
 * The node process's multicast agent: the broadcaster (broadcaster.ts) wired to the
 * multicast socket (socket.ts), to the node link for its control frames (SYNC_UP,
 * NACK and fail-over tree frames travel as SPACE_MCAST frames between node processes)
 * and to the node proxy, which hands it the ranks' multicast sends and takes the
 * messages it delivers into the ranks' rings. It runs on the node's main thread,
 * whose event loop reads the sockets.
 */
import { TransportError } from '../../core/errors.js';
import { SPACE_MCAST, type FrameHeader, type NodeLink } from '../types.js';
import { McastBroadcaster, type McastCounters, type McastKey } from './broadcaster.js';
import type { McastFaults, McastOptions } from './options.js';
import { McastSocket, type McastSocketCounters } from './socket.js';

export interface McastAgentOptions {
  readonly node: number;
  /** World rank → node. */
  readonly nodeOf: Int32Array;
  readonly options: McastOptions;
  readonly group: { readonly address: string; readonly port: number };
  readonly iface: string;
  readonly secret: Buffer;
  readonly faults?: McastFaults;
  readonly link: NodeLink;
  /** A message piece for a rank of this node. */
  readonly deliver: (h: FrameHeader, payload: Uint8Array) => void;
  readonly onError: (e: Error) => void;
}

/** The job report's `multicast` section of one node. */
export interface McastReport extends McastCounters, McastSocketCounters {
  readonly group: string;
  readonly iface: string;
  readonly options: McastOptions;
}

export class McastAgent {
  private readonly socket: McastSocket;
  private readonly broadcaster: McastBroadcaster;
  /** Control frames arriving in pieces, per sending node. */
  private readonly partial = new Map<number, { h: FrameHeader; data: Uint8Array; got: number }>();

  private constructor(private readonly o: McastAgentOptions) {
    this.socket = new McastSocket({
      node: o.node,
      group: o.group,
      iface: o.iface,
      secret: o.secret,
      faults: o.faults,
      onDatagram: (b) => this.guard(() => this.broadcaster.onDatagram(b)),
      onError: (e) => o.onError(new TransportError(`node ${o.node}: the multicast socket failed: ${e.message}`)),
    });
    this.broadcaster = new McastBroadcaster(o.node, o.options, {
      nodeOf: o.nodeOf,
      multicast: (d) => this.socket.send(d),
      control: (to, kind, context, sender, value, data) =>
        o.link.send(to, { context, space: SPACE_MCAST, sig: 0, tag: kind, src: sender, dst: -1, index: value, total: data.byteLength, offset: 0 }, data),
      now: () => performance.now() * 1000,
      setTimer: (delayUs, callback) => {
        const t = setTimeout(() => this.guard(callback), delayUs / 1000);
        t.unref();
        return { cancel: () => clearTimeout(t) };
      },
      deliver: o.deliver,
    });
  }

  /** Open the socket and join the group; rejects with the system's reason (no multicast on that interface). */
  static async open(o: McastAgentOptions): Promise<McastAgent> {
    const a = new McastAgent(o);
    try {
      await a.socket.open();
    } catch (e) {
      a.socket.close();
      throw e;
    }
    return a;
  }

  /** A rank's multicast send (the whole message); `onBuffered` once it is in the channels. */
  send(key: McastKey, dsts: readonly number[], payload: Uint8Array, onBuffered?: () => void): void {
    this.broadcaster.send(key, dsts, payload, onBuffered);
  }

  /** A SPACE_MCAST frame (or a piece of one) from another node. */
  onControl(from: number, h: FrameHeader, payload: Uint8Array): void {
    if (h.offset === 0 && payload.byteLength === h.total) {
      this.guard(() => this.broadcaster.onControl(from, h.tag, h.context, h.src, h.index, payload));
      return;
    }
    let p = this.partial.get(from);
    if (p === undefined || h.offset === 0) {
      p = { h, data: new Uint8Array(h.total), got: 0 };
      this.partial.set(from, p);
    }
    p.data.set(payload, h.offset);
    p.got += payload.byteLength;
    if (p.got >= p.h.total) {
      this.partial.delete(from);
      const whole = p;
      this.guard(() => this.broadcaster.onControl(from, whole.h.tag, whole.h.context, whole.h.src, whole.h.index, whole.data));
    }
  }

  /** Whether this node has sent or received any multicast (only then must it keep serving its peers). */
  used(): boolean {
    const c = this.broadcaster.counters;
    return c.messagesSent > 0 || c.fragmentsReceived > 0 || c.treeFrames > 0;
  }

  report(): McastReport {
    return {
      group: `${this.o.group.address}:${this.o.group.port}`,
      iface: this.o.iface,
      options: this.o.options,
      ...this.broadcaster.counters,
      stallMs: Math.round(this.broadcaster.counters.stallMs * 1000) / 1000,
      ...this.socket.counters,
    };
  }

  close(): void {
    this.broadcaster.close();
    this.socket.close();
  }

  private guard(f: () => void): void {
    try {
      f();
    } catch (e) {
      this.o.onError(e instanceof Error ? e : new Error(String(e)));
    }
  }
}
