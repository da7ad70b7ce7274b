/**
 * Shared-memory layout of a node with an offload engine: the transport block (rings
 * between endpoints: the node's ranks, then the engine, then the network proxy)
 * followed by the engine's posting slots. The engine's posting bell IS its transport
 * doorbell, so one Atomics.wait in the engine covers both new descriptors and
 * messages from ranks, other engines and the proxy. Last, the job's exit board: a
 * count and one word per world rank, set when that rank's program has returned
 * (exit-board.ts); then one line of path counters per rank (runtime/path-counters.ts).
 */
import { makeLayout, type Layout } from '../../transport/shm/layout.js';
import { makeEngineLayout, type EngineLayout } from './doorbell.js';

/** Outstanding offloaded collectives per rank. */
export const ENGINE_DEPTH = 16;

export interface NodeLayout {
  readonly layout: Layout;
  /** Endpoint index of the engine (-1 without one). */
  readonly engineEndpoint: number;
  readonly engine: EngineLayout | undefined;
  /** Bytes of the node's control SharedArrayBuffer. */
  readonly controlBytes: number;
  /** Endpoints that get an arena slice (ranks, plus the engine). */
  readonly arenaSlices: number;
  /** Int32 index of the exit board: a count, then one word per world rank. */
  readonly exitBoard: number;
  /** Byte offset of the ranks' path-counter lines (runtime/path-counters.ts). */
  readonly pathCounters: number;
}

/** Bytes of one rank's path-counter line (a cache line: ranks never share one). */
export const PATH_LINE_BYTES = 64;

export function nodeLayout(p: { localSize: number; engine: boolean; ringBytes: number; flagsPerEndpoint: number; jobSize: number }): NodeLayout {
  const endpoints = p.localSize + (p.engine ? 1 : 0);
  const layout = makeLayout({ localSize: endpoints, ringBytes: p.ringBytes, flagsPerEndpoint: p.flagsPerEndpoint });
  const board = (byte: number): { exitBoard: number; pathCounters: number; controlBytes: number } => {
    const at = Math.ceil(byte / 64) * 64;
    const counters = Math.ceil((at + (1 + p.jobSize) * 4) / 64) * 64;
    return { exitBoard: at >> 2, pathCounters: counters, controlBytes: counters + p.localSize * PATH_LINE_BYTES };
  };
  if (!p.engine) return { layout, engineEndpoint: -1, engine: undefined, arenaSlices: p.localSize, ...board(layout.totalBytes) };
  const baseByte = Math.ceil(layout.totalBytes / 64) * 64;
  const engine = makeEngineLayout({ ranks: p.localSize, depth: ENGINE_DEPTH, baseByte, bellIndex: layout.bellIndex(p.localSize), sleepIndex: layout.sleepIndex(p.localSize) });
  return { layout, engineEndpoint: p.localSize, engine, arenaSlices: endpoints, ...board(baseByte + engine.bytes) };
}
