/**
 * NAP (Node-Aware Parallel) allreduce, seed 001 §3.4–3.6 (Bienz, Olson & Gropp).
 *
 * Idea. An intra-node allreduce first gives every rank of a node the node's partial
 * result. Then each inter-node step merges up to q = ppn "subgroups" (sets of nodes
 * already holding a common partial result) into a group: on a node of subgroup j,
 * local rank m ≠ j exchanges with local rank j on the node at the same position in
 * subgroup m, so the q − 1 ranks of a node fetch the partials of the other q − 1
 * subgroups in one step; local rank j sits idle. An intra-node allreduce follows
 * every inter-node step. To count nothing twice it combines only the node's own
 * partial (held by local rank j) and the received partials (local ranks m ≠ j): it
 * is an allreduce in which only local ranks 0..k−1 contribute (k = subgroups in the
 * group), rank j with its current value and rank m with the partial of subgroup m;
 * local ranks ≥ k contribute nothing and just receive the result. No identity
 * element is needed. After ⌈log_q N⌉ inter-node steps every node has everything.
 *
 * Group structure for any node count N (our design; the paper's pseudo-code covers
 * N = q^L, and its Figs. 8–9 sketch the rest). L = ⌈log_q N⌉. Top-down, the N nodes
 * (in node-index order, each node's ranks via topology.ranksOn) form one group at
 * step L−1, split into k = ⌈N / q^(L−1)⌉ nearly equal contiguous subgroups (the first
 * N mod k one node larger, as partition.ts splits blocks); each subgroup is a group
 * of step L−2 split the same way with q^(L−2), and so on down to single nodes at
 * step 0. Each subgroup has ≤ q^i nodes at step i, so k ≤ q. Examples: 12 nodes ×
 * 4 → steps of [4, 3] subgroups (Fig. 8); 2048 × 16 → [16, 16, 8]; 11 × 4 → step 1
 * merges subgroups of 4, 4 and 3 nodes (Fig. 9). For N = q^L it is the paper's
 * pattern exactly (P9 ↔ P6, P9 ↔ P24).
 *
 * Orphans (Fig. 9). Sibling subgroups differ in size by at most one: r = s mod k
 * "long" subgroups of a + 1 nodes and k − r "short" ones of a nodes. The last node
 * (position a) of long subgroup j has no partner in a short subgroup m; its local
 * rank m instead receives (one way) from the idle rank of subgroup m at position j,
 * i.e. local rank m of node (start of m) + j, which holds m's partial. Position j
 * exists because r ≤ a (k = ⌈s/q^i⌉ ≤ q ≤ q^i gives s > (k−1)·q^i ≥ (k−1)·k, so
 * a = ⌊s/k⌋ ≥ k − 1 ≥ r), and each idle rank serves at most one orphan. For 11 × 4
 * this is the paper's example: P14 (node 3, local rank 2) receives from P34 (node 8).
 *
 * Message bound. Every rank sends at most one inter-node message per step, so at
 * most ⌈log_q N⌉ in all, and local rank 1 of node 0 sends exactly that many (its
 * subgroup is always the first and largest, and splits at every step). Intra-node:
 * ⌈lg q⌉ (+2 for the fold when k is not a power of two, + spread rounds when k < q)
 * rounds per intra-node allreduce, 1 + L of them.
 *
 * Requirements: the same number of ranks on every node (fallback smp) and a
 * commutative operator (subgroup partials are combined in subgroup order, not rank
 * order). Results are bitwise identical on all ranks: the combining tree of a step
 * depends only on the subgroup indices. With one rank per node (q = 1) there is no
 * one to fetch with, and NAP degenerates to recursive doubling across nodes.
 *
 * Cost (q = ppn, N nodes, intra-node α_ℓ, β_ℓ, for N = q^L, as seed 001 Eq. 6):
 *   (α_ℓ + nβ_ℓ)·lg P + (α + nβ)·⌈log_q N⌉ + nγ·(lg P + ⌈log_q N⌉).
 * The closed-form estimate has no topology and assumes one rank per node (RD).
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import type { ScheduleContext } from '../../schedule/context.js';
import { blockCount, blockOffset, ceilLog, isPowerOfTwo } from '../../schedule/partition.js';
import type { Topology } from '../../schedule/topology.js';
import { commutative, uniformNodes } from '../restrictions.js';
import type { AlgorithmSpec } from '../types.js';
import { buildSubsetAllreduce, subsetAllreduceRounds } from './common.js';
import { recursiveDoubling } from './recursive_doubling.js';

/** The group a node belongs to at one NAP step. */
export interface NapGroup {
  /** First node of the group and its number of nodes. */
  readonly start: number;
  readonly size: number;
  /** Subgroups merged in this step (1: nothing to do). */
  readonly subgroups: number;
  /** Index of the node's subgroup and its position inside it. */
  readonly subgroup: number;
  readonly position: number;
}

