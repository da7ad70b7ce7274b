/**
 * The hopping-packet rule of concurrent broadcasting (seed 003 ch. 6 §6.5.4, M15, §3
 * A12), with the mod-N fix of src/algorithms/allgather/concurrent_bcast.ts.
 *
 * Origin i roots a binomial tree over the relative ranks rel = (rank − i) mod N. A
 * packet (i, j) reached its current rank over a hop of 2^j; that rank forwards it as
 * (i, k) to (rank + 2^k) mod N for every k > j with rel + 2^k < N (the origin, rel 0,
 * for every 2^k < N). The published "(|rank − i| + 2^j)" is wrong once the tree
 * wraps (rank < i): the relative rank must be taken mod N. So rel's parent is rel minus
 * its highest set bit, reached by the hop j = ⌊lg rel⌋, and every rank talks only to
 * rank ± 2^k mod N (2·⌈lg N⌉ peers, M12).
 *
 * Cost: each tree has N − 1 edges, so every rank receives N − 1 packets per op (one
 * per origin) in ⌈lg N⌉ hops at most.
 */

/** The "arrival hop" of the origin itself: it sends over every hop k > −1. */
const START = -1;

/** Relative rank of `rank` in origin `origin`'s tree. */
export function relativeRank(rank: number, origin: number, N: number): number {
  return (((rank - origin) % N) + N) % N;
}

/** ⌊lg x⌋ for x ≥ 1. */
export function highBit(x: number): number {
  return 31 - Math.clz32(x);
}

/** Hop exponent of the packet that reaches `rank` in origin's tree (−1 at the origin). */
export function arrivalHop(rank: number, origin: number, N: number): number {
  const rel = relativeRank(rank, origin, N);
  return rel === 0 ? START : highBit(rel);
}

/** Rank that forwards origin's packet to `rank` (undefined at the origin). */
export function hopParent(rank: number, origin: number, N: number): number | undefined {
  const rel = relativeRank(rank, origin, N);
  if (rel === 0) return undefined;
  return (rank - (1 << highBit(rel)) + N) % N;
}

/** Where `rank` sends origin's packet after receiving it over hop `hop` (−1 at the origin), by increasing k. */
export function hopTargets(rank: number, origin: number, hop: number, N: number): { to: number; hop: number }[] {
  const rel = relativeRank(rank, origin, N);
  const out: { to: number; hop: number }[] = [];
  for (let k = hop + 1; rel + 2 ** k < N; k++) out.push({ to: (rank + 2 ** k) % N, hop: k });
  return out;
}
