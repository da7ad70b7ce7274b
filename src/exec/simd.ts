/**
 * WebAssembly SIMD sum kernels over the node arena.
 *
 * The arena is the buffer of a shared WebAssembly.Memory, so a tiny hand-assembled
 * module (no toolchain, no dependency) can add vectors that live in it in place:
 * f64x2 / f32x4 lanes, a scalar tail. A JS loop adds about one float64 per 2 ns;
 * the SIMD loop is several times faster, which is what large reductions on shared
 * buffers are bound by. Results are bit-identical to the core kernels
 * (IEEE-754 addition per element, o[i] = a[i] + b[i]).
 *
 * `arenaSum(type, kernel)` wraps the core sum kernel: it runs the SIMD code when all
 * three operands are views of the arena and falls back to the core kernel otherwise.
 */
import type { Datatype } from '../core/datatypes.js';
import type { Kernel } from '../core/ops.js';

function leb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}

const section = (id: number, bytes: number[]): number[] => [id, ...leb(bytes.length), ...bytes];
const name = (s: string): number[] => [s.length, ...[...s].map((c) => c.charCodeAt(0))];

/**
 * Body of add(dst, a, b, n) for one lane type: byte counter i (local 4), end = n << shift
 * (local 5); 16 bytes per SIMD step, then one scalar element at a time.
 */
function addBody(shift: number, simdAdd: number[], scalarLoad: number, scalarAdd: number, scalarStore: number): number[] {
  const get = 0x20;
  const set = 0x21;
  const align = shift;
  const addr = (base: number): number[] => [get, base, get, 4, 0x6a];
  const body = [
    0x01, 0x02, 0x7f, // locals: 2 × i32
    get, 3, 0x41, shift, 0x74, set, 5, // end = n << shift
    0x02, 0x40, 0x03, 0x40, // block, loop
    get, 4, 0x41, 16, 0x6a, get, 5, 0x4b, 0x0d, 1, // if (i + 16 > end) break
    ...addr(0),
    ...addr(1), 0xfd, 0x00, align, 0, // v128.load
    ...addr(2), 0xfd, 0x00, align, 0,
    ...simdAdd,
    0xfd, 0x0b, align, 0, // v128.store
    get, 4, 0x41, 16, 0x6a, set, 4, // i += 16
    0x0c, 0, // continue
    0x0b, 0x0b,
    0x02, 0x40, 0x03, 0x40, // scalar tail
    get, 4, get, 5, 0x4f, 0x0d, 1, // if (i >= end) break
    ...addr(0),
    ...addr(1), scalarLoad, align, 0,
    ...addr(2), scalarLoad, align, 0,
    scalarAdd,
    scalarStore, align, 0,
    get, 4, 0x41, 1 << shift, 0x6a, set, 4,
    0x0c, 0,
    0x0b, 0x0b,
    0x0b,
  ];
  return [...leb(body.length), ...body];
}

function moduleBytes(): Uint8Array {
  const f64 = addBody(3, [0xfd, 0xf0, 0x01], 0x2b, 0xa0, 0x39);
  const f32 = addBody(2, [0xfd, 0xe4, 0x01], 0x2a, 0x92, 0x38);
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 4, 0x7f, 0x7f, 0x7f, 0x7f, 0]),
    ...section(2, [1, ...name('e'), ...name('m'), 2, 3, ...leb(1), ...leb(65536)]),
    ...section(3, [2, 0, 0]),
    ...section(7, [2, ...name('add_f64'), 0, 0, ...name('add_f32'), 0, 1]),
    ...section(10, [2, ...f64, ...f32]),
  ]);
}

type AddFn = (dst: number, a: number, b: number, n: number) => void;

/** A shared WebAssembly.Memory (only what is used here: the ES lib typings do not declare WebAssembly). */
export interface SharedMemory {
  readonly buffer: ArrayBufferLike;
}

interface WasmApi {
  Memory: new (d: { initial: number; maximum: number; shared: boolean }) => SharedMemory;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (m: object, imports: object) => { exports: Record<string, unknown> };
}

const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** The node arena: a shared WebAssembly.Memory of `bytes` (rounded up to 64 KiB pages). */
export function arenaMemory(bytes: number): SharedMemory {
  const pages = Math.max(1, Math.ceil(bytes / 65536));
  return new wasm.Memory({ initial: pages, maximum: pages, shared: true });
}

export class ArenaSimd {
  private constructor(
    private readonly arena: ArrayBufferLike,
    private readonly addF64: AddFn,
    private readonly addF32: AddFn,
  ) {}

  /** Instantiate over a shared memory; undefined where WebAssembly SIMD is unavailable. */
  static create(memory: SharedMemory | undefined): ArenaSimd | undefined {
    if (!memory) return undefined;
    try {
      const mod = new wasm.Module(moduleBytes());
      const inst = new wasm.Instance(mod, { e: { m: memory } });
      const ex = inst.exports as { add_f64: AddFn; add_f32: AddFn };
      return new ArenaSimd(memory.buffer, ex.add_f64, ex.add_f32);
    } catch {
      return undefined;
    }
  }

  /** The sum kernel for `type`, accelerated on arena operands; other types keep `kernel`. */
  arenaSum(type: Datatype, kernel: Kernel): Kernel {
    const add = type.name === 'float64' ? this.addF64 : type.name === 'float32' ? this.addF32 : undefined;
    if (!add) return kernel;
    const arena = this.arena;
    return (out, a, b, n) => {
      if (n >= 64 && out.buffer === arena && a.buffer === arena && b.buffer === arena) add(out.byteOffset, a.byteOffset, b.byteOffset, n);
      else kernel(out, a, b, n);
    };
  }
}
