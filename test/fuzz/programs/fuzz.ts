/**
 * Rank program of the randomized correctness suite. Arguments: seed, number of calls,
 * and optionally a comma-separated list of defect classes to skip.
 *
 * Every rank draws the same sequence of calls from fast-check with the seed (so the
 * sequence is reproducible from the printed seed): collective, datatype, operator
 * (built-ins, a commutative user op, the non-commutative perm8), count (biased small,
 * up to 40,000), root, algorithm (automatic or a random one of the catalogue: its
 * restrictions decide whether a RestrictionError is expected), blocking or
 * nonblocking with up to three outstanding, the world or one of two splits, and the
 * execution mode (host, offload, intermediate; a mode the call cannot use must raise
 * RestrictionError). Each rank checks its result against the sequential reference
 * built from every rank's inputs (which it regenerates), that its send buffer is
 * unchanged and that nothing was written past the result (canary bytes).
 */
import fc from 'fast-check';
import {
  datatype as lookupDatatype,
  init,
  listAlgorithms,
  op as lookupOp,
  defineOp,
  type Communicator,
  type DatatypeName,
  type ExecutionMode,
} from '../../helpers/rank-api.js';
import { checkRestrictions } from '../../../src/algorithms/registry.js';
import { offloadRestriction } from '../../../src/offload/engine/node-plan.js';
import { ioCounts, isReduction } from '../../../src/schedule/context.js';
import type { CollectiveKind } from '../../../src/schedule/types.js';
import { describeCase, expectedOf, inputOf, PERM, Report, sameElements, type Case } from '../../runtime/programs/cases.js';

const world = init({ timeoutMs: 60_000 });
const report = new Report(world);
const seed = Number(process.argv[2] ?? 1);
const calls = Number(process.argv[3] ?? 100);
const skip = new Set((process.argv[4] ?? '').split(',').filter(Boolean));

const KINDS: CollectiveKind[] = ['barrier', 'bcast', 'reduce', 'allreduce', 'allgather', 'reduce_scatter', 'gather', 'scatter', 'alltoall', 'scan', 'exscan'];
const TYPES: DatatypeName[] = ['int8', 'uint8', 'int16', 'int32', 'uint32', 'int64', 'float32', 'float64', 'float32_int32', 'int32_int32'];
const OPS = ['sum', 'prod', 'min', 'max', 'band', 'bor', 'bxor', 'land', 'lor', 'minloc', 'maxloc', 'noop', 'fuzz_add', 'perm8'];
try {
  lookupOp('fuzz_add');
} catch {
  defineOp('fuzz_add', { commutative: true, datatypes: ['int32', 'float64'], combine: (a, b) => (typeof a === 'number' && typeof b === 'number' ? a + b : 0) });
}
void PERM; // registers perm8
const MODES: ExecutionMode[] = ['host', 'host', 'offload', 'intermediate'];

/** The communicators calls run on: the world, ranks by parity, the world in reverse order. */
const comms: (Communicator | null)[] = [world, world.split(world.rank % 2, world.rank), world.split(0, world.size - 1 - world.rank)];

/** Raw random choices; turned into a valid (or deliberately refused) call by `shape`. */
const raw = fc.record({
  kind: fc.nat(KINDS.length - 1),
  type: fc.nat(TYPES.length - 1),
  op: fc.nat(OPS.length - 1),
  count: fc.oneof({ weight: 6, arbitrary: fc.nat(16) }, { weight: 3, arbitrary: fc.nat(2000) }, { weight: 1, arbitrary: fc.nat(40_000) }),
  root: fc.nat(63),
  algorithm: fc.oneof({ weight: 2, arbitrary: fc.constant(-1) }, { weight: 1, arbitrary: fc.nat(31) }),
  nonblocking: fc.boolean(),
  inPlace: fc.boolean(),
  comm: fc.nat(comms.length - 1),
  mode: fc.nat(MODES.length - 1),
  seed: fc.nat(1 << 20),
});
type Raw = typeof raw extends fc.Arbitrary<infer T> ? T : never;

interface Planned {
  c: Case;
  comm: number;
  /** allreduce / reduce with the send buffer as the receive buffer (the root's, for reduce). */
  inPlace: boolean;
  /** The error class the call must raise, if any. */
  expectError?: string;
}

