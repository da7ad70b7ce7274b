/**
 * Tasks: the unit the progress engine drives. A schedule execution, posted
 * point-to-point operations or a sequence of those all expose the same small
 * interface: start, advance after transport progress, done/error, and who is still
 * being waited for (for timeout reports).
 */
import type { RecvOp, SendOp } from '../transport/types.js';

export interface Task {
  readonly done: boolean;
  readonly error: Error | undefined;
  /** Post the first operations. Called once. */
  start(): void;
  /** Run whatever became possible since the last call (after transport progress). */
  advance(): void;
  /** Communicator ranks whose messages or consumption this task still waits for. */
  waitingFor(): number[];
  /**
   * Progress comes only from polling (a library that moves data only when called, like
   * MPI): nothing rings the doorbell when the task can move, so a waiter parks briefly.
   */
  readonly pollOnly?: boolean;
}

/** Runs tasks one after another; each is created when the previous one has completed. */
export class Sequence implements Task {
  done = false;
  error: Error | undefined = undefined;
  private current: Task | undefined;
  private next = 0;

  constructor(private readonly parts: readonly (() => Task)[], private readonly onDone?: () => void) {}

  start(): void {
    this.step();
  }

  advance(): void {
    if (this.done || !this.current) return;
    this.current.advance();
    this.step();
  }

  private step(): void {
    while (!this.done) {
      if (this.current) {
        if (!this.current.done) return;
        if (this.current.error) {
          this.error = this.current.error;
          this.done = true;
          return;
        }
      }
      if (this.next === this.parts.length) {
        this.done = true;
        try {
          this.onDone?.();
        } catch (e) {
          this.error = e as Error;
        }
        return;
      }
      this.current = this.parts[this.next++]();
      this.current.start();
    }
  }

  waitingFor(): number[] {
    return this.current && !this.current.done ? this.current.waitingFor() : [];
  }
}

/** A single posted send or receive as a task. */
export class OpTask implements Task {
  op: SendOp | RecvOp | undefined;
  constructor(
    private readonly post: () => SendOp | RecvOp,
    private readonly peers: readonly number[],
  ) {}
  get done(): boolean {
    return this.op?.done ?? false;
  }
  get error(): Error | undefined {
    return this.op?.error;
  }
  start(): void {
    this.op = this.post();
  }
  advance(): void {}
  waitingFor(): number[] {
    return this.done ? [] : [...this.peers];
  }
}

/** Done once `check` returns true (checked after every transport progress): MPI_Probe. */
export class ProbeTask implements Task {
  done = false;
  readonly error: Error | undefined = undefined;
  constructor(
    private readonly check: () => boolean,
    private readonly peers: readonly number[],
  ) {}
  start(): void {
    this.done = this.check();
  }
  advance(): void {
    if (!this.done) this.done = this.check();
  }
  waitingFor(): number[] {
    return this.done ? [] : [...this.peers];
  }
}

/** Several posted operations; done when all are. */
export class OpsTask implements Task {
  private readonly tasks: OpTask[];
  constructor(tasks: OpTask[]) {
    this.tasks = tasks;
  }
  get done(): boolean {
    return this.tasks.every((t) => t.done) || this.error !== undefined;
  }
  get error(): Error | undefined {
    return this.tasks.find((t) => t.error)?.error;
  }
  start(): void {
    for (const t of this.tasks) t.start();
  }
  advance(): void {}
  waitingFor(): number[] {
    return [...new Set(this.tasks.flatMap((t) => t.waitingFor()))].sort((a, b) => a - b);
  }
}