/** A rank's inter-node action at one NAP step, in (node, local rank) space. */
export type NapAction =
  | { readonly kind: 'exchange' | 'send' | 'recv'; readonly node: number; readonly localRank: number }
  | { readonly kind: 'idle' };

/** Number of inter-node steps: ⌈log_q N⌉ (0 for one node). */
export function napStepCount(nodes: number, ppn: number): number {
  if (nodes <= 1) return 0;
  if (ppn < 2) throw new RangeError('NAP needs at least two ranks per node');
  return ceilLog(nodes, ppn);
}

/** The group containing `node` at step `step` (0-based). */
export function napGroup(nodes: number, ppn: number, node: number, step: number): NapGroup {
  const L = napStepCount(nodes, ppn);
  if (step < 0 || step >= L) throw new RangeError(`NAP over ${nodes} nodes x ${ppn} has steps 0..${L - 1}, not ${step}`);
  if (node < 0 || node >= nodes) throw new RangeError(`node ${node} is not in [0, ${nodes})`);
  let start = 0;
  let size = nodes;
  for (let s = L - 1; ; s--) {
    const cap = ppn ** s;
    const k = Math.ceil(size / cap);
    const j = partOf(size, k, node - start);
    if (s === step) {
      return { start, size, subgroups: k, subgroup: j, position: node - start - blockOffset(size, k, j) };
    }
    start += blockOffset(size, k, j);
    size = blockCount(size, k, j);
  }
}

/** Index of the part (of `parts` nearly equal ones over `size`) holding element x. */
function partOf(size: number, parts: number, x: number): number {
  const base = Math.floor(size / parts);
  const rem = size % parts;
  const big = rem * (base + 1);
  return x < big ? Math.floor(x / (base + 1)) : rem + Math.floor((x - big) / base);
}

/**
 * What local rank `localRank` of `node` does at inter-node step `step`: exchange
 * partials with a peer, send its node's partial one way to an orphan (an idle rank
 * serving Fig. 9's missing partner), receive one way (an orphan), or nothing.
 */
export function napPartner(nodes: number, ppn: number, node: number, localRank: number, step: number): NapAction {
  const g = napGroup(nodes, ppn, node, step);
  const k = g.subgroups;
  if (k === 1 || localRank >= k) return { kind: 'idle' };
  const a = Math.floor(g.size / k);
  const r = g.size % k;
  const sgStart = (m: number): number => g.start + blockOffset(g.size, k, m);
  const sgSize = (m: number): number => blockCount(g.size, k, m);
  if (localRank === g.subgroup) {
    // Idle in the exchange; a short subgroup's node at position p < r serves the
    // orphan (last node) of long subgroup p.
    if (r > 0 && g.subgroup >= r && g.position < r) {
      return { kind: 'send', node: sgStart(g.position) + a, localRank };
    }
    return { kind: 'idle' };
  }
  const m = localRank;
  if (g.position < sgSize(m)) return { kind: 'exchange', node: sgStart(m) + g.position, localRank: g.subgroup };
  return { kind: 'recv', node: sgStart(m) + g.subgroup, localRank: m };
}

/** The same in global ranks, for a uniform topology. */
export function napPartnerRank(
  t: Topology,
  rank: number,
  step: number,
): { readonly kind: 'exchange' | 'send' | 'recv'; readonly peer: number } | { readonly kind: 'idle' } {
  const a = napPartner(t.nodeCount, t.maxPpn, t.nodeOf(rank), t.localRank(rank), step);
  return a.kind === 'idle' ? a : { kind: a.kind, peer: t.ranksOn(a.node)[a.localRank] };
}

interface NapPlan {
  /** Largest number of subgroups merged in each step (the paper's step sizes). */
  readonly stepSizes: readonly number[];
  /** Rounds given to the intra-node allreduce after each step. */
  readonly intraRounds: readonly number[];
}

const planCache = new Map<string, NapPlan>();

