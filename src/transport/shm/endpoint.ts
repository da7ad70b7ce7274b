/**
 * A rank's shared-memory endpoint: the Endpoint of the transport contract for a rank
 * thread. Messages to ranks of the same node go through the SPSC ring of the pair;
 * messages to other nodes go through the ring to the node's proxy, which forwards
 * them over the network (and delivers remote messages through its ring to us).
 *
 * Protocols
 * - eager: payload copied into the ring (in chunks of at most a quarter ring when
 *   large); the send completes once the last chunk is in the ring.
 * - zero-copy: a send from the node's shared arena of at least `zeroCopyMin` bytes
 *   goes as a region descriptor; the receiver reads (or reduces) it in place, sets
 *   the sender's completion cell and wakes it; the send completes then.
 *
 * Matching follows MPI: a new message matches the earliest posted receive that fits
 * (context, space, tag or ANY, source or ANY, and the k-th index for collectives);
 * otherwise it waits in the unexpected queue of its source, chunks being assembled
 * there until a receive arrives. Messages from one source arrive in order on every
 * path (one ring per pair, one proxy, one connection per direction), so chunks of a
 * message are tracked per source.
 *
 * Waiting: park() announces "sleeping" (a count: a blocking wait may nest inside an
 * event-loop wait), re-polls, then Atomics.waits on the rank's doorbell; producers
 * ring the bell only when the count is non-zero.
 */
import { ArgumentError, MismatchError } from '../../core/errors.js';
import { McastBroadcaster } from '../mcast/broadcaster.js';
import type { McastOptions } from '../mcast/options.js';
import {
  ANY,
  SPACE_COLL,
  SPACE_P2P,
  type Callback,
  type Endpoint,
  type MessageKey,
  type RecvOp,
  type RecvOptions,
  type SendOp,
  type Space,
} from '../types.js';
import { DIRECT_MAX_MESSAGE, DIRECT_SEGMENT, type DirectTable } from '../tcp/direct.js';
import { TransportError } from '../../core/errors.js';
import { encodeHeader, FRAME_HEADER_BYTES } from '../tcp/framing.js';
import { isAborting, keepAlive, notifyIfSleeping, readAbort, waitAsync, type Layout } from './layout.js';
import {
  DST_MCAST_DATA,
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
} from './ring.js';

export interface ShmEndpointConfig {
  readonly control: SharedArrayBuffer;
  readonly arena: SharedArrayBuffer;
  readonly layout: Layout;
  /** This rank's endpoint index (its local rank). */
  readonly local: number;
  readonly worldRank: number;
  /** Per world rank: its endpoint index on this node, or -1 when it lives on another node. */
  readonly localIndexOf: Int32Array;
  /** Whether any rank lives on another node (the proxy ring is polled then). */
  readonly multiNode: boolean;
  /** Smallest arena payload sent zero-copy (default 4 KiB). */
  readonly zeroCopyMin?: number;
  /**
   * The node's direct-write table (tcp/direct.ts) and each world rank's node: small
   * frames for another node are written to its connection from this thread when the
   * table allows, instead of through the proxy. Absent: always through the proxy.
   */
  readonly direct?: { readonly table: DirectTable; readonly nodeOf: Int32Array };
  /** The node process's multicast agent settings (transport/mcast), if it runs one: imcast() goes to it through the proxy. */
  readonly multicast?: McastOptions;
}

class SendReq implements SendOp {
  done = false;
  error: Error | undefined = undefined;
  /** Bytes already written to the ring (eager protocol). */
  sent = 0;
  /** Completion cell id (zero-copy protocol), or -1. */
  flag = -1;
  /** A multicast's destination list, until its entry is in the ring toward the proxy. */
  mcast: Int32Array | undefined = undefined;
  constructor(
    readonly key: MessageKey,
    readonly data: Uint8Array,
    readonly hop: number,
    readonly cb: Callback<SendOp> | undefined,
  ) {}
}

class RecvReq implements RecvOp {
  done = false;
  error: Error | undefined = undefined;
  source = -1;
  tag = -1;
  bytes = 0;
  received = 0;
  total = 0;
  constructor(
    readonly key: MessageKey,
    readonly dest: Uint8Array,
    readonly exact: boolean,
    readonly consume: ((payload: Uint8Array) => boolean) | undefined,
    readonly cb: Callback<RecvOp> | undefined,
    readonly order: number,
  ) {}
}

