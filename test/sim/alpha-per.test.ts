/**
 * `network.alphaPer` (seed 004): where a message's overhead α = oSend + oRecv is
 * charged. Hand-computed on a 3×1 NBL mesh with α = 20 µs (10 + 10), β = 1 µs per
 * double on every link and channel, no hop latency, S = 100 doubles: own = S·β = 100 µs:
 * - 'message-end' (default): 10 µs on the sender's CPU, 10 µs on the receiver's, so
 *   a node with L active links pays L·α/2;
 * - 'link-step' (the seed's T(L) = L·α + f(L)·β·S): each end spends the whole α in its
 *   node's channel, the receiving end's alongside the sending end's.
 * A lone message costs α + own under both.
 */
import { describe, expect, it } from 'vitest';
import { fenceTime, snakeTime, treeTime } from '../../src/model/closed/littlefield.js';
import { DELTA } from '../../src/model/machines/index.js';
import { littlefieldParams } from '../../src/model/regime.js';
import { getPreset } from '../../src/sim/presets.js';
import { fromSimMachine, toSimMachine } from '../../src/machine/convert.js';
import { parseMachineDescription } from '../../src/machine/schema.js';
import type { MachineSpec } from '../../src/sim/machine.js';
import { validateMachine } from '../../src/sim/machine.js';
import { simulate } from '../../src/sim/simulate.js';
import type { RankSchedule, Step } from '../../src/schedule/types.js';

const us = 1e-6;
const S = 800; // bytes: 100 doubles
const OWN = 100 * us; // 1 µs per double
const ALPHA = 20 * us;

function line(alphaPer: 'message-end' | 'link-step' | undefined, f: 'nominal' | 'standard' = 'nominal'): MachineSpec {
  return {
    name: 'test-nbl-line',
    description: '3×1 NBL mesh',
    nodes: 3,
    coresPerNode: 1,
    network: {
      topology: 'mesh2d',
      width: 3,
      height: 1,
      linkBandwidth: 8e6,
      injectionBandwidth: 8e6,
      hopLatency: 0,
      nodeChannelShared: true,
      nodeChannelF: f,
      ...(alphaPer ? { alphaPer } : {}),
    },
    classes: { node: { alpha: 0, beta: 0 }, network: { alpha: 0, beta: us / 8 } },
    host: { oSend: 10 * us, oRecv: 10 * us, gamma: { default: 0 }, copyPerByte: 0 },
    sources: { '*': 'test' },
  };
}

/** Messages (from → to) all posted at t = 0, S bytes each. */
function pattern(msgs: readonly (readonly [number, number])[]): (rank: number) => RankSchedule {
  return (rank) => {
    const steps: Step[] = [];
    let k = 0;
    for (const [a, b] of msgs) {
      if (a === rank) steps.push({ kind: 'send', peer: b, region: { buf: 0, offset: 0, count: S / 8 }, deps: [], round: 0 });
      if (b === rank) steps.push({ kind: 'recv', peer: a, region: { buf: 1, offset: (k++ * S) / 8, count: S / 8 }, deps: [], round: 0 });
    }
    return { collective: 'allgather', algorithm: 'pattern', rank, size: 3, buffers: [{ name: 'in', count: S / 8 }, { name: 'out', count: (3 * S) / 8 }], steps, rounds: 1 };
  };
}

const run = (m: MachineSpec, msgs: readonly (readonly [number, number])[]): number =>
  simulate({ collective: 'allgather', algorithm: 'pattern', schedule: pattern(msgs), machine: m, procs: 3, mesh: { width: 3, height: 1 }, bytes: S }).first.time;

