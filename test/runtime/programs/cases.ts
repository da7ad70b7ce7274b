/**
 * Helpers for rank programs that check the runtime against the sequential
 * reference: deterministic inputs for every rank (so each rank can compute the
 * expected result on its own), a non-commutative operator, the API call for each
 * collective, and a line-oriented report the vitest side parses.
 */
import {
  datatype as lookupDatatype,
  defineOp,
  op as lookupOp,
  type Communicator,
  type Datatype,
  type DatatypeName,
  type ElementValue,
  type Op,
} from '../../helpers/rank-api.js';
import { prng } from '../../../src/reference/executor.js';
import { referenceOutputs } from '../../../src/reference/sequential.js';
import { ioCounts, isReduction } from '../../../src/schedule/context.js';
import type { CollectiveKind } from '../../../src/schedule/types.js';

/** Composition of permutations of {0..7} (3 bits per image): associative, not commutative. */
export function composePerm(a: number, b: number): number {
  let out = 0;
  for (let i = 0; i < 8; i++) {
    const bi = (b >>> (3 * i)) & 7;
    out |= ((a >>> (3 * bi)) & 7) << (3 * i);
  }
  return out >>> 0;
}

export const PERM: Op = (() => {
  try {
    return lookupOp('perm8');
  } catch {
    return defineOp('perm8', { commutative: false, datatypes: ['uint32'], combine: (a, b) => composePerm(Number(a), Number(b)) });
  }
})();

export interface Case {
  collective: CollectiveKind;
  algorithm?: string;
  count: number;
  root?: number;
  datatype: DatatypeName;
  op?: string;
  nonblocking?: boolean;
  /** Buffers from comm.alloc (zero-copy paths): on every rank, or on the odd ranks only. */
  shared?: boolean | 'odd';
  reproducible?: boolean;
  /** Random floats instead of exact small values (reproducible-mode checks). */
  inexact?: boolean;
  topology?: import('../../../src/index.js').Topology;
  /** Execution mode (host, offload, intermediate). */
  mode?: import('../../../src/index.js').ExecutionMode;
  /** Parameters of the named algorithm. */
  params?: Record<string, number>;
  seed: number;
}

function value(t: Datatype, opName: string, rand: () => number, rank: number, inexact: boolean): ElementValue {
  if (opName === 'perm8') {
    const p = [0, 1, 2, 3, 4, 5, 6, 7];
    for (let i = 7; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      const x = p[i];
      p[i] = p[j];
      p[j] = x;
    }
    let acc = 0;
    for (let i = 0; i < 8; i++) acc |= p[i] << (3 * i);
    return acc >>> 0;
  }
  if (t.kind === 'pair') {
    const v = Math.floor(rand() * 5) - 2;
    return { value: t.bigint ? BigInt(v) : v, index: rank };
  }
  if (inexact && t.kind === 'float') return (rand() - 0.5) * 10 ** Math.floor(rand() * 12 - 6);
  const v = t.kind === 'uint' ? Math.floor(rand() * 16) : Math.floor(rand() * 17) - 8;
  return t.bigint ? BigInt(v) : v;
}

/** Input bytes of `rank` for a case (bcast: the root's data). */
export function inputOf(c: Case, P: number, rank: number): Uint8Array {
  const t = lookupDatatype(c.datatype);
  const root = c.root ?? 0;
  const io = ioCounts(c.collective, rank, P, c.count, root);
  const n = c.collective === 'bcast' ? (rank === root ? c.count : 0) : io.in;
  const buf = new Uint8Array(n * t.size);
  const rand = prng(c.seed * 1000003 + rank * 7919 + 17);
  const op = c.op ?? 'sum';
  if (t.kind !== 'pair' && op !== 'perm8' && !c.inexact) {
    // The common case, through a typed view (the values value() would give, 20× faster).
    const view = new t.valueArray(buf.buffer, 0, n);
    const uint = t.kind === 'uint';
    if (t.bigint) {
      const v64 = view as BigInt64Array | BigUint64Array;
      for (let i = 0; i < n; i++) v64[i] = BigInt(uint ? Math.floor(rand() * 16) : Math.floor(rand() * 17) - 8);
    } else {
      const vn = view as Exclude<typeof view, BigInt64Array | BigUint64Array>;
      for (let i = 0; i < n; i++) vn[i] = uint ? Math.floor(rand() * 16) : Math.floor(rand() * 17) - 8;
    }
    return buf;
  }
  // The values value() gives, stored as setElement stores them (little-endian, a pair's
  // index after its value, padding left zero), through typed views of the whole buffer.
  const inexact = c.inexact ?? false;
  const values = new t.valueArray(buf.buffer, 0, buf.byteLength / t.valueArray.BYTES_PER_ELEMENT) as unknown as { [i: number]: number | bigint };
  const scalar = (v: number | bigint): number | bigint => (t.bigint ? (typeof v === 'bigint' ? v : BigInt(Math.trunc(v))) : Number(v));
  if (t.kind === 'pair') {
    const indices = new Int32Array(buf.buffer, 0, buf.byteLength / 4);
    const stride = t.size / t.valueArray.BYTES_PER_ELEMENT;
    for (let i = 0; i < n; i++) {
      const v = value(t, op, rand, rank, inexact) as { value: number | bigint; index: number };
      values[i * stride] = scalar(v.value);
      indices[(i * t.size + t.indexOffset) / 4] = v.index;
    }
  } else {
    for (let i = 0; i < n; i++) values[i] = scalar(value(t, op, rand, rank, inexact) as number | bigint);
  }
  return buf;
}

