/**
 * Closed-form checks computed from the generated schedules of the seed-004 mesh
 * allreduce algorithms (Tree, Snake, Fence) and of the allgather and alltoall
 * algorithms: round counts, link conflicts under dimension-order (X then Y) routing,
 * active links per node, message counts.
 */
import { describe, expect, it } from 'vitest';
import { generateSchedule, getAlgorithm } from '../../src/algorithms/registry.js';
import { fenceProfile } from '../../src/algorithms/allreduce/fence.js';
import { snakeCoord, snakeIndex, snakeProfile } from '../../src/algorithms/allreduce/snake.js';
import { ceilLog } from '../../src/schedule/partition.js';
import { meshTopology } from '../../src/schedule/topology.js';
import type { CollectiveKind, Schedule, SendStep } from '../../src/schedule/types.js';

const S = 4; // block size used for the pipelined algorithms

function meshSchedule(name: string, W: number, H: number, B: number): Schedule {
  return generateSchedule('allreduce', name, {
    size: W * H,
    count: B * S,
    topology: meshTopology(W, H),
    params: name === 'mesh_tree' ? {} : { block: S },
  });
}

function flatSchedule(collective: CollectiveKind, name: string, P: number, count = 2): Schedule {
  return generateSchedule(collective, name, { size: P, count });
}

/** Rounds that carry messages: max round of a send or receive, plus one. */
function commRounds(s: Schedule): number {
  let R = 0;
  for (const r of s) for (const st of r.steps) if (st.kind === 'send' || st.kind === 'recv') R = Math.max(R, st.round + 1);
  return R;
}

function sends(s: Schedule): { from: number; step: SendStep }[] {
  const out: { from: number; step: SendStep }[] = [];
  for (const r of s) for (const st of r.steps) if (st.kind === 'send') out.push({ from: r.rank, step: st });
  return out;
}

/** Directed mesh links of an X-then-Y route from rank a to rank b (row-major ranks). */
function xyRoute(a: number, b: number, W: number): string[] {
  let x = a % W;
  let y = Math.floor(a / W);
  const tx = b % W;
  const ty = Math.floor(b / W);
  const links: string[] = [];
  while (x !== tx) {
    const nx = x + Math.sign(tx - x);
    links.push(`${x},${y}>${nx},${y}`);
    x = nx;
  }
  while (y !== ty) {
    const ny = y + Math.sign(ty - y);
    links.push(`${x},${y}>${x},${ny}`);
    y = ny;
  }
  return links;
}

/** Largest number of messages any directed link carries in one round. */
function maxLinkLoad(s: Schedule, W: number): number {
  const load = new Map<string, number>();
  let max = 0;
  for (const { from, step } of sends(s)) {
    for (const l of xyRoute(from, step.peer, W)) {
      const k = `${step.round}|${l}`;
      const v = (load.get(k) ?? 0) + 1;
      load.set(k, v);
      max = Math.max(max, v);
    }
  }
  return max;
}

/** Per round, the largest number of message endpoints (sends + receives) at one node. */
function activeLinks(s: Schedule): { perRound: number[]; maxSends: number; maxRecvs: number } {
  const both = new Map<string, number>();
  const snd = new Map<string, number>();
  const rcv = new Map<string, number>();
  const perRound = new Array<number>(commRounds(s)).fill(0);
  let maxSends = 0;
  let maxRecvs = 0;
  for (const r of s) {
    for (const st of r.steps) {
      if (st.kind !== 'send' && st.kind !== 'recv') continue;
      const k = `${r.rank}|${st.round}`;
      const v = (both.get(k) ?? 0) + 1;
      both.set(k, v);
      perRound[st.round] = Math.max(perRound[st.round], v);
      const m = st.kind === 'send' ? snd : rcv;
      const w = (m.get(k) ?? 0) + 1;
      m.set(k, w);
      if (st.kind === 'send') maxSends = Math.max(maxSends, w);
      else maxRecvs = Math.max(maxRecvs, w);
    }
  }
  return { perRound, maxSends, maxRecvs };
}

const MESHES: [number, number][] = [];
for (let W = 1; W <= 8; W++) for (let H = 1; H <= 8; H++) MESHES.push([W, H]);
MESHES.push([16, 32]);