function shape(r: Raw, P: number): Planned {
  const collective = KINDS[r.kind];
  let datatype = TYPES[r.type];
  let op: string | undefined;
  if (isReduction(collective)) {
    op = OPS[r.op];
    // Pair types take minloc/maxloc (and noop); the others everything else that applies.
    const t = lookupDatatype(datatype);
    if (t.kind === 'pair' && op !== 'minloc' && op !== 'maxloc' && op !== 'noop') op = r.op % 2 ? 'minloc' : 'maxloc';
    if (t.kind !== 'pair' && (op === 'minloc' || op === 'maxloc')) op = 'sum';
    if (op === 'perm8') datatype = 'uint32';
    try {
      lookupOp(op).kernel(lookupDatatype(datatype));
    } catch {
      op = 'sum';
      if (lookupDatatype(datatype).kind === 'pair') op = 'minloc';
    }
  }
  const count = collective === 'barrier' ? 0 : Math.min(r.count, Math.floor(120_000 / Math.max(1, lookupDatatype(datatype).size * (collective === 'alltoall' || collective === 'scatter' || collective === 'reduce_scatter' || collective === 'allgather' || collective === 'gather' ? P : 1))));
  const c: Case = { collective, datatype, op, count, root: r.root % P, nonblocking: r.nonblocking, seed: r.seed };
  const inPlace = r.inPlace && (collective === 'allreduce' || collective === 'reduce' || collective === 'scan' || collective === 'exscan');
  const mode = MODES[r.mode];
  const opObj = op !== undefined ? lookupOp(op) : undefined;
  if (mode !== 'host') {
    c.mode = mode;
    const why = offloadRestriction(collective, opObj, false);
    return why ? { c, comm: r.comm, inPlace, expectError: 'RestrictionError' } : { c, comm: r.comm, inPlace };
  }
  if (r.algorithm >= 0) {
    const specs = listAlgorithms(collective).filter((s) => s.topology === undefined);
    if (specs.length > 0) {
      const spec = specs[r.algorithm % specs.length];
      c.algorithm = spec.name;
      try {
        checkRestrictions(spec, { size: P, count, root: c.root ?? 0, commutative: opObj?.commutative ?? true, elementSize: lookupDatatype(datatype).size, params: {} });
      } catch {
        return { c, comm: r.comm, inPlace, expectError: 'RestrictionError' };
      }
    }
  }
  return { c, comm: r.comm, inPlace };
}

const CANARY = 0x5a;
const GUARD = 16;

interface Started {
  p: Planned;
  index: number;
  done: Promise<unknown> | undefined;
  error: Error | undefined;
  send: Uint8Array;
  sendCopy: Uint8Array;
  out: Uint8Array | undefined;
  outBytes: number;
  /** Set for in-place calls: the result is in the send buffer. */
  resultIn?: Uint8Array;
}

/** Start one call (blocking calls complete here); the check runs later. */
function start(p: Planned, index: number, comm: Communicator): Started {
  const c = p.c;
  const P = comm.size;
  const me = comm.rank;
  const root = c.root ?? 0;
  const t = lookupDatatype(c.datatype);
  const io = ioCounts(c.collective, me, P, c.count, root);
  const input = inputOf(c, P, me);
  const send = new Uint8Array(input.byteLength + GUARD);
  send.set(input);
  send.fill(CANARY, input.byteLength);
  const outBytes = io.out * t.size;
  const recv = new Uint8Array(outBytes + GUARD).fill(CANARY);
  const sendView = send.subarray(0, input.byteLength);
  const recvView = recv.subarray(0, outBytes);
  const o = { algorithm: c.algorithm, op: c.op, mode: c.mode, root, datatype: c.datatype, count: c.count };
  const nb = c.nonblocking ?? false;
  const s: Started = { p, index, done: undefined, error: undefined, send, sendCopy: send.slice(), out: undefined, outBytes };
  try {
    let r: unknown;
    switch (c.collective) {
      case 'barrier':
        r = nb ? comm.ibarrier(o) : comm.barrier(o);
        break;
      case 'bcast': {
        if (me === root) recv.set(input);
        const buf = recv.subarray(0, c.count * t.size);
        r = nb ? comm.ibcast(buf, o) : comm.bcast(buf, o);
        s.sendCopy = send.slice(); // bcast has no separate send buffer
        break;
      }
      case 'reduce':
      case 'allreduce': {
        // In place: the result lands in the send buffer (the root's, for reduce).
        const inPlace = p.inPlace && (c.collective === 'allreduce' || me === root);
        const into = inPlace ? null : c.collective === 'allreduce' || me === root ? recvView : null;
        if (c.collective === 'allreduce') r = nb ? comm.iallreduce(sendView, into, o) : comm.allreduce(sendView, into, o);
        else r = nb ? comm.ireduce(sendView, into, o) : comm.reduce(sendView, into, o);
        if (inPlace) s.resultIn = send;
        break;
      }
      case 'scan':
      case 'exscan': {
        // In place or into recv; exscan leaves rank 0's buffer as it was (not checked).
        const into = p.inPlace ? null : recvView;
        if (c.collective === 'scan') r = nb ? comm.iscan(sendView, into, o) : comm.scan(sendView, into, o);
        else r = nb ? comm.iexscan(sendView, into, o) : comm.exscan(sendView, into, o);
        if (p.inPlace) s.resultIn = send;
        break;
      }
      case 'allgather':
        r = nb ? comm.iallgather(sendView, recvView, o) : comm.allgather(sendView, recvView, o);
        break;
      case 'reduce_scatter':
        r = nb ? comm.ireduceScatter(sendView, recvView, o) : comm.reduceScatter(sendView, recvView, o);
        break;
      case 'gather':
        r = nb ? comm.igather(sendView, me === root ? recvView : null, o) : comm.gather(sendView, me === root ? recvView : null, o);
        break;
      case 'scatter':
        r = nb ? comm.iscatter(me === root ? sendView : null, recvView, o) : comm.scatter(me === root ? sendView : null, recvView, o);
        break;
      case 'alltoall':
        r = nb ? comm.ialltoall(sendView, recvView, o) : comm.alltoall(sendView, recvView, o);
        break;
    }
    if (nb) s.done = Promise.resolve(r as PromiseLike<unknown>).catch((e: unknown) => void (s.error = e as Error));
  } catch (e) {
    s.error = e as Error;
  }
  s.out = s.resultIn ?? recv;
  return s;
}

