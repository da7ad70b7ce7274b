/**
 * Request: the handle of a nonblocking operation (MPI_Request, torch `Work`).
 *
 *   const req = comm.iallreduce(a, b);
 *   ...compute...
 *   await req;            // or req.wait() (blocks the thread), or poll req.test()
 *
 * The operation progresses in the background from the rank's event loop, and
 * whenever the rank calls into the library. A request is thenable; its promise is
 * created on first use, so a failed request that nobody awaits does not turn into an
 * unhandled rejection when its error was already seen through wait().
 */
import type { Engine, WaitInfo } from './engine.js';
import type { Task } from '../exec/task.js';

export class Request<T> implements PromiseLike<T> {
  private settled = false;
  private error: Error | undefined;
  private promiseValue: Promise<T> | undefined;
  private resolveFn: ((v: T) => void) | undefined;
  private rejectFn: ((e: Error) => void) | undefined;

  /** @internal Use the communicator's i* methods. */
  constructor(
    private readonly engine: Engine,
    private readonly task: Task,
    private readonly info: WaitInfo,
    private readonly result: () => T,
    /** Called once when the operation completes successfully (tracing: the call's span ends). */
    private readonly onSettle?: () => void,
  ) {
    engine.startAsync(task, info, (e) => this.settle(e));
  }

  private settle(e: Error | undefined): void {
    if (this.settled) return;
    this.settled = true;
    this.error = e;
    if (!e && this.onSettle !== undefined) this.onSettle();
    if (e) this.rejectFn?.(e);
    else if (this.resolveFn) this.resolveFn(this.result());
  }

  /** @internal Whether the request has settled (no progress made). */
  get settledYet(): boolean {
    return this.settled;
  }

  /** True once the operation has completed (successfully or not); makes progress. */
  test(): boolean {
    if (!this.settled) this.engine.progress();
    return this.settled;
  }

  /** Block this thread until the operation completes; returns its result or throws its error. */
  wait(): T {
    if (!this.settled) {
      try {
        this.engine.wait(this.task, this.info);
      } catch (e) {
        this.settle(e as Error);
      }
      if (!this.settled) this.settle(this.task.error);
    }
    if (this.error) throw this.error;
    return this.result();
  }

  /** A promise of the result. */
  get promise(): Promise<T> {
    if (!this.promiseValue) {
      this.promiseValue = new Promise<T>((resolve, reject) => {
        this.resolveFn = resolve;
        this.rejectFn = reject;
      });
      if (this.settled) {
        if (this.error) this.rejectFn?.(this.error);
        else this.resolveFn?.(this.result());
      }
    }
    return this.promiseValue;
  }

  then<R1 = T, R2 = never>(
    onFulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onRejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.promise.then(onFulfilled, onRejected);
  }
}

/** Wait for every request; returns their results in order. */
export function waitAll<T>(requests: readonly Request<T>[]): T[] {
  return requests.map((r) => r.wait());
}
