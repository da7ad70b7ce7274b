/**
 * Validation ladder, steps 2 and 3: known identities on a crossbar (closed forms of
 * LogP and Hockney), then contention on an oversubscribed fat tree (recursive
 * doubling slows down, the ring does not).
 */
import { describe, expect, it } from 'vitest';
import { listAlgorithms } from '../../src/algorithms/registry.js';
import type { MachineSpec } from '../../src/sim/machine.js';
import { simulate } from '../../src/sim/simulate.js';
import { crossbarMachine } from './fixtures.js';

const us = 1e-6;
const registered = (c: 'allreduce', name: string): boolean => listAlgorithms(c).some((a) => a.name === name);

describe('ladder step 2: identities', () => {
  it('dissemination barrier = ⌈lg P⌉·(L + 2o) under LogP parameters (with and without contention)', () => {
    const m = crossbarMachine({ alphaInter: 2.5 * us, betaInter: 0, oSend: 1.5 * us, oRecv: 1.5 * us });
    for (const P of [3, 16, 100, 1024]) {
      const expected = Math.ceil(Math.log2(P)) * (2.5 + 2 * 1.5);
      for (const contention of [false, true]) {
        const r = simulate({ collective: 'barrier', algorithm: 'dissemination', machine: m, procs: P, contention });
        expect(r.first.time / us).toBeCloseTo(expected, 9);
      }
    }
  });

  it('recursive doubling on a crossbar = ⌈lg P⌉·(α + nβ)', () => {
    const m = crossbarMachine({ alphaInter: 2 * us, betaInter: 1e-9 });
    for (const [P, n] of [[8, 8], [64, 1 << 16], [512, 1024]]) {
      const r = simulate({ collective: 'allreduce', algorithm: 'recursive_doubling', machine: m, procs: P, bytes: n });
      expect(r.first.time / us).toBeCloseTo((Math.log2(P) * (2 * us + n * 1e-9)) / us, 9);
    }
  });

  // Bandwidth terms: α = 0 and γ = 0 leave only the β term of the closed forms.
  const bw = crossbarMachine({ alphaInter: 0, betaInter: 1e-9 });
  const n = 1 << 20;
  it.skipIf(!registered('allreduce', 'ring'))('ring allreduce: β term 2(P−1)/P·nβ within 2%', () => {
    for (const P of [8, 64]) {
      const r = simulate({ collective: 'allreduce', algorithm: 'ring', machine: bw, procs: P, bytes: n });
      const closed = (2 * (P - 1) * n * 1e-9) / P;
      expect(Math.abs(r.first.time - closed) / closed).toBeLessThan(0.02);
    }
  });

  it.skipIf(!registered('allreduce', 'rabenseifner'))('Rabenseifner allreduce: β term 2(P−1)/P·nβ within 2%', () => {
    for (const P of [8, 64]) {
      const r = simulate({ collective: 'allreduce', algorithm: 'rabenseifner', machine: bw, procs: P, bytes: n });
      const closed = (2 * (P - 1) * n * 1e-9) / P;
      expect(Math.abs(r.first.time - closed) / closed).toBeLessThan(0.02);
    }
  });

  it('a contention-free fat tree reproduces the SimGrid CM02 hop structure: RD 8 B over 1024 hosts = 5·2 + 5·4 µs', () => {
    // peers-simulators-models.md §4.2: partners within a 32-host leaf cross 2 links, the rest 4, 1 µs each.
    const ft: MachineSpec = {
      name: 'ft',
      description: '32-ary 2-tree',
      nodes: 1024,
      coresPerNode: 1,
      network: { topology: 'fattree', arity: 32, levels: 2, linkBandwidth: 12.5e9, hopLatency: 1 * us },
      classes: { node: { alpha: 0, beta: 0 }, network: { alpha: 0, beta: 1 / 12.5e9 } },
      host: { oSend: 0, oRecv: 0, gamma: { default: 0 }, copyPerByte: 0 },
      sources: {},
    };
    const closed = 30 + (10 * 8) / 12.5e9 / us;
    const free = simulate({ collective: 'allreduce', algorithm: 'recursive_doubling', machine: ft, procs: 1024, bytes: 8, contention: false });
    expect(free.first.time / us).toBeCloseTo(closed, 9);
    // With contention a few 8-byte messages queue behind each other (tens of ns).
    const busy = simulate({ collective: 'allreduce', algorithm: 'recursive_doubling', machine: ft, procs: 1024, bytes: 8 });
    expect(busy.first.time / us).toBeGreaterThanOrEqual(closed - 1e-9);
    expect(busy.first.time / us / closed).toBeLessThan(1.001);
  });
});