function check(s: Started, comm: Communicator): void {
  const c = s.p.c;
  const label = `seed ${seed} call #${s.index} (${describeCase(c)}${c.mode ? ` mode=${c.mode}` : ''}${s.resultIn ? ' in place' : ''}, comm ${s.p.comm}, ${comm.size} ranks) on rank ${comm.rank}`;
  if (s.p.expectError) {
    report.ok(s.error?.name === s.p.expectError, `${label}: expected ${s.p.expectError}, got ${s.error ? `${s.error.name}: ${s.error.message.split('\n')[0]}` : 'success'}`);
    return;
  }
  if (s.error) {
    report.ok(false, `${label}: ${s.error.name}: ${s.error.message.split('\n')[0]}`);
    return;
  }
  const out = s.out as Uint8Array;
  const got = out.subarray(0, c.collective === 'bcast' ? c.count * lookupDatatype(c.datatype).size : s.outBytes);
  const rooted = c.collective === 'reduce' || c.collective === 'gather';
  // The reference only where there is a result to compare (not at non-roots of reduce and gather).
  // (Exscan leaves rank 0's buffer as it was: not significant.)
  if (!(rooted && comm.rank !== (c.root ?? 0)) && c.collective !== 'barrier' && !(c.collective === 'exscan' && comm.rank === 0)) {
    if (c.op === 'noop') report.ok(fromSomeRank(c, comm, got), `${label}: WRONG RESULT (noop: an element that is no rank's)`);
    else {
      const want = expectedOf(c, comm.size, comm.rank) ?? new Uint8Array(0);
      if (want.byteLength > 0) report.ok(sameElements(c.datatype, got, want), `${label}: WRONG RESULT`);
    }
  }
  if (s.resultIn === undefined) report.ok(s.send.every((v, i) => v === s.sendCopy[i]), `${label}: send buffer changed`);
  const tail = out.subarray(c.collective === 'bcast' ? c.count * lookupDatatype(c.datatype).size : s.outBytes);
  report.ok(tail.every((v) => v === CANARY), `${label}: wrote past the result`);
}

/** noop: each result element is that element of some rank's input (ops.ts). */
function fromSomeRank(c: Case, comm: Communicator, got: Uint8Array): boolean {
  const es = lookupDatatype(c.datatype).size;
  const inputs = Array.from({ length: comm.size }, (_, r) => inputOf(c, comm.size, r));
  const base = c.collective === 'reduce_scatter' ? comm.rank * c.count : 0;
  for (let i = 0; i < got.byteLength / es; i++) {
    const e = got.subarray(i * es, (i + 1) * es);
    if (!inputs.some((inp) => sameElements(c.datatype, e, inp.subarray((base + i) * es, (base + i + 1) * es)))) return false;
  }
  return true;
}

const planned = fc.sample(raw, { seed, numRuns: calls });
const outstanding: { s: Started; comm: Communicator }[] = [];
async function drain(): Promise<void> {
  // Complete in reverse order: requests must not depend on being awaited in call order.
  for (const { s, comm } of outstanding.reverse()) {
    await s.done;
    check(s, comm);
  }
  outstanding.length = 0;
}
for (let i = 0; i < planned.length; i++) {
  const comm = comms[planned[i].comm];
  if (!comm) continue;
  const p = shape(planned[i], comm.size);
  if (skip.has('offload') && p.c.mode !== undefined) continue;
  const s = start(p, i, comm);
  if (s.done) {
    outstanding.push({ s, comm });
    if (outstanding.length >= 3) await drain();
  } else check(s, comm);
}
await drain();
world.barrier();
report.print();
