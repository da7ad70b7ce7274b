/**
 * The progress engine of one rank thread. It owns the rank's transport endpoint and
 * the set of active nonblocking tasks, and implements the two ways of waiting:
 *
 * - blocking (`wait`): the thread polls the transport and advances its tasks; after
 *   `spinUs` microseconds of idle polling it polls with an OS yield between polls for
 *   `yieldUs` (os-yield.ts), then parks on its doorbell (Atomics.wait), so ranks that
 *   wait for long give their core away — essential when ranks outnumber cores or
 *   share them with other work (a spinner would burn the slice the rank it waits for
 *   needs);
 * - nonblocking (`startAsync`): tasks progress whenever the rank calls into the
 *   library, and from the event loop through Atomics.waitAsync on the doorbell.
 *
 * Before parking, both check the job's abort flag (RankFailedError when another rank
 * failed), the deadline (TimeoutError naming the ranks still waited for) and the exit
 * board (RankFailedError when a rank waited for has returned), and print one "still
 * waiting" warning per long wait (beforePark).
 */
import { RankFailedError, TimeoutError } from '../core/errors.js';
import type { ShmEndpoint } from '../transport/shm/endpoint.js';
import type { NoiseInjector } from './noise.js';
import type { ExitBoard } from './exit-board.js';
import { defaultYieldUs, osYield } from './os-yield.js';
import type { Task } from '../exec/task.js';

/** Longest single park, so deadlines and the abort flag are rechecked. */
const PARK_MS = 50;
/** Park of a waiter whose task only moves when polled (Task.pollOnly): nothing wakes it earlier. */
const POLL_ONLY_PARK_MS = 1;
/** Polls between clock reads while spinning (and the minimum before parking). */
export const SPIN_CHECK = 64;
/** Tight polls before a flat shared-memory wait starts timing (a few µs). */
const QUICK_POLLS = 2048;
/**
 * The adaptive budget never shrinks below this (µs): a park and wake-up costs 10–30 µs
 * here (docs/benchmarks.md), so parking sooner than that only turns a short wait into
 * a long one — with two ranks the budget otherwise collapsed to zero under load and
 * every call paid a futex round trip.
 */
const MIN_SHRUNK_SPIN_US = 20;
/** How long a wait tolerates a returned peer it still waits for (data it sent last may still be in flight). */
const EXIT_GRACE_MS = 1500;

/** The "still waiting" warning's delay: COLL_WARN_AFTER_MS, default 30 s, 0 = off. */
export function defaultWarnAfterMs(vars: Readonly<Record<string, string | undefined>> = process.env): number {
  const v = vars.COLL_WARN_AFTER_MS;
  return v !== undefined && v !== '' && Number.isFinite(Number(v)) ? Math.max(0, Number(v)) : 30_000;
}

export interface WaitInfo {
  /** What is being waited for, e.g. "allreduce #3 on communicator 0 (4 ranks)". */
  readonly what: string;
  /** Absolute deadline (performance.now() ms), Infinity for none. */
  readonly deadline: number;
  readonly timeoutMs: number;
  /** World rank of each communicator rank, to report world ranks alongside. */
  readonly worldOf: Int32Array;
  /** What to suggest when it times out (default: about collectives). */
  readonly hint?: string;
  /**
   * How long after a rank it waits for has returned the wait still expects that rank's
   * data (default EXIT_GRACE_MS). Longer for multicast collectives: a root returns once
   * its message is buffered, and its node delivers it, with NACKs and rebroadcasts under
   * loss, after the root has returned.
   */
  readonly exitGraceMs?: number;
}

interface Active {
  readonly task: Task;
  readonly info: WaitInfo;
  /** When it started (performance.now()). */
  readonly since: number;
  settle(error: Error | undefined): void;
}

export class Engine {
  readonly ep: ShmEndpoint;
  /** Microseconds of idle polling before parking. */
  spinUs: number;
  private readonly active: Active[] = [];
  private budgetUs: number;
  /**
   * Polls of the flat shared-memory collectives' tight spin before their timed wait
   * (0 when the job's threads outnumber the cores: hand the core over at once).
   */
  readonly quickPolls: number;
  /**
   * Microseconds a wait keeps polling with an OS yield between polls after its spin
   * budget, before it parks (0 without the native helper; see os-yield.ts).
   */
  readonly yieldUs: number;
  private waits = 0;
  /** The job's exit board (set by the rank runtime; absent for engines and tests). */
  exits: ExitBoard | undefined;
  /** When this rank first saw each returned rank it waited for (performance.now()). */
  private readonly exitSeen = new Map<number, number>();
  /** Milliseconds after which a wait prints one "still waiting" warning (0 = never). */
  readonly warnAfterMs: number;
  private warned: WaitInfo | undefined;
  /** Consecutive waits that parked and outlasted the full budget. */
  private longParks = 0;
  private pumping = false;

  /** Injected OS noise (experiments; see noise.ts): ticked at every progress point. */
  readonly noise: NoiseInjector | undefined;

