/**
 * collectives: MPI-style collective communication for TypeScript on Node.js.
 *
 * This entry point exports the foundation: datatypes and reduction operators, the
 * schedule IR (builder, validator, statistics, rendering), the algorithm catalogue,
 * and the reference executor.
 */
export * from './core/index.js';
export * from './schedule/index.js';
export { listAlgorithms, getAlgorithm, generateSchedule, generateRankSchedule, checkRestrictions, isCollective } from './algorithms/registry.js';
export type { AlgorithmSpec, ParamSpec, Restriction, CostFormula, CostInputs } from './algorithms/types.js';
export { algorithmId } from './algorithms/types.js';
export { executeSchedule, type ExecuteOptions, type ExecuteResult } from './reference/executor.js';
export { referenceOutputs, type ReferenceInput } from './reference/sequential.js';
