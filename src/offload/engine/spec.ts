/**
 * What a node process hands its offload engine thread (workerData under ENGINE_KEY),
 * the control word that asks the engine to stop, and the completion codes the engine
 * reports to ranks (the message of an error completion is JSON: see EngineFailure).
 */
import type { JobSpec } from '../../exec/config.js';
import type { NodeLayout } from './node-layout.js';

export const ENGINE_KEY = '__collectivesEngine';

export interface EngineSpec {
  readonly job: JobSpec;
  readonly node: number;
  readonly control: SharedArrayBuffer;
  readonly arena: SharedArrayBuffer;
  /** Bytes at the start of the arena reserved before the per-endpoint slices. */
  readonly arenaReserved: number;
  readonly flagsPerEndpoint: number;
}

/** Int32 index of the stop word (the engine region's first line; its bell lives in the transport block). */
export function STOP_WORD(nl: NodeLayout): number {
  if (!nl.engine) throw new Error('internal: no engine region');
  return (nl.engine.baseByte >> 2) + 1;
}

/** Int32 index of the word a rank sets to have its node start the engine (lazily, on first use). */
export function START_WORD(nl: NodeLayout): number {
  return STOP_WORD(nl) + 4;
}

/** Ask the node process to start its engine (idempotent; posting may proceed at once: descriptors wait in their slots). */
export function requestEngine(control: SharedArrayBuffer, nl: NodeLayout): void {
  const i32 = new Int32Array(control);
  const w = START_WORD(nl);
  if (Atomics.compareExchange(i32, w, 0, 1) === 0) Atomics.notify(i32, w);
}

/** Int32 indices of the engine's counters (completed collectives, NIC frames sent and dropped). */
export function COUNTER_WORDS(nl: NodeLayout): { completed: number; framesSent: number; framesDropped: number } {
  const base = STOP_WORD(nl);
  return { completed: base + 1, framesSent: base + 2, framesDropped: base + 3 };
}

/** Completion codes (0 = done). */
export const CODE_MISMATCH = 1;
export const CODE_TIMEOUT = 2;
export const CODE_RESTRICTION = 3;
export const CODE_ARGUMENT = 4;
export const CODE_FAILED = 5;

/** The JSON message of an error completion. */
export interface EngineFailure {
  readonly message: string;
  readonly hint?: string;
  /** Communicator ranks still waited for (timeouts). */
  readonly missing?: readonly number[];
}
