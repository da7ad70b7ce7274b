/**
 * Call signatures: every field a rank must agree on changes the signature (flat
 * words and the 16-bit wire hash), equal calls give equal signatures, and the
 * description decodes what was packed.
 */
import { describe, expect, it } from 'vitest';
import { datatype, op } from '../../src/index.js';
import { callSignature, describeSignature } from '../../src/exec/call-signature.js';

const i32 = datatype('int32');
const f32 = datatype('float32');
const sum = op('sum');
const max = op('max');

describe('callSignature', () => {
  const base = callSignature('allreduce', 4, i32, sum, 0, 'allreduce/ring');
  it('is equal for equal calls and never zero', () => {
    expect(callSignature('allreduce', 4, i32, sum, 0, 'allreduce/ring')).toEqual(base);
    expect(base.meta).not.toBe(0);
    expect(base.wire).not.toBe(0);
    expect(base.wire).toBeLessThan(1 << 16);
  });
  it('differs in every field a rank must agree on', () => {
    const variants = [
      callSignature('allreduce', 5, i32, sum, 0, 'allreduce/ring'),
      callSignature('allreduce', 4, f32, sum, 0, 'allreduce/ring'),
      callSignature('allreduce', 4, i32, max, 0, 'allreduce/ring'),
      callSignature('reduce', 4, i32, sum, 0, 'allreduce/ring'),
      callSignature('allreduce', 4, i32, sum, 0, 'allreduce/recursive_doubling'),
    ];
    for (const v of variants) expect(v.wire, JSON.stringify(v)).not.toBe(base.wire);
    for (const v of variants.slice(0, 4)) expect([v.meta, v.count, v.root]).not.toEqual([base.meta, base.count, base.root]);
    expect(callSignature('bcast', 4, i32, undefined, 1).root).toBe(1);
    expect(callSignature('bcast', 4, i32, undefined, 1).wire).not.toBe(callSignature('bcast', 4, i32, undefined, 0).wire);
  });
  it('ignores what a collective does not use (root of unrooted, op of non-reductions, everything of barrier)', () => {
    expect(callSignature('allreduce', 4, i32, sum, 3)).toEqual(callSignature('allreduce', 4, i32, sum, 0));
    expect(callSignature('bcast', 4, i32, sum, 0)).toEqual(callSignature('bcast', 4, i32, undefined, 0));
    expect(callSignature('barrier', 0, i32, undefined, 0)).toEqual(callSignature('barrier', 7, f32, undefined, 2));
  });
  it('describes what it packed', () => {
    const s = callSignature('reduce', 6, f32, max, 2);
    expect(describeSignature(s.meta, s.count, s.root)).toBe('reduce(count=6, datatype=float32, op=max, root=2)');
    const b = callSignature('barrier', 0, i32, undefined, 0);
    expect(describeSignature(b.meta, b.count, b.root)).toBe('barrier()');
  });
});