/** A message that arrived before its receive (inline data being assembled, or a descriptor). */
interface Unexpected {
  readonly context: number;
  readonly space: number;
  readonly tag: number;
  readonly src: number;
  readonly index: number;
  /** Call signature (MessageKey.sig; 0 = none). */
  readonly sig: number;
  readonly total: number;
  readonly order: number;
  /** Inline payload (assembled); undefined for zero-copy descriptors. */
  data: Uint8Array | undefined;
  received: number;
  shmOffset: number;
  flag: number;
}

/** A point-to-point message saved by a checkpoint (checkpointMessages / restoreMessages). */
export interface SavedMessage {
  readonly context: number;
  readonly tag: number;
  /** World rank of the sender. */
  readonly src: number;
  readonly data: Uint8Array;
}

/** Where the remaining chunks of a source's current message go. */
interface Partial {
  target: RecvReq | Unexpected | undefined; // undefined = discard (failed receive)
}

/** Direct writes up to this payload copy header and payload into one buffer (one write(2) of contiguous bytes). */
const SMALL_FRAME = 16 * 1024;

/** Largest multicast copied into the ring toward the proxy (larger ones from the arena go zero-copy). */
const MCAST_EAGER_MAX = 64 * 1024;

/** Calls that make V8 allocate and fill a function's type feedback (its default threshold is 8). */
const PRIME_CALLS = 32;

export class ShmEndpoint implements Endpoint {
  readonly rank: number;
  private readonly i32: Int32Array;
  private readonly arenaU8: Uint8Array;
  private readonly arena: SharedArrayBuffer;
  private readonly layout: Layout;
  private readonly me: number;
  private readonly localIndexOf: Int32Array;
  private readonly zeroCopyMin: number;
  private readonly inRings: { from: number; ring: Ring }[] = [];
  private readonly outRings: (Ring | undefined)[];
  private readonly outQueues: SendReq[][];
  private readonly zeroCopyPending: SendReq[] = [];
  private readonly freeFlags: number[] = [];
  private readonly posted = new Map<number, RecvReq[]>();
  private readonly postedAny: RecvReq[] = [];
  private readonly unexpected = new Map<number, Unexpected[]>();
  private readonly partial = new Map<number, Partial>();
  private readonly bell: number;
  private readonly sleep: number;
  private order = 0;
  private queuedSends = 0;
  private readonly direct: ShmEndpointConfig['direct'];
  private readonly multicast: McastOptions | undefined;
  /** The buffer direct frames are encoded into (tcp/direct.ts). */
  private readonly frameBuf: Buffer;

  constructor(c: ShmEndpointConfig) {
    this.rank = c.worldRank;
    this.i32 = new Int32Array(c.control);
    this.arena = c.arena;
    this.arenaU8 = new Uint8Array(c.arena);
    this.layout = c.layout;
    this.me = c.local;
    this.localIndexOf = c.localIndexOf;
    this.zeroCopyMin = c.zeroCopyMin ?? 4096;
    this.direct = c.multiNode ? c.direct : undefined;
    this.multicast = c.multiNode ? c.multicast : undefined;
    this.frameBuf = Buffer.allocUnsafe(this.direct ? FRAME_HEADER_BYTES + SMALL_FRAME : 0);
    const L = c.layout;
    this.outRings = new Array<Ring | undefined>(L.endpoints).fill(undefined);
    this.outQueues = Array.from({ length: L.endpoints }, () => []);
    for (let e = 0; e < L.endpoints; e++) {
      if (e === this.me) continue;
      if (e === L.proxy && !c.multiNode) continue;
      this.inRings.push({ from: e, ring: new Ring(c.control, L.ringOffset(e, this.me), L.ringBytes, 'consumer') });
      this.outRings[e] = new Ring(c.control, L.ringOffset(this.me, e), L.ringBytes, 'producer');
    }
    const base = this.me * L.flagsPerEndpoint;
    for (let f = L.flagsPerEndpoint - 1; f >= 0; f--) this.freeFlags.push(base + f);
    this.bell = L.bellIndex(this.me);
    this.sleep = L.sleepIndex(this.me);
    // Take the wake-up branch a few times (ringing our own bell) so that callers
    // optimised before any peer ever slept have type feedback for it: otherwise the
    // first wake-up of a sleeping peer throws their optimised code away
    // (docs/benchmarks.md). V8 allocates a function's feedback only after several calls.
    Atomics.add(this.i32, this.sleep, 1);
    for (let i = 0; i < PRIME_CALLS; i++) this.wakeRank(this.rank);
    Atomics.sub(this.i32, this.sleep, 1);
  }

