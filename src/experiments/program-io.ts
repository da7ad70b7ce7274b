/**
 * Rank side of the experiments' output: rank 0 prints `EXP <KIND> {json}` records and
 * throttled `EXP PROGRESS` lines that the driver (job.ts) parses.
 */
import type { Communicator } from '../runtime/communicator.js';

export function emit(comm: Communicator, kind: string, data: object): void {
  if (comm.rank === 0) console.log(`EXP ${kind} ${JSON.stringify(data)}`);
}

/** Progress reports from rank 0, at most one per `intervalMs` (the clock is read every 256 steps). */
export class Progress {
  private done = 0;
  private last = performance.now();

  constructor(
    private readonly comm: Communicator,
    private readonly total: number,
    private readonly intervalMs = 1000,
  ) {
    emit(comm, 'PROGRESS', { done: 0, total });
  }

  step(n = 1): void {
    const before = this.done;
    this.done += n;
    if (this.comm.rank !== 0 || (before >> 8 === this.done >> 8 && n < 256)) return;
    const now = performance.now();
    if (now - this.last < this.intervalMs) return;
    this.last = now;
    emit(this.comm, 'PROGRESS', { done: this.done, total: this.total });
  }

  finish(): void {
    emit(this.comm, 'PROGRESS', { done: this.total, total: this.total });
  }
}

/** The JSON config passed as the program's first argument, when started as a rank program. */
export function programConfig<T>(): T | undefined {
  const arg = process.argv[2];
  return arg !== undefined && arg.startsWith('{') && process.env.COLL_RANK !== undefined ? (JSON.parse(arg) as T) : undefined;
}
