/**
 * A fixed-size bit vector with a population count: the "status bit vector" of the
 * NIC send records (seed 003 ch. 6, M5 and M15). Setting a bit reports whether it
 * was new, so the arrival counter and the vector stay consistent.
 */
export class BitVector {
  private readonly words: Uint32Array;
  private ones = 0;

  constructor(readonly length: number) {
    this.words = new Uint32Array(Math.ceil(length / 32));
  }

  get(i: number): boolean {
    this.check(i);
    return (this.words[i >>> 5] & (1 << (i & 31))) !== 0;
  }

  /** Set bit i; true if it was clear. */
  set(i: number): boolean {
    if (this.get(i)) return false;
    this.words[i >>> 5] |= 1 << (i & 31);
    this.ones++;
    return true;
  }

  /** Number of set bits. */
  get count(): number {
    return this.ones;
  }

  get full(): boolean {
    return this.ones === this.length;
  }

  clear(): void {
    this.words.fill(0);
    this.ones = 0;
  }

  /** Indices of the clear bits, ascending (the timeout scan). */
  missing(): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.length; i++) if (!this.get(i)) out.push(i);
    return out;
  }

  private check(i: number): void {
    if (!Number.isInteger(i) || i < 0 || i >= this.length) throw new RangeError(`bit ${i} out of range [0, ${this.length})`);
  }
}