  // ------------------------------------------------------------------ sends

  isend(key: MessageKey, data: Uint8Array, onComplete?: Callback<SendOp>): SendOp {
    if (key.dst === this.rank) return this.sendToSelf(key, data, onComplete);
    const local = this.localIndexOf[key.dst];
    if (local < 0 && this.direct !== undefined && data.byteLength <= DIRECT_MAX_MESSAGE && this.writeDirect(key, data)) {
      const req = new SendReq(key, data, this.layout.proxy, onComplete);
      this.completeSend(req);
      return req;
    }
    const hop = local >= 0 ? local : this.layout.proxy;
    return this.post(new SendReq(key, data, hop, onComplete), data.byteLength >= this.zeroCopyMin);
  }

  /** Send `req` zero-copy when asked and its data lies in the arena (a completion cell free), else eagerly; in order behind anything queued for its hop. */
  private post(req: SendReq, zeroCopy: boolean): SendReq {
    if (zeroCopy && req.data.buffer === this.arena && this.freeFlags.length > 0) {
      req.flag = this.freeFlags.pop() as number;
      Atomics.store(this.i32, this.layout.flagIndex(req.flag), 0);
    }
    const q = this.outQueues[req.hop];
    if (q.length === 0 && this.push(req)) return req;
    q.push(req);
    this.queuedSends++;
    return req;
  }

  imcast(key: MessageKey, dsts: readonly number[], data: Uint8Array, onComplete?: Callback<SendOp>): SendOp | undefined {
    if (this.multicast === undefined || dsts.length === 0) return undefined;
    if (dsts.length > McastBroadcaster.maxDestinations(this.multicast)) {
      throw new ArgumentError(
        `a multicast to ${dsts.length} nodes does not fit the channel layout: every fragment of ${this.multicast.fragmentBytes} bytes carries a 4-byte address per node`,
        `raise the fragment size (COLL_MCAST=fragment=${Math.min(4 * dsts.length * 4, 65000)}) or use another broadcast algorithm`,
      );
    }
    const req = new SendReq({ ...key, dst: DST_MCAST_DATA }, data, this.layout.proxy, onComplete);
    req.mcast = Int32Array.from(dsts);
    // Eager up to MCAST_EAGER_MAX: copied into the ring, the root returns at once (the
    // agent buffers it, seed 003 B5); above, the agent reads the arena and the send
    // completes when the message is in its channels.
    return this.post(req, data.byteLength > MCAST_EAGER_MAX);
  }

  /** The destination list entry that precedes a multicast's data; false when the ring is full. */
  private pushMcastList(req: SendReq, list: Int32Array): boolean {
    const ring = this.outRings[req.hop] as Ring;
    const n = list.byteLength;
    const len = entryBytes(n);
    const at = ring.reserve(len);
    if (at < 0) return false;
    const w = at >> 2;
    const i32 = ring.i32;
    i32[w + W_KIND] = KIND_INLINE | (req.key.space << 8);
    i32[w + W_CONTEXT] = req.key.context;
    i32[w + W_TAG] = req.key.tag;
    i32[w + W_SRC] = this.rank;
    i32[w + W_DST] = DST_MCAST_LIST;
    i32[w + W_INDEX] = req.key.index;
    i32[w + W_TOTAL] = n;
    i32[w + W_OFFSET] = 0;
    i32[w + W_BYTES] = n;
    ring.u8.set(new Uint8Array(list.buffer, list.byteOffset, n), at + ENTRY_HEADER_BYTES);
    ring.commit(len);
    req.mcast = undefined;
    return true;
  }

