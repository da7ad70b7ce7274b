/** Test helpers: a parameterised machine and hand-built schedules. */
import type { Machine } from '../../src/model/machine.js';
import type { RankSchedule, Step } from '../../src/schedule/types.js';

export function testMachine(o: Partial<Machine> = {}): Machine {
  const m: Machine = {
    name: 'test',
    description: 'test machine',
    source: 'test',
    sources: { '': 'test' },
    intra: { alpha: 1, beta: 0.01 },
    inter: { alpha: 10, beta: 0.1 },
    oSend: 0,
    oRecv: 0,
    gamma: 0,
    copyPerByte: 0,
    ...o,
  };
  return { ...m, sources: { intra: 'test', inter: 'test', oSend: 'test', oRecv: 'test', gamma: 'test', copyPerByte: 'test', startup: 'test', injection: 'test', combine: 'test', gammaBy: 'test', reduceTable: 'test', loggp: 'test', lrc: 'test', barrier: 'test', nbl: 'test' } };
}

/** A rank schedule from a list of steps (buffers sized generously). */
export function rankSchedule(rank: number, size: number, steps: Step[], elems = 1024): RankSchedule {
  return {
    collective: 'allreduce',
    algorithm: 'hand',
    rank,
    size,
    buffers: [
      { name: 'in', count: elems },
      { name: 'out', count: elems },
      { name: 'tmp', count: elems * 8 },
    ],
    steps,
    rounds: steps.reduce((m, s) => Math.max(m, s.round + 1), 0),
  };
}

export const send = (peer: number, count: number, round: number, deps: number[] = [], offset = 0): Step => ({
  kind: 'send',
  peer,
  region: { buf: 1, offset, count },
  deps,
  round,
});
export const recv = (peer: number, count: number, round: number, deps: number[] = [], offset = 0): Step => ({
  kind: 'recv',
  peer,
  region: { buf: 2, offset, count },
  deps,
  round,
});
export const reduce = (count: number, round: number, deps: number[] = [], operands = 2): Step => ({
  kind: 'reduce',
  inputs: Array.from({ length: operands }, (_, i) => ({ buf: i === 0 ? 1 : 2, offset: (i - 1) * count * (i > 0 ? 1 : 0), count })),
  dst: { buf: 1, offset: 0, count },
  deps,
  round,
});
