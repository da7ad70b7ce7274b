/**
 * What the test's rank programs (test/*\/programs) use of the library: the rank side of
 * src/index.ts (datatypes, operators, errors, the schedule types, the catalogue, init and
 * the communicator), without the launcher, file I/O, models, simulator, tuner and plots
 * that the index also loads. Every rank thread imports its program through tsx, a few
 * milliseconds per module; the index is 239 modules and this is 166, which saves about
 * 0.25 s of CPU per rank thread (an 8-rank job starts 1 s sooner on 2 cores), and the
 * test jobs start hundreds of rank threads. The programs users write, and the examples
 * and experiment programs the tests run, still import the package's index.
 */
export * from '../../src/core/index.js';
export * from '../../src/schedule/index.js';
export { listAlgorithms, getAlgorithm, generateSchedule, generateRankSchedule, checkRestrictions, isCollective } from '../../src/algorithms/registry.js';
export { algorithmId } from '../../src/algorithms/types.js';
export { init, type InitOptions } from '../../src/runtime/init.js';
export {
  Communicator,
  ANY_SOURCE,
  ANY_TAG,
  EXECUTION_MODES,
  type CallOptions,
  type CollectiveOptions,
  type ExecutionMode,
  type ReductionOptions,
  type SplitOptions,
  type Status,
} from '../../src/runtime/communicator.js';
export { Request, waitAll } from '../../src/runtime/request.js';
