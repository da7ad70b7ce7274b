/**
 * Linear ("serial") reduce, seed 000 §3.2.1 (§3.1 of the notes): every non-root
 * sends its whole vector to the root at once, into its own slot of a receive area
 * (one slot per sender, like the per-sender RDMA buffers of the thesis); the root
 * then combines the P vectors in rank order, v0 ∘ v1 ∘ … ∘ vP−1, with the root's
 * own vector (read straight from its input) taking its place at position `root`.
 *
 * Combining: one binary reduce step per received vector (P − 1 steps), each
 * acc = acc ∘ v_i (the first one acc = v0 ∘ v1), so each reduce waits only for its
 * own receive and the previous reduce and overlaps the later arrivals. The order
 * is rank order for any root: order preserving.
 *
 * Cost: all messages travel in parallel but the root receives and combines them one
 * after another: (P−1)·(α + nβ + nγ) at the root (α paid once in the LogP view of
 * the thesis, T = C + L + (P−1)(r + c)). Memory: (P−1)·n scratch at the root.
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import type { Region } from '../../schedule/types.js';
import type { AlgorithmSpec } from '../types.js';

export const linear: AlgorithmSpec = {
  name: 'linear',
  collective: 'reduce',
  description: 'every rank sends to the root at once; the root combines in rank order, one reduce per received vector',
  source: 'seed 000 §3.2.1 (serial reduction); MPICH/Open MPI basic linear reduce',
  restrictions: [],
  params: [],
  orderPreserving: true,
  cost: {
    formula: '(P−1)·(α + nβ + nγ)',
    estimate: ({ P, n, alpha, beta, gamma }) => (P - 1) * (alpha + n * beta + n * gamma),
  },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'linear');
    const { rank, size: P, root, count } = ctx;
    b.round = 0;
    if (rank !== root) {
      b.send(root, b.in(0, count));
      return b.build();
    }
    const out = b.out(0, count);
    if (P === 1) {
      b.copy(b.in(0, count), out);
      return b.build();
    }
    const slots = b.scratch((P - 1) * count, 'remote');
    // Vector of rank r at the root: its own input, or the slot r was received into.
    const vec: Region[] = [];
    const recvOf: number[] = [];
    let slot = 0;
    for (let r = 0; r < P; r++) {
      if (r === root) {
        vec.push(b.in(0, count));
        recvOf.push(-1);
      } else {
        const reg = b.region(slots, slot++ * count, count);
        vec.push(reg);
        recvOf.push(b.recv(r, reg));
      }
    }
    const depsOf = (r: number): number[] => (recvOf[r] >= 0 ? [recvOf[r]] : []);
    let last = b.reduce([vec[0], vec[1]], out, [...depsOf(0), ...depsOf(1)]);
    for (let r = 2; r < P; r++) last = b.reduce([out, vec[r]], out, [last, ...depsOf(r)]);
    return b.build();
  },
};
