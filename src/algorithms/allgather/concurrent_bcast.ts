/**
 * Concurrent broadcasting with "hopping packets" (seed 003 ch. 6, M15 / A12, NIC-CB):
 * every rank roots its own binomial broadcast of its block, and all P broadcasts run
 * at once. A packet carries the flag (i, j): i = originating rank, j = exponent of
 * the hop that delivered it. With N = P ranks and the relative rank
 * rel = (rank − i) mod N, a rank that receives packet (i, j) forwards it as packet
 * (i, k) to (rank + 2^k) mod N for every k > j with rel + 2^k < N; the origin
 * (rel = 0) sends (i, k) to (i + 2^k) mod N for every 2^k < N.
 *
 * Formula fix: the published forwarding rule "(|rank − i| + 2^j)" takes the absolute
 * difference, which is wrong once the tree wraps around (rank < i); the relative rank
 * must be taken mod N, i.e. the next relative destination is ((rank − i) mod N) + 2^k,
 * stop if it is ≥ N, and the physical destination is (rank + 2^k) mod N.
 *
 * Rank with rel = d receives packet (i, j) with j = ⌊lg d⌋ from (rank − 2^j) mod N in
 * round j, and forwards in rounds k > j: ⌈lg N⌉ rounds. Every rank receives exactly
 * N − 1 packets (one per other origin) and talks only to ranks rank ± 2^k mod N
 * (2·⌈lg N⌉ peers). In round k a rank sends min(2^k, N − 2^k) packets, all to the same
 * peer; packets to one peer are ordered by relative rank on both sides.
 * Cost (n = bytes per block): (P−1)·(α + nβ) per rank in ⌈lg P⌉ rounds (every packet
 * is its own message; a NIC overlaps them, a one-port host would not).
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import { ceilLog } from '../../schedule/partition.js';
import type { AlgorithmSpec } from '../types.js';

export const concurrentBcast: AlgorithmSpec = {
  name: 'concurrent_bcast',
  collective: 'allgather',
  description: 'every rank roots a binomial broadcast of its block; hopping packets (origin, hop) forwarded to rank + 2^k; ⌈lg P⌉ rounds, P−1 messages in per rank',
  source: 'seed 003 ch. 6, M15/A12 (NIC-CB with hopping packets), mod-N relative-rank fix',
  restrictions: [],
  params: [],
  orderPreserving: true,
  cost: {
    formula: '(P−1)·(α + nβ), in ⌈lg P⌉ rounds',
    estimate: ({ P, n, alpha, beta }) => (P - 1) * (alpha + n * beta),
  },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'concurrent_bcast');
    const { rank, size: N, count: c } = ctx;
    if (c === 0) return b.build();
    b.round = 0;
    b.copy(b.in(0, c), b.out(rank * c, c));
    const L = ceilLog(N);
    // Receive step of each origin's packet (by relative rank d = (rank − i) mod N).
    const got = new Array<number>(N).fill(-1);
    const originOf = (d: number): number => (rank - d + N) % N;
    for (let k = 0; k < L; k++) {
      b.round = k;
      const hop = 1 << k;
      // Packets (i, k) arriving this round: relative ranks d in [2^k, 2^(k+1)) ∩ [1, N).
      for (let d = hop; d < Math.min(2 * hop, N); d++) {
        const i = originOf(d);
        got[d] = b.recv((rank - hop + N) % N, b.out(i * c, c));
      }
      // Forward packets (i, k) for every origin with relative rank d < 2^k and d + 2^k < N,
      // chained so that they leave in the order the receiver matches them.
      let prev: number[] = [];
      for (let d = 0; d < hop && d + hop < N; d++) {
        const i = originOf(d);
        const to = (rank + hop) % N;
        if (d === 0) prev = [b.send(to, b.in(0, c))];
        else prev = [b.send(to, b.out(i * c, c), [got[d], ...prev])];
      }
    }
    return b.build();
  },
};
