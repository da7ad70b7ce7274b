/**
 * The rank side of the offload engine: registers communicators with the node's
 * engine (once per communicator: the engine caches it in a slot), stages buffers that
 * do not live in the shared arena, posts collective descriptors, and turns the
 * engine's completion into a Task the progress engine waits for (blocking) or the
 * event loop settles (nonblocking).
 *
 * Buffers from comm.alloc() are read and written by the engine in place, so a
 * nonblocking offloaded collective on them completes, result included, without the
 * rank calling into the library again. Private buffers are copied into arena staging
 * when the call is posted and the result is copied back when the rank next looks at
 * the request (wait, test, await).
 */
import { ArgumentError, MismatchError, RankFailedError, RestrictionError, TimeoutError, TransportError } from '../core/errors.js';
import type { DatatypeName } from '../core/datatypes.js';
import type { BuiltinOpName } from '../core/ops.js';
import type { Params } from '../schedule/context.js';
import type { CollectiveKind } from '../schedule/types.js';
import { RankPoster, type Completion, type Ticket } from '../offload/engine/doorbell.js';
import type { EngineMode } from '../offload/engine/descriptor.js';
import { requestEngine, CODE_ARGUMENT, CODE_MISMATCH, CODE_RESTRICTION, CODE_TIMEOUT, type EngineFailure } from '../offload/engine/spec.js';
import type { RankRuntime } from './rank-runtime.js';
import type { Task } from '../exec/task.js';

/** How long a rank waits for its engine beyond the call's own timeout (the engine reports first). */
export const ENGINE_GRACE_MS = 2000;

export interface OffloadCall {
  readonly kind: CollectiveKind;
  readonly op: BuiltinOpName;
  readonly datatype: DatatypeName;
  readonly count: number;
  readonly root: number;
  readonly send: Uint8Array;
  readonly recv: Uint8Array;
  readonly inPlace: boolean;
  readonly mode: EngineMode;
  readonly tag: number;
  readonly timeoutMs: number;
  readonly algorithm: string | undefined;
  readonly params: Params | undefined;
}

export class OffloadClient {
  private readonly poster: RankPoster;
  private readonly slots = new Map<number, number>();
  private readonly optionOffsets = new Map<string, number>();
  private readonly outstanding: Ticket[] = [];

  constructor(private readonly rt: RankRuntime) {
    const layout = rt.engineLayout;
    if (!layout) {
      throw new ArgumentError(
        'this job runs without offload engines',
        'start the program with `coll run` (or launch()) and without COLL_ENGINE=0, or use the host mode',
      );
    }
    this.poster = new RankPoster(new Int32Array(rt.spec.control), layout, rt.spec.localRank);
    requestEngine(rt.spec.control, rt.nodeLayout);
  }

  /** The engine cache slot of a communicator, registering it on first use (blocking, short). */
  slot(context: number, worldOf: Int32Array, rank: number): number {
    const known = this.slots.get(context);
    if (known !== undefined) return known;
    const list = this.rt.allocScratch(worldOf.byteLength);
    if (list.buffer !== this.rt.arena) throw new ArgumentError('the shared arena has no room to register a communicator with the offload engine', 'start the job with a larger arena');
    new Int32Array(list.buffer, list.byteOffset, worldOf.length).set(worldOf);
    try {
      const t = this.post({
        kind: 'barrier', op: 'noop', datatype: 'uint8', channel: 0, cacheSlot: 0, inPlace: false, mode: 'all-nic', command: 'register',
        count: worldOf.length, root: rank, sendOffset: list.byteOffset, recvOffset: 0, tag: context, timeoutMs: 0, options: 0,
      });
      const r = t.wait(60_000);
      if (!r.ok) throw engineError(r);
      this.slots.set(context, r.reply);
      return r.reply;
    } finally {
      this.rt.freeScratch(list);
    }
  }

