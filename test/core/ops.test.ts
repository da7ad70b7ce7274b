/**
 * Reduction kernels against an independent scalar reference: integers computed
 * exactly with BigInt and wrapped to the type's width, floats in double precision
 * (rounded to float32 where needed), MINLOC/MAXLOC by explicit comparison.
 */
import { describe, expect, it } from 'vitest';
import {
  allocate,
  BUILTIN_OP_NAMES,
  checkBuffer,
  datatype,
  datatypeOf,
  DATATYPE_NAMES,
  DatatypeError,
  defineOp,
  getElement,
  op,
  OpError,
  PAIR_TYPE_NAMES,
  resolveKernel,
  SCALAR_TYPE_NAMES,
  setElement,
  typedView,
  undefineOp,
  ArgumentError,
  type Datatype,
  type PairValue,
} from '../../src/core/index.js';
import { prng } from '../../src/reference/executor.js';

const BITS: Record<string, number> = { int8: 8, int16: 16, int32: 32, int64: 64, uint8: 8, uint16: 16, uint32: 32, uint64: 64 };

function refInt(opName: string, t: Datatype, a: bigint, b: bigint): bigint {
  const bits = BITS[t.name];
  const wrap = (x: bigint): bigint => (t.kind === 'uint' ? BigInt.asUintN(bits, x) : BigInt.asIntN(bits, x));
  const bool = (x: boolean): bigint => (x ? 1n : 0n);
  switch (opName) {
    case 'sum': return wrap(a + b);
    case 'prod': return wrap(a * b);
    case 'min': return a < b ? a : b;
    case 'max': return a > b ? a : b;
    case 'land': return bool(a !== 0n && b !== 0n);
    case 'lor': return bool(a !== 0n || b !== 0n);
    case 'lxor': return bool((a !== 0n) !== (b !== 0n));
    case 'band': return wrap(a & b);
    case 'bor': return wrap(a | b);
    case 'bxor': return wrap(a ^ b);
    default: throw new Error(opName);
  }
}

function refFloat(opName: string, t: Datatype, a: number, b: number): number {
  const r = (x: number): number => (t.name === 'float32' ? Math.fround(x) : x);
  switch (opName) {
    case 'sum': return r(a + b);
    case 'prod': return r(a * b);
    case 'min': return a < b ? a : b;
    case 'max': return a > b ? a : b;
    default: throw new Error(opName);
  }
}

function randomValue(t: Datatype, rand: () => number): number | bigint {
  if (t.kind === 'float') {
    const v = (rand() - 0.5) * 1e6;
    return t.name === 'float32' ? Math.fround(v) : v;
  }
  const bits = BITS[t.name];
  let x = 0n;
  for (let i = 0; i < bits; i += 16) x = (x << 16n) | BigInt(Math.floor(rand() * 65536));
  // Mix in small values and zero so logical operators see both truth values.
  if (rand() < 0.3) x = BigInt(Math.floor(rand() * 3));
  const w = t.kind === 'uint' ? BigInt.asUintN(bits, x) : BigInt.asIntN(bits, x);
  return t.bigint ? w : Number(w);
}

describe('builtin kernels vs scalar reference', () => {
  for (const name of SCALAR_TYPE_NAMES) {
    const t = datatype(name);
    for (const opName of BUILTIN_OP_NAMES) {
      if (opName === 'noop' || opName === 'minloc' || opName === 'maxloc') continue;
      const integerOnly = ['land', 'lor', 'lxor', 'band', 'bor', 'bxor'].includes(opName);
      if (t.kind === 'float' && integerOnly) {
        it(`rejects ${opName} on ${name}`, () => {
          expect(() => resolveKernel(opName, name)).toThrow(OpError);
          expect(() => resolveKernel(opName, name)).toThrow(/integer types/);
        });
        continue;
      }
      it(`${opName} on ${name}`, () => {
        const rand = prng(name.length * 131 + opName.length);
        const n = 257;
        const a = allocate(t, n);
        const b = allocate(t, n);
        for (let i = 0; i < n; i++) {
          setElement(t, a, i, randomValue(t, rand));
          setElement(t, b, i, randomValue(t, rand));
        }
        const out = allocate(t, n);
        resolveKernel(opName, t)(out, a, b, n);
        for (let i = 0; i < n; i++) {
          const x = getElement(t, a, i) as number | bigint;
          const y = getElement(t, b, i) as number | bigint;
          const want = t.kind === 'float' ? refFloat(opName, t, Number(x), Number(y)) : refInt(opName, t, BigInt(x), BigInt(y));
          const got = getElement(t, out, i) as number | bigint;
          expect(t.kind === 'float' ? got : BigInt(got), `${opName}(${x}, ${y})`).toBe(want);
        }
        // In place: out aliases the first operand.
        resolveKernel(opName, t)(a, a, b, n);
        expect(Buffer.from(a).equals(Buffer.from(out))).toBe(true);
      });
    }
  }

  for (const name of PAIR_TYPE_NAMES) {
    const t = datatype(name);
    for (const opName of ['minloc', 'maxloc'] as const) {
      it(`${opName} on ${name} (ties pick the smaller index)`, () => {
        const n = 64;
        const rand = prng(7);
        const a = allocate(t, n);
        const b = allocate(t, n);
        const mk = (): PairValue => {
          const v = Math.floor(rand() * 4) - 2;
          return { value: t.bigint ? BigInt(v) : v, index: Math.floor(rand() * 5) };
        };
        for (let i = 0; i < n; i++) {
          setElement(t, a, i, mk());
          setElement(t, b, i, mk());
        }
        const out = allocate(t, n);
        op(opName).kernel(t)(out, a, b, n);
        for (let i = 0; i < n; i++) {
          const x = getElement(t, a, i) as PairValue;
          const y = getElement(t, b, i) as PairValue;
          const better = opName === 'minloc' ? x.value < y.value : x.value > y.value;
          const want = better || (x.value === y.value && x.index <= y.index) ? x : y;
          expect(getElement(t, out, i)).toEqual(want);
        }
      });
    }
    it(`rejects sum on ${name}`, () => expect(() => resolveKernel('sum', name)).toThrow(OpError));
  }

  it('minloc is rejected on scalar types', () => expect(() => resolveKernel('minloc', 'float64')).toThrow(/pair types/));

  it('noop copies the first operand and works for every datatype', () => {
    for (const name of DATATYPE_NAMES) {
      const t = datatype(name);
      const a = allocate(t, 3);
      a.fill(7);
      const out = allocate(t, 3);
      op('noop').kernel(t)(out, a, allocate(t, 3), 3);
      expect([...out]).toEqual([...a]);
    }
  });
});