/** Step sizes and round budgets of NAP over `nodes` × `ppn`, from the whole group tree. */
function napPlan(nodes: number, ppn: number): NapPlan {
  const key = `${nodes}x${ppn}`;
  const hit = planCache.get(key);
  if (hit) return hit;
  const L = napStepCount(nodes, ppn);
  const ks: Set<number>[] = Array.from({ length: L }, () => new Set());
  // Distinct group sizes per step, top-down (sibling parts have at most two sizes).
  let sizes = new Set([nodes]);
  for (let s = L - 1; s >= 0; s--) {
    const next = new Set<number>();
    for (const size of sizes) {
      const k = Math.ceil(size / ppn ** s);
      ks[s].add(k);
      next.add(blockCount(size, k, 0));
      next.add(blockCount(size, k, k - 1));
    }
    sizes = next;
  }
  const plan: NapPlan = {
    stepSizes: ks.map((set) => Math.max(...set)),
    intraRounds: ks.map((set) => Math.max(0, ...[...set].filter((k) => k > 1).map((k) => subsetAllreduceRounds(k, ppn)))),
  };
  if (planCache.size > 256) planCache.clear();
  planCache.set(key, plan);
  return plan;
}

/**
 * Subgroups merged per step (the paper's step sizes): 12 × 4 → [4, 3],
 * 2048 × 16 → [16, 16, 8], 512 × 16 → [16, 16, 2].
 */
export function napStepSizes(nodes: number, ppn: number): number[] {
  return [...napPlan(nodes, ppn).stepSizes];
}

export const nap: AlgorithmSpec = {
  name: 'nap',
  collective: 'allreduce',
  description:
    'node-aware parallel: intra-node allreduce, then ⌈log_ppn N⌉ inter-node steps each merging ppn subgroups, with an intra-node allreduce after each',
  source: 'seed 001 §3.4–3.6 (Algorithm III, Figs. 6–9); Bienz, Olson & Gropp, "Node-Aware Improvements to Allreduce"',
  restrictions: [uniformNodes, commutative],
  params: [],
  orderPreserving: false,
  topology: 'nodes',
  fallback: 'smp',
  cost: {
    formula: '(α_ℓ + nβ_ℓ)·lg P + (α + nβ)·⌈log_ppn N⌉ + nγ·(lg P + ⌈log_ppn N⌉)  (estimate: ppn = 1)',
    estimate: ({ P, n, alpha, beta, gamma }) =>
      Math.floor(Math.log2(P) + 1e-9) * (alpha + n * (beta + gamma)) + (isPowerOfTwo(P) ? 0 : 2 * (alpha + n * beta) + n * gamma),
  },
  generate(ctx: ScheduleContext) {
    const b = new ScheduleBuilder(ctx, 'nap');
    const { rank, count, topology: t } = ctx;
    const q = t.maxPpn;
    const N = t.nodeCount;
    if (q === 1) {
      // One rank per node: nobody to share the inter-node work with.
      b.phase = 'inter';
      b.embed(recursiveDoubling.generate(ctx), {
        peer: (r) => r,
        input: { buf: 0, offset: 0 },
        output: { buf: 1, offset: 0 },
      });
      return b.build();
    }
    const node = t.nodeOf(rank);
    const lr = t.localRank(rank);
    const members = t.ranksOn(node);
    const rankOf = (i: number): number => members[i];
    const acc = b.out(0, count);
    const xTmp = b.region(b.scratch(count, 'partial'), 0, count);
    const rdTmp = b.region(b.scratch(count, 'tmp'), 0, count);
    const plan = napPlan(N, q);

    // Intra-node allreduce of the inputs.
    b.phase = 'intra';
    b.round = 0;
    buildSubsetAllreduce(b, { size: q, contributors: q, me: lr, rankOf, input: b.in(0, count), output: acc, tmp: rdTmp, after: [] });
    let round = subsetAllreduceRounds(q, q);

    for (let step = 0; step < plan.stepSizes.length; step++) {
      const g = napGroup(N, q, node, step);
      const stepRound = round;
      round += 1 + plan.intraRounds[step];
      if (g.subgroups === 1) continue;
      // Inter-node step.
      b.phase = 'inter';
      b.round = stepRound;
      const after = b.frontier();
      const act = napPartner(N, q, node, lr, step);
      const peer = act.kind === 'idle' ? -1 : t.ranksOn(act.node)[act.localRank];
      let input = acc;
      if (act.kind === 'exchange') {
        b.exchange(peer, acc, xTmp, after);
        input = xTmp;
      } else if (act.kind === 'recv') {
        b.recv(peer, xTmp, after);
        input = xTmp;
      } else if (act.kind === 'send') {
        b.send(peer, acc, after);
      }
      // Intra-node allreduce over the k contributors: local rank j brings the node's
      // partial, local rank m ≠ j the partial of subgroup m; ranks ≥ k only receive.
      b.phase = 'intra';
      b.round = stepRound + 1;
      buildSubsetAllreduce(b, {
        size: q,
        contributors: g.subgroups,
        me: lr,
        rankOf,
        input: lr < g.subgroups ? input : undefined,
        output: acc,
        tmp: rdTmp,
        after: b.frontier(),
      });
    }
    return b.build();
  },
};
