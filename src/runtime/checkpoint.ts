/**
 * Coordinated checkpoints of a job, library-coordinated and application-assisted
 * (seed 003 ch. 4, issue 19). `world.checkpoint(state)` is a collective call at a point
 * the program chooses; every rank of the world makes it. The phases of the seed:
 *
 * 1. Initial synchronisation: the ranks agree whether a checkpoint is due (an
 *    allreduce of two numbers: the latest request number of the launcher's interval or
 *    SIGUSR1, which the node process keeps in a word it shares with its ranks, and
 *    `{ force: true }`); if none is new, the call returns false (one 8-byte allreduce).
 * 2. Pre-checkpoint coordination (drain): every rank sends a marker to every other
 *    rank after everything it sent before; a rank has drained when it holds every
 *    peer's marker. Messages of one sender arrive in order on every path, so every
 *    point-to-point message sent before the checkpoint is then in its receiver's
 *    queues: taken by a posted receive, or waiting unmatched. The unmatched ones are
 *    copied out (a zero-copy one from the sender's memory, which completes the send)
 *    and saved. A receive still posted has no message before the checkpoint and cannot
 *    be re-posted for the program after a restart: the checkpoint refuses it, on every
 *    rank at once. Nonblocking collectives posted before the call complete (every rank
 *    posted them), so nothing of the library is in flight and their results are in the
 *    program's buffers.
 * 3. Local checkpointing: each rank writes its record — the program's `state`, the
 *    saved messages — to its file (checkpoint-files.ts), synced.
 * 4. Post-checkpoint coordination: a barrier (every file written), then rank 0 commits
 *    the manifest and renames the directory (the checkpoint is complete from then on).
 *    Nothing address-like needs refreshing in this design: after a restart the job
 *    builds its transports afresh and the saved messages carry only communicator
 *    context ids, which the program's communicators get again when it creates them in
 *    the same order.
 * 5. Restart: `coll run --restart DIR` starts every rank with its record; `restored()`
 *    returns its state and the saved messages are queued as if they had just arrived.
 *
 * State: JSON-like values, typed arrays, Map/Set/Date (v8.serialize); `comm.alloc`
 * buffers come back as ordinary typed arrays of the same type and contents.
 */
import { parentPort } from 'node:worker_threads';
import { ArgumentError, CheckpointError } from '../core/errors.js';
import { SPACE_CTRL } from '../transport/types.js';
import type { SavedMessage } from '../transport/shm/endpoint.js';
import { OpsTask, OpTask, ProbeTask } from '../exec/task.js';
import { commitCheckpoint, readRankFile, writeRankFile } from './checkpoint-files.js';
import type { RankRuntime } from './rank-runtime.js';
import type { WaitInfo } from './engine.js';
import type { CheckpointSpec } from '../exec/config.js';


/** One rank's record in its checkpoint file. */
interface RankRecord {
  readonly version: 1;
  readonly rank: number;
  readonly size: number;
  readonly epoch: number;
  readonly state: unknown;
  readonly messages: readonly SavedMessage[];
}

/** Per-rank figures, sent to the node process after each checkpoint (the job report's `checkpoint`). */
export interface CheckpointCounters {
  count: number;
  /** Bytes of this rank's files. */
  bytes: number;
  /** Phases, ms summed over checkpoints: agreement + drain, write, barrier + commit. */
  drainMs: number;
  writeMs: number;
  commitMs: number;
  /** Point-to-point messages saved from the channels. */
  messagesDrained: number;
  /** The epoch of the last checkpoint taken, and the one this run restarted from (0: none). */
  epoch: number;
  restoredFrom: number;
  restoreMs: number;
}

export const CHECKPOINT_KEY = '__collectivesCheckpoint';
/** Control tag of the drain markers. */
const MARKER_TAG = 0x7c4b;

/** The comm-level operations the checkpoint needs (a view of the world communicator). */
export interface CheckpointComm {
  readonly rank: number;
  readonly size: number;
  readonly context: number;
  readonly worldOf: Int32Array;
  allreduceMax(x: Int32Array): void;
  barrier(): void;
  gatherBytes(mine: Uint8Array, all: Uint8Array): void;
  waitInfo(what: string): WaitInfo;
}

export class Checkpointer {
  readonly counters: CheckpointCounters = { count: 0, bytes: 0, drainMs: 0, writeMs: 0, commitMs: 0, messagesDrained: 0, epoch: 0, restoredFrom: 0, restoreMs: 0 };
  private readonly due: Int32Array | undefined;
  private seenDue = 0;
  private epoch: number;
  private readonly record: RankRecord | undefined;

