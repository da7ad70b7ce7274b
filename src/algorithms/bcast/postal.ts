/**
 * Latency-optimal postal-model broadcast tree (Bar-Noy & Kipnis), as the host
 * computes it for the NIC in seed 003 ch. 6 (M10, M11, §3 A10).
 *
 * Postal model with latency ratio λ: a sender needs one time unit per destination
 * and a message arrives λ units after it was sent, so a rank informed at time t
 * sends to new children at t, t+1, t+2, …, each informed at (send time) + λ. The
 * most ranks informed by time t is N(t) = 1 for t < λ, N(t) = N(t−1) + N(t−λ)
 * otherwise, so the optimal broadcast takes T(P) = min{t : N(t) ≥ P}.
 *
 * Tree: a subtree over the contiguous virtual ranks [v, v+m) (v = (rank − root) mod P,
 * rooted at v) needs T(m) units. Its root's first send goes to the top part, whose
 * size is m − r with r = min(m−1, N(T(m)−1)): child v + r roots [v + r, v + m), and
 * v goes on with [v, v + r) one unit later. As r ≤ N(T(m)−1) and m − r ≤ N(T(m)−λ),
 * every subtree finishes in time, so the whole broadcast ends at T(P) — optimal.
 * Every child id is larger than its parent's (the ID-ordered tree of M10), and for
 * λ = 1 the split is at the highest power of two, which is the binomial tree.
 *
 * round = send time in the postal model; the last rank is informed at T(P).
 * Cost: with α + nβ the end-to-end time of a message and (α + nβ)/λ the time per
 * extra destination, T_λ(P)·(α + nβ)/λ (λ = 1: ⌈lg P⌉·(α + nβ)).
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import type { AlgorithmSpec } from '../types.js';

/** N(0..) of the postal model with latency λ, up to the first value ≥ P (values saturate at P). */
export function postalReach(P: number, lambda: number): number[] {
  const N: number[] = [];
  for (let t = 0; ; t++) {
    N.push(t < lambda ? 1 : Math.min(P, N[t - 1] + N[t - lambda]));
    if (N[t] >= P) return N;
  }
}

/** T_λ(P): the optimal broadcast time in the postal model, min{t : N(t) ≥ P}. */
export function postalTime(P: number, lambda: number): number {
  return postalReach(P, lambda).length - 1;
}

export interface PostalNode {
  /** Parent's virtual rank (−1 for the root). */
  readonly parent: number;
  /** Time this rank is informed (0 for the root). */
  readonly informed: number;
  /** Children's virtual ranks with the times they are sent to, in send order. */
  readonly children: readonly { readonly child: number; readonly time: number }[];
}

/** Virtual rank v's place in the optimal postal tree over P ranks rooted at 0. */
export function postalNode(v: number, P: number, lambda: number): PostalNode {
  const N = postalReach(P, lambda);
  // T(m) for m ≤ P: binary search, N being non-decreasing.
  const T = (m: number): number => {
    let lo = 0;
    let hi = N.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (N[mid] >= m) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
  let base = 0; // root of the current subtree
  let m = P; // its size: ids [base, base + m)
  let t = 0; // time the subtree root sends its next message
  let parent = -1;
  let informed = 0;
  // Descend to v.
  while (base !== v) {
    const r = Math.min(m - 1, N[T(m) - 1]);
    const child = base + r;
    if (v >= child) {
      parent = base;
      informed = t + lambda;
      base = child;
      m -= r;
      t = informed;
    } else {
      m = r;
      t += 1;
    }
  }
  const children: { child: number; time: number }[] = [];
  while (m > 1) {
    const r = Math.min(m - 1, N[T(m) - 1]);
    children.push({ child: base + r, time: t });
    m = r;
    t += 1;
  }
  return { parent, informed, children };
}

export const postal: AlgorithmSpec = {
  name: 'postal',
  collective: 'bcast',
  description: 'latency-optimal postal-model tree (Bar-Noy & Kipnis) for latency ratio λ, ID-ordered; λ = 1 is binomial',
  source: 'seed 003 ch. 6 (M10, M11, §3 A10); Bar-Noy & Kipnis, postal model',
  restrictions: [],
  params: [
    {
      name: 'lambda',
      description: 'postal latency ratio λ = end-to-end latency ÷ time to send to one more destination (≈ the fan-out); 1 gives the binomial tree',
      type: 'int',
      default: 3,
      min: 1,
      max: 1 << 16,
    },
  ],
  orderPreserving: true,
  cost: {
    formula: 'T_λ(P)·(α + nβ)/λ, T_λ(P) = min{t : N(t) ≥ P}, N(t) = 1 (t < λ), N(t−1) + N(t−λ)',
    estimate: ({ P, n, alpha, beta, params }) => {
      const lambda = Number(params.lambda ?? 3);
      return (postalTime(P, lambda) * (alpha + n * beta)) / lambda;
    },
  },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'postal');
    const { rank, size: P, root, count } = ctx;
    const lambda = Number(ctx.params.lambda);
    const v = (rank - root + P) % P;
    const real = (u: number): number => (u + root) % P;
    const data = b.out(0, count);
    const node = postalNode(v, P, lambda);
    let deps: number[] = [];
    if (node.parent >= 0) {
      b.round = node.informed - lambda;
      deps = [b.recv(real(node.parent), data)];
    }
    for (const { child, time } of node.children) {
      b.round = time;
      b.send(real(child), data, deps);
    }
    return b.build();
  },
};
