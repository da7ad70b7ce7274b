/**
 * Schedule validator.
 *
 * Per rank: dependencies point to earlier steps, peers are other ranks, regions lie
 * inside their buffers, operand sizes agree, and no two steps that touch
 * overlapping memory (one of them writing) can run concurrently (a data race).
 *
 * Across ranks: the k-th send a→b and the k-th receive at b from a exist in pairs
 * and have equal sizes, and the whole schedule completes even when every send
 * waits for its receive (synchronous semantics): merge each matched send/receive
 * pair into one node and require the dependency graph to be acyclic.
 */
import { DeadlockError, ScheduleError } from '../core/errors.js';
import { describeRegion, describeStep, stepRegions, type RankSchedule, type Region, type Schedule } from './types.js';

export interface ValidationIssue {
  readonly rank: number;
  readonly step?: number;
  readonly message: string;
}

function overlaps(a: Region, b: Region): boolean {
  return a.buf === b.buf && a.count > 0 && b.count > 0 && a.offset < b.offset + b.count && b.offset < a.offset + a.count;
}

function same(a: Region, b: Region): boolean {
  return a.buf === b.buf && a.offset === b.offset && a.count === b.count;
}

/** Check one rank's schedule in isolation. */
export function validateRank(s: RankSchedule): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const add = (step: number | undefined, message: string): void => {
    issues.push({ rank: s.rank, step, message });
  };
  const inBounds = (i: number, r: Region): void => {
    const b = s.buffers[r.buf];
    if (!b) return add(i, `region ${describeRegion(r)} names undeclared buffer ${r.buf}`);
    if (!Number.isInteger(r.offset) || !Number.isInteger(r.count) || r.offset < 0 || r.count < 0) {
      return add(i, `region ${describeRegion(r, s.buffers)} has a negative or fractional bound`);
    }
    if (r.offset + r.count > b.count) {
      add(i, `region ${describeRegion(r, s.buffers)} exceeds buffer '${b.name}' of ${b.count} element(s)`);
    }
  };
  s.steps.forEach((st, i) => {
    for (const d of st.deps) if (!Number.isInteger(d) || d < 0 || d >= i) add(i, `depends on invalid step ${d}`);
    switch (st.kind) {
      case 'send':
      case 'recv':
        if (!Number.isInteger(st.peer) || st.peer < 0 || st.peer >= s.size || st.peer === s.rank) {
          add(i, `${st.kind} peer ${st.peer} is not another rank in [0, ${s.size})`);
        }
        inBounds(i, st.region);
        break;
      case 'copy':
        inBounds(i, st.src);
        inBounds(i, st.dst);
        if (st.src.count !== st.dst.count) add(i, `copy sizes differ (${st.src.count} vs ${st.dst.count})`);
        if (overlaps(st.src, st.dst)) add(i, 'copy source and destination overlap');
        break;
      case 'reduce':
        if (st.inputs.length < 2) add(i, 'reduce needs at least two operands');
        inBounds(i, st.dst);
        for (const r of st.inputs) {
          inBounds(i, r);
          if (r.count !== st.dst.count) add(i, `reduce operand ${describeRegion(r, s.buffers)} size differs from destination`);
          if (overlaps(r, st.dst) && !same(r, st.dst)) add(i, 'reduce operand partially overlaps its destination');
        }
        break;
    }
  });
  if (issues.length === 0) issues.push(...findRaces(s));
  return issues;
}

/** Pairs of unordered steps that touch overlapping memory with at least one write. */
function findRaces(s: RankSchedule): ValidationIssue[] {
  const n = s.steps.length;
  const words = (n + 31) >>> 5;
  const anc = new Uint32Array(n * words);
  for (let i = 0; i < n; i++) {
    const row = i * words;
    for (const d of s.steps[i].deps) {
      anc[row + (d >>> 5)] |= 1 << (d & 31);
      const drow = d * words;
      for (let w = 0; w < words; w++) anc[row + w] |= anc[drow + w];
    }
  }
  const ordered = (i: number, j: number): boolean => (anc[j * words + (i >>> 5)] & (1 << (i & 31))) !== 0;
  const acc = s.steps.map(stepRegions);
  const issues: ValidationIssue[] = [];
  for (let j = 0; j < n && issues.length < 4; j++) {
    for (let i = 0; i < j; i++) {
      if (ordered(i, j)) continue;
      const a = acc[i];
      const b = acc[j];
      const conflict =
        a.writes.some((w) => b.writes.some((x) => overlaps(w, x)) || b.reads.some((x) => overlaps(w, x))) ||
        b.writes.some((w) => a.reads.some((x) => overlaps(w, x)));
      if (conflict) {
        issues.push({
          rank: s.rank,
          step: j,
          message: `data race: step ${i} (${describeStep(s.steps[i], s.buffers)}) and step ${j} (${describeStep(s.steps[j], s.buffers)}) touch the same memory without a dependency`,
        });
        break;
      }
    }
  }
  return issues;
}

