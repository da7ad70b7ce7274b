/**
 * Live rank schedules, packed into one shared arena (viewed as Int32Array I and
 * Float64Array F) so that a million ranks cost no per-rank objects. A rank's region
 * (its int section, padded to 8 bytes, then its double section: adjacent in memory)
 * is allocated when the rank starts and returned to a free list (by size) when it
 * finishes; ranks with the same shape reuse each other's regions. Per-rank records
 * (state, offsets, free times) are one 128-byte slot per rank: 64 bytes of Int32
 * fields followed by 64 bytes of Float64 fields.
 *
 * Int32 region of a rank with n steps, m dependency edges, r receives:
 *   kind[n] peer[n] aux[n] rem[n] from[n] dstart[n+1] dlist[m] recvs[r] heap[n]
 * - aux: for a send, k = earlier sends of this rank to the same peer (the k-th send
 *   a→b matches the k-th receive at b from a); for a receive, 1 once matched;
 * - rem: unmet dependencies (a receive counts its message as one more); −1 = done;
 * - from: what made the step ready last (a step; −1 rank start; −2 its message);
 * - dstart/dlist: dependents of each step (reverse edges, CSR);
 * - recvs: receive steps sorted by (peer, index), for matching;
 * - heap: min-heap of ready steps (the lowest index runs first).
 * Float64 region: size[n] (bytes of send/recv/copy; element combinations of a
 * reduce), readyAt[n], path[n·PATH] (critical-path breakdown at each step's end),
 * startPath[PATH].
 */
import { ScheduleError } from '../core/errors.js';
import type { RankSchedule } from '../schedule/types.js';

export const K_SEND = 0;
export const K_RECV = 1;
export const K_REDUCE = 2;
export const K_COPY = 3;

/** Critical-path components, in this order. */
export const PATH_PARTS = ['skew', 'cpu', 'nic', 'gamma', 'sync', 'noise', 'alpha', 'beta', 'queue'] as const;
export type PathPart = (typeof PATH_PARTS)[number];
export const PATH = 9;
export const P_SKEW = 0;
export const P_CPU = 1;
export const P_NIC = 2;
export const P_GAMMA = 3;
export const P_SYNC = 4;
export const P_NOISE = 5;
export const P_ALPHA = 6;
export const P_BETA = 7;
export const P_QUEUE = 8;

/**
 * Per-rank records (array of structs): Int32 fields of R at r·RI + field, Float64
 * fields of D at r·RD + D_BASE + field; R and D view the same 128-byte slots.
 */
export const RI = 32;
export const R_STATE = 0;
export const R_RUN = 1;
export const R_LAST = 2;
export const R_OFFI = 3;
export const R_OFFF = 4;
export const R_N = 5;
export const R_M = 6;
export const R_NRECV = 7;
export const R_HEAP = 8;
export const R_DONE = 9;
export const R_INTERIOR = 10;
export const R_ARRCNT = 11;
export const R_NIC = 12;
export const R_PEND = 13;
export const R_NODE = 14;
export const R_SOCKET = 15;
export const RD = 16;
export const D_CPU = 8;
export const D_OUT = 9;
export const D_IN = 10;
export const D_START = 11;
export const D_END = 12;
export const D_ARRMIN = 13;

const KS = K_SEND;
const KR = K_RECV;
const KD = K_REDUCE;
const KC = K_COPY;
const PW = PATH;

export class ScheduleStore {
  /** The arena as ints and as doubles (same buffer). */
  I: Int32Array;
  F: Float64Array;
  /** Arena top, in doubles (8-byte words). */
  private top = 0;
  private readonly free = new Map<number, number[]>();
  /** Per-rank Int32 records (RI fields each; see R_*). */
  readonly R: Int32Array;
  /** Per-rank Float64 records (RD fields each; see D_*). */
  readonly D: Float64Array;
  /** Live regions (for statistics). */
  live = 0;
  /** Largest arena use (bytes). */
  peakBytes = 0;

  /** `stepsHint`: expected steps alive at once (sizes the arenas; they grow if needed). */
  constructor(P: number, stepsHint = 0, edgesHint = 0) {
    const words = Math.max(1 << 16, Math.ceil((stepsHint * 7.2 + edgesHint) / 2 + P + stepsHint * (2 + PW) + P * PW));
    const buf = new ArrayBuffer(words * 8);
    this.I = new Int32Array(buf);
    this.F = new Float64Array(buf);
    const rec = new ArrayBuffer(P * RI * 4);
    this.R = new Int32Array(rec);
    this.D = new Float64Array(rec);
  }

