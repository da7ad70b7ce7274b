/**
 * Intel Touchstone DELTA (seed 004, Littlefield 1992, §7.2): α = 54 µs,
 * β = 1.54 µs per double (5.2 MB/s; the link speed was halved during the test period,
 * "not ... system performance in production mode"), c2 = 0.25 µs and c3 = 0.37 µs per
 * element for 2- and 3-vector combines. The NBL f(L) defaults to the nominal model
 * f(L) = L, which the seed recommends for evaluating unimplemented algorithms; pick
 * another preset with the model name (nbl:standard, nbl:fitted, nbl:testjig).
 * The DELTA is a 2-D mesh with one process per node: intra-node values are unused
 * and set equal to the network ones.
 */
import type { Machine } from '../machine.js';
import { us } from './units.js';

const S72 = 'seed 004 §7.2';

/** DELTA parameters in the seed's units (µs, µs/double). */
export const DELTA_PARAMS = Object.freeze({ alpha: 54, betaPerDouble: 1.54, c2: 0.25, c3: 0.37 });

export const DELTA: Machine = {
  name: 'delta',
  description: 'Intel Touchstone DELTA 2-D mesh (seed 004 NBL study), nominal NBL f(L) = L',
  source: 'seed 004 (Littlefield 1992) §7.2 and §4 (f presets)',
  sources: {
    'intra.alpha': `${S72} α (one rank per node; no intra-node value)`,
    'inter.alpha': `${S72} α = 54 µs`,
    'intra.beta': `${S72} β = 1.54 µs/double`,
    'inter.beta': `${S72} β = 1.54 µs/double (= 0.1925 µs/B)`,
    oSend: 'seed 004: overheads are inside α',
    oRecv: 'seed 004: overheads are inside α',
    gamma: `${S72} c2 = 0.25 µs per element combination`,
    'combine.2': `${S72} c2 = 0.25 µs/element`,
    'combine.3': `${S72} c3 = 0.37 µs/element`,
    copyPerByte: 'assumed: 0.25 µs per double (a copy costs about a 2-way combine)',
  },
  intra: { alpha: us(DELTA_PARAMS.alpha), beta: us(DELTA_PARAMS.betaPerDouble) / 8 },
  inter: { alpha: us(DELTA_PARAMS.alpha), beta: us(DELTA_PARAMS.betaPerDouble) / 8 },
  oSend: 0,
  oRecv: 0,
  gamma: us(DELTA_PARAMS.c2),
  combine: { 2: us(DELTA_PARAMS.c2), 3: us(DELTA_PARAMS.c3) },
  copyPerByte: us(DELTA_PARAMS.c2) / 8,
  nbl: { f: 'nominal' },
  ppn: 1,
};
