/**
 * Recursive-doubling prefix reduction (Hillis–Steele), scan and exscan: in step k
 * (distance d = 2^k) every rank r sends its window v(r−d+1) ∘ … ∘ vr to r + d and
 * receives r − d's window, which covers the d ranks just below its own; putting the
 * received window *before* its own keeps rank order, so after ⌈log2 P⌉ steps rank r
 * holds v0 ∘ … ∘ vr. Exscan keeps a second accumulator of the received windows only
 * (v0 ∘ … ∘ v(r−1)); rank 0's output is not significant and left untouched.
 *
 * Cost: ⌈log2 P⌉·(α + nβ + nγ) (exscan: up to one more γ per step); correct for
 * non-commutative operators. MPICH's recursive-doubling MPI_Scan. Memory: one n-element
 * scratch per step (two for exscan).
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import type { RankSchedule, Region } from '../../schedule/types.js';
import type { ScheduleContext } from '../../schedule/context.js';
import type { AlgorithmSpec, CostInputs } from '../types.js';

function generate(ctx: ScheduleContext, exclusive: boolean): RankSchedule {
  const b = new ScheduleBuilder(ctx, 'recursive_doubling');
  const { rank: r, size: P, count } = ctx;
  const fresh = (name: string): Region => b.region(b.scratch(count, name), 0, count);
  let acc: Region = b.in(0, count); // window ending at r
  let accDeps: number[] = [];
  let ex: Region | undefined; // received windows only (exscan)
  let exDeps: number[] = [];
  for (let d = 1, k = 0; d < P; d *= 2, k++) {
    b.round = k;
    const sends: number[] = [];
    if (r + d < P) sends.push(b.send(r + d, acc, accDeps));
    if (r - d >= 0) {
      const t = fresh(`window${k}`);
      const got = b.recv(r - d, t);
      if (exclusive) {
        if (ex === undefined) {
          ex = t;
          exDeps = [got];
        } else {
          const e2 = fresh(`prefix${k}`);
          exDeps = [b.reduce([t, ex], e2, [got, ...exDeps])];
          ex = e2;
        }
      }
      // The new window goes to a fresh buffer: the send of the old one may still be reading it.
      const a2 = fresh(`acc${k}`);
      accDeps = [b.reduce([t, acc], a2, [got, ...accDeps, ...sends])];
      acc = a2;
    }
  }
  const out = b.out(0, count);
  if (!exclusive) b.copy(acc, out, accDeps);
  else if (ex !== undefined) b.copy(ex, out, exDeps);
  return b.build();
}

const base = {
  name: 'recursive_doubling',
  source: 'Hillis & Steele (1986); MPICH recursive-doubling MPI_Scan',
  restrictions: [],
  params: [],
  orderPreserving: true,
  cost: {
    formula: '⌈log2 P⌉·(α + nβ + nγ)',
    estimate: ({ P, n, alpha, beta, gamma }: CostInputs) => Math.ceil(Math.log2(Math.max(P, 1))) * (alpha + n * beta + n * gamma),
  },
} as const;

export const recursiveDoublingScan: AlgorithmSpec = {
  ...base,
  collective: 'scan',
  description: 'log2 P steps at doubling distance; each rank puts the window it receives before its own (rank order kept)',
  generate: (ctx) => generate(ctx, false),
};

export const recursiveDoublingExscan: AlgorithmSpec = {
  ...base,
  collective: 'exscan',
  description: 'log2 P steps at doubling distance, with a second accumulator of the received windows only',
  generate: (ctx) => generate(ctx, true),
};