  constructor(
    private readonly rt: RankRuntime,
    private readonly spec: CheckpointSpec | undefined,
    dueWord: SharedArrayBuffer | undefined,
    private readonly program: string,
  ) {
    this.due = dueWord ? new Int32Array(dueWord) : undefined;
    // Every rank starts from request 0 (a request made before a rank started is taken by
    // the first call): ranks start at different times, and must agree.
    this.seenDue = 0;
    this.epoch = spec?.restart?.epoch ?? 0;
    const restart = spec?.restart;
    if (restart !== undefined) {
      const t0 = performance.now();
      const rec = readRankFile(restart.dir, rt.spec.worldRank) as RankRecord;
      if (rec?.version !== 1 || rec.rank !== rt.spec.worldRank || rec.size !== rt.spec.job.size) {
        throw new CheckpointError(
          `checkpoint ${restart.dir} holds rank ${rec?.rank} of ${rec?.size}, not rank ${rt.spec.worldRank} of ${rt.spec.job.size}`,
          'restart with the number of ranks the checkpoint was taken with',
        );
      }
      // v8.deserialize makes typed arrays views of its one input buffer: give each its own.
      this.record = { ...rec, state: ownBuffers(rec.state) };
      rt.endpoint.restoreMessages(rec.messages);
      this.counters.restoredFrom = restart.epoch;
      this.counters.restoreMs = performance.now() - t0;
      this.report();
    }
  }

  /** The state of the checkpoint this run restarted from, or undefined on a fresh start. */
  restored(): unknown {
    return this.record?.state;
  }

  /** The collective checkpoint call (see the header); true when a checkpoint was taken. */
  take(comm: CheckpointComm, state: unknown, force: boolean): boolean {
    const spec = this.spec;
    if (spec === undefined) {
      if (force) throw new ArgumentError('checkpoint({ force: true }) in a job without a checkpoint directory', 'start the job with coll run --checkpoint-dir DIR (or launch({ checkpoint: { dir } }))');
      return false;
    }
    const t0 = performance.now();
    // The launcher numbers its requests and each node keeps the latest it got; the ranks
    // agree on the highest (a node may get a request later than another): a request is
    // taken once, by whichever call first sees it on some rank.
    const agreed = Int32Array.of(this.due ? Atomics.load(this.due, 0) : 0, force ? 1 : 0);
    comm.allreduceMax(agreed);
    if (agreed[0] <= this.seenDue && agreed[1] === 0) return false;
    this.seenDue = Math.max(this.seenDue, agreed[0]);
    const epoch = this.epoch + 1;

    // Drain: markers after everything sent before, from every rank to every rank.
    const ep = this.rt.endpoint;
    const me = ep.rank;
    const tasks: OpTask[] = [];
    const empty = new Uint8Array(0);
    for (let r = 0; r < comm.size; r++) {
      const w = comm.worldOf[r];
      if (w === me) continue;
      tasks.push(new OpTask(() => ep.isend({ context: comm.context, space: SPACE_CTRL, tag: MARKER_TAG, src: me, dst: w, index: epoch }, empty), [r]));
      tasks.push(new OpTask(() => ep.irecv({ context: comm.context, space: SPACE_CTRL, tag: MARKER_TAG, src: w, dst: me, index: epoch }, empty), [r]));
    }
    this.rt.engine.run(new OpsTask(tasks), comm.waitInfo(`checkpoint ${epoch}: drain`));
    const { messages, pendingReceives } = ep.checkpointMessages();
    const bad = Int32Array.of(pendingReceives.length > 0 ? 1 : 0);
    comm.allreduceMax(bad);
    if (bad[0] !== 0) {
      const mine = pendingReceives.map((p) => `from world rank ${p.src < 0 ? 'any' : p.src}, tag ${p.tag < 0 ? 'any' : p.tag}`).join('; ');
      throw new CheckpointError(
        mine !== ''
          ? `checkpoint ${epoch}: rank ${comm.rank} has receives posted before the checkpoint that no message matched (${mine}); they could not be posted again after a restart`
          : `checkpoint ${epoch}: another rank has receives posted before the checkpoint that no message matched; no checkpoint was taken`,
        'complete or cancel point-to-point receives before comm.checkpoint() (post them after it)',
      );
    }
    // Nonblocking collectives (and zero-copy sends just released) posted before the call.
    const engine = this.rt.engine;
    engine.run(new ProbeTask(() => engine.idle(), []), comm.waitInfo(`checkpoint ${epoch}: nonblocking calls posted before it`));
    const t1 = performance.now();

    const record: RankRecord = { version: 1, rank: me, size: comm.size, epoch, state: storable(state), messages };
    const file = writeRankFile(spec.dir, epoch, me, record);
    const t2 = performance.now();

    comm.barrier();
    const entry = new Uint8Array(40);
    new DataView(entry.buffer).setFloat64(0, file.bytes, true);
    entry.set(Buffer.from(file.sha256, 'hex'), 8);
    const all = new Uint8Array(comm.rank === 0 ? 40 * comm.size : 0);
    comm.gatherBytes(entry, all);
    if (comm.rank === 0) {
      const files = Array.from({ length: comm.size }, (_, r) => ({
        rank: r,
        bytes: new DataView(all.buffer, 40 * r, 8).getFloat64(0, true),
        sha256: Buffer.from(all.subarray(40 * r + 8, 40 * r + 40)).toString('hex'),
      }));
      commitCheckpoint(spec.dir, { version: 1, epoch, ranks: comm.size, nodes: this.rt.spec.job.nodeCount, program: this.program, created: new Date().toISOString(), files }, spec.keep);
    }
    const t3 = performance.now();
    this.epoch = epoch;
    const c = this.counters;
    c.count++;
    c.epoch = epoch;
    c.bytes += file.bytes;
    c.drainMs += t1 - t0;
    c.writeMs += t2 - t1;
    c.commitMs += t3 - t2;
    c.messagesDrained += messages.length;
    this.report();
    return true;
  }

