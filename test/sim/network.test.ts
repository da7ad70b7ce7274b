/** Topologies and routing: fat tree (Quadrics routing, oversubscription), mesh (X then Y), torus. */
import { describe, expect, it } from 'vitest';
import { meshRoute } from '../../src/schedule/stats.js';
import { buildNetwork, FatTree } from '../../src/sim/network.js';

describe('k-ary n-tree', () => {
  const tree = new FatTree({ topology: 'fattree', arity: 4, levels: 3, linkBandwidth: 1e9, hopLatency: 1e-8 }, 64);

  it('has n·k^(n−1) switches and routes of 2·(nearest common ancestor level) links', () => {
    expect(tree.perLevel * tree.n).toBe(48); // seed 002: 64 nodes, 48 switches
    const out = new Int32Array(16);
    const cases: [number, number, number][] = [
      [0, 1, 2], // same leaf switch
      [0, 4, 4], // same level-1 subtree
      [0, 63, 6], // across the top
      [17, 18, 2],
      [5, 37, 6],
    ];
    for (const [a, b, hops] of cases) {
      expect(tree.hops(a, b)).toBe(hops);
      expect(tree.route(a, b, out, 0)).toBe(hops);
      expect(out[0]).toBe(a); // injection link
      expect(out[hops - 1]).toBe(64 + b); // ejection link
    }
  });

  it('descends deterministically: every route into a node ends in the same links below the top', () => {
    const out = new Int32Array(16);
    const tails = new Set<string>();
    for (let a = 0; a < 16; a++) {
      tree.route(a, 63, out, 0);
      // Up-ports default to the destination digits, so all reach the same top switch.
      tails.add(Array.from(out.subarray(3, 6)).join(','));
    }
    expect(tails.size).toBe(1);
  });

  it('adapts up-links to load and respects oversubscription', () => {
    const out = new Int32Array(16);
    tree.route(0, 63, out, 0);
    const busy = new Float64Array(tree.linkCount).fill(-Infinity);
    busy[out[1]] = 1; // the default up-link from leaf 0 is busy at t = 0
    const before = out[1];
    tree.adapt(out, 0, 1, 6, 63, busy, 0);
    expect(out[1]).not.toBe(before);
    expect(out[5]).toBe(64 + 63);
    // A 4:1 oversubscribed tree uses only up-port 0.
    const thin = new FatTree({ topology: 'fattree', arity: 4, levels: 3, upLinks: 1, linkBandwidth: 1e9, hopLatency: 0 }, 64);
    for (let b = 16; b < 64; b++) {
      thin.route(0, b, out, 0);
      expect(thin.describeLink(out[1])).toMatch(/up port 0$/);
    }
  });
});

describe('2-D mesh and 3-D torus', () => {
  it('mesh routes go X then Y, matching the schedule statistics (meshRoute)', () => {
    const W = 5;
    const H = 4;
    const mesh = buildNetwork({ topology: 'mesh2d', width: W, height: H, linkBandwidth: 1e9, hopLatency: 0 }, W * H);
    const out = new Int32Array(32);
    const free = new Float64Array(mesh.linkCount);
    for (const [a, b] of [[0, 19], [7, 12], [18, 1], [3, 3 + 2 * W]]) {
      const n = mesh.route(a, b, out, 0, free);
      const expected = meshRoute({ x: a % W, y: Math.floor(a / W) }, { x: b % W, y: Math.floor(b / W) });
      expect(n).toBe(expected.length + 2);
      expect(mesh.hops(a, b)).toBe(n);
      for (let i = 0; i < expected.length; i++) {
        const h = expected[i];
        const dir = h.nx > h.x ? '+x' : h.nx < h.x ? '-x' : h.ny > h.y ? '+y' : '-y';
        expect(mesh.describeLink(out[i + 1])).toBe(`(${h.x},${h.y}) ${dir}`);
      }
    }
  });

  it('torus routes take the shorter way round in each dimension', () => {
    const t = buildNetwork({ topology: 'torus3d', dims: [8, 4, 2], linkBandwidth: 1e9, hopLatency: 0 }, 64);
    const at = (x: number, y: number, z: number): number => x + 8 * (y + 4 * z);
    expect(t.hops(at(0, 0, 0), at(7, 0, 0))).toBe(3); // wrap: one hop + injection + ejection
    expect(t.hops(at(0, 0, 0), at(4, 2, 1))).toBe(2 + 4 + 2 + 1);
    const out = new Int32Array(32);
    expect(t.route(at(1, 3, 0), at(6, 0, 1), out, 0, new Float64Array(t.linkCount))).toBe(2 + 3 + 1 + 1);
  });
});
