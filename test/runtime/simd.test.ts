/** The WebAssembly SIMD sum kernels equal the core kernels bit for bit, tails included. */
import { describe, expect, it } from 'vitest';
import { datatype, op } from '../../src/core/index.js';
import { prng } from '../../src/reference/executor.js';
import { ArenaSimd, arenaMemory } from '../../src/exec/simd.js';

describe('ArenaSimd', () => {
  const memory = arenaMemory(1 << 20);
  const simd = ArenaSimd.create(memory);
  it('is available (WebAssembly SIMD and shared memory)', () => {
    expect(simd).toBeDefined();
  });
  for (const name of ['float64', 'float32'] as const) {
    it(`${name} sum matches the core kernel on arena operands, any length and offset`, () => {
      const t = datatype(name);
      const core = op('sum').kernel(t);
      const fast = (simd as ArenaSimd).arenaSum(t, core);
      const rand = prng(7);
      const arena = memory.buffer;
      for (const n of [0, 1, 63, 64, 65, 127, 1000, 4099]) {
        for (const shift of [0, 1, 3]) {
          const off = (k: number): number => k * 65536 + shift * t.size;
          const a = new t.valueArray(arena, off(0), n);
          const b = new t.valueArray(arena, off(1), n);
          for (let i = 0; i < n; i++) {
            (a as Float64Array)[i] = (rand() - 0.5) * 10 ** Math.floor(rand() * 20 - 10);
            (b as Float64Array)[i] = (rand() - 0.5) * 10 ** Math.floor(rand() * 20 - 10);
          }
          const out1 = new Uint8Array(arena, off(2), n * t.size);
          const out2 = new Uint8Array(n * t.size);
          fast(out1, a, b, n);
          core(out2, new Uint8Array(a.buffer, a.byteOffset, n * t.size).slice(), new Uint8Array(b.buffer, b.byteOffset, n * t.size).slice(), n);
          expect(Buffer.from(out1).equals(Buffer.from(out2)), `${name} n=${n} shift=${shift}`).toBe(true);
        }
      }
    });
  }
  it('leaves other types and non-arena operands to the core kernel', () => {
    const core = op('sum').kernel(datatype('int32'));
    expect((simd as ArenaSimd).arenaSum(datatype('int32'), core)).toBe(core);
    const f = (simd as ArenaSimd).arenaSum(datatype('float64'), op('sum').kernel(datatype('float64')));
    const x = Float64Array.from({ length: 100 }, (_, i) => i);
    const out = new Float64Array(100);
    f(out, x, x, 100);
    expect(out[99]).toBe(198);
  });
});