  /** Drop this rank's registration of a communicator with the engine (comm.free()). */
  release(context: number): void {
    if (!this.slots.delete(context)) return;
    const t = this.post({
      kind: 'barrier', op: 'noop', datatype: 'uint8', channel: 0, cacheSlot: 0, inPlace: false, mode: 'all-nic', command: 'release',
      count: 0, root: 0, sendOffset: 0, recvOffset: 0, tag: context, timeoutMs: 0, options: 0,
    });
    const r = t.wait(60_000);
    if (!r.ok) throw engineError(r);
  }

  /** A task that stages the buffers, posts the call to the engine and completes with it. */
  task(c: OffloadCall, slot: number): Task {
    return new OffloadTask(this, c, slot);
  }

  /** @internal Arena offset of the call's options (0 = defaults). */
  options(algorithm: string | undefined, params: Params | undefined): number {
    if (algorithm === undefined && params === undefined) return 0;
    const text = JSON.stringify({ algorithm, params });
    let off = this.optionOffsets.get(text);
    if (off === undefined) {
      const bytes = new TextEncoder().encode(text);
      const b = this.rt.allocScratch(8 + bytes.byteLength);
      if (b.buffer !== this.rt.arena) throw new ArgumentError('the shared arena has no room for offload call options');
      // Never at arena offset 0, which means "defaults" in a descriptor.
      const at = Math.ceil((b.byteOffset + 4) / 4) * 4;
      new Int32Array(b.buffer, at, 1)[0] = bytes.byteLength;
      new Uint8Array(b.buffer, at + 4, bytes.byteLength).set(bytes);
      off = at;
      this.optionOffsets.set(text, off);
    }
    return off;
  }

  /** @internal Post a descriptor, first waiting for a slot if every one is in flight. */
  post(d: Parameters<RankPoster['post']>[0]): Ticket {
    if (!this.poster.canPost()) this.waitForSlot(d.timeoutMs);
    const t = this.poster.post(d);
    this.outstanding.push(t);
    if (this.outstanding.length > 64) this.outstanding.splice(0, this.outstanding.length - 32).forEach((x) => x.retire());
    return t;
  }

  /**
   * Every posting slot is in flight (ENGINE_DEPTH outstanding nonblocking calls): wait
   * for the oldest to complete, within the call's timeout, while watching for a job abort.
   */
  private waitForSlot(timeoutMs: number): void {
    const deadline = timeoutMs > 0 ? performance.now() + timeoutMs : Infinity;
    while (!this.poster.canPost()) {
      const oldest = this.outstanding[0];
      if (oldest === undefined) break;
      if (oldest.test()) {
        this.outstanding.shift();
        continue;
      }
      const ab = this.rt.endpoint.aborted();
      if (ab) throw new RankFailedError(ab.rank, ab.reason);
      const left = deadline - performance.now();
      if (left <= 0) {
        throw new TimeoutError(
          `rank ${this.rt.spec.worldRank} has ${this.outstanding.length} offloaded calls in flight and the oldest did not complete within ${timeoutMs} ms, so the next call cannot be posted`,
          [],
          'complete (await / wait()) earlier nonblocking offloaded calls before starting more; check that every rank makes them',
        );
      }
      try {
        oldest.wait(Math.min(left, 50));
      } catch (e) {
        if (!(e instanceof TimeoutError)) throw e;
      }
    }
  }

  /** @internal */
  get runtime(): RankRuntime {
    return this.rt;
  }
}

class OffloadTask implements Task {
  done = false;
  error: Error | undefined = undefined;
  private ticket: Ticket | undefined;
  private stagedSend: Uint8Array | undefined;
  private stagedRecv: Uint8Array | undefined;

  constructor(
    private readonly client: OffloadClient,
    private readonly c: OffloadCall,
    private readonly slot: number,
  ) {}

