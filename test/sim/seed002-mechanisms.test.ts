/**
 * Seed 002 mechanisms of the wormhole model: the hardware multicast is rooted at the
 * top-leftmost switch of the group's subtree; the destination acknowledges a packet
 * after committing its payload (ack turnaround + payload · ackPerByte), so with two
 * VCs a packet stream's rate is set by the circuit's round trip; background traffic
 * can run on more nodes than the collective (seed 002 §5.2: all 64).
 */
import { describe, expect, it } from 'vitest';
import { getPreset } from '../../src/sim/presets.js';
import { FatTree } from '../../src/sim/network.js';
import { simulate } from '../../src/sim/simulate.js';
import type { MachineSpec } from '../../src/sim/machine.js';

const us = 1e-6;
const es40 = getPreset('es40');
const lat = es40.network.hopLatency;
const wire = (es40.network.packetBytes! + es40.network.packetOverhead!) / es40.network.linkBandwidth;
const ack = (payload: number): number => es40.network.wormhole!.ackTurnaround + payload * (es40.network.wormhole!.ackPerByte ?? 0);
/** Two packets in flight per circuit period: data on the wire, ack, and the header/ack/EOP trips over h links. */
const streamRate = (h: number): number => (2 * 320) / (wire + ack(320) + (2 * h + 1) * lat);

describe('seed 002: multicast root and ack-paced packet streams', () => {
  it('roots the multicast at the smallest subtree holding the group', () => {
    const t = new FatTree(es40.network, 64);
    expect([1, 4, 5, 16, 17, 64].map((N) => t.groupRootLevel(N))).toEqual([0, 0, 1, 1, 2, 2]);
    expect(t.pathToRoot(5, 1)).toEqual([5, t.upLink(0, 1, 0)]);
    expect(t.pathToRoot(5)).toHaveLength(3);
    // An 8-byte multicast costs 4 link latencies more per level (down, ack up, to the source, EOP).
    const small = (P: number) => simulate({ collective: 'bcast', algorithm: 'hw_multicast', machine: es40, procs: P, bytes: 8 }).first.time;
    expect((small(16) - small(4)) / lat).toBeCloseTo(4, 6);
    expect((small(64) - small(16)) / lat).toBeCloseTo(4, 6);
  });

  it('paces a broadcast by the tree round trip: two packets per (data + ack + (4L+1) hops), deeper trees slower (R27, R32)', () => {
    const bw = (P: number) => (1 << 20) / simulate({ collective: 'bcast', algorithm: 'hw_multicast', machine: es40, procs: P, bytes: 1 << 20 }).first.time;
    const levels = [1, 2, 3];
    [4, 16, 64].forEach((P, i) => expect(Math.abs(bw(P) / streamRate(2 * levels[i]) - 1)).toBeLessThan(0.005));
    expect(bw(4)).toBeGreaterThan(bw(16));
    expect(bw(16)).toBeGreaterThan(bw(64));
    // Without the payload-dependent ack the round trip is shorter than two packets' data: no depth effect.
    const flat: MachineSpec = { ...es40, network: { ...es40.network, wormhole: { vcs: 2, ackTurnaround: 0.1 * us } } };
    const bwFlat = (P: number) => (1 << 18) / simulate({ collective: 'bcast', algorithm: 'hw_multicast', machine: flat, procs: P, bytes: 1 << 18 }).first.time;
    expect(Math.abs(bwFlat(64) / bwFlat(4) - 1)).toBeLessThan(0.01);
  });

  it('paces a unicast DMA stream the same way (R1: 2 links between neighbours)', () => {
    const elan: MachineSpec = { ...es40, classes: { ...es40.classes, network: { ...es40.classes.network, beta: 0 } } };
    const t = simulate({ collective: 'bcast', algorithm: 'binomial', machine: elan, procs: 2, bytes: 1 << 20 }).first.time;
    expect(Math.abs((1 << 20) / t / streamRate(2) - 1)).toBeLessThan(0.005);
  });

  it('runs background traffic on the whole machine when asked (wormhole only)', () => {
    const run = (nodes?: number) =>
      simulate({ collective: 'barrier', algorithm: 'hw_barrier', machine: es40, procs: 4, seed: 3, traffic: { pattern: 'complement', ...(nodes ? { nodes } : {}) } });
    const own = run();
    const all = run(64);
    expect(all.first.busy.trafficPackets).toBeGreaterThan(8 * own.first.busy.trafficPackets);
    expect(run(64).first.time).toBe(all.first.time);
    expect(() => run(65)).toThrow(/traffic.nodes/);
    expect(() => simulate({ collective: 'barrier', algorithm: 'hw_barrier', machine: es40, procs: 4, flowControl: 'message', traffic: { pattern: 'uniform', nodes: 64 } })).toThrow(/wormhole/);
  });
});
