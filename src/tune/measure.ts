/**
 * In-process measurements for `coll fit`: timing of the real reduction kernels of
 * src/core (per operator and datatype) and of memory copies. Each sample repeats the
 * operation until at least `minSeconds` have elapsed and reports the time per call;
 * the best of `trials` runs is kept (after one discarded warm-up run), which is the
 * usual way to filter out interference on a shared machine.
 */
import { allocate, datatype as lookupDatatype, op as lookupOp, resolveKernel, type DatatypeName } from '../core/index.js';
import type { Sample } from './fit.js';

export interface TimingOptions {
  /** Minimum wall time per sample (s), default 2 ms. */
  minSeconds?: number;
  /** Timed runs per sample (best kept), default 3. */
  trials?: number;
}

const now = (): number => Number(process.hrtime.bigint()) / 1e9;

/** Seconds per call of fn (best of trials, one warm-up run discarded). */
export function timeIt(fn: () => void, o: TimingOptions = {}): number {
  const minSeconds = o.minSeconds ?? 2e-3;
  const trials = o.trials ?? 3;
  let best = Infinity;
  for (let t = 0; t <= trials; t++) {
    let iters = 0;
    const t0 = now();
    let el = 0;
    let batch = 1;
    do {
      for (let i = 0; i < batch; i++) fn();
      iters += batch;
      batch *= 2;
      el = now() - t0;
    } while (el < minSeconds);
    if (t > 0) best = Math.min(best, el / iters);
  }
  return best;
}

/** Every (operator, datatype) pair the built-in kernels support, as "op/dtype". */
export function supportedPairs(ops: readonly string[], dtypes: readonly string[]): { op: string; dtype: DatatypeName }[] {
  const out: { op: string; dtype: DatatypeName }[] = [];
  for (const o of ops) {
    for (const d of dtypes) {
      const dt = lookupDatatype(d as DatatypeName);
      if (lookupOp(o).supports(dt)) out.push({ op: o, dtype: dt.name });
    }
  }
  return out;
}

/** Time to combine two vectors of n elements (out = a ∘ b) for each n. */
export function measureReduce(op: string, dtype: DatatypeName, counts: readonly number[], o: TimingOptions = {}): Sample[] {
  const k = resolveKernel(op, dtype);
  const dt = lookupDatatype(dtype);
  const max = Math.max(...counts);
  const a = allocate(dt, max);
  const b = allocate(dt, max);
  const out = allocate(dt, max);
  // Small non-zero values so arithmetic is not on zeros / denormals.
  const va = new dt.valueArray(a.buffer, a.byteOffset, max);
  const vb = new dt.valueArray(b.buffer, b.byteOffset, max);
  for (let i = 0; i < max; i++) {
    const x = (i % 7) + 1;
    (va as unknown as { [i: number]: number | bigint })[i] = dt.bigint ? BigInt(x) : x;
    (vb as unknown as { [i: number]: number | bigint })[i] = dt.bigint ? BigInt(x + 1) : x + 1;
  }
  return counts.map((n) => ({ x: n, seconds: timeIt(() => k(out, a, b, n), o) }));
}

/** Time to copy b bytes (typed-array set, as the runtime's copy steps do). */
export function measureCopy(sizes: readonly number[], o: TimingOptions = {}): Sample[] {
  const max = Math.max(...sizes);
  const src = new Uint8Array(max).fill(7);
  const dst = new Uint8Array(max);
  return sizes.map((b) => ({ x: b, seconds: timeIt(() => dst.set(src.subarray(0, b)), o) }));
}