  /** Words (doubles) of a region with the given int and double counts. */
  private static words(ints: number, doubles: number): number {
    return ((ints + 1) >> 1) + doubles;
  }

  /** Allocate rank r's region; true when it is reused (and must be cleared). */
  private alloc(sizeI: number, sizeF: number, r: number): boolean {
    const w = ScheduleStore.words(sizeI, sizeF);
    const R = this.R;
    let off: number;
    let reused = false;
    const l = this.free.get(w);
    if (l !== undefined && l.length > 0) {
      off = l.pop()!;
      reused = true;
    } else {
      if (this.top + w > this.F.length) {
        let cap = this.F.length * 2;
        while (cap < this.top + w) cap *= 2;
        const buf = new ArrayBuffer(cap * 8);
        const F = new Float64Array(buf);
        F.set(this.F.subarray(0, this.top));
        this.F = F;
        this.I = new Int32Array(buf);
      }
      off = this.top;
      this.top += w;
      if (this.top * 8 > this.peakBytes) this.peakBytes = this.top * 8;
    }
    R[r * RI + R_OFFI] = 2 * off;
    R[r * RI + R_OFFF] = off + ((sizeI + 1) >> 1);
    this.live++;
    return reused;
  }

  /** Return rank r's region to the free list. */
  release(r: number): void {
    const R = this.R;
    const b = r * RI;
    const n = R[b + R_N];
    const sizeI = 7 * n + 1 + R[b + R_M] + R[b + R_NRECV];
    const sizeF = n * (2 + PW) + PW;
    const w = ScheduleStore.words(sizeI, sizeF);
    let l = this.free.get(w);
    if (!l) this.free.set(w, (l = []));
    l.push(R[b + R_OFFI] >> 1);
    this.live--;
  }

  /** Pack rank r's schedule. */
  load(r: number, s: RankSchedule, elementSize: number): void {
    const steps = s.steps;
    const n = steps.length;
    let m = 0;
    let nr = 0;
    let sends = 0;
    for (let i = 0; i < n; i++) {
      const st = steps[i];
      m += st.deps.length;
      if (st.kind === 'recv') nr++;
      else if (st.kind === 'send') sends++;
    }
    const sizeI = 7 * n + 1 + m + nr;
    const sizeF = n * (2 + PW) + PW;
    const R = this.R;
    const b = r * RI;
    R[b + R_N] = n;
    R[b + R_M] = m;
    R[b + R_NRECV] = nr;
    R[b + R_HEAP] = 0;
    R[b + R_DONE] = 0;
    R[b + R_INTERIOR] = sends > 0 && nr > 0 ? 1 : 0;
    const reused = this.alloc(sizeI, sizeF, r);
    const I = this.I;
    const F = this.F;
    const o = R[b + R_OFFI];
    const of = R[b + R_OFFF];
    if (reused) {
      // Only what is read before being written: dstart counts, aux, the start path.
      I.fill(0, o + 2 * n, o + 3 * n);
      I.fill(0, o + 5 * n, o + 6 * n + 1);
      F.fill(0, of + n * (2 + PW), of + sizeF);
    }
    const oPeer = o + n;
    const oAux = o + 2 * n;
    const oRem = o + 3 * n;
    const oDstart = o + 5 * n;
    const oDlist = o + 6 * n + 1;
    const oRecvs = oDlist + m;
    let ri = 0;
    for (let i = 0; i < n; i++) {
      const st = steps[i];
      const deps = st.deps;
      for (let j = 0; j < deps.length; j++) {
        const d = deps[j];
        if (d < 0 || d >= i) throw new ScheduleError(`rank ${s.rank} step ${i}: dependency ${d} is not an earlier step`);
        I[oDstart + d + 1]++;
      }
      switch (st.kind) {
        case 'send':
          I[o + i] = KS;
          I[oPeer + i] = st.peer;
          F[of + i] = st.region.count * elementSize;
          I[oRem + i] = deps.length;
          break;
        case 'recv':
          I[o + i] = KR;
          I[oPeer + i] = st.peer;
          F[of + i] = st.region.count * elementSize;
          I[oRem + i] = deps.length + 1;
          I[oRecvs + ri++] = i;
          break;
        case 'reduce':
          I[o + i] = KD;
          I[oPeer + i] = -1;
          F[of + i] = (st.inputs.length - 1) * st.dst.count;
          I[oRem + i] = deps.length;
          break;
        case 'copy':
          I[o + i] = KC;
          I[oPeer + i] = -1;
          F[of + i] = st.dst.count * elementSize;
          I[oRem + i] = deps.length;
          break;
      }
    }
    for (let i = 0; i < n; i++) I[oDstart + i + 1] += I[oDstart + i];
    // Fill dependents, using aux as a cursor.
    for (let i = 0; i < n; i++) I[oAux + i] = I[oDstart + i];
    for (let i = 0; i < n; i++) {
      const deps = steps[i].deps;
      for (let j = 0; j < deps.length; j++) I[oDlist + I[oAux + deps[j]]++] = i;
    }
    for (let i = 0; i < n; i++) I[oAux + i] = 0;
    if (nr > 1) sortByPeer(I, oRecvs, nr, oPeer);
    if (sends > 1) {
      const sidx = new Int32Array(sends);
      let c = 0;
      for (let i = 0; i < n; i++) if (I[o + i] === KS) sidx[c++] = i;
      sortByPeer(sidx, 0, sends, oPeer, I);
      for (let j = 0; j < sends; j++) {
        const i = sidx[j];
        const prev = j > 0 ? sidx[j - 1] : -1;
        I[oAux + i] = prev >= 0 && I[oPeer + prev] === I[oPeer + i] ? I[oAux + prev] + 1 : 0;
      }
    }
  }

