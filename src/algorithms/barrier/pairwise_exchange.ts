/**
 * Pairwise-exchange barrier (recursive doubling of signals; the NIC-based "PE"
 * barrier of seed 003 ch. 6). Let p' = 2^⌊lg P⌋ and rem = P − p'. For P a power of
 * two, in round k rank r exchanges a zero-byte signal with r XOR 2^k; after lg P
 * rounds every rank has heard, transitively, from every other. Otherwise the
 * "extra step": each extra rank r ≥ p' first signals its partner r − p' (round 0),
 * the p' ranks run the lg p' exchange rounds (rounds 1..lg p'), and each partner
 * then releases its extra rank (round lg p' + 1).
 * Cost: ⌊lg P⌋·α, plus 2α when P is not a power of two (⌊lg P⌋ + 2 rounds).
 * Messages: p'·lg p' + 2·rem.
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import { floorPow2, isPowerOfTwo } from '../../schedule/partition.js';
import type { AlgorithmSpec } from '../types.js';

export const pairwiseExchange: AlgorithmSpec = {
  name: 'pairwise_exchange',
  collective: 'barrier',
  description: 'recursive doubling of signals (r XOR 2^k); ranks beyond 2^⌊lg P⌋ signal a partner first and are released last',
  source: 'seed 003 ch. 6 (NIC-based barrier, PE with the extra step for non-powers of two), §3 A7',
  restrictions: [],
  params: [],
  orderPreserving: true,
  cost: {
    formula: '⌊lg P⌋·α [+ 2α if P is not a power of two]',
    estimate: ({ P, alpha }) => Math.log2(floorPow2(P)) * alpha + (isPowerOfTwo(P) ? 0 : 2 * alpha),
  },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'pairwise_exchange');
    const { rank, size: P } = ctx;
    const pof2 = floorPow2(P);
    const rem = P - pof2;
    const lg = Math.log2(pof2);
    const off = rem > 0 ? 1 : 0;
    const signal = b.in(0, 0);
    if (rank >= pof2) {
      // Extra rank: notify the partner, wait for the release.
      b.phase = 'extra';
      b.round = 0;
      const s = b.send(rank - pof2, signal);
      b.phase = 'release';
      b.round = lg + 1;
      b.recv(rank - pof2, signal, [s]);
      return b.build();
    }
    let prev: number[] = [];
    if (rank < rem) {
      b.phase = 'extra';
      b.round = 0;
      prev = [b.recv(rank + pof2, signal)];
    }
    b.phase = 'exchange';
    for (let k = 0; k < lg; k++) {
      b.round = k + off;
      prev = b.exchange(rank ^ (1 << k), signal, signal, prev);
    }
    if (rank < rem) {
      b.phase = 'release';
      b.round = lg + 1;
      b.send(rank + pof2, signal, prev);
    }
    return b.build();
  },
};
