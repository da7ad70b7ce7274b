/**
 * Rabenseifner's reduce (MPICH reduce_intra_reduce_scatter_gather): a reduce-scatter
 * by recursive halving followed by a binomial gather of the blocks to the root.
 *
 * Virtual ranks v = rank − root mod P (the operator is commutative, so the root can
 * be moved to v = 0). Non-powers of two fold first as MPICH's reduce does: with
 * P' = 2^⌊lg P⌋ and rem = P − P', every odd v < 2·rem sends its whole vector to
 * v − 1 and takes no further part; survivors are renumbered u = v/2 (v < 2·rem) or
 * u = v − rem. The vector is cut into P' blocks (blockCount: the first count mod P'
 * blocks one element longer). Halving step l = 0..lg P'−1 pairs u with u XOR 2^l;
 * the lower keeps the lower half of its current block range and reduces the
 * partner's copy of it into its accumulator. The gather runs the steps backwards:
 * at step l a rank with bit l set sends everything it holds (a contiguous block
 * range) to u XOR 2^l and stops; the partner receives it in place. u = 0 (the root)
 * ends with the whole vector in its output buffer, so no rotation is needed.
 *
 * count < P' works: blocks may be empty and the matching messages carry 0 elements
 * (kept so every rank's message pattern is the same for every count).
 *
 * Cost (P a power of two): 2·lg P·α + 2·(P−1)/P·nβ + (P−1)/P·nγ;
 * otherwise add α + nβ + nγ for the fold.
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import { blockRange, floorPow2 } from '../../schedule/partition.js';
import { OUT, type Region } from '../../schedule/types.js';
import { commutative } from '../restrictions.js';
import type { AlgorithmSpec } from '../types.js';

export const rabenseifner: AlgorithmSpec = {
  name: 'rabenseifner',
  collective: 'reduce',
  description: 'reduce-scatter by recursive halving, then binomial gather to the root; non-powers of two fold first',
  source: 'MPICH reduce_intra_reduce_scatter_gather (Rabenseifner); Thakur, Rabenseifner & Gropp 2005',
  restrictions: [commutative],
  params: [],
  orderPreserving: false,
  fallback: 'binomial',
  cost: {
    formula: '2⌊lg P⌋·α + 2(P′−1)/P′·nβ + (P′−1)/P′·nγ [+ α + nβ + nγ if P is not a power of two], P′ = 2^⌊lg P⌋',
    estimate: ({ P, n, alpha, beta, gamma }) => {
      const pof2 = floorPow2(P);
      const L = Math.log2(pof2);
      const frac = (pof2 - 1) / pof2;
      return 2 * L * alpha + 2 * frac * n * beta + frac * n * gamma + (pof2 === P ? 0 : alpha + n * (beta + gamma));
    },
  },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'rabenseifner');
    const { rank, size: P, root, count } = ctx;
    const v = (rank - root + P) % P;
    const toRank = (vv: number): number => (vv + root) % P;
    const pof2 = floorPow2(P);
    const rem = P - pof2;
    const L = Math.log2(pof2);
    const off = rem > 0 ? 1 : 0;
    const uToRank = (u: number): number => toRank(u < rem ? 2 * u : u + rem);
    const input = b.in(0, count);
    if (P === 1) {
      b.copy(input, b.out(0, count));
      return b.build();
    }

    // Fold.
    b.round = 0;
    let u: number;
    let last: number[] = [];
    // Accumulator: the root's output, a scratch buffer elsewhere.
    let acc = v === 0 ? OUT : -1;
    let src: Region = input;
    if (v < 2 * rem) {
      b.phase = 'fold';
      if (v % 2 === 1) {
        b.send(toRank(v - 1), input);
        return b.build();
      }
      if (acc < 0) acc = b.scratch(count, 'acc');
      const tmp = b.region(b.scratch(count, 'tmp'), 0, count);
      const r = b.recv(toRank(v + 1), tmp);
      last = [b.reduce([input, tmp], b.region(acc, 0, count), [r])];
      src = b.region(acc, 0, count);
      u = v / 2;
    } else {
      u = v - rem;
    }
    if (acc < 0) acc = b.scratch(count, 'acc');

    // Reduce-scatter by recursive halving (distance 1, 2, 4, …).
    b.phase = 'reduce-scatter';
    const tmp = b.scratch(blockRange(count, pof2, 0, pof2 / 2).count, 'remote');
    const levels: { keep: { offset: number; count: number }; give: { offset: number; count: number }; partner: number }[] = [];
    let first = 0;
    let num = pof2;
    for (let l = 0; l < L; l++) {
      b.round = off + l;
      const mask = 1 << l;
      const half = num / 2;
      const upper = (u & mask) !== 0;
      const keepFirst = upper ? first + half : first;
      const giveFirst = upper ? first : first + half;
      const keep = blockRange(count, pof2, keepFirst, half);
      const give = blockRange(count, pof2, giveFirst, half);
      const partner = uToRank(u ^ mask);
      levels.push({ keep, give, partner });
      const s = b.send(partner, b.region(src.buf, give.offset, give.count), last);
      const t = b.region(tmp, 0, keep.count);
      const r = b.recv(partner, t, last);
      const mine = b.region(src.buf, keep.offset, keep.count);
      last = [b.reduce(upper ? [t, mine] : [mine, t], b.region(acc, keep.offset, keep.count), [s, r])];
      src = b.region(acc, 0, count);
      first = keepFirst;
      num = half;
    }

    // Binomial gather to u = 0, the halving steps in reverse.
    // Receives land in disjoint ranges, so they only wait for the halving to finish.
    b.phase = 'gather';
    const halved = last;
    for (let l = L - 1; l >= 0; l--) {
      b.round = off + L + (L - 1 - l);
      const { keep, give, partner } = levels[l];
      if (u & (1 << l)) {
        b.send(partner, b.region(acc, keep.offset, keep.count), last);
        break;
      }
      last = [...last, b.recv(partner, b.region(acc, give.offset, give.count), halved)];
    }
    return b.build();
  },
};
