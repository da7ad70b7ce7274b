/**
 * Datatypes: the element types collectives move and reduce.
 *
 * Scalar types map onto one typed array (64-bit integers use BigInt64Array /
 * BigUint64Array). Pair types are the value+index structs that MINLOC/MAXLOC
 * reduce, laid out as MPI lays out the C structs (MPI_FLOAT_INT, MPI_DOUBLE_INT,
 * MPI_2INT, MPI_LONG_INT): the value at offset 0, the int32 index right after it,
 * padded to the value's alignment.
 */
import { ArgumentError, DatatypeError } from './errors.js';

export type ScalarTypeName =
  | 'int8'
  | 'int16'
  | 'int32'
  | 'int64'
  | 'uint8'
  | 'uint16'
  | 'uint32'
  | 'uint64'
  | 'float32'
  | 'float64';
export type PairTypeName = 'float32_int32' | 'float64_int32' | 'int32_int32' | 'int64_int32';
export type DatatypeName = ScalarTypeName | PairTypeName;

export type TypedArray =
  | Int8Array
  | Int16Array
  | Int32Array
  | BigInt64Array
  | Uint8Array
  | Uint16Array
  | Uint32Array
  | BigUint64Array
  | Float32Array
  | Float64Array;

export interface TypedArrayConstructor {
  readonly BYTES_PER_ELEMENT: number;
  new (buffer: ArrayBufferLike, byteOffset?: number, length?: number): TypedArray;
  new (length: number): TypedArray;
}

export type DatatypeKind = 'int' | 'uint' | 'float' | 'pair';

/** A pair element as seen by JavaScript code: the value and its int32 index. */
export interface PairValue {
  value: number | bigint;
  index: number;
}

export type ElementValue = number | bigint | PairValue;

export interface Datatype {
  readonly name: DatatypeName;
  /** Bytes per element (including padding for pair types). */
  readonly size: number;
  readonly kind: DatatypeKind;
  /** True when scalar values (or pair values) are BigInts. */
  readonly bigint: boolean;
  /** Typed array of the (value) lane. */
  readonly valueArray: TypedArrayConstructor;
  /** Offset of the int32 index inside a pair element (pair types only). */
  readonly indexOffset: number;
}

function scalar(name: ScalarTypeName, kind: DatatypeKind, ctor: TypedArrayConstructor): Datatype {
  return Object.freeze({
    name,
    size: ctor.BYTES_PER_ELEMENT,
    kind,
    bigint: name === 'int64' || name === 'uint64',
    valueArray: ctor,
    indexOffset: -1,
  });
}

function pair(name: PairTypeName, ctor: TypedArrayConstructor): Datatype {
  const vsize = ctor.BYTES_PER_ELEMENT;
  const size = vsize === 8 ? 16 : 8;
  return Object.freeze({ name, size, kind: 'pair', bigint: name === 'int64_int32', valueArray: ctor, indexOffset: vsize });
}

const TYPES: Readonly<Record<DatatypeName, Datatype>> = Object.freeze({
  int8: scalar('int8', 'int', Int8Array as TypedArrayConstructor),
  int16: scalar('int16', 'int', Int16Array as TypedArrayConstructor),
  int32: scalar('int32', 'int', Int32Array as TypedArrayConstructor),
  int64: scalar('int64', 'int', BigInt64Array as unknown as TypedArrayConstructor),
  uint8: scalar('uint8', 'uint', Uint8Array as TypedArrayConstructor),
  uint16: scalar('uint16', 'uint', Uint16Array as TypedArrayConstructor),
  uint32: scalar('uint32', 'uint', Uint32Array as TypedArrayConstructor),
  uint64: scalar('uint64', 'uint', BigUint64Array as unknown as TypedArrayConstructor),
  float32: scalar('float32', 'float', Float32Array as TypedArrayConstructor),
  float64: scalar('float64', 'float', Float64Array as TypedArrayConstructor),
  float32_int32: pair('float32_int32', Float32Array as TypedArrayConstructor),
  float64_int32: pair('float64_int32', Float64Array as TypedArrayConstructor),
  int32_int32: pair('int32_int32', Int32Array as TypedArrayConstructor),
  int64_int32: pair('int64_int32', BigInt64Array as unknown as TypedArrayConstructor),
});

export const DATATYPE_NAMES: readonly DatatypeName[] = Object.freeze(Object.keys(TYPES) as DatatypeName[]);
export const SCALAR_TYPE_NAMES: readonly ScalarTypeName[] = DATATYPE_NAMES.filter(
  (n): n is ScalarTypeName => TYPES[n].kind !== 'pair',
);
export const PAIR_TYPE_NAMES: readonly PairTypeName[] = DATATYPE_NAMES.filter(
  (n): n is PairTypeName => TYPES[n].kind === 'pair',
);

/** Look up a datatype by name (or pass a Datatype through). */
export function datatype(name: DatatypeName | Datatype): Datatype {
  if (typeof name !== 'string') return name;
  const t = (TYPES as Record<string, Datatype | undefined>)[name];
  if (!t) {
    throw new DatatypeError(`unknown datatype '${String(name)}'`, `use one of: ${DATATYPE_NAMES.join(', ')}`);
  }
  return t;
}

