/**
 * Linear (chain) prefix reduction, scan and exscan: rank r receives the prefix
 * v0 ∘ … ∘ v(r−1) from rank r − 1, combines its own vector after it and passes
 * v0 ∘ … ∘ vr on to rank r + 1. Scan leaves v0 ∘ … ∘ vr at rank r, exscan
 * v0 ∘ … ∘ v(r−1) (rank 0's output is not significant and left untouched, as in MPI).
 * Rank order throughout: correct for non-commutative operators.
 *
 * Cost: P − 1 dependent steps, (P−1)·(α + nβ + nγ); the last rank finishes last.
 * MPICH's and Open MPI's basic linear scan. Memory: n scratch per rank.
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import type { RankSchedule } from '../../schedule/types.js';
import type { ScheduleContext } from '../../schedule/context.js';
import type { AlgorithmSpec, CostInputs } from '../types.js';

function generate(ctx: ScheduleContext, exclusive: boolean): RankSchedule {
  const b = new ScheduleBuilder(ctx, 'linear');
  const { rank, size: P, count } = ctx;
  const mine = b.in(0, count);
  const out = b.out(0, count);
  b.round = 0;
  if (rank === 0) {
    if (!exclusive) b.copy(mine, out);
    if (P > 1) b.send(1, mine);
    return b.build();
  }
  b.round = rank - 1;
  const last = rank === P - 1;
  if (exclusive) {
    // The prefix is the output; the next rank gets prefix ∘ mine.
    const got = b.recv(rank - 1, out);
    if (!last) {
      const next = b.region(b.scratch(count, 'prefix'), 0, count);
      const red = b.reduce([out, mine], next, [got]);
      b.round = rank;
      b.send(rank + 1, next, [red]);
    }
    return b.build();
  }
  const pre = b.region(b.scratch(count, 'prefix'), 0, count);
  const got = b.recv(rank - 1, pre);
  const red = b.reduce([pre, mine], out, [got]);
  if (!last) {
    b.round = rank;
    b.send(rank + 1, out, [red]);
  }
  return b.build();
}

const base = {
  name: 'linear',
  source: 'MPICH/Open MPI basic linear scan',
  restrictions: [],
  params: [],
  orderPreserving: true,
  cost: {
    formula: '(P−1)·(α + nβ + nγ)',
    estimate: ({ P, n, alpha, beta, gamma }: CostInputs) => (P - 1) * (alpha + n * beta + n * gamma),
  },
} as const;

export const linearScan: AlgorithmSpec = {
  ...base,
  collective: 'scan',
  description: 'a chain: each rank receives the prefix of the ranks before it, folds its vector after it and passes it on',
  generate: (ctx) => generate(ctx, false),
};

export const linearExscan: AlgorithmSpec = {
  ...base,
  collective: 'exscan',
  description: 'a chain: each rank receives the prefix of the ranks before it (its result) and passes prefix ∘ own vector on',
  generate: (ctx) => generate(ctx, true),
};