/** Check message matching and deadlock freedom across all ranks (after per-rank checks). */
export function validateGlobal(schedule: Schedule): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const P = schedule.length;
  // Global step numbering.
  const base = new Int32Array(P + 1);
  for (let r = 0; r < P; r++) base[r + 1] = base[r] + schedule[r].steps.length;
  const total = base[P];
  // Per ordered pair (a→b) lists of send step ids and receive step ids, in program order.
  const sends = new Map<number, number[]>();
  const recvs = new Map<number, number[]>();
  const key = (a: number, b: number): number => a * P + b;
  for (let r = 0; r < P; r++) {
    const s = schedule[r];
    if (s.rank !== r || s.size !== P) {
      issues.push({ rank: r, message: `schedule at index ${r} claims rank ${s.rank} of ${s.size}` });
      return issues;
    }
    s.steps.forEach((st, i) => {
      if (st.kind === 'send') {
        const k = key(r, st.peer);
        let l = sends.get(k);
        if (!l) sends.set(k, (l = []));
        l.push(i);
      } else if (st.kind === 'recv') {
        const k = key(st.peer, r);
        let l = recvs.get(k);
        if (!l) recvs.set(k, (l = []));
        l.push(i);
      }
    });
  }
  // Union matched pairs: node id of a recv = node id of its send.
  const node = new Int32Array(total);
  for (let g = 0; g < total; g++) node[g] = g;
  const pairKeys = new Set<number>([...sends.keys(), ...recvs.keys()]);
  for (const k of pairKeys) {
    const a = Math.floor(k / P);
    const b = k % P;
    const sl = sends.get(k) ?? [];
    const rl = recvs.get(k) ?? [];
    if (sl.length !== rl.length) {
      issues.push({
        rank: sl.length > rl.length ? a : b,
        message: `rank ${a} sends ${sl.length} message(s) to rank ${b}, which receives ${rl.length} from it`,
      });
      continue;
    }
    for (let m = 0; m < sl.length; m++) {
      const ss = schedule[a].steps[sl[m]];
      const rs = schedule[b].steps[rl[m]];
      if (ss.kind !== 'send' || rs.kind !== 'recv') continue;
      if (ss.region.count !== rs.region.count) {
        issues.push({
          rank: b,
          step: rl[m],
          message: `message #${m} from rank ${a} to rank ${b}: ${ss.region.count} element(s) sent (step ${sl[m]}) but ${rs.region.count} expected`,
        });
      }
      node[base[b] + rl[m]] = base[a] + sl[m];
    }
  }
  if (issues.length > 0) return issues;
  // Kahn's algorithm over merged nodes.
  const indeg = new Int32Array(total);
  const succStart = new Int32Array(total + 1);
  for (let r = 0; r < P; r++) {
    schedule[r].steps.forEach((st) => {
      for (const d of st.deps) succStart[node[base[r] + d] + 1]++;
    });
  }
  for (let g = 0; g < total; g++) succStart[g + 1] += succStart[g];
  const succ = new Int32Array(succStart[total]);
  const fill = succStart.slice(0, total);
  for (let r = 0; r < P; r++) {
    schedule[r].steps.forEach((st, i) => {
      const v = node[base[r] + i];
      for (const d of st.deps) {
        const u = node[base[r] + d];
        succ[fill[u]++] = v;
        indeg[v]++;
      }
    });
  }
  const queue: number[] = [];
  for (let g = 0; g < total; g++) if (node[g] === g && indeg[g] === 0) queue.push(g);
  let done = 0;
  const finished = new Uint8Array(total);
  while (queue.length > 0) {
    const u = queue.pop() as number;
    finished[u] = 1;
    done++;
    for (let e = succStart[u]; e < succStart[u + 1]; e++) {
      const v = succ[e];
      if (--indeg[v] === 0) queue.push(v);
    }
  }
  let nodes = 0;
  for (let g = 0; g < total; g++) if (node[g] === g) nodes++;
  if (done < nodes) {
    const stuck: { rank: number; step: number; description: string }[] = [];
    for (let r = 0; r < P; r++) {
      schedule[r].steps.forEach((st, i) => {
        if (!finished[node[base[r] + i]]) stuck.push({ rank: r, step: i, description: describeStep(st, schedule[r].buffers) });
      });
    }
    const e = new DeadlockError(stuck);
    issues.push({ rank: stuck[0].rank, step: stuck[0].step, message: e.message });
  }
  return issues;
}

/** All issues of a schedule (per rank, then global). */
export function validateSchedule(schedule: Schedule): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const s of schedule) issues.push(...validateRank(s));
  if (issues.length > 0) return issues;
  return validateGlobal(schedule);
}

/** Throw a ScheduleError listing the first issues, if any. */
export function assertValidSchedule(schedule: Schedule): void {
  const issues = validateSchedule(schedule);
  if (issues.length > 0) {
    const name = schedule[0] ? `${schedule[0].collective}/${schedule[0].algorithm}` : 'schedule';
    const lines = issues.slice(0, 6).map((i) => `rank ${i.rank}${i.step !== undefined ? ` step ${i.step}` : ''}: ${i.message}`);
    throw new ScheduleError(`${name} is invalid (${issues.length} issue(s)):\n  ${lines.join('\n  ')}`);
  }
}
