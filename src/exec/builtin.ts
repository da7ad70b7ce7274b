/**
 * Schedules the runtime brings itself (not catalogue entries): the fixed-order
 * reductions of reproducible mode, and plain "direct" algorithms used when the
 * catalogue has nothing applicable for a collective.
 *
 * Reproducible reductions fold the ranks' contributions in rank order,
 * ((v0 ∘ v1) ∘ v2) ∘ …, exactly like the sequential reference, whatever the message
 * size: each element is reduced by one rank from all P contributions, so the result
 * depends on nothing but the inputs and is identical on every rank.
 * - allreduce: direct reduce-scatter (rank b folds block b of every rank) then a
 *   direct allgather; bandwidth-optimal, P−1 messages each way per rank.
 * - reduce: every rank sends to the root, which folds.
 * - reduce_scatter (block): the reduce-scatter half of the allreduce.
 */
import { linearExscan, linearScan } from '../algorithms/scan/linear.js';
import type { AlgorithmSpec } from '../algorithms/types.js';
import { ScheduleBuilder } from '../schedule/builder.js';
import type { ScheduleContext } from '../schedule/context.js';
import { blockCount, blockOffset } from '../schedule/partition.js';
import type { RankSchedule, Region } from '../schedule/types.js';

function spec(
  collective: AlgorithmSpec['collective'],
  name: string,
  description: string,
  formula: string,
  generate: (ctx: ScheduleContext) => RankSchedule,
): AlgorithmSpec {
  return {
    name,
    collective,
    description,
    source: 'collectives runtime (built in)',
    restrictions: [],
    params: [],
    orderPreserving: true,
    cost: { formula, estimate: ({ P, n, alpha, beta, gamma }) => (P - 1) * (alpha + (n / P) * (beta + gamma)) },
    generate,
  };
}

/**
 * Reduce-scatter where rank b folds block b of all ranks in rank order.
 * `block(q)` is the region of q's block in this rank's input. Returns the reduce step.
 */
function directReduceScatter(b: ScheduleBuilder, block: (q: number) => Region, dst: Region): number {
  const { rank: me, size: P } = b;
  b.round = 0;
  for (let q = 0; q < P; q++) if (q !== me && block(q).count > 0) b.send(q, block(q));
  if (dst.count === 0) return -1;
  const tmp = b.scratch(dst.count * Math.max(1, P - 1), 'contrib');
  const operands: Region[] = [];
  const recvs: number[] = [];
  let slot = 0;
  for (let q = 0; q < P; q++) {
    if (q === me) {
      operands.push(block(me));
      continue;
    }
    const r = b.region(tmp, dst.count * slot++, dst.count);
    recvs.push(b.recv(q, r));
    operands.push(r);
  }
  b.round = 1;
  return P === 1 ? b.copy(operands[0], dst) : b.reduce(operands, dst, recvs);
}

export const reproducibleAllreduce = spec(
  'allreduce',
  'reproducible',
  'rank-order fold: direct reduce-scatter (rank b folds block b of all ranks in rank order), then direct allgather',
  '2(P−1)·α + 2((P−1)/P)·nβ + ((P−1)/P)·nγ',
  (ctx) => {
    const b = new ScheduleBuilder(ctx, 'reproducible');
    const { rank: me, size: P, count } = ctx;
    const blk = (q: number): Region => b.in(blockOffset(count, P, q), blockCount(count, P, q));
    const mine = b.out(blockOffset(count, P, me), blockCount(count, P, me));
    const red = directReduceScatter(b, blk, mine);
    b.round = 2;
    for (let q = 0; q < P; q++) {
      if (q === me) continue;
      if (mine.count > 0) b.send(q, mine, [red]);
      const theirs = b.out(blockOffset(count, P, q), blockCount(count, P, q));
      if (theirs.count > 0) b.recv(q, theirs);
    }
    return b.build();
  },
);

