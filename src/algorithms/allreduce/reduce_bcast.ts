/**
 * Reduce + broadcast allreduce (seed 000: "reduce followed by broadcast turns a
 * reduce into an allreduce"; seed 001 Fig. 2 with f = 2). An f-nomial tree reduce to
 * rank 0 (buildFnomialReduce, seed 000 Appendix A rank arithmetic), then a k-nomial
 * broadcast from rank 0 down the same tree. The reduce combines own ∘ children in id
 * order with id = rank, so the result is v0 ∘ v1 ∘ … ∘ v(P−1): order preserving.
 * The root computes the result once and everyone receives a copy of it.
 * Cost: ⌈log_f P⌉·(f−1)·(α + nβ + nγ) for the reduce plus ⌈log_f P⌉·(f−1)·(α + nβ)
 * for the broadcast (the root's sends within a phase serialise).
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import { ceilLog } from '../../schedule/partition.js';
import { buildFnomialReduce } from '../reduce/fnomial.js';
import type { AlgorithmSpec } from '../types.js';
import { buildKnomialBcast } from './common.js';

export const reduceBcast: AlgorithmSpec = {
  name: 'reduce_bcast',
  collective: 'allreduce',
  description: 'f-nomial tree reduce to rank 0, then k-nomial broadcast down the same tree; order preserving',
  source: 'seed 000 §3.2.3 and Appendix A (f-nomial trees); seed 001 Fig. 2 (f = 2)',
  restrictions: [],
  params: [{ name: 'f', description: 'tree degree (children per phase + 1); 2 = binomial', type: 'int', default: 4, min: 2, max: 1 << 20 }],
  orderPreserving: true,
  cost: {
    formula: '⌈log_f P⌉·(f−1)·(2α + 2nβ + nγ)',
    estimate: ({ P, n, alpha, beta, gamma, params }) => {
      const f = Number(params.f ?? 4);
      return ceilLog(P, f) * (f - 1) * (2 * alpha + 2 * n * beta + n * gamma);
    },
  },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'reduce_bcast');
    const { rank, size: P, count } = ctx;
    const f = Number(ctx.params.f);
    const out = b.out(0, count);
    b.phase = 'reduce';
    // Rank 0 accumulates straight into its output; the others' partials live in scratch.
    const done = buildFnomialReduce(b, {
      me: rank,
      P,
      f,
      count,
      input: b.in(0, count),
      result: rank === 0 ? out : b.in(0, 0),
      rankOf: (id) => id,
    });
    b.phase = 'bcast';
    buildKnomialBcast(b, { me: rank, P, f, data: out, rankOf: (id) => id, after: done, round0: ceilLog(P, f) });
    return b.build();
  },
};