  /** Step index of rank r's k-th receive from `peer`, or −1. */
  findRecv(r: number, peer: number, k: number): number {
    const I = this.I;
    const R = this.R;
    const b = r * RI;
    const o = R[b + R_OFFI];
    const n = R[b + R_N];
    const oPeer = o + n;
    const base = o + 6 * n + 1 + R[b + R_M];
    const nr = R[b + R_NRECV];
    if (nr === 1) return k === 0 && I[oPeer + I[base]] === peer ? I[base] : -1;
    let lo = 0;
    let hi = nr;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (I[oPeer + I[base + mid]] < peer) lo = mid + 1;
      else hi = mid;
    }
    const j = lo + k;
    if (j >= nr) return -1;
    const step = I[base + j];
    return I[oPeer + step] === peer ? step : -1;
  }

  /** Offset of rank r's ready heap in I. */
  heapOff(r: number): number {
    const R = this.R;
    const b = r * RI;
    return R[b + R_OFFI] + 6 * R[b + R_N] + 1 + R[b + R_M] + R[b + R_NRECV];
  }

  pushReady(r: number, step: number): void {
    const I = this.I;
    const h = this.heapOff(r);
    let i = this.R[r * RI + R_HEAP]++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const v = I[h + p];
      if (v <= step) break;
      I[h + i] = v;
      i = p;
    }
    I[h + i] = step;
  }

  /** Pop rank r's lowest ready step (−1 when none). */
  popReady(r: number): number {
    const size = this.R[r * RI + R_HEAP];
    if (size === 0) return -1;
    const I = this.I;
    const h = this.heapOff(r);
    const top = I[h];
    const n = size - 1;
    this.R[r * RI + R_HEAP] = n;
    const last = I[h + n];
    let i = 0;
    while (true) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && I[h + c + 1] < I[h + c]) c++;
      if (I[h + c] >= last) break;
      I[h + i] = I[h + c];
      i = c;
    }
    I[h + i] = last;
    return top;
  }

  /** Is `step` in rank r's ready heap? (diagnostics only) */
  inHeap(r: number, step: number): boolean {
    const h = this.heapOff(r);
    for (let i = 0; i < this.R[r * RI + R_HEAP]; i++) if (this.I[h + i] === step) return true;
    return false;
  }
}

/** Stable sort of `count` step indices in `a[off..]` by their peer (I[oPeer + step]). */
function sortByPeer(a: Int32Array, off: number, count: number, oPeer: number, I: Int32Array = a): void {
  if (count > 32) {
    // Keys peer·2^26 + position: exact below 2^53 for any realistic P and step count.
    const keys = new Float64Array(count);
    for (let i = 0; i < count; i++) keys[i] = I[oPeer + a[off + i]] * 67108864 + i;
    keys.sort();
    const copy = a.slice(off, off + count);
    for (let i = 0; i < count; i++) a[off + i] = copy[keys[i] % 67108864];
    return;
  }
  for (let i = 1; i < count; i++) {
    const v = a[off + i];
    const pv = I[oPeer + v];
    let j = i - 1;
    while (j >= 0 && I[oPeer + a[off + j]] > pv) {
      a[off + j + 1] = a[off + j];
      j--;
    }
    a[off + j + 1] = v;
  }
}
