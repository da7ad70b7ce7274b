/**
 * DAG evaluation of a schedule: the contention-free timing contract of
 * docs/cost-semantics.md, which the simulator (src/sim) reproduces exactly with
 * contention and noise switched off.
 *
 * Every rank has one CPU, one out-port and one in-port.
 * 1. A step is ready when its dependencies have completed. The CPU runs one step at
 *    a time; when it is free it takes, among the steps it can start, the lowest step
 *    index. A send/reduce/copy can start once ready; a recv once ready AND its
 *    message is done (our reading of rule 4: "it starts when the CPU is free and the
 *    matching message is done" — a recv waiting for its message does not hold the
 *    CPU, later-index ready steps may run meanwhile).
 * 2. send of b bytes: CPU busy oSend; transmission starts at s = max(end of oSend,
 *    out-port free), the out-port is busy until s + b·β[c]; the message arrives at
 *    a = s + α[c] + b·β[c]; the send completes at the end of oSend.
 * 3. A rank's in-port absorbs messages in arrival order: done = max(a, in-port free
 *    + b·β[c]) and the in-port is free from done.
 * 4. recv: CPU busy oRecv from max(CPU free, ready, message done).
 * 5. reduce of k operands of n elements: CPU busy (k−1)·c(n) where c(n) = n·γ(op,
 *    dtype) or the machine's tabulated c(op, dtype, n); copy of b bytes: b·copyPerByte.
 * 6. The time is the latest step completion (plus the machine's once-per-call
 *    `startup` constant, 0 unless the machine sets it); per-rank completions too.
 *
 * Simultaneous events are processed completions first, then arrivals (in sender
 * rank, then step order), then CPU decisions (in rank order).
 *
 * The breakdown follows the critical path backwards from the last step: CPU time of
 * sends/recvs/copies → cpu, reduces → gamma, message latency → alpha, transfer and
 * port serialisation → beta.
 */
import { ScheduleError } from '../core/errors.js';
import { flatTopology, type Topology } from '../schedule/topology.js';
import type { Schedule, Step } from '../schedule/types.js';
import { EventQueue } from '../core/event-queue.js';
import { MinHeap } from '../core/min-heap.js';
import { reduceTime, type LinkClass, type LinkCost, type Machine } from './machine.js';
import { zeroTerms, type CostTerms } from './terms.js';

export interface DagOptions {
  topology?: Topology;
  /** Bytes per element (default 8). */
  elementSize?: number;
  /** Reduction operator and datatype names for reduce costs (default sum/float64). */
  op?: string;
  dtype?: string;
  /** Override the machine's link parameters (e.g. a LogGP mapping). */
  links?: { intra: LinkCost; inter: LinkCost; oSend: number; oRecv: number };
}

export interface DagResult {
  readonly time: number;
  /** Completion time of each rank's last step (without the startup constant). */
  readonly perRank: readonly number[];
  readonly terms: CostTerms;
  /** Critical path length in steps (for diagnostics). */
  readonly criticalSteps: number;
}

const EV_COMPLETE = 0;
const EV_ARRIVE = 1;
const EV_DONE = 2;
const EV_DECIDE = 3;

/** Event key: kind · 2^32 + id (step gid, send gid or rank); orders kinds at equal times. */
const KIND = 2 ** 32;

/** Cause of a step's start, for the critical path. */
const C_NONE = 0;
const C_DEP = 1;
const C_CPU = 2;
const C_MSG = 3;

