/**
 * Order-preserving reduce-scatter (block form): a binomial reduce of the whole
 * count·P vector to rank 0 (tree rooted at rank 0, own ∘ children, so rank order is
 * kept for any operator), then a binomial scatter of the blocks from rank 0. This is
 * Open MPI's basic reduce_scatter (reduce + scatterv) with tree building blocks; it
 * trades bandwidth for operator generality.
 * Cost (n = bytes of the whole input vector): ⌈lg P⌉·(α + nβ + nγ) + ⌈lg P⌉·α + (P−1)/P·nβ.
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import { ceilLog } from '../../schedule/partition.js';
import { IN, OUT } from '../../schedule/types.js';
import { binomial as reduceBinomial } from '../reduce/binomial.js';
import { subSchedule } from '../params.js';
import { binomial as scatterBinomial } from '../scatter/binomial.js';
import type { AlgorithmSpec } from '../types.js';

export const reduceThenScatter: AlgorithmSpec = {
  name: 'reduce_then_scatter',
  collective: 'reduce_scatter',
  description: 'binomial reduce of the whole vector to rank 0, then binomial scatter; keeps rank order for any operator',
  source: 'Open MPI reduce_scatter basic (reduce + scatterv); building blocks reduce/binomial, scatter/binomial',
  restrictions: [],
  params: [],
  orderPreserving: true,
  cost: {
    formula: '⌈lg P⌉·(α + nβ + nγ) + ⌈lg P⌉·α + (P−1)/P·nβ',
    estimate: ({ P, n, alpha, beta, gamma }) => ceilLog(P) * (2 * alpha + n * (beta + gamma)) + ((P - 1) / P) * n * beta,
  },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'reduce_then_scatter');
    const { rank, size: P, count } = ctx;
    const total = count * P;
    const full = rank === 0 ? b.scratch(total, 'reduced') : -1;
    b.round = 0;
    const red = subSchedule(reduceBinomial, ctx, { collective: 'reduce', rank, size: P, count: total, root: 0 });
    const done = b.embed(red, {
      peer: (r) => r,
      input: { buf: IN, offset: 0 },
      output: rank === 0 ? { buf: full, offset: 0 } : undefined,
      phase: 'reduce',
    });
    b.round = ceilLog(P);
    const sc = subSchedule(scatterBinomial, ctx, { collective: 'scatter', rank, size: P, count, root: 0 });
    b.embed(sc, {
      peer: (r) => r,
      input: rank === 0 ? { buf: full, offset: 0 } : undefined,
      output: { buf: OUT, offset: 0 },
      after: done,
      phase: 'scatter',
    });
    return b.build();
  },
};