  start(): void {
    const rt = this.client.runtime;
    const c = this.c;
    const arena = rt.arena;
    let send = c.send;
    let recv = c.recv;
    if (c.inPlace && recv.byteLength > 0 && recv.buffer !== arena) {
      recv = this.stage(recv, true);
      this.stagedRecv = recv;
      send = recv.subarray(c.send.byteOffset - c.recv.byteOffset, c.send.byteOffset - c.recv.byteOffset + c.send.byteLength);
    } else {
      if (send.byteLength > 0 && send.buffer !== arena) send = this.stagedSend = this.stage(send, true);
      if (recv.byteLength > 0 && recv.buffer !== arena) recv = this.stagedRecv = this.stage(recv, c.kind === 'bcast');
    }
    this.ticket = this.client.post({
      kind: c.kind,
      op: c.op,
      datatype: c.datatype,
      channel: 0,
      cacheSlot: this.slot,
      inPlace: c.inPlace,
      mode: c.mode,
      command: 'collective',
      count: c.count,
      root: c.root,
      sendOffset: send.byteLength > 0 ? send.byteOffset : 0,
      recvOffset: recv.byteLength > 0 ? recv.byteOffset : 0,
      tag: c.tag,
      timeoutMs: c.timeoutMs,
      options: this.client.options(c.algorithm, c.params),
    });
  }

  advance(): void {
    const t = this.ticket;
    if (this.done || !t || !t.finished) return;
    const r = t.test() as Completion;
    if (r.ok && this.stagedRecv) this.c.recv.set(this.stagedRecv);
    const rt = this.client.runtime;
    if (this.stagedSend) rt.freeScratch(this.stagedSend);
    if (this.stagedRecv) rt.freeScratch(this.stagedRecv);
    this.stagedSend = this.stagedRecv = undefined;
    this.error = r.ok ? undefined : engineError(r);
    this.done = true;
  }

  waitingFor(): number[] {
    return [];
  }

  private stage(user: Uint8Array, copyIn: boolean): Uint8Array {
    const b = this.client.runtime.allocScratch(user.byteLength);
    if (b.buffer !== this.client.runtime.arena) {
      throw new ArgumentError(
        `the shared arena has no room to stage ${user.byteLength} bytes for the offload engine`,
        'use buffers from comm.alloc(), free() ones you no longer need, or start the job with a larger arena',
      );
    }
    if (copyIn) b.set(user);
    return b;
  }
}

/** The typed error of an engine error completion. */
export function engineError(r: Completion): Error {
  let f: EngineFailure;
  try {
    f = JSON.parse(r.message) as EngineFailure;
  } catch {
    f = { message: r.message || `offload engine error code ${r.code}` };
  }
  // An engine that forwards a library error sends its full message, which already ends with
  // the hint (and, for timeouts, the missing ranks): the error built here appends them again.
  let message = f.message;
  if (f.hint !== undefined && message.endsWith(`\n  hint: ${f.hint}`)) message = message.slice(0, -`\n  hint: ${f.hint}`.length);
  switch (r.code) {
    case CODE_MISMATCH:
      return new MismatchError(message, f.hint);
    case CODE_TIMEOUT: {
      const missing = f.missing ?? [];
      const suffix = `; missing ranks: [${missing.join(', ')}]`;
      return new TimeoutError(message.endsWith(suffix) ? message.slice(0, -suffix.length) : message, missing, f.hint);
    }
    case CODE_RESTRICTION: {
      // Keep the algorithm and restriction of a forwarded RestrictionError (its message is "algorithm 'A' requires R: D").
      const m = /^algorithm '([^']+)' requires ([^:]+): ([\s\S]*)$/.exec(message);
      return m ? new RestrictionError(m[1], m[2], m[3], f.hint) : new RestrictionError('offload engine', 'a supported call', message, f.hint);
    }
    case CODE_ARGUMENT:
      return new ArgumentError(message, f.hint);
    default:
      return new TransportError(`offload engine: ${message}`, f.hint);
  }
}