export const reproducibleReduce = spec(
  'reduce',
  'reproducible',
  'rank-order fold at the root: every rank sends its vector to the root',
  '(P−1)·(α + nβ + nγ)',
  (ctx) => {
    const b = new ScheduleBuilder(ctx, 'reproducible');
    const { rank: me, size: P, count, root } = ctx;
    b.round = 0;
    if (me !== root) {
      if (count > 0) b.send(root, b.in(0, count));
      return b.build();
    }
    if (count === 0) return b.build();
    if (P === 1) {
      b.copy(b.in(0, count), b.out(0, count));
      return b.build();
    }
    const tmp = b.scratch(count * (P - 1), 'contrib');
    const operands: Region[] = [];
    const recvs: number[] = [];
    let slot = 0;
    for (let q = 0; q < P; q++) {
      if (q === me) operands.push(b.in(0, count));
      else {
        const r = b.region(tmp, count * slot++, count);
        recvs.push(b.recv(q, r));
        operands.push(r);
      }
    }
    b.round = 1;
    b.reduce(operands, b.out(0, count), recvs);
    return b.build();
  },
);

export const reproducibleReduceScatter = spec(
  'reduce_scatter',
  'reproducible',
  'rank-order fold: rank b receives block b from every rank and folds in rank order',
  '(P−1)·(α + nβ + nγ)',
  (ctx) => {
    const b = new ScheduleBuilder(ctx, 'reproducible');
    const c = ctx.count;
    directReduceScatter(b, (q) => b.in(q * c, c), b.out(0, c));
    return b.build();
  },
);

export const directAlltoall = spec(
  'alltoall',
  'direct',
  'every rank sends block q straight to rank q and receives block q from it',
  '(P−1)·(α + nβ)',
  (ctx) => {
    const b = new ScheduleBuilder(ctx, 'direct');
    const { rank: me, size: P, count: c } = ctx;
    b.round = 0;
    if (c === 0) return b.build();
    for (let q = 0; q < P; q++) {
      if (q === me) b.copy(b.in(q * c, c), b.out(q * c, c));
      else {
        b.send(q, b.in(q * c, c));
        b.recv(q, b.out(q * c, c));
      }
    }
    return b.build();
  },
);

/** Binomial broadcast from `root` (used to make results identical on all ranks). */
export const binomialBcast = spec('bcast', 'binomial', 'binomial tree broadcast', '⌈lg P⌉·(α + nβ)', (ctx) => {
  const b = new ScheduleBuilder(ctx, 'binomial');
  const { rank: me, size: P, root, count } = ctx;
  if (count === 0) return b.build();
  const vr = (me - root + P) % P;
  const deps: number[] = [];
  let mask = 1;
  let round = 0;
  while (mask < P) {
    if (vr & mask) {
      b.round = round;
      deps.push(b.recv((vr - mask + root) % P, b.out(0, count)));
      break;
    }
    mask <<= 1;
    round++;
  }
  mask >>= 1;
  while (mask > 0) {
    if (vr + mask < P) {
      b.round = ++round;
      b.send((vr + mask + root) % P, b.out(0, count), deps);
    }
    mask >>= 1;
  }
  return b.build();
});

/** Fallbacks per collective when the catalogue offers nothing applicable. */
export const FALLBACK: Partial<Record<AlgorithmSpec['collective'], AlgorithmSpec>> = {
  allreduce: reproducibleAllreduce,
  reduce: reproducibleReduce,
  reduce_scatter: reproducibleReduceScatter,
  alltoall: directAlltoall,
  bcast: binomialBcast,
};

export const REPRODUCIBLE: Partial<Record<AlgorithmSpec['collective'], AlgorithmSpec>> = {
  allreduce: reproducibleAllreduce,
  reduce: reproducibleReduce,
  reduce_scatter: reproducibleReduceScatter,
  // The chain folds ((v0 ∘ v1) ∘ v2) ∘ …: the sequential grouping, bit for bit.
  scan: linearScan,
  exscan: linearExscan,
};
