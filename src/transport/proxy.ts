/**
 * The node's network proxy, run by the node process's main thread (rank threads
 * block in Atomics.wait and cannot run an event loop). It bridges the ranks' shared
 * rings to a NodeLink:
 *
 * - outbound: it drains the ring of every local rank toward the proxy endpoint and
 *   sends each entry as a frame to the destination's node; eager entries are copied
 *   out of the ring, shared-arena descriptors are sent straight from the arena in
 *   segments and acknowledged (the rank's send completes) once the link no longer
 *   needs the bytes;
 * - inbound: frames from other nodes are written into the ring toward the
 *   destination rank, split into ring-sized chunks; when that ring is full they wait
 *   in a per-rank queue (order is kept) until the rank frees space.
 *
 * It sleeps on its doorbell with Atomics.waitAsync, so the event loop (sockets) keeps
 * running. Issue 4's offload engine is meant to grow from this module.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { TransportError } from '../core/errors.js';
import { keepAlive, notifyIfSleeping, waitAsync, type Layout } from './shm/layout.js';
import {
  DST_MCAST_LIST,
  ENTRY_HEADER_BYTES,
  KIND_INLINE,
  KIND_SHM,
  Ring,
  W_BYTES,
  W_CONTEXT,
  W_DST,
  W_FLAG,
  W_INDEX,
  W_KIND,
  W_OFFSET,
  W_SRC,
  W_TAG,
  W_TOTAL,
  entryBytes,
} from './shm/ring.js';
import { SPACE_MCAST, type FrameHeader, type NodeLink, type Space } from './types.js';
import type { McastKey } from './mcast/broadcaster.js';

/** The node's multicast agent as the proxy sees it (transport/mcast/agent.ts). */
export interface ProxyMulticast {
  send(key: McastKey, dsts: readonly number[], payload: Uint8Array, onBuffered?: () => void): void;
  onControl(fromNode: number, h: FrameHeader, payload: Uint8Array): void;
}

export interface ProxyConfig {
  readonly control: SharedArrayBuffer;
  readonly arena: SharedArrayBuffer;
  readonly layout: Layout;
  /** Per world rank: its node. */
  readonly nodeOf: Int32Array;
  /** Per world rank: its endpoint on this node, or -1. */
  readonly localIndexOf: Int32Array;
  readonly link: NodeLink;
  /** Largest frame payload sent from the arena in one piece. */
  readonly segmentBytes?: number;
  /** Busy-poll this long after the last traffic before sleeping (ms, default 0). */
  readonly spinMs?: number;
  readonly onError: (e: Error) => void;
}

interface Inbound {
  readonly h: FrameHeader;
  readonly payload: Uint8Array;
  /** Bytes of the payload already delivered. */
  done: number;
}

export class NodeProxy {
  private readonly i32: Int32Array;
  private readonly inRings: { from: number; ring: Ring }[] = [];
  private readonly outRings: Ring[] = [];
  private readonly backlog: Inbound[][];
  private backlogged = 0;
  private stopped = false;
  private running: Promise<void> | undefined;
  private readonly bell: number;
  private readonly sleep: number;
  private readonly segment: number;
  /** How long the proxy keeps polling after the last traffic before it sleeps (ms). */
  private readonly spinMs: number;
  private active = 0;
  /** Per local rank: the destination list of its next multicast, and its message while the chunks arrive. */
  private readonly mcastDsts: (Int32Array | undefined)[] = [];
  private mcastAgent: ProxyMulticast | undefined;
  private readonly mcastParts: ({ key: McastKey; data: Uint8Array; got: number } | undefined)[] = [];

  constructor(private readonly c: ProxyConfig) {
    const L = c.layout;
    this.i32 = new Int32Array(c.control);
    for (let e = 0; e < L.localSize; e++) {
      this.inRings.push({ from: e, ring: new Ring(c.control, L.ringOffset(e, L.proxy), L.ringBytes, 'consumer') });
      this.outRings.push(new Ring(c.control, L.ringOffset(L.proxy, e), L.ringBytes, 'producer'));
    }
    this.backlog = Array.from({ length: L.localSize }, () => []);
    this.bell = L.bellIndex(L.proxy);
    this.sleep = L.sleepIndex(L.proxy);
    this.segment = c.segmentBytes ?? 256 * 1024;
    this.spinMs = c.spinMs ?? 0;
    c.link.onFrame = (from, h, payload) => {
      if (h.space === SPACE_MCAST) this.mcastAgent?.onControl(from, h, payload);
      else this.inbound(h, payload);
    };
  }

