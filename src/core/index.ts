export * from './errors.js';
export * from './datatypes.js';
export * from './ops.js';
export * from './random.js';
