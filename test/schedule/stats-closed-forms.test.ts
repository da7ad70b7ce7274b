/**
 * Schedule statistics (src/schedule/stats.ts) against closed forms of the seeds:
 * recursive doubling's message counts, NAP's inter-node messages and injectors per
 * node (seed 001), and the link-conflict freedom and active links of Tree, Snake and
 * Fence on a mesh (seed 004).
 */
import { describe, expect, it } from 'vitest';
import { generateSchedule } from '../../src/algorithms/registry.js';
import { ceilLog } from '../../src/schedule/partition.js';
import { computeStats } from '../../src/schedule/stats.js';
import { meshTopology, nodeTopology } from '../../src/schedule/topology.js';

describe('statistics vs closed forms', () => {
  it('recursive doubling: ⌈lg P⌉ messages per rank and P·lg P in total for powers of two', () => {
    for (const P of [2, 4, 8, 16, 64, 128]) {
      const st = computeStats(generateSchedule('allreduce', 'recursive_doubling', { size: P, count: 1 }));
      expect(st.maxMessagesSentPerRank).toBe(Math.log2(P));
      expect(st.perRank.every((r) => r.messagesSent === Math.log2(P))).toBe(true);
      expect(st.totalMessages).toBe(P * Math.log2(P));
    }
  });

  it('NAP: at most ⌈log_ppn n⌉ inter-node messages per rank, RD and SMP ⌈lg n⌉ (seed 001)', () => {
    for (const ppn of [2, 3, 4]) {
      for (const n of [1, 2, 3, 5, 8, 9, 12, 16]) {
        const topology = nodeTopology(n * ppn, ppn);
        const nap = computeStats(generateSchedule('allreduce', 'nap', { size: n * ppn, count: 2, topology }), { topology });
        expect(nap.maxInterNodeMessagesPerRank, `nap n=${n} ppn=${ppn}`).toBe(n === 1 ? 0 : ceilLog(n, ppn));
        const smp = computeStats(generateSchedule('allreduce', 'smp', { size: n * ppn, count: 2, topology }), { topology });
        // Only the node leader injects: one injector per node.
        expect(smp.maxConcurrentInjectorsPerNode).toBeLessThanOrEqual(1);
        if ((n & (n - 1)) === 0) {
          expect(smp.maxInterNodeMessagesPerRank).toBe(Math.log2(n));
          if ((ppn & (ppn - 1)) === 0) {
            // P a power of two: every rank of a node injects in each of the lg n inter-node rounds.
            const rd = computeStats(generateSchedule('allreduce', 'recursive_doubling', { size: n * ppn, count: 2, topology }), { topology });
            expect(rd.maxInterNodeMessagesPerRank).toBe(Math.log2(n));
            if (n > 1) expect(rd.maxConcurrentInjectorsPerNode).toBe(ppn);
          }
        }
      }
    }
  });

  it('NAP at 16 ppn: inter-node steps 1, 1, 2, 2 for 2, 16, 64, 256 nodes (seed 001 table)', () => {
    for (const [n, steps] of [[2, 1], [16, 1], [64, 2], [256, 2]] as const) {
      const topology = nodeTopology(n * 16, 16);
      const st = computeStats(generateSchedule('allreduce', 'nap', { size: n * 16, count: 1, topology, validate: false }), { topology });
      expect(st.maxInterNodeMessagesPerRank, `n=${n}`).toBe(steps);
    }
  });

  it('Tree, Snake and Fence are link-conflict-free; active links per node ≤ 1+1, 4, 6 (seed 004)', () => {
    for (const [W, H] of [[1, 1], [2, 1], [1, 5], [2, 2], [3, 2], [4, 4], [5, 3], [8, 8], [16, 32]] as const) {
      const topology = meshTopology(W, H);
      for (const [alg, maxL] of [['mesh_tree', 2], ['snake', 4], ['fence', 6]] as const) {
        const st = computeStats(
          generateSchedule('allreduce', alg, { size: W * H, count: 40, topology, params: alg === 'mesh_tree' ? {} : { block: 8 }, validate: W * H <= 64 }),
          { topology },
        );
        expect(st.mesh?.conflicts, `${alg} ${W}x${H}`).toEqual([]);
        expect(st.mesh?.maxLinkLoad ?? 0).toBeLessThanOrEqual(1);
        expect(st.maxActiveLinksPerNode).toBeLessThanOrEqual(maxL);
        if (alg !== 'mesh_tree' && W * H > 1) expect(st.mesh?.maxHops).toBe(1);
      }
    }
  });

  it('Snake reaches 4 and Fence 6 active links in the pipelined middle of a long vector', () => {
    const topology = meshTopology(4, 4);
    const snake = computeStats(generateSchedule('allreduce', 'snake', { size: 16, count: 400, topology, params: { block: 10 } }), { topology });
    const fence = computeStats(generateSchedule('allreduce', 'fence', { size: 16, count: 400, topology, params: { block: 10 } }), { topology });
    expect(snake.maxActiveLinksPerNode).toBe(4);
    expect(fence.maxActiveLinksPerNode).toBe(6);
    // Rounds: Snake 2P + B − 3, Fence 2H + 2W + B − 5 with B = 40 blocks.
    expect(snake.rounds).toBe(2 * 16 + 40 - 3);
    expect(fence.rounds).toBe(2 * 4 + 2 * 4 + 40 - 5);
  });
});
