/**
 * Splitting a vector of `count` elements into `parts` nearly equal blocks: the first
 * (count mod parts) blocks get one extra element. Block i covers
 * [blockOffset(i), blockOffset(i) + blockCount(i)).
 */
export function blockCount(count: number, parts: number, i: number): number {
  const base = Math.floor(count / parts);
  return base + (i < count % parts ? 1 : 0);
}

export function blockOffset(count: number, parts: number, i: number): number {
  const base = Math.floor(count / parts);
  const rem = count % parts;
  return i * base + Math.min(i, rem);
}

/** Offset and count of the contiguous range covering blocks [first, first+n). */
export function blockRange(count: number, parts: number, first: number, n: number): { offset: number; count: number } {
  const offset = blockOffset(count, parts, first);
  return { offset, count: blockOffset(count, parts, first + n) - offset };
}

export function isPowerOfTwo(n: number): boolean {
  return n > 0 && (n & (n - 1)) === 0;
}

/** Largest power of two ≤ n (n ≥ 1). */
export function floorPow2(n: number): number {
  let p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

/** ⌈log_k n⌉ for n ≥ 1, k ≥ 2, in exact integer arithmetic. */
export function ceilLog(n: number, k = 2): number {
  let steps = 0;
  for (let span = 1; span < n; span *= k) steps++;
  return steps;
}
