/**
 * Phased execution (`execution: 'phased'`): the schedules' rounds are global phases.
 *
 * Seed 000 describes its f-nomial reduction phase by phase (§3.2.3, Fig. 4.2, the
 * refined model of §4.2.3): in phase k every parent receives and reduces the data of
 * its children of that phase, a node sends its partial result "starting" the phase in
 * which it is a child, and "the root still incurs the message latency cost L while
 * waiting for the data of the last phase to arrive" even when that phase is partial.
 * The simulator's default (`'dag'`) lets every step start as soon as its own
 * dependencies are met, so a child whose subtree is partial sends early and the
 * parent does not wait L for it. Phased execution restores the seed's semantics:
 *
 *   a step of round k (`step.round`) may start only once every step of every round
 *   < k of every rank has completed (a phase boundary that costs nothing); within
 *   the open phase the schedule's own dependencies apply unchanged.
 *
 * The phase opens at the completion time of the last step of the previous rounds,
 * and the critical path of a step released by it continues from that step. Ranks
 * are counted as they load their schedules (all ranks must have started before a
 * phase can close). A message must be sent in a round no later than its receive's,
 * or the phases wait for each other (reported as a DeadlockError; every catalogue
 * algorithm satisfies it). Cost: one branch per step in DAG mode; in phased mode a round
 * lookup and a path copy per step and one event per phase.
 */
import type { RankSchedule } from '../schedule/types.js';
import { PATH } from './store.js';

export type Execution = 'dag' | 'phased';
export const EXECUTIONS: readonly Execution[] = ['dag', 'phased'];

export class PhaseGate {
  /** Steps of rounds ≤ open may run. */
  open = 0;
  /** Critical path at the end of the latest completed step (continued by released steps). */
  readonly path = new Float64Array(PATH);
  private readonly total: number[] = [];
  private readonly done: number[] = [];
  private readonly gated: number[][] = [];
  private readonly rounds: (Int32Array | undefined)[];
  private loaded = 0;
  private max = 0;
  /** An opening is scheduled (one phase event at a time). */
  pending = false;

  constructor(private readonly P: number) {
    this.rounds = new Array<Int32Array | undefined>(P);
  }

  /**
   * Rank r loaded schedule s (its unmet-dependency counts at I[oRem + i]): steps of
   * rounds beyond the open phase get one more unmet condition, the phase. Returns
   * true when a phase can open now.
   */
  load(r: number, s: RankSchedule, I: Int32Array, oRem: number): boolean {
    const steps = s.steps;
    const n = steps.length;
    const rounds = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const k = steps[i].round;
      rounds[i] = k;
      while (this.total.length <= k) {
        this.total.push(0);
        this.done.push(0);
        this.gated.push([]);
      }
      this.total[k]++;
      if (k > this.max) this.max = k;
      if (k > this.open) {
        I[oRem + i]++;
        this.gated[k].push(r, i);
      }
    }
    this.rounds[r] = rounds;
    this.loaded++;
    return this.canOpen();
  }

  /** Step `step` of rank r completed with critical path F[po..po+PATH); true when a phase can open now. */
  stepDone(r: number, step: number, F: Float64Array, po: number): boolean {
    const k = this.rounds[r]![step];
    this.done[k]++;
    for (let i = 0; i < PATH; i++) this.path[i] = F[po + i];
    return k === this.open && this.canOpen();
  }

  private canOpen(): boolean {
    return !this.pending && this.loaded === this.P && this.open < this.max && this.done[this.open] === this.total[this.open];
  }

  /** Open every phase whose predecessors are complete; returns the released steps as (rank, step) pairs. */
  advance(): number[] {
    this.pending = false;
    const out: number[] = [];
    while (this.open < this.max && this.done[this.open] === this.total[this.open]) {
      this.open++;
      const g = this.gated[this.open];
      for (let j = 0; j < g.length; j++) out.push(g[j]);
      this.gated[this.open] = [];
    }
    return out;
  }
}