describe('seed 004 mesh allreduce: rounds, link conflicts, active links', () => {
  it('Snake: serpentine index is a bijection onto neighbour chains', () => {
    for (const [W, H] of MESHES) {
      for (let i = 0; i < W * H; i++) {
        const c = snakeCoord(i, W);
        expect(snakeIndex(c.x, c.y, W)).toBe(i);
        if (i > 0) {
          const p = snakeCoord(i - 1, W);
          expect(Math.abs(p.x - c.x) + Math.abs(p.y - c.y)).toBe(1);
        }
      }
    }
  });

  for (const name of ['snake', 'fence', 'mesh_tree']) {
    it(`${name}: closed-form rounds, conflict-free under XY routing, bounded active links`, () => {
      for (const [W, H] of MESHES) {
        const P = W * H;
        const big = P > 64;
        for (const B of name === 'mesh_tree' ? [1] : big ? [1, 3] : [1, 2, 3, 5]) {
          const s = meshSchedule(name, W, H, B);
          const rounds = commRounds(s);
          const { perRound, maxSends, maxRecvs } = activeLinks(s);
          const where = `${name} ${W}x${H} B=${B}`;
          if (P === 1) {
            expect(rounds, where).toBe(0);
            continue;
          }
          expect(maxLinkLoad(s, W), where).toBe(1);
          const linkSum = perRound.reduce((a, v) => a + v, 0);
          if (name === 'snake') {
            expect(rounds, where).toBe(2 * P + B - 3);
            expect(Math.max(...perRound), where).toBeLessThanOrEqual(4);
            expect(linkSum, `${where}: Σ L`).toBe(snakeProfile(P, B).links);
          } else if (name === 'fence') {
            expect(rounds, where).toBe(2 * H + 2 * W + B - 5);
            expect(Math.max(...perRound), where).toBeLessThanOrEqual(6);
            expect(linkSum, `${where}: Σ L`).toBe(fenceProfile(W, H, B).links);
          } else {
            expect(rounds, where).toBe(2 * (ceilLog(W) + ceilLog(H)));
            expect(maxSends, where).toBeLessThanOrEqual(1);
            expect(maxRecvs, where).toBeLessThanOrEqual(1);
          }
          if (name !== 'mesh_tree') {
            for (const { from, step } of sends(s)) expect(xyRoute(from, step.peer, W).length, where).toBe(1);
          }
        }
      }
    });
  }

  it('Snake and Fence follow the seed 004 timelines (busiest-node L per step, B ≥ 3)', () => {
    const runs = (...parts: [number, number][]): number[] => parts.flatMap(([n, L]) => new Array<number>(Math.max(n, 0)).fill(L));
    for (const [W, H] of [[4, 4], [3, 5], [5, 3], [8, 2], [16, 32]] as [number, number][]) {
      const P = W * H;
      for (const B of [3, 4, 7]) {
        expect(activeLinks(meshSchedule('snake', W, H, B)).perRound).toEqual(
          runs([1, 1], [P - 2, 2], [1, 3], [B - 3, 4], [1, 3], [P - 2, 2], [1, 1]),
        );
        expect(activeLinks(meshSchedule('fence', W, H, B)).perRound).toEqual(
          runs([1, 1], [H - 1, 2], [W - 2, 3], [1, 4], [B - 3, 6], [1, 4], [W - 2, 3], [H - 1, 2], [1, 1]),
        );
      }
    }
  });

  it('Fence combines three operands in one reduce step on the bottom row', () => {
    const s = meshSchedule('fence', 4, 3, 3);
    const threeWay = s.map((r) => r.steps.filter((st) => st.kind === 'reduce' && st.inputs.length === 3).length);
    // Bottom-row nodes (0,0), (1,0), (2,0) combine own + above + right for each of the 3 blocks.
    expect(threeWay).toEqual([3, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  });
});

describe('seed 004 cost estimates (form B, standard model f(L) = 1, DELTA parameters)', () => {
  // α = 54 µs, β = 1.54 µs per double, c2 = 0.25 µs per double (γ per byte = c2 / 8).
  const delta = { alpha: 54, beta: 1.54 / 8, gamma: 0.25 / 8 };
  /** Σ over timeline rows (count, L, combine factor) of count·(L·α + sβ + factor·sγ). */
  const timeline = (s: number, rows: [number, number, number][]): number =>
    rows.reduce((t, [n, L, c]) => t + n * (L * delta.alpha + s * delta.beta + c * s * delta.gamma), 0);

  it('Tree on 4x4 with N = 100 doubles costs 1764 µs (seed §5.3 sample)', () => {
    const t = getAlgorithm('allreduce', 'mesh_tree').cost.estimate({ P: 16, n: 800, ...delta, params: {} });
    expect(t).toBeCloseTo(1764, 6);
  });

  it('Snake and Fence estimates equal the seed timelines', () => {
    const P = 16;
    const B = 10;
    const s = 8 * 64;
    const snake = getAlgorithm('allreduce', 'snake').cost.estimate({ P, n: B * s, ...delta, params: { block: 64 } });
    expect(snake).toBeCloseTo(timeline(s, [[1, 1, 1], [P - 2, 2, 1], [1, 3, 1], [B - 3, 4, 1], [1, 3, 1], [P - 2, 2, 0], [1, 1, 0]]), 6);
    const [W, H] = [4, 4];
    const fence = getAlgorithm('allreduce', 'fence').cost.estimate({ P, n: B * s, ...delta, params: { block: 64 } });
    expect(fence).toBeCloseTo(
      timeline(s, [[1, 1, 1], [H - 1, 2, 1], [W - 2, 3, 2], [1, 4, 2], [B - 3, 6, 2], [1, 4, 2], [W - 2, 3, 0], [H - 1, 2, 0], [1, 1, 0]]),
      6,
    );
  });
});

describe('allgather: rounds and message counts', () => {
  it('recursive doubling takes lg P rounds', () => {
    for (let P = 2; P <= 64; P *= 2) expect(commRounds(flatSchedule('allgather', 'recursive_doubling', P))).toBe(Math.log2(P));
  });

  it('Bruck takes ⌈lg P⌉ rounds with one send per rank per round', () => {
    for (let P = 2; P <= 40; P++) {
      const s = flatSchedule('allgather', 'bruck', P);
      expect(commRounds(s)).toBe(ceilLog(P));
      for (const r of s) expect(r.steps.filter((st) => st.kind === 'send').length).toBe(ceilLog(P));
    }
  });

  it('ring takes P − 1 rounds', () => {
    for (const P of [2, 3, 7, 16]) expect(commRounds(flatSchedule('allgather', 'ring', P))).toBe(P - 1);
  });

  it('concurrent_bcast: every rank receives exactly N − 1 packets, one per origin, from rank − 2^j', () => {
    for (let N = 1; N <= 40; N++) {
      const s = flatSchedule('allgather', 'concurrent_bcast', N, 3);
      expect(commRounds(s)).toBe(ceilLog(N));
      for (const r of s) {
        const recvs = r.steps.filter((st) => st.kind === 'recv');
        expect(recvs.length).toBe(N - 1);
        const origins = new Set<number>();
        for (const st of recvs) {
          if (st.kind !== 'recv') continue;
          const i = st.region.offset / 3;
          origins.add(i);
          // The packet of origin i arrives over hop j = ⌊lg((rank − i) mod N)⌋ (the mod-N rule).
          const rel = (r.rank - i + N) % N;
          const j = Math.floor(Math.log2(rel));
          expect(st.peer).toBe((r.rank - (1 << j) + N) % N);
          expect(st.round).toBe(j);
        }
        expect(origins.size).toBe(N - 1);
        expect(origins.has(r.rank)).toBe(false);
        // Peers are rank ± 2^k mod N only.
        const peers = new Set(r.steps.flatMap((st) => (st.kind === 'send' || st.kind === 'recv' ? [st.peer] : [])));
        const allowed = new Set<number>();
        for (let d = 1; d < N; d *= 2) allowed.add((r.rank + d) % N).add((r.rank - d + N) % N);
        for (const p of peers) expect(allowed.has(p)).toBe(true);
      }
    }
  });
});

describe('alltoall: rounds and message counts', () => {
  it('pairwise: P − 1 sends per rank, one to every other rank, XOR partners for powers of two', () => {
    for (let P = 1; P <= 33; P++) {
      const s = flatSchedule('alltoall', 'pairwise', P);
      expect(commRounds(s)).toBe(P - 1);
      for (const r of s) {
        const out = r.steps.filter((st): st is SendStep => st.kind === 'send');
        expect(out.length).toBe(P - 1);
        expect(new Set(out.map((st) => st.peer)).size).toBe(P - 1);
        if ((P & (P - 1)) === 0) out.forEach((st) => expect(st.peer).toBe(r.rank ^ (st.round + 1)));
      }
    }
  });

  it('Bruck: ⌈lg P⌉ rounds with one send per rank per round', () => {
    for (let P = 1; P <= 33; P++) {
      const s = flatSchedule('alltoall', 'bruck', P);
      expect(commRounds(s)).toBe(ceilLog(P));
      for (const r of s) expect(r.steps.filter((st) => st.kind === 'send').length).toBe(ceilLog(P));
    }
  });
});
