/**
 * Quadrics Elan3 (QM-400) host-based and NIC-based reduction parameters of seed 000
 * (Moody 2003), fitted from serial-reduction runs on LANL "crescendo" (32 dual 1 GHz
 * P-III nodes): Table 4.2 (L, r, C) and Table 4.3 (c(op, n) for 1, 2, 4, 8 elements).
 *
 * Mapping onto the DAG evaluation (docs/cost-semantics.md): a message costs the
 * latency L (alpha), a receive costs r of CPU (oRecv), a 2-operand combine of n
 * elements costs c(op, n) (reduceTable), sends cost nothing extra (oSend = 0), and C
 * is paid once (startup). With these, the DAG evaluation of an f-nomial tree gives the
 * seed's refined formula C + L·⌈log_f P⌉ + (r+c)(f−1)⌊log_f P⌋ + (r+c)(⌈P/f^⌊log_f P⌋⌉−1).
 * r is constant up to a 64-byte packet (≤ 8 doubles), so beta = 0 here: the thesis has
 * no per-byte term; 1/(325 MB/s) (the MPI-level Elan3 link rate, seed 000 F2) would be
 * the natural value for longer vectors.
 */
import type { Machine } from '../machine.js';
import { us } from './units.js';

const T42 = 'seed 000 Table 4.2';
const T43 = 'seed 000 Table 4.3';
const COUNTS = [1, 2, 4, 8];

/** Table 4.3, µs, by operation, for 1/2/4/8 elements. */
export const ELAN3_C_HOST: Readonly<Record<string, readonly number[]>> = Object.freeze({
  'max/int32': [0.03, 0.03, 0.07, 0.13],
  'sum/int32': [0.02, 0.03, 0.06, 0.13],
  'max/float64': [0.04, 0.07, 0.14, 0.28],
  'sum/float64': [0.02, 0.06, 0.12, 0.16],
});
export const ELAN3_C_NIC: Readonly<Record<string, readonly number[]>> = Object.freeze({
  'max/int32': [0.27, 0.46, 0.84, 1.6],
  'sum/int32': [0.25, 0.44, 0.76, 1.44],
  'max/float64': [0.67, 1.27, 2.44, 4.8],
  'sum/float64': [1.5, 2.95, 5.8, 11.56],
});

/** Table 4.2, µs. */
export const ELAN3_LRC = Object.freeze({
  host: { L: 2.9, r: 0.42, C: 2.7 },
  nic: { L: 2.1, r: 0.42, C: 9.2 },
});

function rowsInSeconds(t: Readonly<Record<string, readonly number[]>>): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const [k, v] of Object.entries(t)) {
    out[k] = v.map(us);
    // min costs as much as max (assumed; Table 4.3 has no min row).
    if (k.startsWith('max/')) out[`min/${k.slice(4)}`] = v.map(us);
  }
  return out;
}

function elan3(kind: 'host' | 'nic'): Machine {
  const p = ELAN3_LRC[kind];
  const c = kind === 'host' ? ELAN3_C_HOST : ELAN3_C_NIC;
  const label = kind === 'host' ? 'host-based' : 'NIC-based';
  return {
    name: `elan3-${kind}`,
    description: `Quadrics Elan3 ${label} reduction (seed 000 model: L, r, c(op, n), C)`,
    source: `seed 000 (Moody 2003) §4, Tables 4.2(${kind === 'host' ? 'a' : 'b'}) and 4.3 (${label} columns)`,
    sources: {
      'intra.alpha': `${T42} L (no separate intra-node value; assumed equal)`,
      'inter.alpha': `${T42} L`,
      'intra.beta': 'assumed: 0, r covers messages up to one 64-byte packet (seed 000 §4)',
      'inter.beta': 'assumed: 0, r covers messages up to one 64-byte packet (seed 000 §4)',
      oSend: 'seed 000 model: a send costs only the latency L',
      oRecv: `${T42} r`,
      gamma: 'assumed: slope of c(sum/float64) between 4 and 8 elements, for operations Table 4.3 lacks',
      'gammaBy.noop': 'seed 000 §5: NOP c = 0.00 µs',
      reduceTable: `${T43}; min rows assumed equal to max`,
      copyPerByte: kind === 'host' ? 'assumed: 1 GB/s host memcpy (not in seed 000)' : 'assumed: 100 MB/s NIC copy, 32-bit 100 MHz Elan processor (not in seed 000)',
      startup: `${T42} C`,
      'lrc.L': `${T42} L`,
      'lrc.r': `${T42} r`,
      'lrc.C': `${T42} C`,
    },
    intra: { alpha: us(p.L), beta: 0 },
    inter: { alpha: us(p.L), beta: 0 },
    oSend: 0,
    oRecv: us(p.r),
    gamma: us((c['sum/float64'][3] - c['sum/float64'][2]) / 4),
    gammaBy: { noop: 0 },
    reduceTable: { counts: COUNTS, rows: rowsInSeconds(c) },
    copyPerByte: kind === 'host' ? 1e-9 : 1e-8,
    startup: us(p.C),
    lrc: { L: us(p.L), r: us(p.r), C: us(p.C) },
    ppn: 1,
  };
}

export const ELAN3_HOST: Machine = elan3('host');
export const ELAN3_NIC: Machine = elan3('nic');
