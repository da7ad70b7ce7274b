/**
 * `coll reproduce sim|000…004|all`: the seeds' quantitative claims checked by
 * simulation, one module per seed. `quick` cuts the repeated runs (for tests and
 * fast looks); the default keeps `coll reproduce all` to about two minutes.
 */
import { ArgumentError } from '../../core/errors.js';
import type { SeedReproduction } from './check.js';
import { seed000 } from './seed000.js';
import { seed001 } from './seed001.js';
import { seed002 } from './seed002.js';
import { seed003 } from './seed003.js';
import { seed004 } from './seed004.js';

export type { Basis, SeedReproduction, SimCheck, SimPlot } from './check.js';

export const SIM_SEEDS = ['000', '001', '002', '003', '004'] as const;
export type SimSeedId = (typeof SIM_SEEDS)[number];

export interface SimReproduceOptions {
  /** Fewer runs everywhere (about 10× faster; distributions get coarse). */
  readonly quick?: boolean;
  /** Build the SVG plots (default true). */
  readonly plots?: boolean;
  /** Called before each seed starts. */
  readonly onSeed?: (seed: SimSeedId) => void;
}

type SeedFn = (o: SimReproduceOptions) => SeedReproduction;

const SEEDS: Partial<Record<SimSeedId, SeedFn>> = {
  '000': (o) => seed000({ runs: o.quick ? 60 : 400, curveRuns: o.quick ? 10 : 60, plots: o.plots }),
  '001': (o) => seed001({ plots: o.plots, ...(o.quick ? { procs: 4096, sizes: [8, 1024, 4096] } : {}) }),
  '002': (o) => seed002({ runs: o.quick ? 3 : 10, loadedBytes: o.quick ? 1 << 16 : 1 << 20, plots: o.plots }),
  '003': (o) => seed003({ plots: o.plots }),
  '004': (o) => seed004({ plots: o.plots, ...(o.quick ? { meshes: [[4, 4], [8, 8]], lengths: [1e2, 1e3, 1e4] } : {}) }),
};

/** Seeds with simulator checks. */
export function simSeeds(): SimSeedId[] {
  return SIM_SEEDS.filter((s) => SEEDS[s] !== undefined);
}

/** Run the seeds' simulator checks; each result carries its wall time in seconds. */
export function reproduceSim(seeds: readonly SimSeedId[], o: SimReproduceOptions = {}): (SeedReproduction & { readonly seconds: number })[] {
  const out: (SeedReproduction & { readonly seconds: number })[] = [];
  for (const s of seeds) {
    const fn = SEEDS[s];
    if (!fn) throw new ArgumentError(`no simulator checks for seed ${s}`, `seeds with simulator checks: ${simSeeds().join(', ')}`);
    o.onSeed?.(s);
    const t0 = performance.now();
    const r = fn(o);
    out.push({ ...r, seconds: (performance.now() - t0) / 1000 });
  }
  return out;
}