describe("network.alphaPer: α per message end (default) vs per link and step (seed 004)", () => {
  it('a lone message costs α + S·β under both', () => {
    for (const a of [undefined, 'message-end', 'link-step'] as const) expect(run(line(a), [[0, 1]])).toBeCloseTo(ALPHA + OWN, 12);
  });

  it('a node sending to two neighbours at once (L = 2): 2·α/2 + 2·own by default, 2α + f(2)·own per link and step', () => {
    const out = [[1, 0], [1, 2]] as const;
    // Default: sends leave the CPU at 10 and 20 µs; nominal channel serialises them
    // (10 + 2·own); the last receiver adds its 10 µs.
    expect(run(line(undefined), out)).toBeCloseTo(20 * us + 2 * OWN, 12);
    expect(run(line('message-end'), out)).toBeCloseTo(20 * us + 2 * OWN, 12);
    // Link-step: the seed's T(2) = 2α + f(2)·β·S, nominal f(2) = 2 and standard f(2) = 1.
    expect(run(line('link-step'), out)).toBeCloseTo(2 * ALPHA + 2 * OWN, 12);
    expect(run(line('link-step', 'standard'), out)).toBeCloseTo(2 * ALPHA + OWN, 12);
  });

  it('a node receiving from two neighbours at once (L = 2): the receiving ends pay α each in the channel', () => {
    const inn = [[0, 1], [2, 1]] as const;
    expect(run(line('message-end'), inn)).toBeCloseTo(20 * us + 2 * OWN, 12);
    expect(run(line('link-step'), inn)).toBeCloseTo(2 * ALPHA + 2 * OWN, 12);
  });

  it('the middle node exchanging with both neighbours (L = 4): T(4) = 4α + 4·own per link and step, α + 4·own by default', () => {
    const ex = [[1, 0], [1, 2], [0, 1], [2, 1]] as const;
    // Link-step: the middle channel carries 4 messages, each with its α: the seed's T(4).
    expect(run(line('link-step'), ex)).toBeCloseTo(4 * ALPHA + 4 * OWN, 12);
    // Default: the channel serialises the 4 transfers from the first send (10 µs) on and
    // the last receive adds its 10 µs; the other CPU overheads hide under the transfers.
    expect(run(line('message-end'), ex)).toBeCloseTo(ALPHA + 4 * OWN, 12);
  });

  it('checks the option: needs a shared node channel, link contention and host mode', () => {
    const m = line('link-step');
    expect(() => validateMachine({ ...m, network: { ...m.network, nodeChannelShared: false, nodeChannelF: undefined } })).toThrow(/alphaPer 'link-step'.*nodeChannelShared/);
    expect(() => validateMachine({ ...m, network: { ...m.network, alphaPer: 'per-hop' as 'link-step' } })).toThrow(/alphaPer must be/);
    // A machine description carries it as nbl.alphaPer.
    const d = parseMachineDescription(JSON.parse(JSON.stringify(fromSimMachine(m))));
    expect(d.nbl).toEqual({ f: 'nominal', alphaPer: 'link-step' });
    expect(toSimMachine(d).network.alphaPer).toBe('link-step');
    expect(() => simulate({ collective: 'allgather', algorithm: 'p', schedule: pattern([[0, 1]]), machine: m, procs: 3, mesh: { width: 3, height: 1 }, bytes: S, contention: false })).toThrow(
      /no-contention/,
    );
  });
});

describe("seed 004's semantics on the DELTA: α per link and step with loosely synchronous steps", () => {
  it('Tree, Snake and Fence on a 4×4 mesh reproduce the closed form (nominal f); the defaults run faster', () => {
    const delta = getPreset('delta');
    const N = 10_000;
    const p = littlefieldParams(DELTA, 'nominal');
    const run = (alphaPer: 'message-end' | 'link-step', execution: 'dag' | 'phased', algorithm: string, block?: number) =>
      simulate({
        collective: 'allreduce',
        algorithm,
        machine: { ...delta, network: { ...delta.network, alphaPer } },
        procs: 16,
        mesh: { width: 4, height: 4 },
        bytes: 8 * N,
        params: block ? { block } : {},
        execution,
      }).first.time;
    expect(run('link-step', 'phased', 'mesh_tree') / treeTime(p, 4, 4, N)).toBeCloseTo(1, 3);
    expect(Math.abs(run('link-step', 'phased', 'snake', 164) / snakeTime(p, 16, N, 164) - 1)).toBeLessThan(0.005);
    // (+(c3 − c2)·S where the first block turns the corner: see src/model/closed/littlefield.ts)
    expect(Math.abs(run('link-step', 'phased', 'fence', 345) / fenceTime(p, 4, 4, N, 345) - 1)).toBeLessThan(0.02);
    expect(run('message-end', 'dag', 'snake', 164)).toBeLessThan(0.85 * snakeTime(p, 16, N, 164));
  });
});
