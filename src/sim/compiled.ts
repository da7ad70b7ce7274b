/**
 * A rank's schedule packed for the simulator: one Int32Array and one Float64Array
 * per rank, built when the rank starts and dropped when it finishes.
 *
 * Int32 sections (n steps, m dependency edges, r receives):
 *   kind[n] peer[n] aux[n] rem[n] from[n] dstart[n+1] dlist[m] recvs[r] heap[n]
 * - aux: for a send, k = how many earlier sends of this rank go to the same peer
 *   (the k-th send a→b matches the k-th receive at b from a);
 * - rem: unmet dependencies (a receive counts its message as one more);
 * - from: what made the step ready last (a step index; −1 rank start; −2 its message);
 * - dstart/dlist: the steps that depend on each step (reverse edges, CSR);
 * - recvs: receive step indices sorted by (peer, index), for matching;
 * - heap: min-heap of ready step indices (lowest index runs first).
 * Float64 sections: size[n] (bytes for send/recv/copy, element combinations for
 * reduce), readyAt[n], path[n·PATH] (critical-path breakdown of each step's end),
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
export const PATH = PATH_PARTS.length;
export const P_SKEW = 0;
export const P_CPU = 1;
export const P_NIC = 2;
export const P_GAMMA = 3;
export const P_SYNC = 4;
export const P_NOISE = 5;
export const P_ALPHA = 6;
export const P_BETA = 7;
export const P_QUEUE = 8;

export class CompiledRank {
  readonly n: number;
  readonly I: Int32Array;
  readonly F: Float64Array;
  // Section offsets into I.
  readonly oPeer: number;
  readonly oAux: number;
  readonly oRem: number;
  readonly oFrom: number;
  readonly oDstart: number;
  readonly oDlist: number;
  readonly oRecvs: number;
  readonly nRecvs: number;
  readonly oHeap: number;
  // Section offsets into F.
  readonly oReady: number;
  readonly oPath: number;
  readonly oStartPath: number;
  heapSize = 0;
  done = 0;
  sends = 0;
  /** True when the rank has both receives and sends (an interior node of a tree). */
  readonly interior: boolean;

  constructor(s: RankSchedule, elementSize: number) {
    const steps = s.steps;
    const n = steps.length;
    this.n = n;
    let m = 0;
    let r = 0;
    let sends = 0;
    for (let i = 0; i < n; i++) {
      const st = steps[i];
      m += st.deps.length;
      if (st.kind === 'recv') r++;
      else if (st.kind === 'send') sends++;
    }
    this.sends = sends;
    this.interior = sends > 0 && r > 0;
    this.nRecvs = r;
    this.oPeer = n;
    this.oAux = 2 * n;
    this.oRem = 3 * n;
    this.oFrom = 4 * n;
    this.oDstart = 5 * n;
    this.oDlist = 6 * n + 1;
    this.oRecvs = this.oDlist + m;
    this.oHeap = this.oRecvs + r;
    const I = new Int32Array(this.oHeap + n);
    const F = new Float64Array(2 * n + n * PATH + PATH);
    this.I = I;
    this.F = F;
    this.oReady = n;
    this.oPath = 2 * n;
    this.oStartPath = 2 * n + n * PATH;
    const { oPeer, oAux, oRem, oDstart, oDlist, oRecvs } = this;
    // Pass 1: kinds, sizes, dependency counts, dependents per step.
    const cnt = I.subarray(oDstart, oDstart + n + 1);
    let ri = 0;
    for (let i = 0; i < n; i++) {
      const st = steps[i];
      const deps = st.deps;
      for (let j = 0; j < deps.length; j++) {
        const d = deps[j];
        if (d < 0 || d >= i) throw new ScheduleError(`rank ${s.rank} step ${i}: dependency ${d} is not an earlier step`);
        cnt[d + 1]++;
      }
      switch (st.kind) {
        case 'send':
          I[i] = K_SEND;
          I[oPeer + i] = st.peer;
          F[i] = st.region.count * elementSize;
          I[oRem + i] = deps.length;
          break;
        case 'recv':
          I[i] = K_RECV;
          I[oPeer + i] = st.peer;
          F[i] = st.region.count * elementSize;
          I[oRem + i] = deps.length + 1;
          I[oRecvs + ri++] = i;
          break;
        case 'reduce':
          I[i] = K_REDUCE;
          I[oPeer + i] = -1;
          F[i] = (st.inputs.length - 1) * st.dst.count;
          I[oRem + i] = deps.length;
          break;
        case 'copy':
          I[i] = K_COPY;
          I[oPeer + i] = -1;
          F[i] = st.dst.count * elementSize;
          I[oRem + i] = deps.length;
          break;
      }
    }
    // Prefix sums → CSR starts; then fill (cursor reuses the aux section temporarily).
    for (let i = 0; i < n; i++) cnt[i + 1] += cnt[i];
    const cur = I.subarray(oAux, oAux + n);
    for (let i = 0; i < n; i++) cur[i] = cnt[i];
    for (let i = 0; i < n; i++) {
      const deps = steps[i].deps;
      for (let j = 0; j < deps.length; j++) I[oDlist + cur[deps[j]]++] = i;
    }
    // Receives sorted by (peer, index): insertion sort (already in index order).
    if (r > 1) sortByPeer(I, oRecvs, r, oPeer);
    // Sends: k-th send to the same peer.
    cur.fill(0);
    if (sends > 0) {
      const sidx = new Int32Array(sends);
      let c = 0;
      for (let i = 0; i < n; i++) if (I[i] === K_SEND) sidx[c++] = i;
      if (sends > 1) sortByPeer(sidx, 0, sends, oPeer, I);
      for (let j = 0; j < sends; j++) {
        const i = sidx[j];
        const prev = j > 0 ? sidx[j - 1] : -1;
        I[oAux + i] = prev >= 0 && I[oPeer + prev] === I[oPeer + i] ? I[oAux + prev] + 1 : 0;
      }
    }
  }

  /** Index of the k-th receive from `peer`, or −1. */
  findRecv(peer: number, k: number): number {
    const I = this.I;
    const base = this.oRecvs;
    const oPeer = this.oPeer;
    let lo = 0;
    let hi = this.nRecvs;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (I[oPeer + I[base + mid]] < peer) lo = mid + 1;
      else hi = mid;
    }
    const j = lo + k;
    if (j >= this.nRecvs) return -1;
    const step = I[base + j];
    return I[oPeer + step] === peer ? step : -1;
  }

  /** Push a ready step onto the min-heap. */
  pushReady(step: number): void {
    const I = this.I;
    const h = this.oHeap;
    let i = this.heapSize++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const v = I[h + p];
      if (v <= step) break;
      I[h + i] = v;
      i = p;
    }
    I[h + i] = step;
  }

  /** Pop the lowest ready step index (−1 when none). */
  popReady(): number {
    if (this.heapSize === 0) return -1;
    const I = this.I;
    const h = this.oHeap;
    const top = I[h];
    const last = I[h + --this.heapSize];
    const n = this.heapSize;
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
