/**
 * Rank program: bad input to the execution modes (what test/runtime/programs/offload.ts
 * does not already check: it covers explicit offload gather, a user-defined operator and
 * an unknown per-call mode).
 *
 *   modes.ts engine      the job runs offload engines
 *   modes.ts noengine    the job runs without them (launch({ engine: false }))
 *
 * The world's mode must be COLL_MODE's (host when unset).
 */
import { init, type Communicator, type ExecutionMode } from '../../helpers/rank-api.js';
import { Report } from '../../runtime/programs/cases.js';

const world = init({ timeoutMs: 60_000 });
const report = new Report(world);
const engines = process.argv[2] === 'engine';
const P = world.size;
const me = world.rank;
const total = (P * (P + 1)) / 2;

report.ok(world.mode === (process.env.COLL_MODE || 'host'), `world mode ${world.mode}, COLL_MODE ${process.env.COLL_MODE}`);

function allreduceOk(comm: Communicator, mode: ExecutionMode | undefined, what: string): void {
  try {
    const v = comm.allreduce(Float64Array.of(me + 1), null, mode ? { mode } : undefined);
    report.ok(v[0] === total, `${what}: ${v[0]}`);
  } catch (e) {
    report.ok(false, `${what}: ${(e as Error).stack}`);
  }
}

const comm = world.dup();
const before = comm.mode;
await report.throws('ArgumentError', "unknown execution mode 'nic'", 'setMode with an unknown mode', () => comm.setMode('nic' as ExecutionMode));
report.ok(comm.mode === before, 'a failed setMode leaves the mode alone');
comm.setMode('host');

if (engines) {
  const mode = { mode: 'offload' } as const;
  const i32 = (n: number): Int32Array => new Int32Array(n);
  await report.throws('RestrictionError', 'scatter in offload mode', 'explicit offload scatter', () => comm.scatter(me === 0 ? i32(P) : null, i32(1), mode));
  await report.throws('RestrictionError', 'alltoall in offload mode', 'explicit offload alltoall', () => comm.alltoall(i32(P), i32(P), mode));
  await report.throws('RestrictionError', 'reduce_scatter in offload mode', 'explicit offload reduce-scatter', () => comm.reduceScatter(i32(P), i32(1), mode));
  await report.throws('RestrictionError', 'gather in offload mode', 'explicit offload igather', () => comm.igather(i32(1), me === 0 ? i32(P) : null, mode));
  await report.throws('RestrictionError', 'gather in intermediate mode', 'explicit intermediate gather', () => comm.gather(i32(1), me === 0 ? i32(P) : null, { mode: 'intermediate' }));
  await report.throws('RestrictionError', 'non-reproducible', 'reproducible allreduce offloaded', () => comm.allreduce(Float64Array.of(1), null, { mode: 'offload', reproducible: true }));
  await report.throws('ArgumentError', 'unknown execution mode', 'unknown mode on a nonblocking call', () => comm.iallreduce(Float64Array.of(1), null, { mode: 'nic' as ExecutionMode }));
  // A named algorithm is checked whatever the layout (on one node there is no inter-node schedule to run it).
  await report.throws('UnknownAlgorithmError', "unknown algorithm 'nosuch'", 'unknown named algorithm offloaded', () =>
    comm.allreduce(Float64Array.of(1), null, { mode: 'offload', algorithm: 'nosuch' }),
  );
  await report.throws('UnknownAlgorithmError', "unknown algorithm 'nosuch'", 'unknown named algorithm in intermediate mode', () =>
    comm.ibcast(new Int32Array(1), { mode: 'intermediate', algorithm: 'nosuch' }),
  );
  if (world.nodeCount > 1) {
    // A named algorithm is the inter-node schedule: its restriction must say that its P counts nodes.
    await report.throws('RestrictionError', `whose ranks are the communicator's ${world.nodeCount} nodes`, 'named inter-node algorithm whose restriction fails', () =>
      comm.allreduce(Float64Array.of(1), null, { mode: 'offload', algorithm: 'mesh_tree' }),
    );
  }
  // The communicator is still usable, and per-call host overrides an offload communicator.
  comm.setMode('offload');
  allreduceOk(comm, undefined, 'offload communicator after the errors');
  allreduceOk(comm, 'host', "per-call host on an offload communicator");
  allreduceOk(comm, 'intermediate', 'per-call intermediate on an offload communicator');
} else {
  const without = 'this job runs without offload engines';
  await report.throws('ArgumentError', without, "setMode('offload') without engines", () => comm.setMode('offload'));
  await report.throws('ArgumentError', without, "setMode('intermediate') without engines", () => comm.setMode('intermediate'));
  report.ok(comm.mode === 'host', 'the mode stays host');
  await report.throws('ArgumentError', without, 'per-call offload without engines', () => comm.allreduce(Float64Array.of(1), null, { mode: 'offload' }));
  await report.throws('ArgumentError', without, 'per-call nonblocking offload without engines', () => comm.ibcast(new Int32Array(1), { mode: 'offload' }));
  await report.throws('ArgumentError', without, 'per-call intermediate without engines', () => comm.barrier({ mode: 'intermediate' }));
  allreduceOk(comm, undefined, 'host collectives after the errors');
  allreduceOk(comm, 'host', 'explicit host without engines');
}
report.print();
