/**
 * Direct writes: a rank thread writes its small frames for another node straight into
 * that node's TCP connection (one `write(2)` on the socket's descriptor), instead of
 * handing them to the node's proxy on the main thread. The hand-off costs a wake-up of
 * the main thread per message; measured here (2 node processes × 1 rank, 8-byte
 * ping-pong), a round trip takes about 140 µs through the proxy and 70 µs written
 * directly, against 60 µs for bare Node sockets (docs/benchmarks.md). Frames from other
 * nodes are still read by the main thread (a rank blocked in a collective cannot run an
 * event loop).
 *
 * The table lives in a SharedArrayBuffer of the node, four words per peer node:
 *
 *   fd     the descriptor of the connection the node sends to that peer on, or −1 while
 *          there is none (before the connection, during a datagram phase, after close)
 *   lock   0/1: whoever writes to the socket (a rank or the main thread) holds it, so
 *          frames never interleave
 *   busy   1 while the main thread's socket has bytes queued in libuv (a large frame
 *          the kernel did not take at once): those are written later, outside the lock,
 *          so ranks keep to the proxy path until the queue is empty
 *   spare
 *
 * and per peer two counters (frames and bytes written directly) for the job report.
 *
 * Order: a rank writes directly only when nothing of its own waits in its ring to the
 * proxy (endpoint.ts checks), so its earlier messages are already in the socket; the
 * proxy releases a ring entry only after passing it to the socket, under the same lock.
 * A rank never waits for the lock: when it is taken, the frame goes through the proxy.
 */
import { writevSync } from 'node:fs';
import { TransportError } from '../../core/errors.js';

const WORDS = 4;
const FD = 0;
const LOCK = 1;
const BUSY = 2;
/** Never written: a word to sleep on briefly. */
const SPARE = 3;
/** How long a rank pauses when the kernel takes nothing (ms). */
const EAGAIN_PAUSE_MS = 0.05;
/** Per peer: frames, bytes and messages written directly (float64, updated under the peer's lock). */
const COUNTERS = 3;

const LOCK_STALE_MS = 200;

/** Payload bytes of one directly written frame: larger messages go as several (the proxy's segment size too). */
export const DIRECT_SEGMENT = 256 * 1024;
/** Messages larger than this always go through the proxy (a rank writing for long would not receive meanwhile). */
export const DIRECT_MAX_MESSAGE = 4 * 1024 * 1024;

export class DirectTable {
  readonly i32: Int32Array;
  private readonly counters: Float64Array;

  /** Bytes of a table for `nodes` peers. */
  static bytes(nodes: number): number {
    return nodes * WORDS * 4 + nodes * COUNTERS * 8;
  }

  /** A new table (every peer without a descriptor). */
  static create(nodes: number): DirectTable {
    const t = new DirectTable(new SharedArrayBuffer(DirectTable.bytes(nodes)), nodes);
    for (let p = 0; p < nodes; p++) t.i32[p * WORDS + FD] = -1;
    return t;
  }

  constructor(
    readonly sab: SharedArrayBuffer,
    readonly nodes: number,
  ) {
    this.i32 = new Int32Array(sab, 0, nodes * WORDS);
    this.counters = new Float64Array(sab, nodes * WORDS * 4, nodes * COUNTERS);
  }

  // ---- the main thread (tcp/device.ts) ----------------------------------------

  /**
   * Take the peer's lock, waiting for a rank's write in progress (microseconds). A lock
   * held for LOCK_STALE_MS belonged to a rank thread that was terminated in the middle
   * of a write (a failing job): it is taken over.
   */
  lock(peer: number): void {
    // Rarely contended: publish and revoke only (writes use tryLock and queue).
    const i = peer * WORDS + LOCK;
    if (Atomics.compareExchange(this.i32, i, 0, 1) === 0) return;
    const until = performance.now() + LOCK_STALE_MS;
    while (Atomics.compareExchange(this.i32, i, 0, 1) !== 0) {
      if (performance.now() > until) {
        Atomics.store(this.i32, i, 1);
        return;
      }
    }
  }

  /** Take the peer's lock if it is free (the main thread's writes: it never waits for a rank). */
  tryLock(peer: number): boolean {
    return Atomics.compareExchange(this.i32, peer * WORDS + LOCK, 0, 1) === 0;
  }

