export * from './types.js';
export * from './context.js';
export * from './topology.js';
export * from './partition.js';
export * from './builder.js';
export * from './validate.js';
export * from './stats.js';
export * from './render.js';
