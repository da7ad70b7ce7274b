/**
 * Call signatures: what every rank of a collective must agree on (collective,
 * datatype, operator, root, count; on the message path also the algorithm), packed
 * so that it can travel with the data and be checked where the data is read. This
 * is the always-on mismatch check (MPI leaves such programs erroneous and
 * undefined; here they raise MismatchError instead of returning wrong numbers):
 *
 * - the flat shared-memory path stores the call's `meta` word, count and root
 *   next to each rank's slot, and every rank that reads a slot compares them;
 * - schedule messages carry a 16-bit `wire` signature (MessageKey.sig) that the
 *   receiving endpoint compares with its posted receive's.
 *
 * Both are computed once per plan, so the check costs a few loads and compares per
 * call. The full cross-rank agreement (every rank's call described to rank 0) stays
 * in debug mode (COLL_DEBUG=1).
 */
import { DATATYPE_NAMES, type Datatype, type DatatypeName } from '../core/datatypes.js';
import { BUILTIN_OP_NAMES, type BuiltinOpName, type Op } from '../core/ops.js';
import { isReduction, isRooted } from '../schedule/context.js';
import { COLLECTIVES, type CollectiveKind } from '../schedule/types.js';

export interface CallSignature {
  /** Collective (bits 0–3), datatype (4–7) and operator (8–15) of the call; never 0. */
  readonly meta: number;
  readonly count: number;
  /** Root for rooted collectives, else 0. */
  readonly root: number;
  /** 16-bit hash of all of it and the algorithm, carried by schedule messages; never 0. */
  readonly wire: number;
}

const USER_OP = 0x80;

/** 32-bit FNV-1a of a string. */
function fnv1a(s: string, h = 0x811c9dc5): number {
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function opCode(op: Op | undefined): number {
  if (op === undefined) return 0;
  const i = BUILTIN_OP_NAMES.indexOf(op.name as BuiltinOpName);
  return i >= 0 && op.builtin ? i + 1 : USER_OP | (fnv1a(op.name) & 0x7f);
}

/** The signature of a call (algorithm: the plan's algorithm label, for the message path). */
export function callSignature(kind: CollectiveKind, count: number, type: Datatype, op: Op | undefined, root: number, algorithm = ''): CallSignature {
  const k = COLLECTIVES.indexOf(kind) + 1;
  const barrier = kind === 'barrier';
  const t = barrier ? 0 : DATATYPE_NAMES.indexOf(type.name) + 1;
  const meta = k | (t << 4) | ((isReduction(kind) ? opCode(op) : 0) << 8);
  const c = barrier ? 0 : count;
  const r = isRooted(kind) ? root : 0;
  const h = fnv1a(`${meta}|${c}|${r}|${algorithm}`);
  return { meta, count: c, root: r, wire: (h ^ (h >>> 16)) & 0xffff || 1 };
}

/** A readable description of a signature's fields, e.g. "allreduce(count=2, datatype=int32, op=sum)". */
export function describeSignature(meta: number, count: number, root: number): string {
  const kind = COLLECTIVES[(meta & 0xf) - 1] as CollectiveKind | undefined;
  if (kind === undefined) return 'an unknown call';
  if (kind === 'barrier') return 'barrier()';
  const parts = [`count=${count}`];
  const t = DATATYPE_NAMES[((meta >> 4) & 0xf) - 1] as DatatypeName | undefined;
  parts.push(`datatype=${t ?? '?'}`);
  const o = (meta >> 8) & 0xff;
  if (o !== 0) parts.push(`op=${o & USER_OP ? 'a user-defined op' : BUILTIN_OP_NAMES[o - 1]}`);
  if (isRooted(kind)) parts.push(`root=${root}`);
  return `${kind}(${parts.join(', ')})`;
}