  unlock(peer: number): void {
    Atomics.store(this.i32, peer * WORDS + LOCK, 0);
  }

  /** Ranks may write to this descriptor from now on (call holding no lock). */
  publish(peer: number, fd: number): void {
    this.lock(peer);
    Atomics.store(this.i32, peer * WORDS + FD, fd);
    this.unlock(peer);
  }

  /** No rank writes to the peer's connection once this returns (before the socket is ended or destroyed). */
  revoke(peer: number): void {
    this.lock(peer);
    Atomics.store(this.i32, peer * WORDS + FD, -1);
    this.unlock(peer);
  }

  /** Whether libuv holds queued bytes for the peer's connection (set under the lock). */
  setBusy(peer: number, busy: boolean): void {
    Atomics.store(this.i32, peer * WORDS + BUSY, busy ? 1 : 0);
  }

  /** Frames and bytes ranks wrote directly (job report). */
  written(): { frames: number; bytes: number } {
    let frames = 0;
    let bytes = 0;
    for (let p = 0; p < this.nodes; p++) {
      frames += this.counters[p * COUNTERS];
      bytes += this.counters[p * COUNTERS + 1];
    }
    return { frames, bytes };
  }

  /** Messages and bytes ranks wrote directly to `peer` (the job report's per-peer traffic). */
  writtenTo(peer: number): { messages: number; bytes: number } {
    return { messages: this.counters[peer * COUNTERS + 2], bytes: this.counters[peer * COUNTERS + 1] };
  }

  // ---- rank threads -----------------------------------------------------------

  /** Whether a direct write to `peer` may be tried (a cheap check before encoding). */
  open(peer: number): boolean {
    const w = peer * WORDS;
    return Atomics.load(this.i32, w + FD) >= 0 && Atomics.load(this.i32, w + BUSY) === 0;
  }

  /**
   * Write one whole frame, given as parts (header, payload), to the peer's connection;
   * false (nothing written) when there is no connection to write to, the main thread
   * has bytes queued, the lock is taken, or the kernel takes nothing now. With `wait`
   * (the later frames of a message whose first frame went this way: the rest must
   * follow it) the call instead waits for the lock, the queue and the kernel, and
   * fails only when the connection is gone. A write the kernel takes only in part is
   * finished here, spinning on EAGAIN: a frame is never left half written. The peer's
   * main thread always reads (it never waits for this lock), so the spin ends.
   */
  tryWrite(peer: number, parts: readonly Uint8Array[], wait = false, firstOfMessage = true): boolean {
    const w = peer * WORDS;
    for (;;) {
      if (Atomics.compareExchange(this.i32, w + LOCK, 0, 1) !== 0) {
        if (wait && Atomics.load(this.i32, w + FD) >= 0) continue;
        return false;
      }
      try {
        const fd = Atomics.load(this.i32, w + FD);
        if (fd < 0) return false;
        if (Atomics.load(this.i32, w + BUSY) !== 0) {
          if (wait) continue;
          return false;
        }
        const total = parts.reduce((n, p) => n + p.byteLength, 0);
        let done = 0;
        while (done < total) {
          try {
            done += writevSync(fd, remaining(parts, done));
          } catch (e) {
            const again = (e as NodeJS.ErrnoException).code === 'EAGAIN';
            // Nothing written yet: the proxy takes the frame (and reports a broken connection).
            if (done === 0 && (!wait || !again)) return false;
            if (!again) throw new TransportError(`a frame to node ${peer} was cut short: ${(e as Error).message}`);
            // The socket's buffer is full: let the threads that empty it (the peer's reader) have the core.
            Atomics.wait(this.i32, w + SPARE, 0, EAGAIN_PAUSE_MS);
          }
        }
        this.counters[peer * COUNTERS]++;
        this.counters[peer * COUNTERS + 1] += total;
        if (firstOfMessage) this.counters[peer * COUNTERS + 2]++;
        return true;
      } finally {
        Atomics.store(this.i32, w + LOCK, 0);
      }
    }
  }
}

/** The parts after the first `skip` bytes (views, no copy). */
function remaining(parts: readonly Uint8Array[], skip: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const p of parts) {
    if (skip >= p.byteLength) {
      skip -= p.byteLength;
      continue;
    }
    out.push(skip > 0 ? p.subarray(skip) : p);
    skip = 0;
  }
  return out;
}
