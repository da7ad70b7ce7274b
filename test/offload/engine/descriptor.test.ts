/** Offload descriptor packing: property-based round trip and rejection of out-of-range fields. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DATATYPE_NAMES } from '../../../src/core/datatypes.js';
import { ArgumentError, DatatypeError, OpError } from '../../../src/core/errors.js';
import { BUILTIN_OP_NAMES } from '../../../src/core/ops.js';
import { COLLECTIVES } from '../../../src/schedule/types.js';
import {
  DESCRIPTOR_WORDS, MAX_WORD, decodeControl, encodeControl, readDescriptor, writeDescriptor, type Descriptor,
} from '../../../src/offload/engine/descriptor.js';

const word = fc.integer({ min: 0, max: MAX_WORD });
const descriptor: fc.Arbitrary<Descriptor> = fc.record({
  kind: fc.constantFrom(...COLLECTIVES),
  op: fc.constantFrom(...BUILTIN_OP_NAMES),
  datatype: fc.constantFrom(...DATATYPE_NAMES),
  channel: fc.integer({ min: 0, max: 15 }),
  cacheSlot: fc.integer({ min: 0, max: 31 }),
  inPlace: fc.boolean(),
  mode: fc.constantFrom('all-nic' as const, 'intermediate-only' as const),
  command: fc.constantFrom('collective' as const, 'register' as const, 'release' as const),
  count: word, root: word, sendOffset: word, recvOffset: word, tag: word, timeoutMs: word, options: word,
});
const base: Descriptor = {
  kind: 'allreduce', op: 'sum', datatype: 'float64', channel: 0, cacheSlot: 0, inPlace: false, mode: 'all-nic', command: 'collective',
  count: 1, root: 0, sendOffset: 0, recvOffset: 64, tag: 0, timeoutMs: 0, options: 0,
};

describe('offload descriptor', () => {
  it('round-trips every field combination through a SharedArrayBuffer slot', () => {
    const i32 = new Int32Array(new SharedArrayBuffer(64 * 4));
    fc.assert(fc.property(descriptor, fc.integer({ min: 0, max: 64 - DESCRIPTOR_WORDS }), (d, at) => {
      writeDescriptor(i32, at, d);
      expect(readDescriptor(i32, at)).toEqual(d);
      expect(decodeControl(encodeControl(d))).toEqual({
        kind: d.kind, op: d.op, datatype: d.datatype, channel: d.channel, cacheSlot: d.cacheSlot, inPlace: d.inPlace, mode: d.mode, command: d.command,
      });
      expect(encodeControl(d) >>> 25).toBe(0); // reserved bits 25..31
    }), { numRuns: 2000 });
  });

  it('exhaustively encodes kind × op × datatype distinctly', () => {
    const seen = new Set<number>();
    for (const kind of COLLECTIVES) for (const op of BUILTIN_OP_NAMES) for (const datatype of DATATYPE_NAMES) {
      seen.add(encodeControl({ ...base, kind, op, datatype }));
    }
    expect(seen.size).toBe(COLLECTIVES.length * BUILTIN_OP_NAMES.length * DATATYPE_NAMES.length);
  });

  it('rejects out-of-range numeric fields with ArgumentError', () => {
    const i32 = new Int32Array(new SharedArrayBuffer(48));
    const bad: Partial<Descriptor>[] = [
      { channel: 16 }, { channel: -1 }, { channel: 1.5 }, { cacheSlot: 32 }, { cacheSlot: -1 },
      { count: -1 }, { count: 2 ** 31 }, { count: NaN }, { root: -1 }, { sendOffset: 2 ** 31 }, { recvOffset: -4 }, { tag: -1 }, { timeoutMs: 2 ** 31 }, { options: 0.5 },
    ];
    for (const b of bad) expect(() => writeDescriptor(i32, 0, { ...base, ...b })).toThrow(ArgumentError);
    fc.assert(fc.property(fc.integer({ min: 16, max: 1e6 }), (c) => {
      expect(() => encodeControl({ ...base, channel: c })).toThrow(/channel must be an integer in 0..15/);
    }));
    expect(() => writeDescriptor(i32, 5, base)).toThrow(ArgumentError); // does not fit
    expect(() => writeDescriptor(i32, -1, base)).toThrow(ArgumentError);
  });

  it('rejects unknown names with typed errors', () => {
    expect(() => encodeControl({ ...base, op: 'myop' as never })).toThrow(OpError);
    expect(() => encodeControl({ ...base, datatype: 'float16' as never })).toThrow(DatatypeError);
    expect(() => encodeControl({ ...base, kind: 'allgatherv' as never })).toThrow(ArgumentError);
    expect(() => encodeControl({ ...base, mode: 'nic' as never })).toThrow(ArgumentError);
    expect(() => encodeControl({ ...base, command: 'run' as never })).toThrow(ArgumentError);
  });

  it('rejects corrupt words on decode', () => {
    expect(() => decodeControl(1 << 25)).toThrow(/reserved bits/);
    expect(decodeControl(1 << 23).command).toBe('register');
    expect(decodeControl(2 << 23).command).toBe('release');
    expect(() => decodeControl(3 << 23)).toThrow(/command index 3/);
    expect(() => decodeControl(-1)).toThrow(ArgumentError);
    expect(() => decodeControl(0xf)).toThrow(/kind index 15/); // only 11 collectives
    expect(() => decodeControl(0xf << 8)).toThrow(/datatype index 15/);
    const i32 = new Int32Array(new SharedArrayBuffer(48));
    writeDescriptor(i32, 0, base);
    i32[1] = -5;
    expect(() => readDescriptor(i32, 0)).toThrow(/count/);
  });
});
