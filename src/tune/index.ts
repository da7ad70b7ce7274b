/** Fitting, measurement, the tuner and decision tables (the runtime's automatic selection loads these). */
export * from './lsq.js';
export * from './fit.js';
export * from './measure.js';
export * from './fit-machine.js';
export * from './candidates.js';
export * from './tuner.js';
export * from './decision.js';
export * from './verify.js';
export * from './fit-report.js';