  /** Send the counters to the node process (its report sums them). */
  private report(): void {
    parentPort?.postMessage({ [CHECKPOINT_KEY]: { ...this.counters } });
  }
}

/** A node's `checkpoint` section of the job report from its ranks' counters. */
export interface NodeCheckpointReport {
  /** Checkpoints taken (every rank takes each), the last epoch, and the one this run restarted from (0: none). */
  readonly count: number;
  readonly epoch: number;
  readonly restoredFrom: number;
  /** Bytes of the node's rank files, summed over checkpoints. */
  readonly bytes: number;
  /** Phases, ms: the slowest rank's total over checkpoints. */
  readonly drainMs: number;
  readonly writeMs: number;
  readonly commitMs: number;
  readonly restoreMs: number;
  readonly messagesDrained: number;
}

export function nodeCheckpoint(ranks: readonly CheckpointCounters[]): NodeCheckpointReport {
  const max = (f: (c: CheckpointCounters) => number): number => Math.round(Math.max(0, ...ranks.map(f)) * 100) / 100;
  const sum = (f: (c: CheckpointCounters) => number): number => ranks.reduce((s, c) => s + f(c), 0);
  return {
    count: max((c) => c.count),
    epoch: max((c) => c.epoch),
    restoredFrom: max((c) => c.restoredFrom),
    bytes: sum((c) => c.bytes),
    drainMs: max((c) => c.drainMs),
    writeMs: max((c) => c.writeMs),
    commitMs: max((c) => c.commitMs),
    restoreMs: max((c) => c.restoreMs),
    messagesDrained: sum((c) => c.messagesDrained),
  };
}

/** `v` with every typed array that is a view of a larger buffer replaced by a copy of its own. */
function ownBuffers(v: unknown, seen = new Set<object>()): unknown {
  if (v === null || typeof v !== 'object' || seen.has(v)) return v;
  seen.add(v);
  if (ArrayBuffer.isView(v)) {
    if (v.byteOffset === 0 && v.byteLength === v.buffer.byteLength) return v;
    return v instanceof DataView ? new DataView(v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength)) : (v as unknown as { slice(): unknown }).slice();
  }
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = ownBuffers(v[i], seen);
  } else if (v instanceof Map) {
    for (const [k, x] of v) v.set(k, ownBuffers(x, seen));
  } else if (Object.getPrototypeOf(v) === Object.prototype) {
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) o[k] = ownBuffers(o[k], seen);
  }
  return v;
}

/** A copy of `v` that v8.serialize takes: typed arrays on shared memory become ordinary ones. */
function storable(v: unknown, seen = new Map<object, unknown>()): unknown {
  if (v === null || typeof v !== 'object') return v;
  const hit = seen.get(v);
  if (hit !== undefined) return hit;
  if (ArrayBuffer.isView(v)) {
    if (!(v.buffer instanceof SharedArrayBuffer)) return v;
    const Ctor = (v as unknown as { constructor: new (a: ArrayLike<number> | ArrayLike<bigint>) => ArrayBufferView }).constructor;
    const copy = v instanceof DataView ? new DataView(new Uint8Array(new Uint8Array(v.buffer, v.byteOffset, v.byteLength)).buffer) : new Ctor(v as unknown as ArrayLike<number>);
    seen.set(v, copy);
    return copy;
  }
  if (v instanceof SharedArrayBuffer) return new Uint8Array(new Uint8Array(v)).buffer;
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    seen.set(v, out);
    for (const x of v) out.push(storable(x, seen));
    return out;
  }
  if (v instanceof Map) {
    const out = new Map<unknown, unknown>();
    seen.set(v, out);
    for (const [k, x] of v) out.set(storable(k, seen), storable(x, seen));
    return out;
  }
  if (v instanceof Set) {
    const out = new Set<unknown>();
    seen.set(v, out);
    for (const x of v) out.add(storable(x, seen));
    return out;
  }
  if (Object.getPrototypeOf(v) === Object.prototype) {
    const out: Record<string, unknown> = {};
    seen.set(v, out);
    for (const [k, x] of Object.entries(v)) out[k] = storable(x, seen);
    return out;
  }
  return v;
}