/** The datatype matching a typed array (float64 for Float64Array, ...). */
export function datatypeOf(view: ArrayBufferView): Datatype {
  if (view instanceof Float64Array) return TYPES.float64;
  if (view instanceof Float32Array) return TYPES.float32;
  if (view instanceof Int32Array) return TYPES.int32;
  if (view instanceof Uint32Array) return TYPES.uint32;
  if (view instanceof Int16Array) return TYPES.int16;
  if (view instanceof Uint16Array) return TYPES.uint16;
  if (view instanceof Int8Array) return TYPES.int8;
  if (view instanceof Uint8Array || view instanceof Uint8ClampedArray) return TYPES.uint8;
  if (view instanceof BigInt64Array) return TYPES.int64;
  if (view instanceof BigUint64Array) return TYPES.uint64;
  throw new DatatypeError(
    `cannot infer a datatype from ${view.constructor.name}`,
    'pass { datatype } explicitly (pair types need it)',
  );
}

/** Allocate `count` elements of `type`, optionally in shared memory. */
export function allocate(type: DatatypeName | Datatype, count: number, shared = false): Uint8Array {
  const t = datatype(type);
  if (!Number.isSafeInteger(count) || count < 0) {
    throw new ArgumentError(`count must be a non-negative integer, got ${String(count)}`);
  }
  const bytes = count * t.size;
  return new Uint8Array(shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes));
}

/** A typed view of the value lane for scalar types over an arbitrary byte view. */
export function typedView(type: DatatypeName | Datatype, view: ArrayBufferView, count?: number): TypedArray {
  const t = datatype(type);
  if (t.kind === 'pair') throw new DatatypeError(`typedView() is for scalar types, got ${t.name}`);
  const n = count ?? Math.floor(view.byteLength / t.size);
  if (view.byteOffset % t.size !== 0) {
    throw new DatatypeError(`buffer byte offset ${view.byteOffset} is not aligned to ${t.name} (${t.size} bytes)`);
  }
  return new t.valueArray(view.buffer, view.byteOffset, n);
}

/** Read element `i` of a buffer holding `type` elements (slow path, for tests and tools). */
export function getElement(type: DatatypeName | Datatype, view: ArrayBufferView, i: number): ElementValue {
  const t = datatype(type);
  const dv = new DataView(view.buffer, view.byteOffset, view.byteLength);
  const off = i * t.size;
  const value = readScalar(t, dv, off);
  if (t.kind !== 'pair') return value;
  return { value, index: dv.getInt32(off + t.indexOffset, true) };
}

/** Write element `i` of a buffer holding `type` elements (slow path, for tests and tools). */
export function setElement(type: DatatypeName | Datatype, view: ArrayBufferView, i: number, v: ElementValue): void {
  const t = datatype(type);
  const dv = new DataView(view.buffer, view.byteOffset, view.byteLength);
  const off = i * t.size;
  if (t.kind === 'pair') {
    if (typeof v !== 'object') throw new DatatypeError(`${t.name} elements are { value, index } pairs`);
    writeScalar(t, dv, off, v.value);
    dv.setInt32(off + t.indexOffset, v.index, true);
  } else {
    if (typeof v === 'object') throw new DatatypeError(`${t.name} elements are scalars, got a pair`);
    writeScalar(t, dv, off, v);
  }
}

function readScalar(t: Datatype, dv: DataView, off: number): number | bigint {
  switch (t.valueArray.BYTES_PER_ELEMENT) {
    case 1:
      return t.kind === 'uint' ? dv.getUint8(off) : dv.getInt8(off);
    case 2:
      return t.kind === 'uint' ? dv.getUint16(off, true) : dv.getInt16(off, true);
    case 4:
      if (t.name === 'float32' || t.name === 'float32_int32') return dv.getFloat32(off, true);
      return t.kind === 'uint' ? dv.getUint32(off, true) : dv.getInt32(off, true);
    default:
      if (t.name === 'float64' || t.name === 'float64_int32') return dv.getFloat64(off, true);
      return t.kind === 'uint' ? dv.getBigUint64(off, true) : dv.getBigInt64(off, true);
  }
}

function writeScalar(t: Datatype, dv: DataView, off: number, v: number | bigint): void {
  if (t.bigint) {
    const b = typeof v === 'bigint' ? v : BigInt(Math.trunc(v));
    if (t.kind === 'uint') dv.setBigUint64(off, b, true);
    else dv.setBigInt64(off, b, true);
    return;
  }
  const n = typeof v === 'bigint' ? Number(v) : v;
  switch (t.valueArray.BYTES_PER_ELEMENT) {
    case 1:
      if (t.kind === 'uint') dv.setUint8(off, n);
      else dv.setInt8(off, n);
      return;
    case 2:
      if (t.kind === 'uint') dv.setUint16(off, n, true);
      else dv.setInt16(off, n, true);
      return;
    case 4:
      if (t.name === 'float32' || t.name === 'float32_int32') dv.setFloat32(off, n, true);
      else if (t.kind === 'uint') dv.setUint32(off, n, true);
      else dv.setInt32(off, n, true);
      return;
    default:
      dv.setFloat64(off, n, true);
  }
}

/** Check that `view` holds at least `count` elements of `type`. */
export function checkBuffer(name: string, type: Datatype, view: ArrayBufferView, count: number): void {
  if (!ArrayBuffer.isView(view)) {
    throw new ArgumentError(`${name} must be a typed array or DataView`);
  }
  const need = count * type.size;
  if (view.byteLength < need) {
    throw new ArgumentError(
      `${name} is too small: ${count} element(s) of ${type.name} need ${need} bytes, the buffer has ${view.byteLength}`,
      'allocate a larger buffer or pass a smaller count',
    );
  }
  const align = type.kind === 'pair' ? type.valueArray.BYTES_PER_ELEMENT : type.size;
  if (view.byteOffset % align !== 0) {
    throw new ArgumentError(`${name} byte offset ${view.byteOffset} is not aligned to ${type.name} (${align} bytes)`);
  }
}
