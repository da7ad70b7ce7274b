/**
 * Fence allreduce (seed 004 §3.3, "Fence"): a 2-D pipeline. The vector is cut into
 * B = ⌈N/S⌉ blocks of S elements. Each block flows down every column and then left
 * along the bottom row to (0,0): a column node combines its own block with the one
 * from above (2-way); a bottom-row node combines its own, the one from above and the
 * one from the right in ONE 3-way reduce (so models can charge c3). Results go back
 * the way the data came, fanning out to the right along the bottom row and up every
 * column.
 *
 * Timing (0-based block b and rounds): column x starts block b at its top in round
 * b + (W−1−x); (x, y) sends it down in round b + (W−1−x) + (H−1−y); bottom node
 * (x, 0) sends left in round b + H + W − 2 − x, when both its inputs have just
 * arrived; (0,0) holds the final block after round b + H + W − 3. The result goes
 * (x,0) → (x+1,0) in round b + H + W − 2 + x and (x,y) → (x,y+1) in round
 * b + H + W − 2 + x + y. Rounds: 2H + 2W + B − 5 for P ≥ 2 and any B ≥ 1 (with W = 1
 * or H = 1 Fence is the Snake chain, 2P + B − 3, which is the same number).
 * All messages go between mesh neighbours; down and left links carry only partials,
 * up and right links only results, one block per link per round: link-conflict-free.
 * Mid-pipeline a middle bottom-row node uses 6 links (the seed's L = 6; W ≥ 3).
 *
 * Operand order: own ∘ from-above ∘ from-right; columns are combined first, so the
 * result is not in rank order and the algorithm declares 'commutative'.
 *
 * Cost (n = bytes, s = block bytes, B = ⌈n/s⌉; the seed's timeline, form B under the
 * standard model f(L) = 1: a step with L active links costs L·α + sβ plus the combine,
 * c2 = sγ for two operands and c3 = 2sγ for three): for W, H ≥ 2 and B ≥ 3
 * (2H+2W+B−5)·sβ + (4H+6W+6B−24)·α + H·sγ + (W+B−3)·2sγ; with W = 1 or H = 1 it is
 * the Snake cost over P nodes. The seed's timeline assumes B ≥ 3; for B = 1 and 2
 * the link sums are 2H+4W−6 and 4H+6W−10, and for W = 2 (no middle bottom-row node,
 * so the steady state has L = 4, not the seed's 6) 4H+4B−6; tests check Σ L against
 * the schedules for every B. The estimate takes the most nearly square W ≤ H (the
 * cost inputs carry only P) and converts the block with elementSize (default 8).
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import type { Region } from '../../schedule/types.js';
import { commutative, mesh } from '../restrictions.js';
import type { AlgorithmSpec } from '../types.js';
import { squarestMesh } from './mesh_tree.js';
import { BLOCK_PARAM, DEFAULT_ELEMENT_BYTES, snakeProfile } from './snake.js';

/** Loosely synchronous step profile of Fence (seed 004 Appendix 7.1). */
export function fenceProfile(
  W: number,
  H: number,
  B: number,
): { steps: number; links: number; combine2Steps: number; combine3Steps: number } {
  if (W * H <= 1 || B <= 0) return { steps: 0, links: 0, combine2Steps: 0, combine3Steps: 0 };
  if (W === 1 || H === 1) {
    const p = snakeProfile(W * H, B);
    return { steps: p.steps, links: p.links, combine2Steps: p.combineSteps, combine3Steps: 0 };
  }
  // Outside the seed's B ≥ 3 timeline (derived from the schedule, checked in tests):
  // B = 1: H−1 column steps with L = 1 and W−1 bottom-row steps with L = 2, each way.
  if (B === 1) return { steps: 2 * H + 2 * W - 4, links: 2 * H + 4 * W - 6, combine2Steps: H - 1, combine3Steps: W - 1 };
  if (B === 2) return { steps: 2 * H + 2 * W - 3, links: 4 * H + 6 * W - 10, combine2Steps: H, combine3Steps: W - 1 };
  // W = 2: no middle bottom-row node, so the steady state has L = 4, not 6.
  if (W === 2) return { steps: 2 * H + B - 1, links: 4 * H + 4 * B - 6, combine2Steps: H, combine3Steps: B - 1 };
  return {
    steps: 2 * H + 2 * W + B - 5,
    // 1·1 + (H−1)·2 + (W−2)·3 + 1·4 + (B−3)·6 + 1·4 + (W−2)·3 + (H−1)·2 + 1·1
    links: 4 * H + 6 * W + 6 * B - 24,
    combine2Steps: H,
    combine3Steps: W + B - 3,
  };
}

