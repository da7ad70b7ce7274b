/**
 * The simulator's event queue: a binary min-heap in parallel typed arrays, keyed by
 * (time, primary key, secondary key). Events pushed with `push` get the primary key
 * 0 and their insertion sequence as secondary key; `pushKeyed` sets both keys, which
 * is how the engine imposes the tie-breaking order of docs/cost-semantics.md
 * (completions, then arrivals by sender rank and step, then CPU decisions by rank).
 * A run is thus a deterministic function of its inputs. No closures, no per-event
 * objects: an event is (kind, a, b) integers plus its time and keys.
 */

export class EventQueue {
  private time: Float64Array;
  private pk: Float64Array;
  private sk: Float64Array;
  private kindA: Int32Array;
  private argA: Int32Array;
  private argB: Int32Array;
  private n = 0;
  private seq = 0;
  /** Events pushed so far (for statistics). */
  pushed = 0;

  constructor(capacity = 1024) {
    this.time = new Float64Array(capacity);
    this.pk = new Float64Array(capacity);
    this.sk = new Float64Array(capacity);
    this.kindA = new Int32Array(capacity);
    this.argA = new Int32Array(capacity);
    this.argB = new Int32Array(capacity);
  }

  get size(): number {
    return this.n;
  }

  /** Time of the earliest event (Infinity when empty). */
  peekTime(): number {
    return this.n > 0 ? this.time[0] : Infinity;
  }

  /** Fields of the event last returned by pop(). */
  popKind = 0;
  popA = 0;
  popB = 0;
  popTime = 0;

  /** Push with primary key 0 and the insertion sequence as secondary key. */
  push(time: number, kind: number, a: number, b: number): void {
    this.pushKeyed(time, kind, a, b, 0, this.seq++);
  }

  pushKeyed(time: number, kind: number, a: number, b: number, pk: number, sk: number): void {
    if (this.n === this.time.length) this.grow();
    this.pushed++;
    // Sift up from the end.
    let i = this.n++;
    const T = this.time;
    const PK = this.pk;
    const SK = this.sk;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const tp = T[p];
      if (tp < time || (tp === time && (PK[p] < pk || (PK[p] === pk && SK[p] < sk)))) break;
      T[i] = tp;
      PK[i] = PK[p];
      SK[i] = SK[p];
      this.kindA[i] = this.kindA[p];
      this.argA[i] = this.argA[p];
      this.argB[i] = this.argB[p];
      i = p;
    }
    T[i] = time;
    PK[i] = pk;
    SK[i] = sk;
    this.kindA[i] = kind;
    this.argA[i] = a;
    this.argB[i] = b;
  }

  /** Remove the earliest event into popTime/popKind/popA/popB; false when empty. */
  pop(): boolean {
    if (this.n === 0) return false;
    const T = this.time;
    const PK = this.pk;
    const SK = this.sk;
    const KA = this.kindA;
    const A = this.argA;
    const B = this.argB;
    this.popTime = T[0];
    this.popKind = KA[0];
    this.popA = A[0];
    this.popB = B[0];
    const last = --this.n;
    if (last === 0) return true;
    const t = T[last];
    const pk = PK[last];
    const sk = SK[last];
    const kd = KA[last];
    const a = A[last];
    const b = B[last];
    let i = 0;
    const half = last >> 1;
    while (i < half) {
      let c = 2 * i + 1;
      const r = c + 1;
      if (r < last && (T[r] < T[c] || (T[r] === T[c] && (PK[r] < PK[c] || (PK[r] === PK[c] && SK[r] < SK[c]))))) c = r;
      const tc = T[c];
      if (t < tc || (t === tc && (pk < PK[c] || (pk === PK[c] && sk < SK[c])))) break;
      T[i] = tc;
      PK[i] = PK[c];
      SK[i] = SK[c];
      KA[i] = KA[c];
      A[i] = A[c];
      B[i] = B[c];
      i = c;
    }
    T[i] = t;
    PK[i] = pk;
    SK[i] = sk;
    KA[i] = kd;
    A[i] = a;
    B[i] = b;
    return true;
  }

  clear(): void {
    this.n = 0;
    this.seq = 0;
    this.pushed = 0;
  }

  private grow(): void {
    const cap = this.time.length * 2;
    const t = new Float64Array(cap);
    t.set(this.time);
    this.time = t;
    const pk = new Float64Array(cap);
    pk.set(this.pk);
    this.pk = pk;
    const sk = new Float64Array(cap);
    sk.set(this.sk);
    this.sk = sk;
    const kd = new Int32Array(cap);
    kd.set(this.kindA);
    this.kindA = kd;
    const a = new Int32Array(cap);
    a.set(this.argA);
    this.argA = a;
    const b = new Int32Array(cap);
    b.set(this.argB);
    this.argB = b;
  }
}
