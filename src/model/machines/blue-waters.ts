/**
 * A Blue Waters-like (Cray XE6, Gemini) parameter set for seed 001's models.
 *
 * EVERY VALUE HERE IS ASSUMED. Seed 001 (Bienz, Olson, Gropp) gives no numbers: its
 * α, β, α_ℓ, β_ℓ, γ, R_N, R_b were "measured through ping-pong tests" and STREAM on
 * Blue Waters (refs [11], [12]; Fig. 5 splits intra-socket, intra-node and network
 * costs and the network by ppn). Real values would come from those ping-pong
 * fits (github bienz2/BlueWatersModel holds the raw ping-pong output and the
 * least-squares script, per protocol: short < 500 B, eager < 8000 B, rendezvous),
 * or from running `coll fit` on the machine. The values below are order-of-magnitude
 * guesses for a 2013 Cray XE6 node (16 ppn, Gemini NIC) and serve only qualitative
 * checks: orderings of RD, SMP and NAP, not the measured 2048-byte crossover.
 */
import type { Machine } from '../machine.js';
import { GBps, ns, us } from './units.js';

const A = 'assumed (seed 001 gives no values; real ones: Blue Waters ping-pong fits of refs [11,12] / bienz2/BlueWatersModel, or coll fit)';

export const BLUE_WATERS: Machine = {
  name: 'bluewaters',
  description: 'Blue Waters-like Cray XE6 node, 16 ppn (seed 001 models); all values ASSUMED',
  source: 'assumed; seed 001 §IV defines the models but prints no parameter values',
  sources: {
    'intra.alpha': `${A}: 0.5 µs shared-memory message`,
    'intra.beta': `${A}: 4 GB/s intra-node copy bandwidth`,
    'inter.alpha': `${A}: 2 µs Gemini MPI latency`,
    'inter.beta': `${A}: 1/R_b`,
    oSend: `${A}: 0, inside α`,
    oRecv: `${A}: 0, inside α`,
    gamma: `${A}: 1 ns per double combination (memory bound)`,
    copyPerByte: `${A}: 5 GB/s memcpy`,
    'injection.RN': `${A}: 6 GB/s node injection (Gemini)`,
    'injection.Rb': `${A}: 2.5 GB/s one process`,
  },
  intra: { alpha: us(0.5), beta: 1 / GBps(4) },
  inter: { alpha: us(2), beta: 1 / GBps(2.5) },
  oSend: 0,
  oRecv: 0,
  gamma: ns(1),
  copyPerByte: 1 / GBps(5),
  injection: { RN: GBps(6), Rb: GBps(2.5) },
  ppn: 16,
};