  /**
   * Write the message as one frame to its node's connection (tcp/direct.ts); false when
   * it must go through the proxy: the table has no open connection to that node, or
   * something of ours still waits in the ring or queue toward the proxy (order).
   */
  private writeDirect(key: MessageKey, data: Uint8Array): boolean {
    const d = this.direct as { readonly table: DirectTable; readonly nodeOf: Int32Array };
    const node = d.nodeOf[key.dst];
    const proxy = this.layout.proxy;
    if (!d.table.open(node) || this.outQueues[proxy].length > 0 || !(this.outRings[proxy] as Ring).drained()) return false;
    const total = data.byteLength;
    const h = { ...key, sig: key.sig ?? 0, src: this.rank, total, offset: 0 };
    if (total <= SMALL_FRAME) {
      // Small: header and payload in one buffer, one write.
      const frame = this.frameBuf.subarray(0, FRAME_HEADER_BYTES + total);
      encodeHeader(h, total, this.frameBuf, 0);
      if (total > 0) copyBytes(frame, FRAME_HEADER_BYTES, data, 0, total);
      return d.table.tryWrite(node, [frame]);
    }
    // Large: frames of DIRECT_SEGMENT written from the caller's memory (writev, no copy);
    // once the first is in, the rest must follow it on this path.
    for (let o = 0; o < total; o += DIRECT_SEGMENT) {
      const n = Math.min(DIRECT_SEGMENT, total - o);
      const hb = this.frameBuf.subarray(0, FRAME_HEADER_BYTES);
      encodeHeader({ ...h, offset: o }, n, hb, 0);
      if (!d.table.tryWrite(node, [hb, data.subarray(o, o + n)], o > 0, o === 0)) {
        if (o === 0) return false;
        throw new TransportError(`node ${d.nodeOf[this.rank]}: the connection to node ${node} closed in the middle of a message to rank ${key.dst}`);
      }
    }
    return true;
  }

  /** Write as much of `req` as the ring takes; true when fully written. */
  private push(req: SendReq): boolean {
    if (req.mcast !== undefined && !this.pushMcastList(req, req.mcast)) return false;
    const ring = this.outRings[req.hop] as Ring;
    const k = req.key;
    const space = (k.space << 8) | ((k.sig ?? 0) << 16);
    if (req.flag >= 0) {
      const len = ENTRY_HEADER_BYTES;
      const at = ring.reserve(len);
      if (at < 0) return false;
      const w = at >> 2;
      const i32 = ring.i32;
      i32[w + W_KIND] = KIND_SHM | space;
      i32[w + W_CONTEXT] = k.context;
      i32[w + W_TAG] = k.tag;
      i32[w + W_SRC] = this.rank;
      i32[w + W_DST] = k.dst;
      i32[w + W_INDEX] = k.index;
      i32[w + W_TOTAL] = req.data.byteLength;
      i32[w + W_OFFSET] = req.data.byteOffset;
      i32[w + W_BYTES] = 0;
      i32[w + W_FLAG] = req.flag;
      ring.commit(len);
      notifyIfSleeping(this.i32, this.layout, req.hop);
      this.zeroCopyPending.push(req);
      return true;
    }
    const total = req.data.byteLength;
    const max = ring.maxPayload;
    let wrote = false;
    do {
      const n = Math.min(max, total - req.sent);
      const len = entryBytes(n);
      const at = ring.reserve(len);
      if (at < 0) break;
      const w = at >> 2;
      const i32 = ring.i32;
      i32[w + W_KIND] = KIND_INLINE | space;
      i32[w + W_CONTEXT] = k.context;
      i32[w + W_TAG] = k.tag;
      i32[w + W_SRC] = this.rank;
      i32[w + W_DST] = k.dst;
      i32[w + W_INDEX] = k.index;
      i32[w + W_TOTAL] = total;
      i32[w + W_OFFSET] = req.sent;
      i32[w + W_BYTES] = n;
      if (n > 0) copyBytes(ring.u8, at + ENTRY_HEADER_BYTES, req.data, req.sent, n);
      ring.commit(len);
      req.sent += n;
      wrote = true;
    } while (req.sent < total);
    if (wrote) notifyIfSleeping(this.i32, this.layout, req.hop);
    if (req.sent < total || (total === 0 && !wrote)) return false;
    this.completeSend(req);
    return true;
  }