export function evaluateDag(schedule: Schedule, machine: Machine, o: DagOptions = {}): DagResult {
  const P = schedule.length;
  const topo = o.topology ?? flatTopology(Math.max(1, P));
  if (topo.size !== P) throw new ScheduleError(`topology has ${topo.size} ranks but the schedule has ${P}`);
  const es = o.elementSize ?? 8;
  const op = o.op ?? 'sum';
  const dtype = o.dtype ?? 'float64';
  const links = o.links ?? machine;
  const link = (c: LinkClass): LinkCost => (c === 'intra' ? links.intra : links.inter);

  // Global step ids.
  const base = new Int32Array(P + 1);
  for (let r = 0; r < P; r++) base[r + 1] = base[r] + schedule[r].steps.length;
  const N = base[P];
  const rankOf = new Int32Array(N);
  const steps: Step[] = new Array<Step>(N);
  for (let r = 0; r < P; r++) schedule[r].steps.forEach((s, i) => ((steps[base[r] + i] = s), (rankOf[base[r] + i] = r)));

  // Dependencies, and dependents in compressed rows (depStart[g] .. depStart[g+1]).
  const remaining = new Int32Array(N);
  const readyAt = new Float64Array(N);
  const readyCause = new Int32Array(N).fill(-1);
  const depStart = new Int32Array(N + 1);
  for (let g = 0; g < N; g++) {
    const st = steps[g];
    remaining[g] = st.deps.length;
    for (const d of st.deps) depStart[base[rankOf[g]] + d + 1]++;
  }
  for (let g = 0; g < N; g++) depStart[g + 1] += depStart[g];
  const depList = new Int32Array(depStart[N]);
  const fill = depStart.slice(0, N);
  for (let g = 0; g < N; g++) for (const d of steps[g].deps) depList[fill[base[rankOf[g]] + d]++] = g;

  // Message matching: k-th send a→b with k-th recv at b from a.
  const match = new Int32Array(N).fill(-1); // send gid → recv gid and recv gid → send gid
  const queues = new Map<number, number[]>();
  const key = (a: number, b: number): number => a * P + b;
  for (let r = 0; r < P; r++) {
    schedule[r].steps.forEach((s, i) => {
      if (s.kind === 'recv') {
        const k = key(s.peer, r);
        let q = queues.get(k);
        if (!q) queues.set(k, (q = []));
        q.push(base[r] + i);
      }
    });
  }
  const used = new Map<number, number>();
  for (let r = 0; r < P; r++) {
    schedule[r].steps.forEach((s, i) => {
      if (s.kind !== 'send') return;
      const k = key(r, s.peer);
      const j = used.get(k) ?? 0;
      const recv = queues.get(k)?.[j];
      if (recv === undefined) throw new ScheduleError(`send ${i} of rank ${r} to ${s.peer} has no matching recv`);
      used.set(k, j + 1);
      match[base[r] + i] = recv;
      match[recv] = base[r] + i;
    });
  }
  for (const [k, q] of queues) {
    if ((used.get(k) ?? 0) !== q.length) throw new ScheduleError(`rank ${k % P} posts a recv from ${Math.floor(k / P)} that no send matches`);
  }

  // Message state (indexed by send gid).
  const bytesOf = (g: number): number => {
    const s = steps[g];
    return s.kind === 'send' || s.kind === 'recv' ? s.region.count * es : 0;
  };
  const intraMsg = new Uint8Array(N);
  for (let g = 0; g < N; g++) {
    const st = steps[g];
    if (st.kind === 'send' && topo.nodeOf(rankOf[g]) === topo.nodeOf(st.peer)) intraMsg[g] = 1;
  }
  const clsOf = (sendGid: number): LinkClass => (intraMsg[sendGid] ? 'intra' : 'inter');
  const txStart = new Float64Array(N);
  const txPrev = new Int32Array(N).fill(-1); // previous message on the out-port when it delayed this one
  const msgDone = new Float64Array(N).fill(-1);
  const donePrev = new Int32Array(N).fill(-1); // previous message on the in-port when it delayed this one

  // Per-rank state.
  const outFree = new Float64Array(P);
  const outLast = new Int32Array(P).fill(-1);
  const inFree = new Float64Array(P);
  const inLast = new Int32Array(P).fill(-1);
  const running = new Uint8Array(P);
  const lastOnCpu = new Int32Array(P).fill(-1);
  const cpuFree = new Float64Array(P);
  const start = new Float64Array(N);
  const end = new Float64Array(N).fill(-1);
  const startCause = new Int8Array(N);
  const startPrev = new Int32Array(N).fill(-1);
  // Startable steps of each rank, lowest index first. A step is offered while an event
  // at time t is processed and all its inputs are ≤ t, so it is startable at once.
  const avail = new Float64Array(N);
  const byIndex = (a: number, b: number): boolean => a < b;
  const now: MinHeap<number>[] = Array.from({ length: P }, () => new MinHeap<number>(byIndex));

  // Ordered by time, then kind, then step or rank id (the key), as the simulator's queue.
  const events = new EventQueue();
  const push = (t: number, kind: number, id: number): void => events.pushKeyed(t, kind, id, 0, kind * KIND + id);
  // Earliest pending CPU decision per rank: later duplicates are not queued.
  const pendingDecide = new Float64Array(P).fill(Infinity);
  const decide = (t: number, r: number): void => {
    if (t < pendingDecide[r]) {
      pendingDecide[r] = t;
      push(t, EV_DECIDE, r);
    }
  };

  const offer = (g: number): void => {
    // g is ready (and, for a recv, its message is done).
    const st = steps[g];
    avail[g] = st.kind === 'recv' ? Math.max(readyAt[g], msgDone[match[g]]) : readyAt[g];
    const r = rankOf[g];
    now[r].push(g);
    if (!running[r]) decide(Math.max(avail[g], cpuFree[r]), r);
  };
  const becameReady = (g: number): void => {
    // A recv waits for its message to be done (an arrival or done event offers it).
    if (steps[g].kind === 'recv' && (msgDone[match[g]] < 0 || msgDone[match[g]] > readyAt[g])) return;
    offer(g);
  };

  for (let g = 0; g < N; g++) if (remaining[g] === 0) becameReady(g);
  for (let r = 0; r < P; r++) decide(0, r);

  const perCount = new Map<number, number>();
  const reduceCost = (st: Extract<Step, { kind: 'reduce' }>): number => {
    let c = perCount.get(st.dst.count);
    if (c === undefined) perCount.set(st.dst.count, (c = reduceTime(machine, op, dtype, st.dst.count)));
    return (st.inputs.length - 1) * c;
  };

  let completed = 0;
  while (events.pop()) {
    const t = events.popTime;
    const kind = events.popKind;
    const id = events.popA;
    if (kind === EV_COMPLETE) {
      const g = id;
      const r = rankOf[g];
      end[g] = t;
      completed++;
      running[r] = 0;
      cpuFree[r] = t;
      lastOnCpu[r] = g;
      for (let q = depStart[g]; q < depStart[g + 1]; q++) {
        const d = depList[q];
        if (t >= readyAt[d]) {
          readyAt[d] = t;
          readyCause[d] = g;
        }
        if (--remaining[d] === 0) becameReady(d);
      }
      decide(t, r);
    } else if (kind === EV_ARRIVE) {
      const m = id;
      const recv = match[m];
      const r = rankOf[recv];
      const b = bytesOf(m);
      const viaPort = inFree[r] + b * link(clsOf(m)).beta;
      if (inLast[r] >= 0 && viaPort > t) {
        msgDone[m] = viaPort;
        donePrev[m] = inLast[r];
      } else {
        msgDone[m] = t;
      }
      inFree[r] = msgDone[m];
      inLast[r] = m;
      if (msgDone[m] > t) push(msgDone[m], EV_DONE, m);
      else if (remaining[recv] === 0) offer(recv);
    } else if (kind === EV_DONE) {
      if (remaining[match[id]] === 0) offer(match[id]);
    } else {
      const r = id;
      if (pendingDecide[r] === t) pendingDecide[r] = Infinity;
      if (running[r]) continue;
      const g = now[r].pop();
      if (g === undefined) continue; // a later offer or completion schedules the next decision
      const st = steps[g];
      start[g] = t;
      // Why the step starts now: its message, its dependencies, or the CPU.
      const md = st.kind === 'recv' ? msgDone[match[g]] : -1;
      if (md >= 0 && md === t && md >= readyAt[g]) {
        startCause[g] = C_MSG;
      } else if (readyCause[g] >= 0 && readyAt[g] === t) {
        startCause[g] = C_DEP;
        startPrev[g] = readyCause[g];
      } else if (lastOnCpu[r] >= 0 && cpuFree[r] === t) {
        startCause[g] = C_CPU;
        startPrev[g] = lastOnCpu[r];
      } else {
        startCause[g] = C_NONE;
      }
      let dur = 0;
      switch (st.kind) {
        case 'send': {
          dur = links.oSend;
          const c = clsOf(g);
          const b = bytesOf(g);
          const sEnd = t + dur;
          let s = sEnd;
          if (outLast[r] >= 0 && outFree[r] > sEnd) {
            s = outFree[r];
            txPrev[g] = outLast[r];
          }
          txStart[g] = s;
          outFree[r] = s + b * link(c).beta;
          outLast[r] = g;
          push(s + link(c).alpha + b * link(c).beta, EV_ARRIVE, g);
          break;
        }
        case 'recv':
          dur = links.oRecv;
          break;
        case 'reduce':
          dur = reduceCost(st);
          break;
        case 'copy':
          dur = st.dst.count * es * machine.copyPerByte;
          break;
      }
      running[r] = 1;
      cpuFree[r] = t + dur;
      push(t + dur, EV_COMPLETE, g);
    }
  }
  if (completed !== N) {
    const stuck: string[] = [];
    for (let g = 0; g < N && stuck.length < 8; g++) if (end[g] < 0) stuck.push(`rank ${rankOf[g]} step ${g - base[rankOf[g]]}`);
    throw new ScheduleError(`DAG evaluation stuck: ${N - completed} step(s) never ran (${stuck.join('; ')})`);
  }

  const perRank: number[] = [];
  let last = -1;
  for (let r = 0; r < P; r++) {
    let m = 0;
    for (let g = base[r]; g < base[r + 1]; g++) {
      if (end[g] > m) m = end[g];
      if (last < 0 || end[g] > end[last]) last = g;
    }
    perRank.push(m);
  }
  const makespan = perRank.reduce((a, b) => Math.max(a, b), 0);

  // Critical path, walked backwards.
  const terms = zeroTerms();
  let count = 0;
  const cpuTerm = (g: number): 'gamma' | 'cpu' => (steps[g].kind === 'reduce' ? 'gamma' : 'cpu');
  let g = last;
  while (g >= 0) {
    count++;
    terms[cpuTerm(g)] += end[g] - start[g];
    const cause = startCause[g];
    if (cause === C_MSG) {
      // Follow the message: in-port waits, then latency + transfer, then out-port waits, to the send.
      let m = match[g];
      while (donePrev[m] >= 0) {
        terms.beta += msgDone[m] - msgDone[donePrev[m]];
        m = donePrev[m];
      }
      const c = link(clsOf(m));
      terms.alpha += c.alpha;
      terms.beta += bytesOf(m) * c.beta;
      // Any gap between arrival and done (in-port idle wait) is zero by construction.
      while (txPrev[m] >= 0) {
        terms.beta += txStart[m] - txStart[txPrev[m]];
        m = txPrev[m];
      }
      g = m; // the send step itself (its oSend ends at txStart)
    } else if (cause === C_DEP || cause === C_CPU) {
      g = startPrev[g];
    } else {
      g = -1;
    }
  }
  const startup = machine.startup ?? 0;
  terms.constant += startup;
  // Floating-point closure: put any residue (should be ~0) on beta.
  const residue = makespan + startup - (terms.alpha + terms.beta + terms.gamma + terms.cpu + terms.injection + terms.constant);
  if (Math.abs(residue) > 1e-12 * Math.max(1, makespan)) terms.beta += residue;
  return { time: makespan + startup, perRank, terms, criticalSteps: count };
}
