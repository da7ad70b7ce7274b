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

// Runtime: ranks on threads and processes, communicators, launcher.
export { init, type InitOptions } from './runtime/init.js';
export {
  Communicator,
  ANY_SOURCE,
  ANY_TAG,
  type CallOptions,
  type SplitOptions,
  type SendrecvOptions,
  type ObjectOptions,
  type VectorOptions,
  type AlltoallvOptions,
  type CollectiveOptions,
  type ReductionOptions,
  type RootOptions,
  type ReduceOptions,
  type CommDefaults,
  type ExecutionMode,
  EXECUTION_MODES,
  type Status,
  type ArrayOf,
} from './runtime/communicator.js';
export { Request, waitAll } from './runtime/request.js';
export { openFile, CollFile, type FileMode, type OpenOptions } from './io/file.js';
export { FileError } from './io/errors.js';
export { FileView, type FileViewSpec, type FilePattern } from './io/view.js';
export { nicAlgorithms } from './offload/engine/nic.js';
export { launch, type LaunchOptions, type LaunchResult, type LaunchTraceOptions } from './runtime/launcher.js';
export type { JobReport, NodeReport, LaunchReport, JobTraceReport } from './runtime/job-report.js';
export type { RunTraceFile, RunTraceMeta, SpanEvent, SpanArgs } from './runtime/run-trace.js';
export { parseHostList, parseHostfile, type HostSlots } from './launch/hosts.js';
export { setDecisionTable, selectAlgorithm, type Choice } from './exec/selection.js';
export type { Buffer as BufferLike } from './exec/buffers.js';
export * as model from './model/index.js';
export * as tune from './tune/index.js';
export * as plot from './plot/svg.js';
export * as sim from './sim/index.js';
export * as machine from './machine/index.js';