  private completeSend(req: SendReq): void {
    req.done = true;
    req.cb?.(req);
  }

  private sendToSelf(key: MessageKey, data: Uint8Array, cb: Callback<SendOp> | undefined): SendOp {
    const req = new SendReq(key, data, this.me, cb);
    const msg: Unexpected = {
      context: key.context,
      space: key.space,
      tag: key.tag,
      src: this.rank,
      index: key.index,
      sig: key.sig ?? 0,
      total: data.byteLength,
      order: this.order++,
      data: data.slice(),
      received: data.byteLength,
      shmOffset: -1,
      flag: -1,
    };
    const r = this.findPosted(msg);
    if (r) this.deliverUnexpected(r, msg);
    else this.queueUnexpected(msg);
    this.completeSend(req);
    return req;
  }

  // --------------------------------------------------------------- receives

  irecv(key: MessageKey, dest: Uint8Array, options?: RecvOptions, onComplete?: Callback<RecvOp>): RecvOp {
    const req = new RecvReq(key, dest, options?.exact ?? false, options?.consume, onComplete, this.order++);
    const u = this.takeUnexpected(req);
    if (u) {
      this.deliverUnexpected(req, u);
      return req;
    }
    if (key.src === ANY) this.postedAny.push(req);
    else {
      let l = this.posted.get(key.src);
      if (!l) this.posted.set(key.src, (l = []));
      l.push(req);
    }
    return req;
  }

  cancel(op: RecvOp): boolean {
    const req = op as RecvReq;
    if (req.done || req.received > 0) return false;
    const l = req.key.src === ANY ? this.postedAny : this.posted.get(req.key.src);
    const i = l ? l.indexOf(req) : -1;
    if (i < 0 || !l) return false;
    l.splice(i, 1);
    return true;
  }

  private matches(r: RecvReq, context: number, space: number, tag: number, src: number, index: number): boolean {
    return this.keyMatches(r.key, context, space, tag, src, index);
  }

  private keyMatches(k: MessageKey, context: number, space: number, tag: number, src: number, index: number): boolean {
    return (
      k.context === context &&
      k.space === space &&
      (k.tag === tag || (k.tag === ANY && space !== SPACE_COLL)) &&
      (k.src === src || k.src === ANY) &&
      (space === SPACE_P2P || k.index === index)
    );
  }

  /** The earliest posted receive matching a new message (removed from its list). */
  private findPosted(m: { context: number; space: number; tag: number; src: number; index: number }): RecvReq | undefined {
    const l = this.posted.get(m.src);
    let best: RecvReq | undefined;
    let bestList: RecvReq[] | undefined;
    let bestAt = -1;
    if (l) {
      for (let i = 0; i < l.length; i++) {
        if (this.matches(l[i], m.context, m.space, m.tag, m.src, m.index)) {
          best = l[i];
          bestList = l;
          bestAt = i;
          break;
        }
      }
    }
    for (let i = 0; i < this.postedAny.length; i++) {
      const r = this.postedAny[i];
      if (best && r.order > best.order) break;
      if (this.matches(r, m.context, m.space, m.tag, m.src, m.index)) {
        best = r;
        bestList = this.postedAny;
        bestAt = i;
        break;
      }
    }
    if (bestList) bestList.splice(bestAt, 1);
    return best;
  }

  /**
   * The earliest arrived message that matches `key` and no receive has taken yet, left
   * where it is (MPI_Iprobe): its source, tag and size in bytes; undefined if none.
   */
  probe(key: MessageKey): { source: number; tag: number; bytes: number } | undefined {
    this.progress();
    let best: Unexpected | undefined;
    const lists = key.src === ANY ? [...this.unexpected.values()] : [this.unexpected.get(key.src) ?? []];
    for (const l of lists) {
      for (const u of l) {
        if (this.keyMatches(key, u.context, u.space, u.tag, u.src, u.index)) {
          if (!best || u.order < best.order) best = u;
          break;
        }
      }
    }
    return best && { source: best.src, tag: best.tag, bytes: best.total };
  }

