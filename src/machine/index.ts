/**
 * The machine description every command reads (`coll model`, `coll sim`, `coll tune`)
 * and `coll fit` writes: the zod schema, the conversions to the models' and the
 * simulator's forms, reading (also the older shapes) and writing, and `--machine`
 * resolution. See docs/machines.md.
 */
export * from './schema.js';
export * from './convert.js';
export * from './read.js';
export * from './resolve.js';
