/** Test fixtures for the simulator: small machines with round-number parameters. */
import type { MachineSpec } from '../../src/sim/machine.js';

export interface TestParams {
  alphaInter: number;
  betaInter: number;
  alphaIntra?: number;
  betaIntra?: number;
  oSend?: number;
  oRecv?: number;
  gamma?: number;
  copyPerByte?: number;
  nodes?: number;
  cores?: number;
}

/** A crossbar machine with zero hop latency: contention-free runs are pure DAG evaluations. */
export function crossbarMachine(p: TestParams): MachineSpec {
  return {
    name: 'test-crossbar',
    description: 'test machine',
    nodes: p.nodes ?? 4096,
    coresPerNode: p.cores ?? 16,
    network: { topology: 'crossbar', linkBandwidth: 1e12, hopLatency: 0 },
    classes: {
      node: { alpha: p.alphaIntra ?? p.alphaInter, beta: p.betaIntra ?? p.betaInter },
      network: { alpha: p.alphaInter, beta: p.betaInter },
    },
    host: { oSend: p.oSend ?? 0, oRecv: p.oRecv ?? 0, gamma: { default: p.gamma ?? 0 }, copyPerByte: p.copyPerByte ?? 0 },
    sources: { '*': 'test' },
  };
}