  /** The earliest unexpected message matching a new receive (removed from its queue). */
  private takeUnexpected(r: RecvReq): Unexpected | undefined {
    const k = r.key;
    const scan = (l: Unexpected[] | undefined): number => {
      if (!l) return -1;
      for (let i = 0; i < l.length; i++) {
        const u = l[i];
        if (this.matches(r, u.context, u.space, u.tag, u.src, u.index)) return i;
      }
      return -1;
    };
    if (k.src !== ANY) {
      const l = this.unexpected.get(k.src);
      const i = scan(l);
      if (i < 0 || !l) return undefined;
      return l.splice(i, 1)[0];
    }
    let bestList: Unexpected[] | undefined;
    let bestAt = -1;
    for (const l of this.unexpected.values()) {
      const i = scan(l);
      if (i >= 0 && (!bestList || l[i].order < bestList[bestAt].order)) {
        bestList = l;
        bestAt = i;
      }
    }
    return bestList ? bestList.splice(bestAt, 1)[0] : undefined;
  }

  private queueUnexpected(u: Unexpected): void {
    let l = this.unexpected.get(u.src);
    if (!l) this.unexpected.set(u.src, (l = []));
    l.push(u);
  }

  /** Check a message's size and call signature against a receive; fails the receive when they do not fit. */
  private admit(r: RecvReq, src: number, tag: number, total: number, sig: number): boolean {
    r.source = src;
    r.tag = tag;
    r.total = total;
    const mine = r.key.sig ?? 0;
    if (mine !== 0 && sig !== 0 && sig !== mine) {
      this.fail(
        r,
        new MismatchError(
          `rank ${src}'s message for collective #${tag} on communicator ${r.key.context} comes from a different call than rank ${this.rank}'s (another collective, datatype, op, root, count or algorithm)`,
          'every rank must make the same collective calls in the same order with matching arguments; set COLL_DEBUG=1 to see each rank\'s call',
        ),
      );
      return false;
    }
    if (total > r.dest.byteLength || (r.exact && total !== r.dest.byteLength)) {
      const where = `context ${r.key.context}, tag ${tag}${r.key.space === SPACE_COLL ? `, message ${r.key.index}` : ''}`;
      this.fail(
        r,
        new MismatchError(
          `rank ${this.rank} received a ${total}-byte message from rank ${src} for a ${r.dest.byteLength}-byte receive (${where})`,
          r.key.space === SPACE_COLL
            ? 'ranks disagree about the collective (count, datatype, root or algorithm); set COLL_DEBUG=1 to check every call'
            : 'post a receive buffer at least as large as the message',
        ),
      );
      return false;
    }
    return true;
  }

  private fail(r: RecvReq, e: Error): void {
    r.error = e;
    r.done = true;
    r.cb?.(r);
  }

  private completeRecv(r: RecvReq): void {
    r.bytes = r.total;
    r.done = true;
    r.cb?.(r);
  }

  private deliverUnexpected(r: RecvReq, u: Unexpected): void {
    if (!this.admit(r, u.src, u.tag, u.total, u.sig)) {
      if (u.data === undefined) this.ack(u.flag);
      else if (u.received < u.total) (this.partial.get(u.src) as Partial).target = undefined;
      return;
    }
    if (u.data === undefined) {
      this.deliverShm(r, u.shmOffset, u.total, u.flag);
      return;
    }
    if (u.received > 0) r.dest.set(u.data.subarray(0, u.received));
    r.received = u.received;
    if (u.received === u.total) this.completeRecv(r);
    else (this.partial.get(u.src) as Partial).target = r;
  }

  private deliverShm(r: RecvReq, offset: number, total: number, flag: number): void {
    const view = this.arenaU8.subarray(offset, offset + total);
    if (!(r.consume && r.consume(view))) r.dest.set(view);
    r.received = total;
    this.ack(flag);
    this.completeRecv(r);
  }

  private ack(flag: number): void {
    const L = this.layout;
    Atomics.store(this.i32, L.flagIndex(flag), 1);
    notifyIfSleeping(this.i32, L, Math.floor(flag / L.flagsPerEndpoint));
  }

  // ------------------------------------------------------------- checkpoint

