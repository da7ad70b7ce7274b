/**
 * The message pattern of one rank in a NIC barrier, taken from the catalogue's
 * barrier schedules (src/algorithms/barrier) rather than re-derived: seed 003 ch. 6
 * runs the dissemination (DS) and pairwise-exchange (PE, with the extra step for
 * non-powers of two) algorithms in the NIC (M6, §3 A7).
 *
 * Every step is a zero-byte send or receive with the algorithm's round number and
 * its dependencies. A barrier message is identified by (sender, round): the pattern
 * checks that no rank expects two messages from the same peer in the same round,
 * which lets the static packet carry just (barrier sequence, round) (M4).
 *
 * Messages per barrier (over all ranks): DS P·⌈lg P⌉; PE p'·lg p' + 2·(P − p') with
 * p' = 2^⌊lg P⌋ (P·lg P for powers of two).
 */
import { generateRankSchedule, getAlgorithm } from '../../algorithms/registry.js';

export type BarrierAlgorithm = 'dissemination' | 'pairwise_exchange';

export const BARRIER_ALGORITHMS: readonly BarrierAlgorithm[] = ['dissemination', 'pairwise_exchange'];

export interface BarrierStep {
  readonly kind: 'send' | 'recv';
  readonly peer: number;
  readonly round: number;
  /** Indices of the steps that must be complete before this one. */
  readonly deps: readonly number[];
}

export interface BarrierPattern {
  readonly algorithm: BarrierAlgorithm;
  readonly rank: number;
  readonly size: number;
  readonly steps: readonly BarrierStep[];
  /** Algorithm rounds (the schedule's round count). */
  readonly rounds: number;
  /** Step index of the receive of (peer, round), if any. */
  recvStep(peer: number, round: number): number | undefined;
  /** Step index of the send to (peer, round), if any. */
  sendStep(peer: number, round: number): number | undefined;
}

export function barrierPattern(algorithm: BarrierAlgorithm, rank: number, size: number): BarrierPattern {
  const schedule = generateRankSchedule(getAlgorithm('barrier', algorithm), rank, { size });
  const steps: BarrierStep[] = [];
  const recvs = new Map<number, number>();
  const sends = new Map<number, number>();
  const key = (peer: number, round: number): number => round * size + peer;
  for (const [i, s] of schedule.steps.entries()) {
    if (s.kind !== 'send' && s.kind !== 'recv') {
      throw new Error(`barrier/${algorithm} has a ${s.kind} step; a NIC barrier only sends and receives signals`);
    }
    const index = s.kind === 'send' ? sends : recvs;
    const k = key(s.peer, s.round);
    if (index.has(k)) throw new Error(`barrier/${algorithm}: rank ${rank} has two ${s.kind}s with peer ${s.peer} in round ${s.round}`);
    index.set(k, i);
    steps.push({ kind: s.kind, peer: s.peer, round: s.round, deps: s.deps });
  }
  return {
    algorithm,
    rank,
    size,
    steps,
    rounds: schedule.rounds,
    recvStep: (peer, round) => recvs.get(key(peer, round)),
    sendStep: (peer, round) => sends.get(key(peer, round)),
  };
}
