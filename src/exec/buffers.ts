/**
 * Argument checking for the communicator API: buffers are typed arrays (or any
 * ArrayBufferView with an explicit datatype); counts default to what the buffer
 * holds; every problem is an ArgumentError/DatatypeError naming the argument.
 */
import { checkBuffer, datatype as lookupDatatype, datatypeOf, type Datatype, type DatatypeName } from '../core/datatypes.js';
import { ArgumentError, checkCount, checkIntRange } from '../core/errors.js';

/** Anything the API accepts as a buffer: a typed array, or a DataView / Uint8Array with `datatype`. */
export type Buffer = ArrayBufferView;

export const EMPTY = new Uint8Array(0);

/** Whether two byte views share memory (both non-empty, same buffer, intersecting ranges). */
export function overlaps(a: Uint8Array, b: Uint8Array): boolean {
  return a.buffer === b.buffer && a.byteLength > 0 && b.byteLength > 0 && a.byteOffset < b.byteOffset + b.byteLength && b.byteOffset < a.byteOffset + a.byteLength;
}

/** A Uint8Array over the bytes of `v` (no copy). */
export function byteView(v: ArrayBufferView): Uint8Array {
  return v instanceof Uint8Array ? v : new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}

/** The datatype of a call: explicit, or inferred from the first buffer given. */
export function resolveType(explicit: DatatypeName | Datatype | undefined, ...views: (ArrayBufferView | null | undefined)[]): Datatype {
  for (const v of views) {
    if (v !== undefined && v !== null && !ArrayBuffer.isView(v)) {
      throw new ArgumentError(`buffers must be typed arrays or DataViews, got ${describe(v)}`, 'wrap the data in a typed array, e.g. Float64Array.from(values)');
    }
  }
  if (explicit !== undefined) return lookupDatatype(explicit);
  for (const v of views) if (v) return datatypeOf(v);
  throw new ArgumentError('cannot infer the datatype: no buffer on this rank', 'pass { datatype } explicitly');
}

/** Whole elements of `type` held by `v`. */
export function elementsOf(name: string, v: ArrayBufferView, type: Datatype): number {
  if (!ArrayBuffer.isView(v)) throw new ArgumentError(`${name} must be a typed array or DataView, got ${describe(v)}`);
  if (v.byteLength % type.size !== 0) {
    throw new ArgumentError(
      `${name} holds ${v.byteLength} bytes, not a whole number of ${type.name} elements (${type.size} bytes)`,
      'pass { count } or a buffer of the datatype',
    );
  }
  return v.byteLength / type.size;
}

/** Validate an explicit count, or derive it. */
export function countOf(explicit: number | undefined, derive: () => number): number {
  if (explicit === undefined) return derive();
  checkCount('count', explicit);
  return explicit;
}

/** Check `v` holds `count` elements of `type` and return its first count·size bytes. */
export function region(name: string, v: ArrayBufferView | null | undefined, type: Datatype, count: number): Uint8Array {
  if (v === undefined || v === null) {
    if (count === 0) return EMPTY;
    throw new ArgumentError(`${name} is required here (${count} element(s) of ${type.name})`);
  }
  if (!ArrayBuffer.isView(v)) throw new ArgumentError(`${name} must be a typed array or DataView, got ${describe(v)}`);
  checkBuffer(name, type, v, count);
  const b = byteView(v);
  return b.byteLength === count * type.size ? b : b.subarray(0, count * type.size);
}

export function checkRank(name: string, r: number, size: number): void {
  checkIntRange(name, r, 0, size - 1);
}

export function checkTag(tag: number): void {
  checkIntRange('tag', tag, 0, 0x7fffffff);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'object') return (v as object).constructor?.name ?? 'object';
  return typeof v;
}
