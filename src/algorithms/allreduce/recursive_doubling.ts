/**
 * Recursive-doubling (butterfly) allreduce. In round k rank r exchanges its whole
 * partial result with r XOR 2^k and combines; after lg P rounds every rank holds
 * the full reduction. For P not a power of two, let p' = 2^⌊lg P⌋ and rem = P − p':
 * among the first 2·rem ranks each even rank folds its vector into rank + 1 and
 * sits out, the p' survivors run the butterfly, and the odd ranks hand the result
 * back (MPICH's scheme). Each survivor's data covers a contiguous rank range, so
 * combining the lower range on the left keeps rank order: safe for non-commutative
 * operators. Cost: ⌈lg P⌉·(α + nβ + nγ), plus 2·(α + nβ) when P is not a power of two.
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import { ceilLog, floorPow2, isPowerOfTwo } from '../../schedule/partition.js';
import type { AlgorithmSpec } from '../types.js';

export const recursiveDoubling: AlgorithmSpec = {
  name: 'recursive_doubling',
  collective: 'allreduce',
  description: 'butterfly exchange of whole vectors, lg P rounds; non-powers of two fold into 2^⌊lg P⌋ ranks',
  source: 'MPICH allreduce_intra_recursive_doubling; seed 001 §3.2 (RD)',
  restrictions: [],
  params: [],
  orderPreserving: true,
  cost: {
    formula: '⌊lg P⌋·(α + nβ + nγ) [+ 2(α + nβ) + nγ if P is not a power of two]',
    estimate: ({ P, n, alpha, beta, gamma }) =>
      Math.floor(Math.log2(P) + 1e-9) * (alpha + n * (beta + gamma)) + (isPowerOfTwo(P) ? 0 : 2 * (alpha + n * beta) + n * gamma),
  },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'recursive_doubling');
    const { rank, size: P, count } = ctx;
    const out = b.out(0, count);
    const pof2 = floorPow2(P);
    const rem = P - pof2;
    const tmp = b.region(b.scratch(count, 'tmp'), 0, count);
    let last = [b.copy(b.in(0, count), out)];
    let newrank: number;
    b.round = 0;
    if (rank < 2 * rem) {
      if (rank % 2 === 0) {
        // Fold into rank + 1, then wait for the result.
        b.phase = 'fold';
        const s = b.send(rank + 1, out, last);
        b.phase = 'unfold';
        b.round = ceilLog(pof2) + 1;
        b.recv(rank + 1, out, [s]);
        return b.build();
      }
      b.phase = 'fold';
      const r = b.recv(rank - 1, tmp);
      last = [b.reduce([tmp, out], out, [...last, r])];
      newrank = rank >> 1;
    } else {
      newrank = rank - rem;
    }
    const off = rem > 0 ? 1 : 0;
    b.phase = 'butterfly';
    for (let mask = 1, k = 0; mask < pof2; mask <<= 1, k++) {
      b.round = k + off;
      const newdst = newrank ^ mask;
      const dst = newdst < rem ? newdst * 2 + 1 : newdst + rem;
      const [s, r] = b.exchange(dst, out, tmp, last);
      last = [b.reduce(dst < rank ? [tmp, out] : [out, tmp], out, [s, r])];
    }
    if (rank < 2 * rem) {
      b.phase = 'unfold';
      b.round = ceilLog(pof2) + off;
      b.send(rank - 1, out, last);
    }
    return b.build();
  },
};