  constructor(ep: ShmEndpoint, spinUs: number, noise?: NoiseInjector) {
    this.ep = ep;
    this.spinUs = spinUs;
    this.budgetUs = Math.round(spinUs);
    this.quickPolls = spinUs > 0 ? QUICK_POLLS : 0;
    this.yieldUs = defaultYieldUs();
    this.warnAfterMs = defaultWarnAfterMs();
    this.noise = noise;
  }

  /** Park the thread on its doorbell until `task` turns out done (see parkUntil). */
  park(ms: number, task: Task): void {
    this.parkUntil(ms, () => (task.advance(), task.done));
  }

  /**
   * Park the thread on its doorbell (telling the noise injector) unless `ready()` turns
   * true. Background tasks are advanced after the thread has announced that it sleeps
   * (inside the ready check): a nonblocking call that a peer's blocking call waits for
   * must move before this thread sleeps, or both sleep until the park times out.
   */
  parkUntil(ms: number, ready: () => boolean): void {
    const noise = this.noise;
    noise?.parking();
    this.ep.park(
      ms,
      this.active.length === 0
        ? ready
        : () => {
            this.advanceActive();
            return ready();
          },
    );
    noise?.woke();
  }

  /** Poll the transport once and advance background tasks; true if the transport moved. */
  progress(): boolean {
    const moved = this.ep.progress();
    if (this.active.length > 0) this.advanceActive();
    return moved;
  }

  private advanceActive(): void {
    let j = 0;
    const list = this.active;
    const finished: Active[] = [];
    for (let i = 0; i < list.length; i++) {
      const a = list[i];
      if (!a.task.done) a.task.advance();
      if (a.task.done) finished.push(a);
      else list[j++] = a;
    }
    list.length = j;
    for (const a of finished) a.settle(a.task.error);
  }

  /** Start `task` and run it to completion in this thread; throws its error. */
  run(task: Task, info: WaitInfo, spinUs?: number): void {
    task.start();
    this.wait(task, info, spinUs);
  }

  /**
   * Block until a started task is done; throws its error. `spinUs` fixes the polling
   * budget before parking (offloaded calls: the rank has nothing to progress);
   * otherwise the adaptive budget applies.
   */
  wait(task: Task, info: WaitInfo, spinUs?: number): void {
    let idle = 0;
    let since = 0;
    let start = 0;
    let parked = false;
    let yielding = false;
    let waitStart = 0;
    const budget = spinUs ?? this.spinBudget();
    const yieldUs = this.yieldUs;
    const noise = this.noise;
    while (!task.done) {
      if (noise !== undefined) noise.tick();
      const moved = this.progress();
      task.advance();
      if (task.done) break;
      if (moved) {
        idle = 0;
        since = 0;
        yielding = false;
        continue;
      }
      if (yielding) (osYield as () => void)();
      if (!this.spinDone(++idle, since, yielding ? budget + yieldUs : budget)) {
        if (since === 0 && idle >= SPIN_CHECK) {
          since = performance.now();
          if (start === 0) start = since;
        }
        continue;
      }
      if (!yielding && yieldUs > 0) {
        // Spin budget spent: keep polling, but give the core away between polls.
        yielding = true;
        continue;
      }
      idle = 0;
      since = 0;
      yielding = false;
      parked = true;
      const now = performance.now();
      if (waitStart === 0) waitStart = now;
      this.check(task, info, now, waitStart);
      this.park(Math.min(info.deadline - now, task.pollOnly ? POLL_ONLY_PARK_MS : PARK_MS), task);
    }
    if (spinUs === undefined) this.spinOutcome(parked, start);
    if (task.error) throw task.error;
  }

  /**
   * Whether a waiter that has polled `idle` times (the first SPIN_CHECK of them
   * unconditionally), spinning since `since` (performance.now(), 0 = not yet timed),
   * should stop polling and park. The clock is read every SPIN_CHECK polls.
   */
  spinDone(idle: number, since: number, budgetUs: number): boolean {
    if (idle < SPIN_CHECK || idle % SPIN_CHECK !== 0) return false;
    if (since === 0) return budgetUs <= 0;
    return (performance.now() - since) * 1000 >= budgetUs;
  }

  /**
   * Spin budget for the next wait (µs). A wait that ended while polling restores the
   * full budget; a second wait in a row that parked and took longer than the full
   * budget (so spinning it all would only have burnt the core) cuts it fourfold, down
   * to MIN_SHRUNK_SPIN_US (a partner preempted by other work can then take this
   * core sooner). One
   * such wait is not enough: a partner preempted once (a kernel thread, V8's compiler
   * or GC helpers taking a slice) must not drop a 2-rank job into parking on every
   * wait, where each wake-up costs 100+ µs on a VM and keeps the waits long (the
   * budget then collapses and 1 MiB calls take 300–500 µs until the next probe). Every 256th wait probes
   * with the full budget. A rank whose partner is not running concurrently (it shares
   * the core with it, or with other work) thus hands the core over at once, while
   * waits that are merely long-ish (a partner busy reducing) keep spinning.
   */
  spinBudget(): number {
    return (++this.waits & 255) === 0 ? Math.round(this.spinUs) : this.budgetUs;
  }

