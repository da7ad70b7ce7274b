/**
 * Recursive-halving reduce-scatter (block form), MPICH
 * reduce_scatter_block_intra_recursive_halving. Each step halves the range of
 * blocks a rank is responsible for: at distance d = P'/2, P'/4, …, 1 rank u
 * exchanges with u XOR d, sends the half of its current range that the partner
 * keeps and reduces the partner's copy of the half it keeps. After lg P' steps u
 * holds its own block fully reduced.
 *
 * Non-powers of two (MPICH's fold): with P' = 2^⌊lg P⌋ and rem = P − P', among ranks
 * < 2·rem every even rank sends its whole input to rank + 1 and waits; the odd rank
 * combines (even ∘ odd) and continues as u = rank/2, now responsible for both
 * blocks (rank − 1, rank); ranks ≥ 2·rem continue as u = rank − rem. At the end each
 * odd rank hands block rank − 1 to its even neighbour. Any count ≥ 0 (messages may
 * be empty when count = 0).
 *
 * The halves interleave ranks (u and u + P'/2 are combined first), so the operator
 * must be commutative. The last combine writes the rank's own block straight into
 * its output.
 * Cost (n = bytes of the whole input vector, P a power of two):
 * lg P·α + (P−1)/P·n(β + γ); otherwise add α + nβ + nγ (fold) and α + (n/P)β (hand-back).
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import { floorPow2 } from '../../schedule/partition.js';
import type { Region } from '../../schedule/types.js';
import { commutative } from '../restrictions.js';
import type { AlgorithmSpec } from '../types.js';

export const recursiveHalving: AlgorithmSpec = {
  name: 'recursive_halving',
  collective: 'reduce_scatter',
  description: 'recursive halving (distance P/2 first); non-powers of two fold into 2^⌊lg P⌋ ranks',
  source: 'MPICH reduce_scatter_block_intra_recursive_halving; Thakur, Rabenseifner & Gropp 2005',
  restrictions: [commutative],
  params: [],
  orderPreserving: false,
  fallback: 'pairwise',
  cost: {
    formula: '⌊lg P⌋·α + (P′−1)/P′·n(β + γ) [+ 2α + nβ + nγ + (n/P)β if P is not a power of two], P′ = 2^⌊lg P⌋',
    estimate: ({ P, n, alpha, beta, gamma }) => {
      const pof2 = floorPow2(P);
      const base = Math.log2(pof2) * alpha + ((pof2 - 1) / pof2) * n * (beta + gamma);
      return base + (pof2 === P ? 0 : 2 * alpha + n * (beta + gamma) + (n / P) * beta);
    },
  },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'recursive_halving');
    const { rank, size: P, count } = ctx;
    const total = count * P;
    const input = b.in(0, total);
    const out = b.out(0, count);
    if (P === 1) {
      b.copy(input, out);
      return b.build();
    }
    const pof2 = floorPow2(P);
    const rem = P - pof2;
    const L = Math.log2(pof2);
    const off = rem > 0 ? 1 : 0;
    // First original block of new block i (i = pof2 gives P).
    const firstBlock = (i: number): number => (i < rem ? 2 * i : i + rem);
    const range = (first: number, n: number): { offset: number; count: number } => ({
      offset: firstBlock(first) * count,
      count: (firstBlock(first + n) - firstBlock(first)) * count,
    });
    const uToRank = (u: number): number => (u < rem ? 2 * u + 1 : u + rem);

    b.round = 0;
    let u: number;
    let last: number[] = [];
    let src: Region = input;
    const acc = b.scratch(total, 'acc');
    const tmpSize = Math.max(range(0, pof2 / 2).count, range(pof2 / 2, pof2 / 2).count, rank < 2 * rem ? total : 0);
    const tmp = b.scratch(tmpSize, 'remote');
    if (rank < 2 * rem) {
      b.phase = 'fold';
      if (rank % 2 === 0) {
        const s = b.send(rank + 1, input);
        b.phase = 'unfold';
        b.round = off + L;
        b.recv(rank + 1, out, [s]);
        return b.build();
      }
      const t = b.region(tmp, 0, total);
      const r = b.recv(rank - 1, t);
      last = [b.reduce([t, input], b.region(acc, 0, total), [r])];
      src = b.region(acc, 0, total);
      u = rank >> 1;
    } else {
      u = rank - rem;
    }

    b.phase = 'halving';
    let first = 0;
    let num = pof2;
    for (let l = 0; l < L; l++) {
      b.round = off + l;
      const mask = pof2 >> (l + 1);
      const half = num / 2;
      const upper = (u & mask) !== 0;
      const keepFirst = upper ? first + half : first;
      const keep = range(keepFirst, half);
      const give = range(upper ? first : first + half, half);
      const partner = uToRank(u ^ mask);
      const s = b.send(partner, b.region(src.buf, give.offset, give.count), last);
      const t = b.region(tmp, 0, keep.count);
      const r = b.recv(partner, t, last);
      const mine = b.region(src.buf, keep.offset, keep.count);
      const operands = (x: Region, y: Region): Region[] => (upper ? [x, y] : [y, x]);
      if (l < L - 1) {
        last = [b.reduce(operands(t, mine), b.region(acc, keep.offset, keep.count), [s, r])];
      } else if (u >= rem) {
        // Own block only: straight into the output.
        last = [b.reduce(operands(t, mine), out, [s, r])];
      } else {
        // Blocks rank − 1 (for the even neighbour) and rank.
        const lo = (x: Region): Region => b.region(x.buf, x.offset, count);
        const hi = (x: Region): Region => b.region(x.buf, x.offset + count, count);
        const left = b.reduce(operands(lo(t), lo(mine)), b.region(acc, keep.offset, count), [s, r]);
        b.reduce(operands(hi(t), hi(mine)), out, [s, r]);
        b.phase = 'unfold';
        b.round = off + L;
        b.send(rank - 1, b.region(acc, keep.offset, count), [left]);
      }
      src = b.region(acc, 0, total);
      first = keepFirst;
      num = half;
    }
    return b.build();
  },
};
