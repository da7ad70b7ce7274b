/**
 * Wormhole flow control (seed 002): an isolated message arrives when the
 * message-level model says; circuits are held until the ack; background traffic at
 * full load hurts more when uniform than when complement; runs are deterministic.
 */
import { describe, expect, it } from 'vitest';
import type { MachineSpec } from '../../src/sim/machine.js';
import { getPreset } from '../../src/sim/presets.js';
import { simulate, type SimOptions } from '../../src/sim/simulate.js';
import type { RankSchedule, Step } from '../../src/schedule/types.js';

const us = 1e-6;
const es40 = getPreset('es40');

/** Point-to-point messages (src, dst, elements of 1 byte) posted at once, as a custom schedule over P ranks. */
function p2p(P: number, msgs: readonly (readonly [number, number, number])[]): (rank: number) => RankSchedule {
  return (rank) => {
    const steps: Step[] = [];
    let offIn = 0;
    let offOut = 0;
    for (const [a, b, n] of msgs) {
      if (a === rank) {
        steps.push({ kind: 'send', peer: b, region: { buf: 0, offset: offIn, count: n }, deps: [], round: 0 });
        offIn += n;
      }
      if (b === rank) {
        steps.push({ kind: 'recv', peer: a, region: { buf: 1, offset: offOut, count: n }, deps: [], round: 0 });
        offOut += n;
      }
    }
    return { collective: 'allgather', algorithm: 'p2p', rank, size: P, buffers: [{ name: 'in', count: offIn }, { name: 'out', count: offOut }], steps, rounds: 1 };
  };
}

const ping = (machine: MachineSpec, flow: 'message' | 'wormhole', a: number, b: number, bytes: number, extra: Partial<SimOptions> = {}): number =>
  simulate({ collective: 'allgather', algorithm: 'p2p', schedule: p2p(64, [[a, b, bytes]]), machine, procs: 64, datatype: 'uint8', bytes: 1, flowControl: flow, ...extra }).first.time;

describe('wormhole flow control', () => {
  it('a single message on an idle network arrives exactly as in the message-level model (any size, any distance)', () => {
    for (const [a, b] of [[0, 1], [0, 5], [0, 63], [17, 42]]) {
      for (const bytes of [0, 8, 320, 321, 4096, 65536]) {
        expect(ping(es40, 'wormhole', a, b, bytes)).toBeCloseTo(ping(es40, 'message', a, b, bytes), 15);
      }
    }
    // And so does a collective without self-contention (2 ranks).
    const bc = (flow: 'message' | 'wormhole') => simulate({ collective: 'bcast', algorithm: 'binomial', machine: es40, procs: 2, bytes: 1 << 16, flowControl: flow }).first.time;
    expect(bc('wormhole')).toBeCloseTo(bc('message'), 15);
  });

  it('holds a circuit until the ack: with one VC a second packet to the same node waits for the first to be released', () => {
    // No receive overhead, so the receiver's CPU does not hide the wait.
    const quick: MachineSpec = { ...es40, host: { ...es40.host, oSend: 0, oRecv: 0 } };
    const one: MachineSpec = { ...quick, network: { ...es40.network, wormhole: { vcs: 1, ackTurnaround: 0.1 * us } } };
    const two = (m: MachineSpec) =>
      simulate({ collective: 'allgather', algorithm: 'p2p', schedule: p2p(64, [[0, 63, 8], [1, 63, 8]]), machine: m, procs: 64, datatype: 'uint8', bytes: 1 }).first.time;
    // Two VCs: both circuits open at once (the receiver's CPU still takes them one by one).
    const both = two(quick);
    expect(Math.abs(both - two({ ...quick, network: { ...es40.network, flowControl: 'message' } })) / us).toBeLessThan(0.05);
    // One VC: the second header waits for the first packet's tail + ack turnaround + ack and EOP across the path.
    const wait = two(one) - both;
    const tail = 8 / 200e6;
    expect(wait / us).toBeGreaterThan((tail + 0.1 * us + 6 * 35e-9) / us);
    expect(wait / us).toBeLessThan((tail + 0.1 * us + 14 * 35e-9) / us);
  });

  it('complement background traffic hurts less than uniform (R12): hardware barrier, software barrier, hardware multicast', () => {
    const mean = (o: Partial<SimOptions>, pattern?: 'uniform' | 'complement') =>
      simulate({ collective: 'barrier', algorithm: 'hw_barrier', machine: es40, procs: 64, runs: 3, seed: 7, ...o, ...(pattern ? { traffic: { pattern } } : {}) } as SimOptions).distribution.mean;
    for (const [o, hardware] of [
      [{}, true],
      [{ algorithm: 'kary_tree', params: { k: 4 }, mode: 'offload' as const }, false],
      [{ collective: 'bcast' as const, algorithm: 'hw_multicast', bytes: 16384, runs: 1 }, true],
    ] as [Partial<SimOptions>, boolean][]) {
      const quiet = mean(o);
      const comp = mean(o, 'complement');
      const uni = mean(o, 'uniform');
      expect(uni).toBeGreaterThan(comp);
      expect(uni).toBeGreaterThan(quiet);
      // (The software tree can even gain from complement traffic: staggered arrivals let
      // a parent's NIC receive early children while it waits for the last one.)
      if (hardware) expect(comp).toBeGreaterThanOrEqual(quiet * 0.999);
    }
  });

  it('is deterministic for a seed; bad requests are refused before simulating', () => {
    const o: SimOptions = { collective: 'barrier', algorithm: 'hw_barrier', machine: es40, procs: 64, traffic: { pattern: 'uniform' }, runs: 2, seed: 3 };
    expect(simulate(o).distribution.mean).toBe(simulate(o).distribution.mean);
    const crescendo = getPreset('crescendo');
    expect(() => simulate({ collective: 'barrier', algorithm: 'dissemination', machine: crescendo, procs: 8, flowControl: 'wormhole' })).toThrow(/network.wormhole parameters/);
    expect(() => simulate({ collective: 'barrier', algorithm: 'dissemination', machine: es40, procs: 8, flowControl: 'wormhole', contention: false })).toThrow(/needs link contention/);
  });
});
