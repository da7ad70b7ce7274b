/**
 * NodeLink over MPI point-to-point (the binding's progress thread does the MPI
 * calls): node i is MPI rank i of the launcher's world. A frame is the TCP device's
 * 36-byte header (tcp/framing.ts) and the payload, sent as two messages straight from
 * the caller's memory (the payload must stay untouched until `onSent`, as with TCP;
 * `onSent` callbacks run in send order); MPI's non-overtaking rule keeps each
 * sender's frames in order. Received frames are
 * copied once into one growable buffer and handed on as views.
 *
 * The fabric is whatever the MPI library runs on (shared memory, TCP, InfiniBand
 * through UCX, ...): no connections, datagrams or direct writes of our own.
 */
import { HeldFrames, type FrameReceiver } from '../held-frames.js';
import { decodeHeader, encodeHeader, FRAME_HEADER_BYTES } from '../tcp/framing.js';
import type { FrameHeader, NodeLink } from '../types.js';
import type { MpiCounters, MpiSession } from './binding.js';

/** The link's traffic (from the progress thread) and which MPI carries it. */
export interface MpiLinkCounters extends MpiCounters {
  readonly flavour: string;
  readonly threadLevel: number;
  /** First line of MPI_Get_library_version. */
  readonly library: string;
}

interface Pending {
  /** Kept referenced until the library no longer needs the bytes. */
  readonly payload: Uint8Array;
  readonly onSent: (() => void) | undefined;
  /** The library has finished with the bytes (onSent waits for every earlier send too). */
  sent: boolean;
}

export class MpiLink implements NodeLink {
  readonly node: number;
  /** Held payloads are copied: received frames are views of one reused buffer. */
  private readonly held = new HeldFrames(true);

  get onFrame(): FrameReceiver {
    return this.held.get();
  }

  /** Attach the receiver; frames held until now are delivered to it first, in order. */
  set onFrame(f: FrameReceiver) {
    this.held.set(f);
  }

  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private readonly header = Buffer.alloc(FRAME_HEADER_BYTES);
  private inbox = Buffer.alloc(1 << 20);
  private readonly meta = new Int32Array(2);
  private readonly done = new Int32Array(256);
  private readonly unlisten: () => void;
  private closed = false;

  constructor(
    private readonly session: MpiSession,
    nodes: number,
  ) {
    if (session.info.size !== nodes) {
      throw new Error(`the MPI world has ${session.info.size} processes but the job ${nodes} nodes: start one MPI process per node`);
    }
    this.node = session.info.rank;
    this.unlisten = session.listen(() => this.drain());
    // Frames (and their event) may have come before this link listened: take them now.
    this.drain();
  }

  send(node: number, header: FrameHeader, payload: Uint8Array, onSent?: () => void): void {
    if (this.closed) throw new Error(`MPI link of node ${this.node} is closed (a frame for node ${node})`);
    const id = this.nextId++;
    if (this.nextId > 0x7fffffff) this.nextId = 1;
    encodeHeader(header, payload.byteLength, this.header);
    this.pending.set(id, { payload, onSent, sent: false });
    this.session.addon.send(node, this.header, payload, id);
  }

  private drain(): void {
    const { addon } = this.session;
    for (;;) {
      const n = addon.completions(this.done);
      for (let i = 0; i < n; i++) {
        const p = this.pending.get(this.done[i]);
        if (p) p.sent = true;
      }
      if (n < this.done.length) break;
    }
    // In send order, as a stream would: MPI may complete a later (eager) send before an
    // earlier (rendezvous) one, and a caller that sends a message in segments with one
    // onSent on the last may reuse the whole buffer once it runs.
    for (const [id, p] of this.pending) {
      if (!p.sent) break;
      this.pending.delete(id);
      p.onSent?.();
    }
    for (;;) {
      const len = addon.nextFrame(this.inbox, this.meta);
      if (len === 0) break;
      if (len < 0) {
        this.inbox = Buffer.alloc(Math.max(-len, this.inbox.length * 2));
        continue;
      }
      const { h } = decodeHeader(this.inbox, 0);
      const hlen = this.meta[1];
      this.onFrame(this.meta[0], h, this.inbox.subarray(hlen, len));
    }
  }

  counters(): MpiLinkCounters {
    return { ...this.session.addon.counters(), flavour: this.session.flavour, threadLevel: this.session.info.threadLevel, library: this.session.info.version.split('\n')[0].trim() };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.session.finalize();
    this.unlisten();
  }

  abort(): void {
    // The job ends (the launcher kills every task when one exits non-zero): stop delivering.
    this.closed = true;
    this.unlisten();
  }
}
