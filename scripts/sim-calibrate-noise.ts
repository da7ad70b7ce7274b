/**
 * Noise calibration against seed 000 Table 5.1 (`npx tsx scripts/sim-calibrate-noise.ts`):
 * 900 ALC nodes × 2 processes, 1-element float64 sum, 4-nomial reduce, host-based vs
 * NIC-based (offload), statistics after dropping the top 1% of samples.
 * Published: host mean 89.30 µs, σ 65.26 µs; NIC mean 73.67 µs, σ 0.29 µs.
 * Sweeps random-detour parameters (absorbed by idle cores) and prints the fit:
 *   npx tsx scripts/sim-calibrate-noise.ts [runs] [intervals s,…] [durations s,…] [exponential|pareto|fixed]
 */
import { getPreset, simulate, type NoiseSpec, type SimMode } from '../src/sim/index.js';

const us = 1e-6;
const runs = Number(process.argv[2] ?? 300);
const alc = getPreset('alc');

function run(mode: SimMode, noise?: NoiseSpec) {
  return simulate({
    collective: 'reduce', algorithm: 'fnomial', params: { f: 4 }, machine: alc, procs: 1800, ppn: 2,
    bytes: 8, datatype: 'float64', op: 'sum', mode, noise, runs: noise ? runs : 1, seed: 2003,
  }).distribution;
}

const base = { host: run('host').mean, nic: run('offload').mean };
console.log(`no noise: host ${(base.host / us).toFixed(2)} µs, NIC ${(base.nic / us).toFixed(2)} µs (published means 89.30 / 73.67)`);
for (const interval of (process.argv[3] ?? '20e-3,50e-3,100e-3').split(',').map(Number)) {
  for (const duration of (process.argv[4] ?? '50e-6,100e-6,200e-6').split(',').map(Number)) {
    const distribution = (process.argv[5] ?? 'exponential') as 'exponential' | 'pareto' | 'fixed';
    const noise: NoiseSpec = { components: [{ kind: 'random', meanInterval: interval, duration, distribution }], absorbedByIdleCores: true };
    const h = run('host', noise);
    const n = run('offload', noise);
    console.log(
      `random ${(interval * 1e3).toFixed(1)} ms / ${(duration / us).toFixed(0)} µs ${distribution}: host ${(h.trimmedMean / us).toFixed(1)} ± ${(h.trimmedStd / us).toFixed(1)}, ` +
        `NIC ${(n.trimmedMean / us).toFixed(1)} ± ${(n.trimmedStd / us).toFixed(2)} µs`,
    );
  }
}
