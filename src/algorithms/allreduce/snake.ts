/**
 * Snake allreduce (seed 004 §3.2, "Snake"): a linear pipeline along a serpentine
 * ordering of the W×H mesh. Snake index of (x, y) = y·W + (y even ? x : W−1−x), so
 * consecutive indices are mesh neighbours and snake index 0 is (0,0). The vector is
 * cut into B = ⌈N/S⌉ blocks of S elements (the last may be shorter). Block b
 * (0-based) moves inward from snake index i to i−1 in round b + (P−1−i), and i−1
 * combines it with its own block; index 0 holds the final block b after round
 * b + P − 2 and the result moves outward from i to i+1 in round b + P − 1 + i.
 * Rounds: 2P + B − 3 for P ≥ 2 and any B ≥ 1 (fill P−1 hops in, P−1 hops out, B−1
 * more blocks). In mid-pipeline a node receives and sends one partial and one result
 * (4 active links); every message goes between mesh neighbours and each directed link
 * carries one kind of traffic (inward partials or outward results), one block per
 * round, so the schedule is link-conflict-free.
 *
 * Operand order: node i computes own ∘ (partial of i+1 … P−1), so the result is the
 * combination in snake order. On rows of odd y that order runs right to left, which is
 * not rank order, so the algorithm declares the 'commutative' restriction (keeping
 * rank order would need a second partial on odd rows, i.e. more traffic than the seed).
 *
 * Cost (n = bytes; s = block bytes, B = ⌈n/s⌉; loosely synchronous steps, the
 * seed's "form B" under the standard model f(L) = 1, where a step with L active links
 * at the busiest node costs L·α + sβ, plus sγ when it combines): for P ≥ 3, B ≥ 2
 * (2P+B−3)·sβ + (4P+4B−12)·α + (P+B−2)·sγ (the seed's timeline for B ≥ 3, whose
 * link counts also hold for B = 2); for B = 1 a plain chain, (2P−2)(α+nβ) + (P−1)nγ;
 * for P = 2, (B+1)·sβ + 2B·α + B·sγ. (Σ L is checked against the schedules in tests.)
 * The block parameter is in elements; the estimate converts it with the cost
 * inputs' elementSize (default 8 bytes, the seed's doubles).
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import type { Region } from '../../schedule/types.js';
import { commutative, mesh } from '../restrictions.js';
import type { AlgorithmSpec, ParamSpec } from '../types.js';

/** Snake (serpentine) index of mesh node (x, y) on a mesh of width W. */
export function snakeIndex(x: number, y: number, W: number): number {
  return y * W + (y % 2 === 0 ? x : W - 1 - x);
}

/** Mesh node of snake index i on a mesh of width W. */
export function snakeCoord(i: number, W: number): { x: number; y: number } {
  const y = Math.floor(i / W);
  const j = i % W;
  return { x: y % 2 === 0 ? j : W - 1 - j, y };
}

/** Loosely synchronous step profile of Snake: steps, Σ active links of the busiest node, combining steps. */
export function snakeProfile(P: number, B: number): { steps: number; links: number; combineSteps: number } {
  if (P <= 1 || B <= 0) return { steps: 0, links: 0, combineSteps: 0 };
  if (B === 1) return { steps: 2 * P - 2, links: 2 * P - 2, combineSteps: P - 1 };
  // Two nodes: the end node never forwards, so at most 2 links are active.
  if (P === 2) return { steps: B + 1, links: 2 * B, combineSteps: B };
  return { steps: 2 * P + B - 3, links: 4 * P + 4 * B - 12, combineSteps: P + B - 2 };
}

/** The pipeline block size S of Snake and Fence (seed 004). */
export const BLOCK_PARAM: ParamSpec = {
  name: 'block',
  description: 'pipeline block size S in elements (B = ⌈count/S⌉ blocks)',
  type: 'int',
  default: 64,
  min: 1,
};

/** Element size the estimates assume when the cost inputs give none (the seed's doubles). */
export const DEFAULT_ELEMENT_BYTES = 8;

export const snake: AlgorithmSpec = {
  name: 'snake',
  collective: 'allreduce',
  description: 'pipelined chain along a serpentine ordering of the mesh: blocks flow inward to (0,0) with 2-way combines, results flow back out',
  source: 'seed 004 §3.2 and Appendix 7.1 (Littlefield, Snake)',
  restrictions: [mesh, commutative],
  params: [BLOCK_PARAM],
  orderPreserving: false,
  topology: 'mesh',
  fallback: 'recursive_doubling',
  cost: {
    formula: 'P ≥ 3, B ≥ 2: (2P+B−3)·sβ + (4P+4B−12)·α + (P+B−2)·sγ; B = 1: (2P−2)(α+nβ) + (P−1)nγ; P = 2: (B+1)sβ + 2Bα + Bsγ; s = min(n, block·elementSize) bytes, B = ⌈n/s⌉',
    estimate: ({ P, n, alpha, beta, gamma, params, elementSize }) => {
      if (P <= 1 || n <= 0) return 0;
      const S = typeof params.block === 'number' ? params.block : 64;
      const s = Math.min(n, S * (elementSize ?? DEFAULT_ELEMENT_BYTES));
      const B = Math.ceil(n / s);
      const p = snakeProfile(P, B);
      return p.steps * s * beta + p.links * alpha + p.combineSteps * s * gamma;
    },
  },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'snake');
    const { rank, size: P, count: N } = ctx;
    const m = ctx.topology.mesh;
    if (N === 0) return b.build();
    if (!m || P === 1) {
      b.copy(b.in(0, N), b.out(0, N));
      return b.build();
    }
    const W = m.width;
    const S = Number(ctx.params.block ?? 64);
    const B = Math.ceil(N / S);
    const { x, y } = m.coordOf(rank);
    const i = snakeIndex(x, y, W);
    const at = (j: number): number => {
      const c = snakeCoord(j, W);
      return m.rankAt(c.x, c.y);
    };
    const prev = i > 0 ? at(i - 1) : -1;
    const next = i < P - 1 ? at(i + 1) : -1;
    const tmp = next >= 0 ? b.scratch(N, 'inward') : -1;
    const blk = (buf: number, k: number): Region => b.region(buf, k * S, Math.min(S, N - k * S));

    // Inward: partial blocks towards snake index 0.
    b.phase = 'inward';
    const partialSent: number[] = [];
    const ready: number[] = [];
    for (let k = 0; k < B; k++) {
      let partial = blk(0, k);
      let deps: number[] = [];
      if (next >= 0) {
        b.round = k + P - 2 - i;
        const r = b.recv(next, blk(tmp, k));
        deps = [b.reduce([blk(0, k), blk(tmp, k)], blk(1, k), [r])];
        partial = blk(1, k);
      }
      if (prev >= 0) {
        b.round = k + P - 1 - i;
        // Sends to one peer are chained so that messages leave in block order.
        partialSent.push(b.send(prev, partial, k > 0 ? [...deps, partialSent[k - 1]] : deps));
      } else {
        ready.push(deps[0]);
      }
    }
    // Outward: final blocks from snake index 0 to P−1.
    b.phase = 'outward';
    let resultSent: number[] = [];
    for (let k = 0; k < B; k++) {
      let have = ready[k];
      if (prev >= 0) {
        b.round = k + P - 2 + i;
        have = b.recv(prev, blk(1, k), [partialSent[k]]);
      }
      if (next >= 0) {
        b.round = k + P - 1 + i;
        resultSent = [b.send(next, blk(1, k), [have, ...resultSent])];
      }
    }
    return b.build();
  },
};