  /** Record how a wait ended: whether it parked, and when it started polling (performance.now(), 0 = unknown). */
  spinOutcome(parked: boolean, start: number): void {
    if (!parked) {
      this.budgetUs = Math.round(this.spinUs);
      this.longParks = 0;
    } else if (start > 0 && (performance.now() - start) * 1000 > this.spinUs && ++this.longParks >= 2) this.budgetUs = Math.max(this.budgetUs >> 2, Math.min(Math.round(this.spinUs), MIN_SHRUNK_SPIN_US));
  }

  /** Throw when the job aborts, the deadline has passed or a peer waited for has returned; warn when a wait is long. */
  check(task: Task, info: WaitInfo, now: number, since = now): void {
    this.beforePark(info, () => task.waitingFor(), now, since);
  }

  /**
   * What every wait does before it parks (`missing`: the communicator ranks it still
   * waits for; `since`: when the wait began): raise RankFailedError when the job
   * aborts, TimeoutError at the deadline, RankFailedError when a rank it waits for
   * has returned from its program (exit-board.ts; after EXIT_GRACE_MS, so that data
   * the rank sent just before returning can still arrive), and print one "still
   * waiting" warning per wait after warnAfterMs.
   */
  beforePark(info: WaitInfo, missing: () => readonly number[], now: number, since: number): void {
    const e = this.stalled(info, missing, now, since);
    if (e) throw e;
  }

  /** The error a wait must end with now, if any (see beforePark). */
  private stalled(info: WaitInfo, missing: () => readonly number[], now: number, since: number): Error | undefined {
    const ab = this.ep.aborted();
    if (ab) return new RankFailedError(ab.rank, ab.reason);
    if (now >= info.deadline) return timeoutError(info, missing());
    const exits = this.exits;
    if (exits !== undefined && exits.any()) {
      for (const r of missing()) {
        const w = info.worldOf[r];
        if (!exits.exited(w)) continue;
        const seen = this.exitSeen.get(w) ?? now;
        this.exitSeen.set(w, seen);
        if (now - seen >= (info.exitGraceMs ?? EXIT_GRACE_MS)) {
          return new RankFailedError(w, `returned from its program while world rank ${this.ep.rank} still waits for it in ${info.what}; every rank must make the same collective calls (and matching sends) before returning`);
        }
      }
    }
    if (this.warnAfterMs > 0 && now - since >= this.warnAfterMs && this.warned !== info) {
      this.warned = info;
      const m = missing().map((r) => info.worldOf[r]);
      process.stderr.write(
        `coll: world rank ${this.ep.rank} still waiting after ${((now - since) / 1000).toFixed(0)} s in ${info.what}${m.length > 0 ? ` for world ranks [${m.join(', ')}]` : ''}${info.timeoutMs > 0 ? `; times out after ${(info.timeoutMs / 1000).toFixed(0)} s` : ''} (COLL_WARN_AFTER_MS)\n`,
      );
    }
    return undefined;
  }

  /** Whether no background task (nonblocking call) is in progress. */
  idle(): boolean {
    if (this.active.length > 0) this.anyDone();
    return this.active.every((a) => a.task.done);
  }

  /** Start `task` in the background; `settle` runs once it is done (error or undefined). */
  startAsync(task: Task, info: WaitInfo, settle: (error: Error | undefined) => void): void {
    task.start();
    if (task.done) {
      settle(task.error);
      return;
    }
    this.active.push({ task, info, settle, since: performance.now() });
    void this.pump();
  }

  private anyDone(): boolean {
    let any = false;
    for (const a of this.active) {
      if (!a.task.done) a.task.advance();
      if (a.task.done) any = true;
    }
    return any;
  }

  /** Drive background tasks from the event loop until none is left. */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.active.length > 0) {
        this.progress();
        if (this.active.length === 0) break;
        const now = performance.now();
        let next = Infinity;
        const ab = this.ep.aborted();
        for (let i = 0; i < this.active.length; i++) {
          const a = this.active[i];
          const err = ab ? new RankFailedError(ab.rank, ab.reason) : this.stalled(a.info, () => a.task.waitingFor(), now, a.since);
          if (err) {
            this.active.splice(i--, 1);
            a.settle(err);
          } else next = Math.min(next, a.info.deadline);
        }
        if (this.active.length === 0) break;
        await this.ep.parkAsync(Math.max(0, Math.min(next - now, PARK_MS)), () => this.anyDone());
      }
    } finally {
      this.pumping = false;
    }
  }
}

export function timeoutError(info: WaitInfo, missing: readonly number[]): TimeoutError {
  const world = missing.map((r) => info.worldOf[r]);
  const same = missing.every((r, i) => world[i] === r);
  return new TimeoutError(
    `${info.what} did not complete within ${info.timeoutMs} ms${same || missing.length === 0 ? '' : ` (world ranks [${world.join(', ')}])`}`,
    missing,
    info.hint ??
      (missing.length > 0
        ? 'the missing ranks have not made the matching call: check that every rank calls the same collectives in the same order, or raise timeoutMs'
        : 'raise timeoutMs, or check for a rank that stopped making progress'),
  );
}
