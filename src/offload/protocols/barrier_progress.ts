/**
 * Bookkeeping and progress of a sequence of barriers at one rank, shared by the
 * NACK-based NIC barrier and the ACK-based comparison protocol (seed 003 ch. 6,
 * M3–M6). Reliability is not handled here, only "what has arrived, what may be sent".
 *
 * One record per barrier (M5): a bit vector over the steps of the rank's pattern
 * (messages that have arrived / steps that are done) and the start timestamp. Steps
 * fire in dependency order: a send as soon as its dependencies are done (the NIC
 * "triggers" the next message when an earlier one arrives), a receive once its
 * message has arrived and its dependencies are done.
 *
 * Early arrivals (skew tolerance, ch. 6 §6.2): a message of the barrier after the
 * current one is recorded and counted when the rank enters it. No other barrier can
 * have traffic: a peer sends for barrier s + 1 only after completing s, which needs
 * this rank to have entered s. So at most two records exist (the current one and the
 * next), and a message for a barrier beyond the next entered one is a protocol
 * violation; it is counted and dropped.
 *
 * Cost: each message of the pattern is handed to `transmit` exactly once per barrier;
 * state is two records of 2 bits per step.
 */
import type { BarrierPattern, BarrierStep } from './barrier_pattern.js';
import { BitVector } from './bitvector.js';

export interface BarrierRecord {
  readonly seq: number;
  /** Start timestamp (NaN until the rank enters the barrier). */
  startedAt: number;
  /** Messages that have arrived, by step index. */
  readonly arrived: BitVector;
  /** Steps done, by step index. */
  readonly done: BitVector;
}

export type ArrivalOutcome = 'new' | 'duplicate' | 'stale' | 'violation' | 'unexpected';

export interface BarrierProgressHooks {
  /** Send the message of `step` of barrier `seq` for the first time. */
  transmit(seq: number, step: BarrierStep): void;
  /** Barrier `seq` is complete at this rank (the record is gone). */
  completed(seq: number): void;
}

export class BarrierProgress {
  private readonly records = new Map<number, BarrierRecord>();
  private enteredCount = 0;
  private completedCount = 0;

  constructor(
    readonly pattern: BarrierPattern,
    private readonly hooks: BarrierProgressHooks,
  ) {}

  /** Barriers entered so far (the next one gets this sequence number). */
  get entered(): number {
    return this.enteredCount;
  }

  /** Barriers completed so far. */
  get completed(): number {
    return this.completedCount;
  }

  /** The entered, incomplete barrier, if any. */
  current(): BarrierRecord | undefined {
    return this.enteredCount > this.completedCount ? this.records.get(this.completedCount) : undefined;
  }

  /** Enter the next barrier at time `now`; returns its sequence number. */
  enter(now: number): number {
    if (this.enteredCount !== this.completedCount) {
      throw new Error(`barrier ${this.completedCount} is still in progress; enter the next one after it completes`);
    }
    const seq = this.enteredCount++;
    const rec = this.record(seq);
    rec.startedAt = now;
    this.advance(rec);
    return seq;
  }

  /** A message (seq, round) from `from` arrived. */
  arrive(seq: number, from: number, round: number): ArrivalOutcome {
    if (seq < this.completedCount) return 'stale';
    if (seq > this.enteredCount) return 'violation';
    const step = this.pattern.recvStep(from, round);
    if (step === undefined) return 'unexpected';
    const rec = this.record(seq);
    if (!rec.arrived.set(step)) return 'duplicate';
    if (seq < this.enteredCount) this.advance(rec);
    return 'new';
  }

  /** Has this rank already sent its message (seq, round) to `peer`? (Resend only then.) */
  hasSent(seq: number, peer: number, round: number): boolean {
    const step = this.pattern.sendStep(peer, round);
    if (step === undefined) return false;
    if (seq < this.completedCount) return true;
    return this.records.get(seq)?.done.get(step) ?? false;
  }

  /**
   * Receive steps of `rec` whose message has not arrived (the timeout scan of the bit
   * vector); with `awaitedOnly`, just those the rank is blocked on (dependencies done).
   */
  missing(rec: BarrierRecord, awaitedOnly = false): BarrierStep[] {
    return this.pattern.steps.filter(
      (s, i) => s.kind === 'recv' && !rec.arrived.get(i) && (!awaitedOnly || s.deps.every((d) => rec.done.get(d))),
    );
  }

  private record(seq: number): BarrierRecord {
    let rec = this.records.get(seq);
    if (!rec) {
      const n = this.pattern.steps.length;
      rec = { seq, startedAt: Number.NaN, arrived: new BitVector(n), done: new BitVector(n) };
      this.records.set(seq, rec);
    }
    return rec;
  }

  private advance(rec: BarrierRecord): void {
    const steps = this.pattern.steps;
    for (let progress = true; progress; ) {
      progress = false;
      for (const [i, step] of steps.entries()) {
        if (rec.done.get(i) || !step.deps.every((d) => rec.done.get(d))) continue;
        if (step.kind === 'recv' && !rec.arrived.get(i)) continue;
        rec.done.set(i);
        progress = true;
        if (step.kind === 'send') this.hooks.transmit(rec.seq, step);
      }
    }
    if (rec.done.full) {
      this.records.delete(rec.seq);
      this.completedCount++;
      this.hooks.completed(rec.seq);
    }
  }
}