  /** The node's multicast agent, once it has joined its group (before any rank multicasts): ranks' multicast entries go to it, SPACE_MCAST frames come from it. */
  attachMulticast(m: ProxyMulticast): void {
    this.mcastAgent = m;
  }

  /** A message piece for a rank of this node from outside the link (the multicast agent's deliveries). */
  deliverFrame(h: FrameHeader, payload: Uint8Array): void {
    this.inbound(h, payload);
  }

  start(): void {
    this.running ??= this.loop().catch((e: Error) => this.c.onError(e));
  }

  /** Forward what is left, stop, and close the link gracefully. */
  async stop(): Promise<void> {
    this.stopped = true;
    Atomics.add(this.i32, this.bell, 1);
    Atomics.notify(this.i32, this.bell);
    await this.running;
    this.poll();
    await this.c.link.close();
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      if (this.poll()) this.active = performance.now();
      // Busy phase: keep the event loop turning (sockets are read on every turn) while
      // traffic is recent; a sleeping proxy costs a wake-up per message.
      if (performance.now() - this.active < this.spinMs) {
        await yieldToLoop();
        continue;
      }
      const v = Atomics.load(this.i32, this.bell);
      Atomics.add(this.i32, this.sleep, 1);
      try {
        if (this.poll() || this.stopped) {
          this.active = performance.now();
          continue;
        }
        const w = waitAsync(this.i32, this.bell, v, 1000);
        if (w.async) await keepAlive(w.value, 1000);
        this.active = performance.now();
      } finally {
        Atomics.sub(this.i32, this.sleep, 1);
      }
    }
  }

  /** One pass over the rings; true if anything moved. */
  private poll(): boolean {
    let moved = false;
    for (const { from, ring } of this.inRings) {
      let n = 0;
      for (let at = ring.next(); at >= 0; at = ring.next()) {
        ring.release(this.forward(from, ring, at));
        n++;
      }
      if (n > 0) {
        moved = true;
        notifyIfSleeping(this.i32, this.c.layout, from);
      }
    }
    if (this.backlogged > 0) {
      for (let e = 0; e < this.backlog.length; e++) {
        const q = this.backlog[e];
        while (q.length > 0 && this.deliver(e, q[0])) {
          q.shift();
          this.backlogged--;
          moved = true;
        }
      }
    }
    return moved;
  }

  /** Send one ring entry to its destination node; returns the entry's length. */
  private forward(from: number, ring: Ring, at: number): number {
    const i32 = ring.i32;
    const w = at >> 2;
    const kw = i32[w + W_KIND];
    const dst = i32[w + W_DST];
    if (dst < 0) return this.multicast(from, ring, at);
    const node = this.c.nodeOf[dst];
    const base = {
      context: i32[w + W_CONTEXT],
      space: ((kw >> 8) & 0xff) as Space,
      sig: kw >>> 16,
      tag: i32[w + W_TAG],
      src: i32[w + W_SRC],
      dst,
      index: i32[w + W_INDEX],
      total: i32[w + W_TOTAL] >>> 0,
    };
    if ((kw & 0xff) === KIND_SHM) {
      const offset = i32[w + W_OFFSET] >>> 0;
      const flag = i32[w + W_FLAG];
      const total = base.total;
      for (let o = 0; o < total; o += this.segment) {
        const n = Math.min(this.segment, total - o);
        const last = o + n >= total;
        this.c.link.send(node, { ...base, offset: o }, new Uint8Array(this.c.arena, offset + o, n), last ? () => this.ack(flag) : undefined);
      }
      return ENTRY_HEADER_BYTES;
    }
    const n = i32[w + W_BYTES];
    const payload = ring.u8.slice(at + ENTRY_HEADER_BYTES, at + ENTRY_HEADER_BYTES + n);
    this.c.link.send(node, { ...base, offset: i32[w + W_OFFSET] >>> 0 }, payload);
    return entryBytes(n);
  }

  /** A multicast entry of local rank `from`: its destination list, or (a chunk of) its data for the agent. */
  private multicast(from: number, ring: Ring, at: number): number {
    const i32 = ring.i32;
    const w = at >> 2;
    const kw = i32[w + W_KIND];
    const m = this.mcastAgent;
    if (m === undefined) throw new TransportError(`rank ${i32[w + W_SRC]} sent a multicast but this node has no multicast agent`);
    const n = (kw & 0xff) === KIND_SHM ? 0 : i32[w + W_BYTES];
    if (i32[w + W_DST] === DST_MCAST_LIST) {
      this.mcastDsts[from] = new Int32Array(ring.u8.slice(at + ENTRY_HEADER_BYTES, at + ENTRY_HEADER_BYTES + n).buffer);
      return entryBytes(n);
    }
    const dsts = this.mcastDsts[from];
    if (dsts === undefined) throw new TransportError(`rank ${i32[w + W_SRC]} sent multicast data without its destination list`);
    const key: McastKey = { context: i32[w + W_CONTEXT], space: (kw >> 8) & 0xff, sig: kw >>> 16, tag: i32[w + W_TAG], src: i32[w + W_SRC], index: i32[w + W_INDEX] };
    const total = i32[w + W_TOTAL] >>> 0;
    if ((kw & 0xff) === KIND_SHM) {
      // From the rank's memory in the arena: the send completes once the agent has it in its channels.
      const flag = i32[w + W_FLAG];
      m.send(key, [...dsts], new Uint8Array(this.c.arena, i32[w + W_OFFSET] >>> 0, total), () => this.ack(flag));
      return ENTRY_HEADER_BYTES;
    }
    const offset = i32[w + W_OFFSET] >>> 0;
    const chunk = ring.u8.subarray(at + ENTRY_HEADER_BYTES, at + ENTRY_HEADER_BYTES + n);
    if (offset === 0 && n === total) {
      m.send(key, [...dsts], chunk.slice());
      return entryBytes(n);
    }
    let part = this.mcastParts[from];
    if (part === undefined || offset === 0) part = this.mcastParts[from] = { key, data: new Uint8Array(total), got: 0 };
    part.data.set(chunk, offset);
    part.got += n;
    if (part.got >= total) {
      this.mcastParts[from] = undefined;
      m.send(part.key, [...dsts], part.data);
    }
    return entryBytes(n);
  }

  private ack(flag: number): void {
    const L = this.c.layout;
    Atomics.store(this.i32, L.flagIndex(flag), 1);
    notifyIfSleeping(this.i32, L, Math.floor(flag / L.flagsPerEndpoint));
  }

  /** A frame from another node. */
  private inbound(h: FrameHeader, payload: Uint8Array): void {
    this.active = performance.now();
    const e = this.c.localIndexOf[h.dst];
    if (e === undefined || e < 0) {
      this.c.onError(new TransportError(`a frame for rank ${h.dst} reached a node that does not host it`));
      return;
    }
    const item: Inbound = { h, payload, done: 0 };
    const q = this.backlog[e];
    if (q.length === 0 && this.deliver(e, item)) return;
    // Keep a copy of the rest: the payload may be a view of a buffer the link reuses, and
    // a Node Buffer's slice() is a view, not a copy.
    q.push({ h: { ...h, offset: h.offset + item.done }, payload: new Uint8Array(item.payload.subarray(item.done)), done: 0 });
    this.backlogged++;
  }

  /** Write as much of a frame into the rank's ring as fits; true when all of it is in. */
  private deliver(e: number, item: Inbound): boolean {
    const ring = this.outRings[e];
    const h = item.h;
    const total = item.payload.byteLength;
    const max = ring.maxPayload;
    let wrote = false;
    do {
      const n = Math.min(max, total - item.done);
      const len = entryBytes(n);
      const at = ring.reserve(len);
      if (at < 0) break;
      const w = at >> 2;
      const i32 = ring.i32;
      i32[w + W_KIND] = KIND_INLINE | (h.space << 8) | (h.sig << 16);
      i32[w + W_CONTEXT] = h.context;
      i32[w + W_TAG] = h.tag;
      i32[w + W_SRC] = h.src;
      i32[w + W_DST] = h.dst;
      i32[w + W_INDEX] = h.index;
      i32[w + W_TOTAL] = h.total;
      i32[w + W_OFFSET] = h.offset + item.done;
      i32[w + W_BYTES] = n;
      if (n > 0) ring.u8.set(item.payload.subarray(item.done, item.done + n), at + ENTRY_HEADER_BYTES);
      ring.commit(len);
      item.done += n;
      wrote = true;
    } while (item.done < total);
    if (wrote) notifyIfSleeping(this.i32, this.c.layout, e);
    return item.done === total && (wrote || total > 0);
  }
}