export function expectedOf(c: Case, P: number, rank: number, inputs: readonly Uint8Array[] = Array.from({ length: P }, (_, r) => inputOf(c, P, r))): Uint8Array | undefined {
  return referenceOutputs({
    collective: c.collective,
    datatype: c.datatype,
    op: isReduction(c.collective) ? lookupOp(c.op ?? 'sum') : undefined,
    size: P,
    count: c.count,
    root: c.root ?? 0,
    inputs,
  })[rank];
}

/** A buffer of `bytes` for the case: a typed array of the datatype (or bytes for pair types), optionally shared. */
function buffer(comm: Communicator, c: Case, bytes: Uint8Array | number): ArrayBufferView {
  const t = lookupDatatype(c.datatype);
  const n = typeof bytes === 'number' ? bytes : bytes.byteLength;
  let u8: Uint8Array;
  let view: ArrayBufferView;
  if (c.shared === true || (c.shared === 'odd' && comm.rank % 2 === 1)) {
    const a = comm.alloc(c.datatype, n / t.size) as ArrayBufferView;
    u8 = new Uint8Array(a.buffer, a.byteOffset, n);
    view = a;
  } else if (t.kind === 'pair' || t.name === 'uint8') {
    u8 = new Uint8Array(n);
    view = u8;
  } else {
    view = new t.valueArray(n / t.size);
    u8 = new Uint8Array(view.buffer, view.byteOffset, n);
  }
  if (typeof bytes === 'number') u8.fill(0xa5);
  else u8.set(bytes);
  return view;
}

function bytesOf(v: ArrayBufferView | undefined): Uint8Array {
  return v ? new Uint8Array(v.buffer, v.byteOffset, v.byteLength) : new Uint8Array(0);
}

/** Run a case through the API (`input`: this rank's inputOf, when known); returns this rank's output bytes (undefined where it has none). */
export async function runCase(comm: Communicator, c: Case, input = inputOf(c, comm.size, comm.rank)): Promise<Uint8Array | undefined> {
  const P = comm.size;
  const me = comm.rank;
  const root = c.root ?? 0;
  const t = lookupDatatype(c.datatype);
  const io = ioCounts(c.collective, me, P, c.count, root);
  const o = {
    algorithm: c.algorithm,
    reproducible: c.reproducible,
    topology: c.topology,
    op: c.op,
    mode: c.mode,
    params: c.params,
    root,
    datatype: t.kind === 'pair' || c.shared ? c.datatype : undefined,
    count: c.count,
  };
  const send = buffer(comm, c, input);
  const recv = buffer(comm, c, io.out * t.size);
  const nb = c.nonblocking ?? false;
  let out: ArrayBufferView | undefined;
  switch (c.collective) {
    case 'barrier':
      if (nb) await comm.ibarrier(o);
      else comm.barrier(o);
      out = new Uint8Array(0);
      break;
    case 'bcast': {
      const buf = me === root ? send : recv;
      out = nb ? await comm.ibcast(buf, o) : comm.bcast(buf, o);
      break;
    }
    case 'reduce':
      out = nb ? await comm.ireduce(send, me === root ? recv : null, o) : comm.reduce(send, me === root ? recv : null, o);
      break;
    case 'allreduce':
      out = nb ? await comm.iallreduce(send, recv, o) : comm.allreduce(send, recv, o);
      break;
    case 'allgather':
      out = nb ? await comm.iallgather(send, recv, o) : comm.allgather(send, recv, o);
      break;
    case 'reduce_scatter':
      out = nb ? await comm.ireduceScatter(send, recv, o) : comm.reduceScatter(send, recv, o);
      break;
    case 'gather':
      out = nb ? await comm.igather(send, me === root ? recv : null, o) : comm.gather(send, me === root ? recv : null, o);
      break;
    case 'scatter':
      out = nb ? await comm.iscatter(me === root ? send : null, recv, o) : comm.scatter(me === root ? send : null, recv, o);
      break;
    case 'alltoall':
      out = nb ? await comm.ialltoall(send, recv, o) : comm.alltoall(send, recv, o);
      break;
    case 'scan':
      out = nb ? await comm.iscan(send, recv, o) : comm.scan(send, recv, o);
      break;
    case 'exscan':
      out = nb ? await comm.iexscan(send, recv, o) : comm.exscan(send, recv, o);
      if (me === 0) out = undefined; // not significant
      break;
  }
  const result = out ? bytesOf(out).slice() : undefined;
  if (c.shared === true || (c.shared === 'odd' && me % 2 === 1)) {
    comm.free(send);
    comm.free(recv);
  }
  return result;
}