describe('ladder step 3: contention', () => {
  /** 64 nodes on a 4-ary 3-tree; `up` up-links per switch (4 = full bisection, 1 = 4:1 oversubscribed). */
  const tree = (up: number): MachineSpec => ({
    name: `tree-${up}`,
    description: 'test fat tree',
    nodes: 64,
    coresPerNode: 1,
    network: { topology: 'fattree', arity: 4, levels: 3, upLinks: up, linkBandwidth: 1e9, hopLatency: 0.05 * us },
    classes: { node: { alpha: 0, beta: 0 }, network: { alpha: 1 * us, beta: 1e-9 } },
    host: { oSend: 0, oRecv: 0, gamma: { default: 0 }, copyPerByte: 0 },
    sources: {},
  });
  const n = 256 * 1024;
  const run = (algorithm: string, up: number, contention = true): number =>
    simulate({ collective: 'allreduce', algorithm, machine: tree(up), procs: 64, bytes: n, contention }).first.time;

  it('recursive doubling slows down on an oversubscribed tree', () => {
    const full = run('recursive_doubling', 4);
    const over = run('recursive_doubling', 1);
    // Its cross-subtree steps put 4 (level 2) and 16 (level 3) flows on one up-link.
    expect(full / run('recursive_doubling', 4, false)).toBeLessThan(1.05);
    expect(over / full).toBeGreaterThan(2);
  });

  it.skipIf(!registered('allreduce', 'ring'))('the ring does not (one flow per up-link)', () => {
    const full = run('ring', 4);
    const over = run('ring', 1);
    expect(over / full).toBeLessThan(1.05);
  });
});

describe('node resources: injection limits and message classes', () => {
  const node = (o: { injectionBandwidth?: number; nodeChannelShared?: boolean; cores: number }): MachineSpec => ({
    name: 'inj',
    description: 'crossbar with node limits',
    nodes: 64,
    coresPerNode: o.cores,
    network: { topology: 'crossbar', linkBandwidth: 10e9, hopLatency: 0, injectionBandwidth: o.injectionBandwidth, nodeChannelShared: o.nodeChannelShared },
    classes: { node: { alpha: 0, beta: 0 }, network: { alpha: 1 * us, beta: 1e-9 } },
    host: { oSend: 0, oRecv: 0, gamma: { default: 0 }, copyPerByte: 0 },
    sources: {},
  });
  const n = 1 << 20;

  it('max-rate: k processes injecting n bytes at once take k·n/min(R_N, k·R_C) (seed 001 Eq. 3)', () => {
    // RD over 2 nodes × 4: two free intra-node rounds, then 4 ranks per node inject 1 MiB each.
    const m = node({ injectionBandwidth: 2e9, cores: 4 });
    const r = simulate({ collective: 'allreduce', algorithm: 'recursive_doubling', machine: m, procs: 8, ppn: 4, bytes: n });
    expect(r.first.time / us).toBeCloseTo((1 * us + (4 * n) / 2e9) / us, 3);
    // Without the node limit each rank gets its own 1 GB/s.
    const free = simulate({ collective: 'allreduce', algorithm: 'recursive_doubling', machine: node({ cores: 4 }), procs: 8, ppn: 4, bytes: n });
    expect(free.first.time / us).toBeCloseTo((1 * us + n * 1e-9) / us, 3);
  });

  it('a node-bandwidth-limited node (seed 004, f(L) = L) serialises its sends and receives', () => {
    // A pairwise exchange: each node sends and receives one message at once (L = 2).
    const shared = simulate({ collective: 'allreduce', algorithm: 'recursive_doubling', machine: node({ injectionBandwidth: 1e9, nodeChannelShared: true, cores: 1 }), procs: 2, bytes: n });
    const split = simulate({ collective: 'allreduce', algorithm: 'recursive_doubling', machine: node({ injectionBandwidth: 1e9, cores: 1 }), procs: 2, bytes: n });
    expect(split.first.time / us).toBeCloseTo((1 * us + n * 1e-9) / us, 3);
    expect(shared.first.time / us).toBeCloseTo((1 * us + 2 * n * 1e-9) / us, 3);
  });

  it('SMP classes: socket, node and network α/β (seed 001 F3)', () => {
    const m: MachineSpec = {
      ...node({ cores: 16 }),
      socketsPerNode: 2,
      classes: { socket: { alpha: 0.1 * us, beta: 0 }, node: { alpha: 0.5 * us, beta: 0 }, network: { alpha: 2 * us, beta: 0 } },
    };
    // RD over 2 nodes × 16 (2 sockets of 8): distances 1, 2, 4 stay in a socket, 8 crosses sockets, 16 crosses nodes.
    const r = simulate({ collective: 'allreduce', algorithm: 'recursive_doubling', machine: m, procs: 32, ppn: 16, bytes: 8, contention: false });
    expect(r.first.time / us).toBeCloseTo(3 * 0.1 + 0.5 + 2, 9);
  });
});
