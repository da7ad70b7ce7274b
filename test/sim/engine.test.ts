/**
 * Engine behaviour beyond the DAG contract: determinism, deadlock reports, bad
 * input rejected before simulating, lazy schedules, skew.
 */
import { describe, expect, it } from 'vitest';
import { ArgumentError, DeadlockError, RestrictionError, ScheduleError } from '../../src/core/errors.js';
import type { RankSchedule, Step } from '../../src/schedule/types.js';
import { Engine, type EngineConfig } from '../../src/sim/engine.js';
import { machineFromJson } from '../../src/sim/machine-file.js';
import { getPreset } from '../../src/sim/presets.js';
import { simulate, type SimOptions } from '../../src/sim/simulate.js';
import { crossbarMachine } from './fixtures.js';

const us = 1e-6;

function rankSchedule(rank: number, size: number, steps: Step[]): RankSchedule {
  return { collective: 'barrier', algorithm: 'custom', rank, size, buffers: [{ name: 'in', count: 1 }, { name: 'out', count: 1 }], steps, rounds: 1 };
}

function engine(P: number, source: (r: number) => RankSchedule, extra: Partial<EngineConfig> = {}): Engine {
  const cfg: EngineConfig = {
    P,
    rankNode: Int32Array.from({ length: P }, (_, i) => i),
    rankSocket: new Int32Array(P),
    nodes: P,
    alpha: new Float64Array([1 * us, 1 * us, 1 * us]),
    beta: new Float64Array(3),
    gap: new Float64Array(3),
    host: { oSend: 0, oRecv: 0, gamma: 0, copyPerByte: 0 },
    nic: { oSend: 0, oRecv: 0, gamma: 0, copyPerByte: 0 },
    callOverhead: 0,
    nicStartup: 0,
    nicCompletion: 0,
    busCrossing: 0,
    mode: 'host',
    elementSize: 8,
    source,
    seed: 1,
    ...extra,
  };
  return new Engine(cfg);
}

const region = { buf: 0, offset: 0, count: 1 };

describe('deadlocks and mismatched messages', () => {
  it('two ranks that both receive first: DeadlockError naming both stuck receives', () => {
    const e = engine(2, (r) =>
      rankSchedule(r, 2, [
        { kind: 'recv', peer: 1 - r, region, deps: [], round: 0 },
        { kind: 'send', peer: 1 - r, region, deps: [0], round: 0 },
      ]),
    );
    let err: unknown;
    try {
      e.run();
    } catch (x) {
      err = x;
    }
    expect(err).toBeInstanceOf(DeadlockError);
    const d = err as DeadlockError;
    expect(d.stuck.map((s) => [s.rank, s.step])).toEqual([
      [0, 0],
      [1, 0],
    ]);
    expect(d.stuck[0].description).toMatch(/recv 8 B <- 1: the message is never sent/);
  });

  it('a message without a matching receive is a ScheduleError, not a hang', () => {
    const e = engine(2, (r) => rankSchedule(r, 2, r === 0 ? [{ kind: 'send', peer: 1, region, deps: [], round: 0 }] : []));
    expect(() => e.run()).toThrow(ScheduleError);
  });

  it('a receive that expects a different size is reported', () => {
    const e = engine(2, (r) =>
      rankSchedule(r, 2, r === 0 ? [{ kind: 'send', peer: 1, region, deps: [], round: 0 }] : [{ kind: 'recv', peer: 0, region: { ...region, count: 2 }, deps: [], round: 0 }]),
    );
    expect(() => e.run()).toThrow(/expects 16 B/);
  });
});

describe('determinism', () => {
  const base: SimOptions = {
    collective: 'allreduce',
    algorithm: 'recursive_doubling',
    machine: getPreset('es40'),
    procs: 64,
    bytes: 64,
    noise: { components: [{ kind: 'random', meanInterval: 200 * us, duration: 20 * us, distribution: 'exponential' }, { kind: 'periodic', period: 1e-3, duration: 10 * us }] },
    skew: { kind: 'uniform', value: 5 * us },
    traffic: { pattern: 'uniform' },
    runs: 3,
  };
  it('the same seed gives identical results; another seed does not', () => {
    const a = simulate({ ...base, seed: 7 });
    const b = simulate({ ...base, seed: 7 });
    const c = simulate({ ...base, seed: 8 });
    expect(b.distribution).toEqual(a.distribution);
    expect(b.first).toEqual(a.first);
    expect(c.distribution.mean).not.toBe(a.distribution.mean);
  });
});