  /**
   * Checkpoint support (runtime/checkpoint.ts), once every peer's earlier messages have
   * arrived: the point-to-point messages no receive has taken yet, copied out (a
   * zero-copy one is copied from the sender's memory and released, which completes the
   * sender's send), in arrival order; and the point-to-point receives still posted.
   * The messages stay queued here as inline copies.
   */
  checkpointMessages(): { messages: SavedMessage[]; pendingReceives: { context: number; src: number; tag: number }[] } {
    const all: Unexpected[] = [];
    for (const l of this.unexpected.values()) {
      for (const u of l) {
        if (u.space !== SPACE_P2P) continue;
        if (u.data === undefined) {
          u.data = this.arenaU8.slice(u.shmOffset, u.shmOffset + u.total);
          u.received = u.total;
          this.ack(u.flag);
          u.flag = -1;
          u.shmOffset = -1;
        }
        all.push(u);
      }
    }
    all.sort((a, b) => a.order - b.order);
    const messages = all.map((u) => ({ context: u.context, tag: u.tag, src: u.src, data: (u.data as Uint8Array).slice(0, u.total) }));
    const pendingReceives: { context: number; src: number; tag: number }[] = [];
    for (const r of [...this.postedAny, ...[...this.posted.values()].flat()]) {
      if (r.key.space === SPACE_P2P && !r.done) pendingReceives.push({ context: r.key.context, src: r.key.src, tag: r.key.tag });
    }
    return { messages, pendingReceives };
  }

  /** After a restart: the messages a checkpoint saved, queued as if they had just arrived (in their order). */
  restoreMessages(messages: readonly SavedMessage[]): void {
    for (const m of messages) {
      this.queueUnexpected({ context: m.context, space: SPACE_P2P, tag: m.tag, src: m.src, index: 0, sig: 0, total: m.data.byteLength, order: this.order++, data: m.data, received: m.data.byteLength, shmOffset: -1, flag: -1 });
    }
  }

  // --------------------------------------------------------------- progress

  progress(): boolean {
    let any = false;
    for (let i = 0; i < this.inRings.length; i++) {
      const { from, ring } = this.inRings[i];
      let n = 0;
      for (let at = ring.next(); at >= 0; at = ring.next()) {
        ring.release(this.onEntry(ring, at));
        n++;
      }
      if (n > 0) {
        any = true;
        notifyIfSleeping(this.i32, this.layout, from);
      }
    }
    if (this.queuedSends > 0) {
      for (let h = 0; h < this.outQueues.length; h++) {
        const q = this.outQueues[h];
        while (q.length > 0 && this.push(q[0])) {
          q.shift();
          this.queuedSends--;
          any = true;
        }
      }
    }
    if (this.zeroCopyPending.length > 0) {
      const L = this.layout;
      let j = 0;
      for (let i = 0; i < this.zeroCopyPending.length; i++) {
        const req = this.zeroCopyPending[i];
        if (Atomics.load(this.i32, L.flagIndex(req.flag)) !== 0) {
          this.freeFlags.push(req.flag);
          req.flag = -1;
          this.completeSend(req);
          any = true;
        } else this.zeroCopyPending[j++] = req;
      }
      this.zeroCopyPending.length = j;
    }
    return any;
  }

