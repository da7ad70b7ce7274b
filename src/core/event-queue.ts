/**
 * The event queue of the simulator (sim/engine.ts) and the DAG evaluator
 * (model/dag.ts): a 4-ary min-heap in typed arrays, keyed by (time, key). The key is one exact integer in a double: class · 2^51 + sub-key. `push`
 * uses class 0 and the insertion sequence; `pushKeyed` sets class and sub-key, which
 * is how the engine imposes the tie-breaking order of docs/cost-semantics.md
 * (completions, then arrivals by sender rank and step, then CPU decisions by rank).
 * A run is thus a deterministic function of its inputs. The heap moves only
 * (time, key, slot); an event's payload (kind, a, b) sits in a pooled slot. No
 * closures, no per-event objects.
 */

/** 2^51: the class stride of keys. */
export const KEY_CLASS = 2 ** 51;

export class EventQueue {
  private T: Float64Array;
  private K: Float64Array;
  private S: Int32Array;
  private kind: Uint8Array;
  private argA: Int32Array;
  private argB: Int32Array;
  private free: Int32Array;
  private nFree = 0;
  private top = 0;
  private n = 0;
  /** Events pushed so far (also the insertion sequence). */
  pushed = 0;
  /** Fields of the event last returned by pop(). */
  popKind = 0;
  popA = 0;
  popB = 0;
  popTime = 0;

  constructor(capacity = 1024) {
    this.T = new Float64Array(capacity);
    this.K = new Float64Array(capacity);
    this.S = new Int32Array(capacity);
    this.kind = new Uint8Array(capacity);
    this.argA = new Int32Array(capacity);
    this.argB = new Int32Array(capacity);
    this.free = new Int32Array(capacity);
  }

  get size(): number {
    return this.n;
  }

  /** Time of the earliest event (Infinity when empty). */
  peekTime(): number {
    return this.n > 0 ? this.T[0] : Infinity;
  }

  /** Push in class 0, ordered by insertion among equal times. */
  push(time: number, kind: number, a: number, b: number): void {
    this.pushKeyed(time, kind, a, b, this.pushed);
  }

  /** Push with an explicit key (class · KEY_CLASS + sub-key, an exact integer). */
  pushKeyed(time: number, kind: number, a: number, b: number, key: number): void {
    if (this.n === this.T.length) this.grow();
    this.pushed++;
    const slot = this.nFree > 0 ? this.free[--this.nFree] : this.top++;
    this.kind[slot] = kind;
    this.argA[slot] = a;
    this.argB[slot] = b;
    const T = this.T;
    const K = this.K;
    const S = this.S;
    let i = this.n++;
    while (i > 0) {
      const p = (i - 1) >> 2;
      const tp = T[p];
      if (tp < time || (tp === time && K[p] < key)) break;
      T[i] = tp;
      K[i] = K[p];
      S[i] = S[p];
      i = p;
    }
    T[i] = time;
    K[i] = key;
    S[i] = slot;
  }

  /** Remove the earliest event into popTime/popKind/popA/popB; false when empty. */
  pop(): boolean {
    if (this.n === 0) return false;
    const T = this.T;
    const K = this.K;
    const S = this.S;
    const slot0 = S[0];
    this.popTime = T[0];
    this.popKind = this.kind[slot0];
    this.popA = this.argA[slot0];
    this.popB = this.argB[slot0];
    this.free[this.nFree++] = slot0;
    const last = --this.n;
    if (last === 0) return true;
    const t = T[last];
    const k = K[last];
    const s = S[last];
    let i = 0;
    while (true) {
      const c0 = 4 * i + 1;
      if (c0 >= last) break;
      let c = c0;
      let tc = T[c0];
      let kc = K[c0];
      const cEnd = c0 + 4 < last ? c0 + 4 : last;
      for (let j = c0 + 1; j < cEnd; j++) {
        const tj = T[j];
        if (tj < tc || (tj === tc && K[j] < kc)) {
          c = j;
          tc = tj;
          kc = K[j];
        }
      }
      if (t < tc || (t === tc && k < kc)) break;
      T[i] = tc;
      K[i] = kc;
      S[i] = S[c];
      i = c;
    }
    T[i] = t;
    K[i] = k;
    S[i] = s;
    return true;
  }

  private grow(): void {
    const cap = this.T.length * 2;
    const f64 = (a: Float64Array): Float64Array => {
      const b = new Float64Array(cap);
      b.set(a);
      return b;
    };
    const i32 = (a: Int32Array): Int32Array => {
      const b = new Int32Array(cap);
      b.set(a);
      return b;
    };
    this.T = f64(this.T);
    this.K = f64(this.K);
    this.S = i32(this.S);
    this.argA = i32(this.argA);
    this.argB = i32(this.argB);
    this.free = i32(this.free);
    const k = new Uint8Array(cap);
    k.set(this.kind);
    this.kind = k;
  }
}
