/**
 * Mesh Tree allreduce (seed 004 §3.1, "Tree"): binary-tree reduce along every row
 * to column 0, then along column 0 to the lower-left node (0,0), then the exact
 * reverse as a broadcast. Whole vectors per message, no pipelining, one link per
 * node per step.
 *
 * Level k of the row phase (round k): node (x, y) with x mod 2^(k+1) = 2^k sends its
 * partial to (x − 2^k, y), which combines it when it exists; a node with
 * x mod 2^(k+1) = 0 whose partner x + 2^k lies outside the row simply skips the
 * level. This is the binomial tree, so any width W works with ⌈lg W⌉ levels (the
 * seed's reconstruction assumes powers of two). Column 0 repeats this over y in
 * rounds ⌈lg W⌉ … ⌈lg W⌉ + ⌈lg H⌉ − 1, and the broadcast replays the levels in reverse.
 *
 * Link conflicts: at level k the messages of one row cover the disjoint intervals
 * [x − 2^k, x] for x ≡ 2^k (mod 2^(k+1)), so no directed link carries two messages in
 * a round (dimension-order routing stays inside the row, or inside column 0).
 *
 * Operand order: a receiver holds the combination of a contiguous x-range (then a
 * contiguous y-range of whole rows) and combines own ∘ received, the received range
 * lying just above its own. Ranks are row-major, so the result is v0 ∘ v1 ∘ … ∘ vP−1:
 * order preserving, safe for non-commutative operators.
 *
 * Rounds: 2(⌈lg W⌉ + ⌈lg H⌉). Cost (n = bytes): (⌈lg W⌉ + ⌈lg H⌉)·(2(α + nβ) + nγ).
 * The cost inputs carry only P, so the estimate takes the most nearly square
 * factorisation W ≤ H of P (exact for that mesh, ≥ ⌈lg P⌉ levels for any other).
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import { ceilLog } from '../../schedule/partition.js';
import type { AlgorithmSpec } from '../types.js';
import { mesh } from '../restrictions.js';

/** The most nearly square factorisation P = W·H with W ≤ H (for cost estimates that only know P). */
export function squarestMesh(P: number): { W: number; H: number } {
  let W = Math.max(1, Math.floor(Math.sqrt(P)));
  while (W > 1 && P % W !== 0) W--;
  return { W, H: Math.max(1, Math.round(P / W)) };
}

export const meshTree: AlgorithmSpec = {
  name: 'mesh_tree',
  collective: 'allreduce',
  description: 'binary-tree reduce along the mesh rows then column 0 to (0,0), reverse broadcast; unpipelined, one link per step',
  source: 'seed 004 §3.1 (Littlefield, Tree), any W and H',
  restrictions: [mesh],
  params: [],
  orderPreserving: true,
  topology: 'mesh',
  fallback: 'recursive_doubling',
  cost: {
    formula: '(⌈lg W⌉ + ⌈lg H⌉)·(2(α + nβ) + nγ), W×H the most nearly square factorisation of P',
    estimate: ({ P, n, alpha, beta, gamma }) => {
      const { W, H } = squarestMesh(P);
      return (ceilLog(W) + ceilLog(H)) * (2 * (alpha + n * beta) + n * gamma);
    },
  },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'mesh_tree');
    const { rank, count: N } = ctx;
    const m = ctx.topology.mesh;
    if (N === 0) return b.build();
    if (!m || ctx.size === 1) {
      b.copy(b.in(0, N), b.out(0, N));
      return b.build();
    }
    const W = m.width;
    const H = m.height;
    const { x, y } = m.coordOf(rank);
    const LW = ceilLog(W);
    const LH = ceilLog(H);
    const out = b.out(0, N);
    const tmp = b.region(b.scratch(N, 'tmp'), 0, N);
    // `cur` holds this node's partial: its input until it first combines.
    let cur = b.in(0, N);
    let last: number[] = [];
    let sent = false;

    /** One reduce level along a line: position p, stride d; partner at p ± d via `at`. */
    const reduceLevel = (p: number, len: number, d: number, at: (q: number) => number): void => {
      if (sent) return;
      if (p % (2 * d) === d) {
        last = [b.send(at(p - d), cur, last)];
        sent = true;
      } else if (p + d < len) {
        const r = b.recv(at(p + d), tmp, last);
        last = [b.reduce([cur, tmp], out, [r])];
        cur = out;
      }
    };
    const bcastLevel = (p: number, len: number, d: number, at: (q: number) => number): void => {
      if (p % (2 * d) === d) {
        last = [b.recv(at(p - d), out, last)];
      } else if (p % (2 * d) === 0 && p + d < len) {
        last = [b.send(at(p + d), out, last)];
      }
    };

    b.phase = 'reduce-row';
    for (let k = 0; k < LW; k++) {
      b.round = k;
      reduceLevel(x, W, 1 << k, (q) => m.rankAt(q, y));
    }
    if (x === 0) {
      b.phase = 'reduce-column';
      for (let k = 0; k < LH; k++) {
        b.round = LW + k;
        reduceLevel(y, H, 1 << k, (q) => m.rankAt(0, q));
      }
      b.phase = 'bcast-column';
      for (let k = LH - 1; k >= 0; k--) {
        b.round = LW + LH + (LH - 1 - k);
        bcastLevel(y, H, 1 << k, (q) => m.rankAt(0, q));
      }
    }
    b.phase = 'bcast-row';
    for (let k = LW - 1; k >= 0; k--) {
      b.round = LW + 2 * LH + (LW - 1 - k);
      bcastLevel(x, W, 1 << k, (q) => m.rankAt(q, y));
    }
    return b.build();
  },
};
