/**
 * One nonblocking call of MPI's own collective ({ algorithm: 'mpi' }) as a task of the
 * rank's engine: start() posts the MPI nonblocking collective, advance() tests it
 * (blocking calls take MpiTask.run: MPI's blocking collective). MPI moves
 * its data only while someone calls into it, so the engine parks briefly while it waits
 * (pollOnly). The input is copied first when it overlaps the output (MPI forbids
 * aliased buffers); exscan leaves rank 0's buffer as it was, as the other paths do.
 */
import type { Datatype } from '../core/datatypes.js';
import type { Op } from '../core/ops.js';
import { overlaps } from '../exec/buffers.js';
import type { Task } from '../exec/task.js';
import type { CollectiveKind } from '../schedule/types.js';
import type { MpiCollectives } from '../transport/mpi/collectives.js';

/** MPI's input buffer (a copy when it overlaps the output) and what rank 0 of an exscan keeps. */
function prepare(kind: CollectiveKind, send: Uint8Array, recv: Uint8Array, rank: number): { input: Uint8Array; keep: Uint8Array | undefined } {
  return {
    input: send.byteLength > 0 && recv.byteLength > 0 && overlaps(send, recv) ? send.slice() : send,
    keep: kind === 'exscan' && rank === 0 ? recv.slice() : undefined,
  };
}

export class MpiTask implements Task {
  done = false;
  error: Error | undefined = undefined;
  readonly pollOnly = true;
  private request = -1;
  private readonly keep: Uint8Array | undefined;
  private readonly send: Uint8Array;

  /** The call as MPI's blocking collective, in this thread (no task: MPI waits its own way). */
  static run(mpi: MpiCollectives, comm: number, kind: CollectiveKind, send: Uint8Array, recv: Uint8Array, count: number, type: Datatype, op: Op | undefined, root: number, rank: number): void {
    const { input, keep } = prepare(kind, send, recv, rank);
    mpi.run(kind, comm, input, recv, count, type, op, root);
    if (keep) recv.set(keep);
  }

  constructor(
    private readonly mpi: MpiCollectives,
    private readonly comm: number,
    private readonly kind: CollectiveKind,
    send: Uint8Array,
    private readonly recv: Uint8Array,
    private readonly count: number,
    private readonly type: Datatype,
    private readonly op: Op | undefined,
    private readonly root: number,
    rank: number,
  ) {
    const p = prepare(kind, send, recv, rank);
    this.send = p.input;
    this.keep = p.keep;
  }

  start(): void {
    try {
      this.request = this.mpi.start(this.kind, this.comm, this.send, this.recv, this.count, this.type, this.op, this.root);
    } catch (e) {
      this.error = e as Error;
      this.done = true;
      return;
    }
    this.advance();
  }

  advance(): void {
    if (this.done || this.request < 0) return;
    if (!this.mpi.test(this.request)) return;
    if (this.keep) this.recv.set(this.keep);
    this.done = true;
  }

  waitingFor(): number[] {
    return [];
  }
}