export function describeCase(c: Case): string {
  const parts = [c.collective, c.algorithm ?? 'auto', `count=${c.count}`, c.datatype];
  if (c.op) parts.push(`op=${c.op}`);
  if (c.root) parts.push(`root=${c.root}`);
  if (c.nonblocking) parts.push('nonblocking');
  if (c.shared) parts.push(c.shared === 'odd' ? 'shared on odd ranks' : 'shared');
  if (c.reproducible) parts.push('reproducible');
  if (c.topology) parts.push(c.topology.label);
  return parts.join(' ');
}

/** Equal elements (pair types: value and index; their padding bytes are not part of the data). */
export function sameElements(dt: DatatypeName, a: Uint8Array, b: Uint8Array): boolean {
  const t = lookupDatatype(dt);
  if (t.kind !== 'pair') return sameBytes(a, b);
  if (a.byteLength !== b.byteLength) return false;
  const used = t.indexOffset + 4;
  for (let e = 0; e < a.byteLength; e += t.size) for (let i = 0; i < used; i++) if (a[e + i] !== b[e + i]) return false;
  return true;
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

/** Run a case and check this rank's output against the sequential reference; `label` names it in a failure. */
export async function checkCase(report: Report, comm: Communicator, c: Case, label: string): Promise<void> {
  try {
    const inputs = Array.from({ length: comm.size }, (_, r) => inputOf(c, comm.size, r));
    const got = await runCase(comm, c, inputs[comm.rank]);
    const want = expectedOf(c, comm.size, comm.rank, inputs);
    report.ok(want === undefined || (got !== undefined && sameElements(c.datatype, got.subarray(0, want.byteLength), want)), `${label}: wrong result on rank ${comm.rank}`);
  } catch (e) {
    report.ok(false, `${label}: ${(e as Error).stack ?? String(e)}`);
  }
}

/** Report lines parsed by test/runtime/job.ts. */
export class Report {
  checks = 0;
  failures: string[] = [];
  constructor(private readonly comm: Communicator) {}
  ok(cond: boolean, what: string): void {
    this.checks++;
    if (!cond) this.failures.push(what);
  }
  /** Check that `fn` throws an error of class `name` whose message contains `text`. */
  async throws(name: string, text: string, what: string, fn: () => unknown): Promise<void> {
    this.checks++;
    try {
      await fn();
      this.failures.push(`${what}: expected ${name}, nothing was thrown`);
    } catch (e) {
      const err = e as Error;
      if (err.name !== name || !err.message.includes(text)) this.failures.push(`${what}: expected ${name} containing '${text}', got ${err.name}: ${err.message}`);
    }
  }
  /** The REPORT line (with the program's name when several.ts runs several programs in one job). */
  print(): void {
    const program = (globalThis as { reportProgram?: string }).reportProgram;
    console.log(`REPORT ${JSON.stringify({ rank: this.comm.rank, checks: this.checks, failures: this.failures.slice(0, Number(process.env.REPORT_MAX ?? 20)), ...(program ? { program } : {}) })}`);
  }
}
