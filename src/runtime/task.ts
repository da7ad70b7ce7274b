/**
 * Tasks: the unit the progress engine drives. A schedule execution, a point-to-point
 * operation, a shared-memory fast path or a sequence of those all expose the same
 * small interface: start, advance after transport progress, done/error, and who is
 * still being waited for (for timeout reports).
 */

export interface Task {
  readonly done: boolean;
  readonly error: Error | undefined;
  /** Post the first operations. Called once. */
  start(): void;
  /** Run whatever became possible since the last call (after transport progress). */
  advance(): void;
  /** Communicator ranks whose messages or consumption this task still waits for. */
  waitingFor(): number[];
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

/** A task that is complete as soon as it starts (local work only). */
export class Immediate implements Task {
  done = false;
  error: Error | undefined = undefined;
  constructor(private readonly work: () => void) {}
  start(): void {
    try {
      this.work();
    } catch (e) {
      this.error = e as Error;
    }
    this.done = true;
  }
  advance(): void {}
  waitingFor(): number[] {
    return [];
  }
}
