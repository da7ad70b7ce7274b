/**
 * Reference executor: runs every rank's schedule in one thread with real data.
 *
 * Steps become ready when their dependencies have completed; a receive also needs
 * its matching send (the k-th message of the pair) to have happened. Sends are
 * eager: the payload is copied when the send runs. 'deterministic' order runs ready
 * steps first-in first-out; 'random' order picks a random ready step each time
 * (seeded), which exercises every interleaving the dependencies allow. If nothing is
 * ready before all steps have run, the schedule deadlocks and a DeadlockError names
 * the stuck steps.
 */
import { datatype, type Datatype, type DatatypeName } from '../core/datatypes.js';
import { ArgumentError, DeadlockError } from '../core/errors.js';
import { op as lookupOp, type Op } from '../core/ops.js';
import { prng } from '../core/random.js';
import { describeStep, type Region, type Schedule } from '../schedule/types.js';

export interface ExecuteOptions {
  datatype: DatatypeName | Datatype;
  /** Reduction operator (needed when the schedule reduces). */
  op?: string | Op;
  /** Per rank: initial contents of the input buffer (bytes). */
  inputs?: readonly (Uint8Array | undefined)[];
  /** Per rank: initial contents of the output buffer (the bcast root's data). */
  outputs?: readonly (Uint8Array | undefined)[];
  order?: 'deterministic' | 'random';
  seed?: number;
}

export interface ExecuteResult {
  /** Per rank: the output buffer after the collective. */
  outputs: Uint8Array[];
  /** Steps executed. */
  steps: number;
}

/** The seeded generator behind random delivery orders (from src/core/random.ts). */
export { prng };

export function executeSchedule(schedule: Schedule, o: ExecuteOptions): ExecuteResult {
  const type = datatype(o.datatype);
  const es = type.size;
  const P = schedule.length;
  const op = o.op !== undefined ? lookupOp(o.op) : undefined;
  const kernel = op?.kernel(type);
  // Buffers per rank.
  const bufs: Uint8Array[][] = schedule.map((s, r) =>
    s.buffers.map((d, id) => {
      const b = new Uint8Array(d.count * es);
      const init = id === 0 ? o.inputs?.[r] : id === 1 ? o.outputs?.[r] : undefined;
      if (init) {
        if (init.byteLength < b.byteLength) {
          throw new ArgumentError(`rank ${r}: initial '${d.name}' has ${init.byteLength} bytes, the schedule needs ${b.byteLength}`);
        }
        b.set(init.subarray(0, b.byteLength));
      }
      return b;
    }),
  );
  const view = (r: number, reg: Region): Uint8Array => bufs[r][reg.buf].subarray(reg.offset * es, (reg.offset + reg.count) * es);

  // Dependency bookkeeping.
  const base: number[] = [0];
  for (const s of schedule) base.push(base[base.length - 1] + s.steps.length);
  const total = base[P];
  const pending = new Int32Array(total);
  const dependents: number[][] = Array.from({ length: total }, () => []);
  const rankOf = new Int32Array(total);
  schedule.forEach((s, r) =>
    s.steps.forEach((st, i) => {
      const g = base[r] + i;
      rankOf[g] = r;
      pending[g] = st.deps.length;
      for (const d of st.deps) dependents[base[r] + d].push(g);
    }),
  );
  // Message channels: key src*P+dst -> delivered payloads by index; receive counters.
  // The k-th send a→b (in step order) matches the k-th receive at b from a, whatever
  // order they run in: number both by step index up front.
  const sent = new Map<number, (Uint8Array | undefined)[]>();
  const indexOf = new Int32Array(total).fill(-1);
  const counts = new Map<string, number>();
  const waiting = new Map<string, number>(); // "key:idx" -> global recv step waiting for data
  schedule.forEach((s, r) =>
    s.steps.forEach((st, i) => {
      if (st.kind === 'recv' || st.kind === 'send') {
        const k = st.kind === 'recv' ? st.peer * P + r : r * P + st.peer;
        const c = `${st.kind}:${k}`;
        const n = counts.get(c) ?? 0;
        indexOf[base[r] + i] = n;
        counts.set(c, n + 1);
      }
    }),
  );

  const ready: number[] = [];
  const rand = o.order === 'random' ? prng(o.seed ?? 1) : undefined;
  const done = new Uint8Array(total);
  const enqueue = (g: number): void => {
    const r = rankOf[g];
    const st = schedule[r].steps[g - base[r]];
    if (st.kind === 'recv') {
      const k = st.peer * P + r;
      const idx = indexOf[g];
      if (sent.get(k)?.[idx] === undefined) {
        waiting.set(`${k}:${idx}`, g);
        return;
      }
    }
    ready.push(g);
  };
  for (let g = 0; g < total; g++) if (pending[g] === 0) enqueue(g);

  let executed = 0;
  let head = 0;
  while (executed < total) {
    if (head >= ready.length) {
      const stuck: { rank: number; step: number; description: string }[] = [];
      for (let g = 0; g < total && stuck.length < 64; g++) {
        if (!done[g]) {
          const r = rankOf[g];
          stuck.push({ rank: r, step: g - base[r], description: describeStep(schedule[r].steps[g - base[r]], schedule[r].buffers) });
        }
      }
      throw new DeadlockError(stuck);
    }
    let g: number;
    if (rand) {
      const pick = head + Math.floor(rand() * (ready.length - head));
      g = ready[pick];
      ready[pick] = ready[head];
      head++;
    } else {
      g = ready[head++];
    }
    if (head > 4096 && head * 2 > ready.length) {
      ready.splice(0, head);
      head = 0;
    }
    const r = rankOf[g];
    const st = schedule[r].steps[g - base[r]];
    switch (st.kind) {
      case 'send': {
        const k = r * P + st.peer;
        let l = sent.get(k);
        if (!l) sent.set(k, (l = []));
        const idx = indexOf[g];
        l[idx] = view(r, st.region).slice();
        const w = waiting.get(`${k}:${idx}`);
        if (w !== undefined) {
          waiting.delete(`${k}:${idx}`);
          ready.push(w);
        }
        break;
      }
      case 'recv': {
        const payload = (sent.get(st.peer * P + r) as Uint8Array[])[indexOf[g]];
        const dst = view(r, st.region);
        if (payload.byteLength !== dst.byteLength) {
          throw new ArgumentError(`rank ${r} step ${g - base[r]}: received ${payload.byteLength} bytes into a ${dst.byteLength}-byte region`);
        }
        dst.set(payload);
        break;
      }
      case 'copy':
        view(r, st.dst).set(view(r, st.src));
        break;
      case 'reduce': {
        if (!kernel) throw new ArgumentError('the schedule reduces but no operator was given');
        const n = st.dst.count;
        const dst = view(r, st.dst);
        const ins = st.inputs.map((x) => view(r, x));
        // dst may alias one input exactly; fold into a temporary when it aliases a third or later operand.
        const aliasLater = st.inputs.some((x, i) => i >= 2 && x.buf === st.dst.buf && x.offset === st.dst.offset);
        const acc = aliasLater ? new Uint8Array(dst.byteLength) : dst;
        kernel(acc, ins[0], ins[1], n);
        for (let i = 2; i < ins.length; i++) kernel(acc, acc, ins[i], n);
        if (acc !== dst) dst.set(acc);
        break;
      }
    }
    done[g] = 1;
    executed++;
    for (const d of dependents[g]) if (--pending[d] === 0) enqueue(d);
  }
  return { outputs: bufs.map((b) => b[1]), steps: executed };
}