  /** Handle one ring entry; returns its length. */
  private onEntry(ring: Ring, at: number): number {
    const i32 = ring.i32;
    const w = at >> 2;
    const kw = i32[w + W_KIND];
    const kind = kw & 0xff;
    const space = ((kw >> 8) & 0xff) as Space;
    const sig = kw >>> 16;
    const src = i32[w + W_SRC];
    const total = i32[w + W_TOTAL] >>> 0;
    if (kind === KIND_SHM) {
      const offset = i32[w + W_OFFSET] >>> 0;
      const flag = i32[w + W_FLAG];
      const m = { context: i32[w + W_CONTEXT], space, tag: i32[w + W_TAG], src, index: i32[w + W_INDEX], sig };
      const r = this.findPosted(m);
      if (r) {
        if (this.admit(r, src, m.tag, total, sig)) this.deliverShm(r, offset, total, flag);
        else this.ack(flag);
      } else {
        this.queueUnexpected({ ...m, total, order: this.order++, data: undefined, received: 0, shmOffset: offset, flag });
      }
      return ENTRY_HEADER_BYTES;
    }
    const n = i32[w + W_BYTES];
    const chunkOffset = i32[w + W_OFFSET] >>> 0;
    const payload = at + ENTRY_HEADER_BYTES;
    if (chunkOffset === 0) {
      const m = { context: i32[w + W_CONTEXT], space, tag: i32[w + W_TAG], src, index: i32[w + W_INDEX], sig };
      const r = this.findPosted(m);
      let target: RecvReq | Unexpected | undefined;
      if (r) target = this.admit(r, src, m.tag, total, sig) ? r : undefined;
      else {
        const u: Unexpected = { ...m, total, order: this.order++, data: new Uint8Array(total), received: 0, shmOffset: -1, flag: -1 };
        this.queueUnexpected(u);
        target = u;
      }
      if (n < total) {
        let p = this.partial.get(src);
        if (!p) this.partial.set(src, (p = { target }));
        p.target = target;
      }
      this.chunk(target, ring.u8, payload, 0, n);
    } else {
      const p = this.partial.get(src);
      this.chunk(p?.target, ring.u8, payload, chunkOffset, n);
    }
    return entryBytes(n);
  }

  private chunk(target: RecvReq | Unexpected | undefined, u8: Uint8Array, from: number, at: number, n: number): void {
    if (!target) return;
    if (target instanceof RecvReq) {
      if (n > 0) copyBytes(target.dest, at, u8, from, n);
      target.received += n;
      if (target.received === target.total) this.completeRecv(target);
    } else {
      if (n > 0) copyBytes(target.data as Uint8Array, at, u8, from, n);
      target.received += n;
    }
  }

  // ---------------------------------------------------------------- waiting

  park(timeoutMs: number, ready?: () => boolean): void {
    const i32 = this.i32;
    const v = Atomics.load(i32, this.bell);
    Atomics.add(i32, this.sleep, 1);
    try {
      if (!this.progress() && !isAborting(i32) && !(ready?.() ?? false)) Atomics.wait(i32, this.bell, v, timeoutMs);
    } finally {
      Atomics.sub(i32, this.sleep, 1);
    }
  }

  async parkAsync(timeoutMs: number, ready?: () => boolean): Promise<void> {
    const i32 = this.i32;
    const v = Atomics.load(i32, this.bell);
    Atomics.add(i32, this.sleep, 1);
    try {
      if (this.progress() || isAborting(i32) || (ready?.() ?? false)) return;
      const w = waitAsync(i32, this.bell, v, timeoutMs);
      if (w.async) await keepAlive(w.value, timeoutMs);
    } finally {
      Atomics.sub(i32, this.sleep, 1);
    }
  }

  /**
   * Ring the doorbell of a rank of this node if it sleeps (after writing a word it
   * may wait for outside the rings, e.g. the flat shared-memory collectives). The
   * write must come first: a sleeper announces itself before re-checking.
   */
  wakeRank(worldRank: number): void {
    const e = this.localIndexOf[worldRank];
    if (e >= 0) notifyIfSleeping(this.i32, this.layout, e);
  }

  aborted(): { rank: number; reason: string } | undefined {
    return isAborting(this.i32) ? readAbort(this.i32) : undefined;
  }

  /** World ranks this endpoint still waits for: sources of unmatched posted receives and unacknowledged zero-copy sends. */
  waitingFor(): number[] {
    const s = new Set<number>();
    for (const [src, l] of this.posted) if (l.length > 0) s.add(src);
    for (const p of this.partial.values()) if (p.target instanceof RecvReq && !p.target.done) s.add(p.target.source);
    for (const r of this.zeroCopyPending) s.add(r.key.dst);
    for (const q of this.outQueues) for (const r of q) s.add(r.key.dst);
    return [...s].sort((a, b) => a - b);
  }
}

/** dst[at..at+n) = src[from..from+n) without allocating views for tiny copies. */
export function copyBytes(dst: Uint8Array, at: number, src: Uint8Array, from: number, n: number): void {
  if (n <= 64) {
    for (let i = 0; i < n; i++) dst[at + i] = src[from + i];
  } else {
    dst.set(src.subarray(from, from + n), at);
  }
}