export const fence: AlgorithmSpec = {
  name: 'fence',
  collective: 'allreduce',
  description: '2-D pipeline: blocks flow down the columns and left along the bottom row (3-way combines) to (0,0); results fan out right and up',
  source: 'seed 004 §3.3 and Appendix 7.1 (Littlefield, Fence)',
  restrictions: [mesh, commutative],
  params: [BLOCK_PARAM],
  orderPreserving: false,
  topology: 'mesh',
  fallback: 'recursive_doubling',
  cost: {
    formula:
      '(2H+2W+B−5)·sβ + (4H+6W+6B−24)·α + H·sγ + (W+B−3)·2sγ (W, H ≥ 2, B ≥ 3; Snake cost if W or H = 1); s = min(n, block·elementSize) bytes, B = ⌈n/s⌉, W×H most nearly square',
    estimate: ({ P, n, alpha, beta, gamma, params, elementSize }) => {
      if (P <= 1 || n <= 0) return 0;
      const S = typeof params.block === 'number' ? params.block : 64;
      const s = Math.min(n, S * (elementSize ?? DEFAULT_ELEMENT_BYTES));
      const B = Math.ceil(n / s);
      const { W, H } = squarestMesh(P);
      const p = fenceProfile(W, H, B);
      return p.steps * s * beta + p.links * alpha + p.combine2Steps * s * gamma + p.combine3Steps * 2 * s * gamma;
    },
  },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'fence');
    const { rank, size: P, count: N } = ctx;
    const m = ctx.topology.mesh;
    if (N === 0) return b.build();
    if (!m || P === 1) {
      b.copy(b.in(0, N), b.out(0, N));
      return b.build();
    }
    const W = m.width;
    const H = m.height;
    const S = Number(ctx.params.block ?? 64);
    const B = Math.ceil(N / S);
    const { x, y } = m.coordOf(rank);
    const above = y < H - 1 ? m.rankAt(x, y + 1) : -1;
    const right = y === 0 && x < W - 1 ? m.rankAt(x + 1, 0) : -1;
    // Where partials go and results come from: down the column, then left along row 0.
    const parent = y > 0 ? m.rankAt(x, y - 1) : x > 0 ? m.rankAt(x - 1, 0) : -1;
    const aboveBuf = above >= 0 ? b.scratch(N, 'from_above') : -1;
    const rightBuf = right >= 0 ? b.scratch(N, 'from_right') : -1;
    const blk = (buf: number, k: number): Region => b.region(buf, k * S, Math.min(S, N - k * S));
    // Round in which this node sends block b inward (receives happen one round earlier).
    const sendRound = (k: number): number => (y > 0 ? k + (W - 1 - x) + (H - 1 - y) : k + H + W - 2 - x);
    const resultRecvRound = (k: number): number => k + H + W - 3 + x + y;

    b.phase = 'inward';
    const partialSent: number[] = [];
    const ready: number[] = [];
    for (let k = 0; k < B; k++) {
      const inputs: Region[] = [blk(0, k)];
      const recvs: number[] = [];
      b.round = sendRound(k) - 1;
      if (above >= 0) {
        recvs.push(b.recv(above, blk(aboveBuf, k)));
        inputs.push(blk(aboveBuf, k));
      }
      if (right >= 0) {
        recvs.push(b.recv(right, blk(rightBuf, k)));
        inputs.push(blk(rightBuf, k));
      }
      let partial = blk(0, k);
      let deps: number[] = [];
      if (recvs.length > 0) {
        deps = [b.reduce(inputs, blk(1, k), recvs)];
        partial = blk(1, k);
      }
      if (parent >= 0) {
        b.round = sendRound(k);
        // Sends to one peer are chained so that messages leave in block order.
        partialSent.push(b.send(parent, partial, k > 0 ? [...deps, partialSent[k - 1]] : deps));
      } else {
        ready.push(deps[0]);
      }
    }
    b.phase = 'outward';
    let toRight: number[] = [];
    let toAbove: number[] = [];
    for (let k = 0; k < B; k++) {
      let have = ready[k];
      if (parent >= 0) {
        b.round = resultRecvRound(k);
        have = b.recv(parent, blk(1, k), [partialSent[k]]);
      }
      b.round = resultRecvRound(k) + 1;
      if (right >= 0) toRight = [b.send(right, blk(1, k), [have, ...toRight])];
      if (above >= 0) toAbove = [b.send(above, blk(1, k), [have, ...toAbove])];
    }
    return b.build();
  },
};
