/**
 * Entry point of a node's offload engine thread (started by runtime/node-main.ts).
 * Builds the engine's transport endpoint (address job.size + node), its posting-slot
 * claimer and its arena slice, then runs the engine loop until the node stops it.
 * An exception here reaches the node process as a worker error, which aborts the job
 * with "the offload engine of node N failed: …" on every rank.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ArenaAllocator, arenaSlice } from '../../transport/shm/arena.js';
import { ShmEndpoint } from '../../transport/shm/endpoint.js';
import { engineAddress, placement, TRACE_KEY } from '../../exec/config.js';
import { Tracer } from '../../exec/trace.js';
import { EngineClaimer } from './doorbell.js';
import { OffloadEngine } from './engine.js';
import { nodeLayout } from './node-layout.js';
import { COUNTER_WORDS, ENGINE_KEY, STOP_WORD, type EngineSpec } from './spec.js';

const spec = (workerData as Record<string, EngineSpec>)[ENGINE_KEY];
const job = spec.job;
const node = spec.node;
const first = job.firstRank[node];
const localSize = job.firstRank[node + 1] - first;
const nl = nodeLayout({ localSize, engine: true, ringBytes: job.ringBytes, flagsPerEndpoint: spec.flagsPerEndpoint, jobSize: job.size });
if (!nl.engine) throw new Error('internal: engine layout missing');
const { nodeOf, localIndexOf } = placement(job, node);
const endpoint = new ShmEndpoint({
  control: spec.control,
  arena: spec.arena,
  layout: nl.layout,
  local: nl.engineEndpoint,
  worldRank: engineAddress(job, node),
  localIndexOf,
  multiNode: job.nodeCount > 1,
});
const i32 = new Int32Array(spec.control);
const slice = arenaSlice(spec.arena.byteLength - spec.arenaReserved, nl.arenaSlices, nl.engineEndpoint);
const allocator = new ArenaAllocator(spec.arena, spec.arenaReserved + slice.start, slice.bytes);
const fault = /^claim:(\d+)$/.exec(process.env.COLL_ENGINE_FAULT ?? '');
const loss = Number(process.env.COLL_ENGINE_LOSS ?? 0);
if (!(loss >= 0 && loss < 1)) throw new Error(`COLL_ENGINE_LOSS must be a probability in [0, 1), got '${process.env.COLL_ENGINE_LOSS}'`);

// `coll run --trace`: the engine's spans go on its node's 'nic' lane, drawn under the node's first rank.
const tracer = job.trace !== undefined ? new Tracer(first, 'nic', job.trace) : undefined;
const engine = new OffloadEngine({
  claimer: new EngineClaimer(i32, nl.engine),
  endpoint,
  control: i32,
  layout: nl.layout,
  self: nl.engineEndpoint,
  stopWord: STOP_WORD(nl),
  arena: spec.arena,
  scratch: (bytes) => allocator.scratch(bytes),
  freeScratch: (b) => allocator.release(b),
  node,
  jobSize: job.size,
  nodeOf,
  firstRank: first,
  spinUs: job.engineSpin,
  failAfter: fault ? Number(fault[1]) : undefined,
  loss,
  counters: COUNTER_WORDS(nl),
  trace: tracer,
});
engine.run();
if (tracer !== undefined) parentPort?.postMessage({ [TRACE_KEY]: tracer.raw() });
