/**
 * Broadcast spanning trees for NIC forwarding, taken from the catalogue's bcast
 * schedules (binomial, knomial, kary, postal with its λ, chain, linear …) instead of
 * being rebuilt here: a rank's parent is the peer of its one receive step and its
 * children are the peers of its send steps, in send order.
 *
 * Seed 003 ch. 6 §6.4 (M10, M11): the host builds the tree (a latency-optimal postal
 * tree) into the NIC's group table, and deadlock on receive tokens is avoided by
 * ID-ordered trees: the destinations are sorted by network ID before construction and
 * a child's ID is greater than its parent's unless the parent is the root. Since the
 * root only uses send tokens, no cycle of "last receive token held while waiting for
 * the next" can form, even across concurrent broadcasts with different roots.
 *
 * The catalogue generators place virtual rank v = (rank − root) mod P, so their trees
 * are ID-ordered only for root 0. `order: 'id-sorted'` (default) builds the tree over
 * the positions [root, then the other ranks in ascending ID] instead, which keeps the
 * catalogue's shape and makes every tree ID-ordered; `order: 'rotated'` keeps the
 * catalogue's placement (for comparison: its trees for different roots can close a
 * receive-token cycle).
 *
 * Cost: P − 1 edges whatever the shape, so (P − 1) transmissions per packet; the shape
 * sets depth and fan-out (latency), not the packet count.
 */
import { generateRankSchedule, getAlgorithm } from '../../algorithms/registry.js';
import type { ParamValue } from '../../schedule/context.js';

export interface BroadcastTree {
  readonly algorithm: string;
  readonly size: number;
  readonly root: number;
  /** parent[r], −1 at the root. */
  readonly parent: readonly number[];
  /** children[r] in send order. */
  readonly children: readonly (readonly number[])[];
}

export type TreeOrder = 'id-sorted' | 'rotated';

export interface BroadcastTreeOptions {
  /** A bcast algorithm of the catalogue whose schedule is a tree. */
  readonly algorithm: string;
  readonly size: number;
  readonly root: number;
  readonly params?: Readonly<Record<string, ParamValue>>;
  readonly order?: TreeOrder;
}

export function broadcastTree(o: BroadcastTreeOptions): BroadcastTree {
  const { size: P, root } = o;
  if (!Number.isInteger(root) || root < 0 || root >= P) throw new RangeError(`root ${root} out of range [0, ${P})`);
  const spec = getAlgorithm('bcast', o.algorithm);
  const sorted = (o.order ?? 'id-sorted') === 'id-sorted';
  // Position p of the tree (generated for root 0) ↔ rank: the root, then the others ascending.
  const rankAt = (p: number): number => (!sorted ? p : p === 0 ? root : p - 1 < root ? p - 1 : p);
  const parent = new Array<number>(P).fill(-2);
  const children: number[][] = Array.from({ length: P }, () => []);
  for (let p = 0; p < P; p++) {
    const s = generateRankSchedule(spec, p, { size: P, count: 1, root: sorted ? 0 : root, params: o.params });
    const r = rankAt(p);
    const recvs = s.steps.filter((st) => st.kind === 'recv');
    if (recvs.length > 1 || s.steps.some((st) => st.kind !== 'send' && st.kind !== 'recv')) {
      throw new Error(`bcast/${o.algorithm} is not a tree broadcast (rank ${r} receives ${recvs.length} times or computes)`);
    }
    parent[r] = recvs.length === 0 ? -1 : rankAt(recvs[0].peer);
    for (const st of s.steps) if (st.kind === 'send') children[r].push(rankAt(st.peer));
  }
  checkTree(o.algorithm, P, root, parent, children);
  return { algorithm: o.algorithm, size: P, root, parent, children };
}

function checkTree(name: string, P: number, root: number, parent: readonly number[], children: readonly (readonly number[])[]): void {
  if (parent[root] !== -1) throw new Error(`bcast/${name}: the root receives`);
  let reached = 0;
  const seen = new Array<boolean>(P).fill(false);
  const stack = [root];
  while (stack.length > 0) {
    const r = stack.pop() as number;
    if (seen[r]) throw new Error(`bcast/${name}: rank ${r} is reached twice`);
    seen[r] = true;
    reached++;
    for (const c of children[r]) {
      if (parent[c] !== r) throw new Error(`bcast/${name}: rank ${r} sends to ${c}, whose parent is ${parent[c]}`);
      stack.push(c);
    }
  }
  if (reached !== P) throw new Error(`bcast/${name}: the tree reaches ${reached} of ${P} ranks`);
}

/** Edges breaking the ID order (child ID < parent ID with a non-root parent). */
export function idOrderViolations(t: BroadcastTree): { parent: number; child: number }[] {
  const out: { parent: number; child: number }[] = [];
  for (let c = 0; c < t.size; c++) {
    const p = t.parent[c];
    if (p >= 0 && p !== t.root && c < p) out.push({ parent: p, child: c });
  }
  return out;
}

export function assertIdOrdered(t: BroadcastTree): void {
  const v = idOrderViolations(t);
  if (v.length > 0) {
    throw new Error(`bcast/${t.algorithm} rooted at ${t.root} is not ID-ordered: ${v.map((e) => `${e.parent}→${e.child}`).join(', ')}`);
  }
}

/**
 * A cycle in the receive-token dependencies of concurrent broadcasts over `trees`
 * (edges parent → child whose parent is not the root: the parent forwards with the
 * receive token it holds), or undefined. ID-ordered trees never have one.
 */
export function receiveTokenCycle(trees: readonly BroadcastTree[]): number[] | undefined {
  const P = trees.reduce((m, t) => Math.max(m, t.size), 0);
  const next: Set<number>[] = Array.from({ length: P }, () => new Set<number>());
  for (const t of trees) {
    for (let c = 0; c < t.size; c++) {
      const p = t.parent[c];
      if (p >= 0 && p !== t.root) next[p].add(c);
    }
  }
  const state = new Array<0 | 1 | 2>(P).fill(0); // unvisited, on the path, done
  const path: number[] = [];
  const visit = (u: number): number[] | undefined => {
    state[u] = 1;
    path.push(u);
    for (const v of next[u]) {
      if (state[v] === 1) return path.slice(path.indexOf(v));
      if (state[v] === 0) {
        const found = visit(v);
        if (found) return found;
      }
    }
    path.pop();
    state[u] = 2;
    return undefined;
  };
  for (let u = 0; u < P; u++) {
    if (state[u] === 0) {
      const found = visit(u);
      if (found) return found;
    }
  }
  return undefined;
}
