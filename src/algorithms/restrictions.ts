/** Reusable restrictions that algorithms declare. */
import { isPowerOfTwo } from '../schedule/partition.js';
import type { Restriction } from './types.js';

export const commutative: Restriction = {
  id: 'commutative',
  description: 'a commutative operator',
  check: (ctx) => (ctx.commutative ? undefined : 'the operator is not commutative'),
};

export const powerOfTwo: Restriction = {
  id: 'power-of-two',
  description: 'a power-of-two number of ranks',
  check: (ctx) => (isPowerOfTwo(ctx.size) ? undefined : `P = ${ctx.size} is not a power of two`),
};

export const countAtLeastRanks: Restriction = {
  id: 'count>=P',
  description: 'at least one element per rank (count ≥ P)',
  check: (ctx) => (ctx.count >= ctx.size ? undefined : `count ${ctx.count} < P = ${ctx.size}`),
};

export const uniformNodes: Restriction = {
  id: 'uniform-ppn',
  description: 'the same number of ranks on every node',
  check: (ctx) =>
    ctx.topology.uniform ? undefined : `nodes hold different numbers of ranks (${ctx.topology.label})`,
};

export const mesh: Restriction = {
  id: 'mesh',
  description: 'a W×H mesh placement with one rank per mesh node (topology: meshTopology(W, H))',
  check: (ctx) => {
    const m = ctx.topology.mesh;
    if (!m) return 'the topology has no mesh placement';
    if (m.width * m.height !== ctx.size) return `the ${m.width}x${m.height} mesh does not hold P = ${ctx.size} ranks`;
    return undefined;
  },
};

/** Evaluate restrictions; returns the first violated one with its detail. */
export function firstViolation(
  restrictions: readonly Restriction[],
  ctx: Parameters<Restriction['check']>[0],
): { restriction: Restriction; detail: string } | undefined {
  for (const r of restrictions) {
    const detail = r.check(ctx);
    if (detail !== undefined) return { restriction: r, detail };
  }
  return undefined;
}