describe('operators and datatypes: lookups and errors', () => {
  it('unknown names give clear errors', () => {
    expect(() => op('average')).toThrow(/unknown reduction operator 'average'/);
    expect(() => datatype('float16' as never)).toThrow(DatatypeError);
    expect(() => datatype('float16' as never)).toThrow(/float64/);
  });

  it('user-defined operators: elementwise and vector forms, commutative flag, type checks', () => {
    const absMax = defineOp('test.absmax', { commutative: true, combine: (a, b) => (Math.abs(Number(a)) >= Math.abs(Number(b)) ? a : b) });
    const sub = defineOp('test.sub', {
      commutative: false,
      datatypes: ['float64'],
      kernel: (out, a, b, n) => {
        for (let i = 0; i < n; i++) (out as Float64Array)[i] = (a as Float64Array)[i] - (b as Float64Array)[i];
      },
    });
    try {
      expect(absMax.commutative).toBe(true);
      expect(sub.commutative).toBe(false);
      const x = Float64Array.of(1, -5, 3);
      const y = Float64Array.of(-2, 4, 3);
      const out = new Float64Array(3);
      absMax.kernel(datatype('float64'))(out, x, y, 3);
      expect([...out]).toEqual([-2, -5, 3]);
      sub.kernel(datatype('float64'))(out, x, y, 3);
      expect([...out]).toEqual([3, -9, 0]);
      expect(() => sub.kernel(datatype('int32'))).toThrow(/not defined for datatype int32/);
      expect(op('test.sub')).toBe(sub);
      expect(() => defineOp('sum', { commutative: true, combine: (a) => a })).toThrow(/built-in/);
      expect(() => defineOp('test.bad', { commutative: true })).toThrow(/exactly one/);
    } finally {
      undefineOp('test.absmax');
      undefineOp('test.sub');
    }
  });

  it('datatypeOf infers scalar types from typed arrays', () => {
    expect(datatypeOf(new Float64Array(1)).name).toBe('float64');
    expect(datatypeOf(new BigUint64Array(1)).name).toBe('uint64');
    expect(datatypeOf(new Int8Array(1)).name).toBe('int8');
    expect(() => datatypeOf(new DataView(new ArrayBuffer(8)))).toThrow(/pass \{ datatype \}/);
  });

  it('checkBuffer reports size and alignment problems', () => {
    const t = datatype('float64');
    expect(() => checkBuffer('sendbuf', t, new Float64Array(3), 4)).toThrow(ArgumentError);
    expect(() => checkBuffer('sendbuf', t, new Float64Array(3), 4)).toThrow(/4 element\(s\) of float64 need 32 bytes, the buffer has 24/);
    expect(() => checkBuffer('sendbuf', t, new Uint8Array(new ArrayBuffer(40), 4, 32), 4)).toThrow(/not aligned/);
    expect(() => checkBuffer('sendbuf', t, new Float64Array(4), 4)).not.toThrow();
  });

  it('pair layouts match the MPI C structs', () => {
    expect(datatype('float64_int32').size).toBe(16);
    expect(datatype('float32_int32').size).toBe(8);
    expect(datatype('int32_int32').size).toBe(8);
    expect(datatype('int64_int32').size).toBe(16);
    const buf = allocate('float64_int32', 2);
    setElement('float64_int32', buf, 1, { value: 2.5, index: 9 });
    const dv = new DataView(buf.buffer);
    expect(dv.getFloat64(16, true)).toBe(2.5);
    expect(dv.getInt32(24, true)).toBe(9);
  });

  it('typedView and allocate', () => {
    const b = allocate('int32', 4, true);
    expect(b.buffer).toBeInstanceOf(SharedArrayBuffer);
    const v = typedView('int32', b);
    expect(v).toBeInstanceOf(Int32Array);
    expect(v.length).toBe(4);
    expect(() => allocate('int32', -1)).toThrow(ArgumentError);
  });
});