describe('bad input is rejected before simulating', () => {
  it('a machine file with missing and impossible values lists every problem', () => {
    const text = JSON.stringify({
      name: 'broken',
      nodes: 16,
      coresPerNode: 0,
      network: { topology: 'fattree', arity: 4, levels: 1, linkBandwidth: '-3MB/s', hopLatency: '35ns' },
      classes: { network: { alpha: '2us', beta: 1e-9 } },
      host: { oSend: 0, oRecv: 0, gamma: { default: 0 }, copyPerByte: 0 },
    });
    let msg = '';
    try {
      machineFromJson(text, 'broken.json');
    } catch (e) {
      expect(e).toBeInstanceOf(ArgumentError);
      msg = (e as Error).message;
    }
    expect(msg).toMatch(/coresPerNode must be > 0/);
    expect(msg).toMatch(/network.linkBandwidth must be > 0/);
    expect(msg).toMatch(/a 4-ary 1-tree has 4 node ports, fewer than nodes = 16/);
    expect(msg).toMatch(/classes.node is missing/);
  });

  it('a machine file converts units and can extend a preset', () => {
    const m = machineFromJson(JSON.stringify({ base: 'crescendo', name: 'crescendo-fast', network: { linkBandwidth: '800MB/s' }, classes: { network: { alpha: '1.5us' } } }));
    expect(m.network.linkBandwidth).toBe(800e6);
    expect(m.classes.network.alpha).toBeCloseTo(1.5e-6, 15);
    expect(m.classes.network.beta).toBe(getPreset('crescendo').classes.network.beta);
    expect(m.network.arity).toBe(4);
  });

  it('a topology that cannot host P processes', () => {
    expect(() => simulate({ collective: 'barrier', algorithm: 'dissemination', machine: getPreset('crescendo'), procs: 65, ppn: 2 })).toThrow(
      /cannot host 65 processes at 2 per node: that needs 33 nodes, it has 32/,
    );
    expect(() => simulate({ collective: 'barrier', algorithm: 'dissemination', machine: getPreset('crescendo'), procs: 8, ppn: 3 })).toThrow(/exceeds the 2 cores per node/);
  });

  it('estimated memory too large', () => {
    expect(() =>
      simulate({ collective: 'allreduce', algorithm: 'recursive_doubling', machine: getPreset('loggopsim'), procs: 1 << 20, bytes: 8, maxMemory: 1 << 20 }),
    ).toThrow(/estimated memory .* exceeds the limit/);
  });

  it('algorithm restrictions, unknown algorithms, modes without NIC costs', () => {
    const m = crossbarMachine({ alphaInter: 1e-6, betaInter: 0 });
    expect(() => simulate({ collective: 'allreduce', algorithm: 'mesh_tree', machine: m, procs: 6 })).toThrow(RestrictionError);
    expect(() => simulate({ collective: 'allreduce', algorithm: 'nope', machine: m, procs: 4 })).toThrow(/unknown algorithm 'nope'/);
    expect(() => simulate({ collective: 'allreduce', algorithm: 'recursive_doubling', machine: m, procs: 4, mode: 'offload' })).toThrow(/no 'nic' section/);
    expect(() => simulate({ collective: 'barrier', algorithm: 'hw_barrier', machine: m, procs: 4 })).toThrow(/fat-tree machine/);
  });
});

describe('schedules are generated lazily and released', () => {
  it('a chain broadcast with skewed starts never holds every rank at once', () => {
    let generated = 0;
    const P = 256;
    const e = engine(
      P,
      (r) => {
        generated++;
        const steps: Step[] = r === 0 ? [] : [{ kind: 'recv', peer: r - 1, region, deps: [], round: 0 }];
        if (r + 1 < P) steps.push({ kind: 'send', peer: r + 1, region, deps: steps.length ? [0] : [], round: 0 });
        return rankSchedule(r, P, steps);
      },
      // Rank r starts at r·10 µs: early ranks finish before late ones start.
      { skew: Float64Array.from({ length: P }, (_, r) => r * 10 * us) },
    );
    const res = e.run();
    expect(generated).toBe(P);
    expect(res.peakLiveRanks).toBeLessThanOrEqual(2);
    // The chain waits for each start: rank P−1 starts at (P−1)·10 µs and receives at once.
    expect(res.time / us).toBeCloseTo((P - 1) * 10, 6);
  });
});
