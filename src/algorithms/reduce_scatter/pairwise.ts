/**
 * Pairwise-exchange reduce-scatter (block form), after MPICH
 * reduce_scatter_block_intra_pairwise: in step i = 1..P−1 rank r sends block
 * (r + i) mod P of its input to rank r + i and receives its own block r from rank
 * r − i (mod P), combining as it goes. P−1 steps of n/P elements.
 *
 * Order: MPICH accumulates in arrival order and needs a commutative operator. Here
 * the contributions arrive as r−1, r−2, …, 0 and then P−1, P−2, …, r+1, so they are
 * kept in two accumulators, each extended on the left: prefix = v_j ∘ prefix
 * (starting from r's own block, in the output buffer) and suffix = v_j ∘ suffix
 * (the first suffix message is received straight into its buffer). A final
 * out = prefix ∘ suffix gives v0 ∘ … ∘ vP−1 in rank order. That is still exactly
 * P−1 combines of n/P elements per rank, so order is preserved at no extra
 * reduction cost (one extra n/P buffer). Receives use two alternating buffers so a
 * combine overlaps the next exchange; each exchange waits for the previous one
 * (MPI_Sendrecv semantics), which keeps the steps in lock-step rounds.
 * Cost (n = bytes of the whole input vector): (P−1)·α + (P−1)/P·n(β + γ).
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import type { Region } from '../../schedule/types.js';
import type { AlgorithmSpec } from '../types.js';

export const pairwise: AlgorithmSpec = {
  name: 'pairwise',
  collective: 'reduce_scatter',
  description: 'P−1 pairwise exchanges of one block; rank order kept with prefix/suffix accumulators',
  source: 'MPICH reduce_scatter_block_intra_pairwise; Thakur, Rabenseifner & Gropp 2005',
  restrictions: [],
  params: [],
  orderPreserving: true,
  cost: {
    formula: '(P−1)·α + (P−1)/P·n(β + γ)',
    estimate: ({ P, n, alpha, beta, gamma }) => (P - 1) * alpha + ((P - 1) / P) * n * (beta + gamma),
  },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'pairwise');
    const { rank: r, size: P, count } = ctx;
    const out = b.out(0, count);
    const own = b.in(r * count, count);
    if (P === 1) {
      b.copy(own, out);
      return b.build();
    }
    const tmp = b.scratch(2 * count, 'remote');
    const suffixBuf = r < P - 1 ? b.region(b.scratch(count, 'suffix'), 0, count) : undefined;
    let prefix: Region = own;
    let prefixLast: number[] = [];
    let suffixLast: number[] = [];
    let prevStep: number[] = [];
    const slotReader = [-1, -1]; // last combine reading each receive buffer
    const wait = (k: number): number[] => (slotReader[k] >= 0 ? [slotReader[k]] : []);
    for (let i = 1; i < P; i++) {
      b.round = i - 1;
      const dst = (r + i) % P;
      const src = (r - i + P) % P;
      const s = b.send(dst, b.in(dst * count, count), prevStep);
      const slot = b.region(tmp, (i % 2) * count, count);
      if (src < r) {
        // Prefix: prefix = v_src ∘ prefix.
        const rv = b.recv(src, slot, [...prevStep, ...wait(i % 2)]);
        const red = b.reduce([slot, prefix], out, [rv, ...prefixLast]);
        prefix = out;
        prefixLast = [red];
        slotReader[i % 2] = red;
        prevStep = [s, rv];
      } else if (src === P - 1) {
        // First suffix contribution: received in place.
        const rv = b.recv(src, suffixBuf as Region, prevStep);
        suffixLast = [rv];
        prevStep = [s, rv];
      } else {
        const rv = b.recv(src, slot, [...prevStep, ...wait(i % 2)]);
        const sfx = suffixBuf as Region;
        const red = b.reduce([slot, sfx], sfx, [rv, ...suffixLast]);
        suffixLast = [red];
        slotReader[i % 2] = red;
        prevStep = [s, rv];
      }
    }
    b.round = P - 2;
    if (suffixBuf) b.reduce([prefix, suffixBuf], out, [...prefixLast, ...suffixLast]);
    return b.build();
  },
};
