/**
 * A binary min-heap of (time, key) pairs in typed arrays, for the DAG evaluator's
 * event queue: ordered by time, then by key (smaller first). No per-event objects.
 */
export class EventHeap {
  private t = new Float64Array(1024);
  private k = new Float64Array(1024);
  private n = 0;

  get size(): number {
    return this.n;
  }

  push(time: number, key: number): void {
    if (this.n === this.t.length) {
      const t = new Float64Array(this.n * 2);
      const k = new Float64Array(this.n * 2);
      t.set(this.t);
      k.set(this.k);
      this.t = t;
      this.k = k;
    }
    const T = this.t;
    const K = this.k;
    let i = this.n++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (T[p] < time || (T[p] === time && K[p] <= key)) break;
      T[i] = T[p];
      K[i] = K[p];
      i = p;
    }
    T[i] = time;
    K[i] = key;
  }

  /** Time of the smallest element (undefined when empty). */
  peekTime(): number | undefined {
    return this.n > 0 ? this.t[0] : undefined;
  }

  /** Key of the smallest element (call after peekTime). */
  peekKey(): number {
    return this.k[0];
  }

  /** Remove the smallest element. */
  pop(): void {
    const T = this.t;
    const K = this.k;
    const n = --this.n;
    if (n <= 0) return;
    const time = T[n];
    const key = K[n];
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && (T[r] < T[l] || (T[r] === T[l] && K[r] < K[l])) ? r : l;
      if (time < T[c] || (time === T[c] && key <= K[c])) break;
      T[i] = T[c];
      K[i] = K[c];
      i = c;
    }
    T[i] = time;
    K[i] = key;
  }
}
