/**
 * The critical path of a timeline: the chain of spans that made the last one end
 * when it did, recovered from the spans alone (no DAG is stored in a trace).
 *
 * The rule. Spans of kind 'collective' (a call enclosing its steps) and 'idle' take
 * no part. Start from the span that ends last (ties: the later start). From a span c
 * on rank R, let p be its predecessor on R: the span of R, on any of R's lanes, that
 * ended last at or before c started (ties: the later in the file, the order the
 * producer ran them). A rank's lanes
 * are one process: a NIC-run rank of the simulator hands over from its host lane
 * ('start') to its NIC lane (the steps) and back ('finish'), so the predecessor is
 * looked up over all of them, not on c's lane only.
 * - c is a recv with a matching send m: m's release is when it ended (or, if m ended
 *   after c did, eager delivery, when m started). Jump to m when its release is later
 *   than p's end (the rank was ready before the data was), or when c started later
 *   than p ended (c waited, and a recv waits only for its message), or when c has no
 *   predecessor;
 * - otherwise go to p;
 * - stop at a span that starts at time 0, or when there is no predecessor.
 * On a simulated run this reproduces the simulator's own rule (engine.ts: a step's
 * path continues from what made it ready, the message for a recv that started when
 * it arrived, else from the rank's previous step), so the path ends at the
 * simulator's time on its last rank and its spans sum to the CPU, NIC, γ, sync and
 * noise parts of `coll sim --json`'s breakdown (the gaps: skew, α, β, queueing).
 * Not followed: waits in another rank's queue (several NIC-run ranks sharing one
 * node's NIC) and phase barriers of `--execution phased`; the path then continues
 * on the same rank across the wait. A rank's late arrival (`--skew`) is seen only
 * where the trace has a 'start' span (a machine with a call overhead, or NIC modes):
 * without one, a rank's first recv is taken to have waited for its message.
 */

/** What the walk reads of a TimelineView. */
export interface CriticalPathInput {
  readonly laneRank: readonly number[];
  readonly kinds: readonly string[];
  readonly spans: {
    readonly lane: readonly number[];
    readonly kind: readonly number[];
    readonly start: readonly number[];
    readonly dur: readonly number[];
    readonly match: readonly number[];
  };
}

/** Span kinds that enclose or stand for waiting, left out of the walk. */
export const OFF_PATH_KINDS: readonly string[] = ['collective', 'idle'];

/** Time tolerance (µs) for "at or before": traces carry float µs converted from seconds. */
function eps(t: number): number {
  return 1e-6 + 1e-12 * Math.abs(t);
}

/**
 * The critical path as span indices, first to last (empty when no span qualifies).
 * `tiebreak` orders spans of a rank that start and end together (zero-length steps
 * on two lanes): the file order, the order a producer ran them; default the index.
 */
export function criticalPath(v: CriticalPathInput, tiebreak?: ArrayLike<number>): number[] {
  const { lane, kind, start, dur, match } = v.spans;
  const n = lane.length;
  const off = new Uint8Array(v.kinds.length);
  const recv = new Uint8Array(v.kinds.length);
  v.kinds.forEach((k, i) => {
    off[i] = OFF_PATH_KINDS.includes(k) ? 1 : 0;
    recv[i] = k === 'recv' || k === 'irecv' ? 1 : 0;
  });
  const tie = (i: number): number => (tiebreak ? tiebreak[i] : i);
  const end = new Float64Array(n);
  for (let i = 0; i < n; i++) end[i] = start[i] + dur[i];

  // Per rank, its eligible spans sorted by (start, end, index): CSR lists.
  let R = 0;
  for (const r of v.laneRank) if (r + 1 > R) R = r + 1;
  const count = new Int32Array(R + 1);
  let eligible = 0;
  for (let i = 0; i < n; i++) {
    if (off[kind[i]]) continue;
    count[v.laneRank[lane[i]] + 1]++;
    eligible++;
  }
  if (eligible === 0) return [];
  for (let r = 0; r < R; r++) count[r + 1] += count[r];
  const first = count.slice();
  const list = new Int32Array(eligible);
  for (let i = 0; i < n; i++) if (!off[kind[i]]) list[first[v.laneRank[lane[i]]]++] = i;
  const pos = new Int32Array(n).fill(-1);
  const maxDur = new Float64Array(R);
  for (let r = 0; r < R; r++) {
    const a = count[r];
    const b = count[r + 1];
    const part = Array.from(list.subarray(a, b)).sort((x, y) => start[x] - start[y] || end[x] - end[y] || tie(x) - tie(y));
    for (let k = 0; k < part.length; k++) {
      list[a + k] = part[k];
      pos[part[k]] = a + k;
      if (dur[part[k]] > maxDur[r]) maxDur[r] = dur[part[k]];
    }
  }

  /** The rank's span that ended last at or before span i started, or −1. */
  const predecessor = (i: number): number => {
    const r = v.laneRank[lane[i]];
    const s = start[i] + eps(start[i]);
    const lo = count[r];
    let best = -1;
    let bestEnd = -Infinity;
    for (let j = pos[i] - 1; j >= lo; j--) {
      const k = list[j];
      // Spans further back start earlier still: none of them can end after bestEnd.
      if (start[k] + maxDur[r] <= bestEnd) break;
      const e = end[k];
      if (e <= s && e > bestEnd) {
        best = k;
        bestEnd = e;
      }
    }
    return best;
  };

  let last = -1;
  for (let i = 0; i < n; i++) {
    if (off[kind[i]]) continue;
    if (last < 0 || end[i] > end[last] || (end[i] === end[last] && (start[i] > start[last] || (start[i] === start[last] && tie(i) > tie(last))))) last = i;
  }
  const path = [last];
  const seen = new Uint8Array(n);
  seen[last] = 1;
  let cur = last;
  while (start[cur] > eps(0)) {
    const p = predecessor(cur);
    const pe = p >= 0 ? end[p] : -Infinity;
    let next = p;
    const m = match[cur];
    if (recv[kind[cur]] && m >= 0 && !off[kind[m]]) {
      const release = end[m] <= end[cur] + eps(end[cur]) ? end[m] : start[m];
      const possible = release <= end[cur] + eps(end[cur]);
      if (possible && (p < 0 || release > pe + eps(pe) || start[cur] > pe + eps(pe))) next = m;
    }
    if (next < 0 || seen[next]) break;
    seen[next] = 1;
    path.push(next);
    cur = next;
  }
  return path.reverse();
}

/**
 * Where the path's time goes (µs): `busy`, time covered by its spans, and `gaps`, time
 * between them (from 0 to its first span, and wherever it waits: latency, queueing,
 * skew); busy + gaps = end, the end of its last span. Spans that overlap the path's
 * earlier ones (an eager send that returns after its recv completed) count once.
 */
export function pathParts(v: Pick<CriticalPathInput, 'spans'>, path: readonly number[]): { busy: number; gaps: number; end: number } {
  const { start, dur } = v.spans;
  let busy = 0;
  let gaps = 0;
  let front = 0;
  for (const i of path) {
    const s = start[i];
    const e = s + dur[i];
    if (s > front) gaps += s - front;
    if (e > Math.max(s, front)) busy += e - Math.max(s, front);
    if (e > front) front = e;
  }
  return { busy, gaps, end: front };
}
