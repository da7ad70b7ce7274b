/** The cluster simulator: machines, networks, perturbations, the engine and `simulate`. */
export * from './machine.js';
export * from './presets.js';
export * from './network.js';
export * from './noise.js';
export * from './placement.js';
export * from './stats.js';
export * from './simulate.js';
export { EXECUTIONS, type Execution } from './phases.js';
export { HW_ALGORITHMS } from './hardware.js';
export { PATH_PARTS, type PathPart } from './store.js';
export { Engine, type EngineConfig, type EngineResult, type TimelineRecord, type ExecutorCosts } from './engine.js';
export * from './machine-file.js';
export * from './timeline.js';
export { testjigSchedule } from './testjig.js';
export { Wormhole, type WormholeSpec } from './wormhole.js';
export { reproduceSim, simSeeds, SIM_SEEDS, type SimSeedId, type SimCheck, type SeedReproduction, type Basis } from './reproduce/index.js';
