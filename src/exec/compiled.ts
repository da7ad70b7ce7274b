/**
 * A rank's schedule compiled for execution: flat typed arrays for the hot loop, the
 * message index of every send and receive (the k-th message between two ranks),
 * dependents lists, and the receives whose payload can be reduced straight from the
 * sender's shared memory (fusion).
 *
 * Fusion: a receive into a scratch region whose only reader is one reduce step that
 * depends on it directly may, when the payload arrives as a shared-arena region and
 * the reduce has nothing else to wait for, run that reduce with the sender's memory
 * as the operand, skipping the copy. The static condition checked here: every step
 * that reads any part of the receive's scratch buffer reads exactly a region written
 * by one of its direct dependencies (the way generators write "recv tmp; reduce ∘ tmp"),
 * and the receive has exactly one such reader.
 *
 * Multicast groups: the multicast-marked sends (SendStep.multicast) with the same
 * region, dependencies, round and message index form a group, which the executor
 * posts as one `Endpoint.imcast` when the transport has a multicast path (the members
 * become ready together: their dependencies are the same). Marked sends that share no
 * such key with others form a group of one.
 */
import type { RankSchedule, Region } from '../schedule/types.js';

export const K_SEND = 0;
export const K_RECV = 1;
export const K_REDUCE = 2;
export const K_COPY = 3;

export interface CompiledSchedule {
  readonly source: RankSchedule;
  readonly n: number;
  readonly kind: Uint8Array;
  /** Peer (communicator rank) of sends and receives. */
  readonly peer: Int32Array;
  /** k-th message to / from the peer. */
  readonly msgIndex: Int32Array;
  /** Main region: send/recv region, copy/reduce destination (buffer id, element offset, count). */
  readonly buf: Int32Array;
  readonly off: Float64Array;
  readonly cnt: Float64Array;
  /** Copy source, or reduce inputs. */
  readonly inputs: readonly (readonly Region[])[];
  readonly ndeps: Int32Array;
  readonly dependents: readonly Int32Array[];
  readonly roots: Int32Array;
  /** Element counts of scratch buffers (ids 2..). */
  readonly scratch: readonly number[];
  /** recv step → reduce step it may be fused into, or -1. */
  readonly fuseInto: Int32Array;
  /** For fused pairs: which operand of the reduce is the receive's region. */
  readonly fuseOperand: Int32Array;
  /** Number of sends and receives (for sizing request arrays). */
  readonly messages: number;
  /** Send step → its multicast group, or −1; undefined when the schedule has no multicast-marked send. */
  readonly mcastGroup: Int32Array | undefined;
  /** Send steps of each multicast group, in step order. */
  readonly mcastMembers: readonly Int32Array[];
}

const same = (a: Region, b: Region): boolean => a.buf === b.buf && a.offset === b.offset && a.count === b.count;
const overlaps = (a: Region, b: Region): boolean =>
  a.buf === b.buf && a.offset < b.offset + b.count && b.offset < a.offset + a.count && a.count > 0 && b.count > 0;

export function compileSchedule(s: RankSchedule): CompiledSchedule {
  const n = s.steps.length;
  const kind = new Uint8Array(n);
  const peer = new Int32Array(n).fill(-1);
  const msgIndex = new Int32Array(n).fill(-1);
  const buf = new Int32Array(n);
  const off = new Float64Array(n);
  const cnt = new Float64Array(n);
  const inputs: Region[][] = [];
  const ndeps = new Int32Array(n);
  const depLists: number[][] = Array.from({ length: n }, () => []);
  const roots: number[] = [];
  const sendCount = new Map<number, number>();
  const recvCount = new Map<number, number>();
  let messages = 0;
  s.steps.forEach((st, i) => {
    ndeps[i] = st.deps.length;
    if (st.deps.length === 0) roots.push(i);
    for (const d of st.deps) depLists[d].push(i);
    let main: Region;
    switch (st.kind) {
      case 'send': {
        kind[i] = K_SEND;
        peer[i] = st.peer;
        const k = sendCount.get(st.peer) ?? 0;
        msgIndex[i] = k;
        sendCount.set(st.peer, k + 1);
        main = st.region;
        inputs.push([]);
        messages++;
        break;
      }
      case 'recv': {
        kind[i] = K_RECV;
        peer[i] = st.peer;
        const k = recvCount.get(st.peer) ?? 0;
        msgIndex[i] = k;
        recvCount.set(st.peer, k + 1);
        main = st.region;
        inputs.push([]);
        messages++;
        break;
      }
      case 'reduce':
        kind[i] = K_REDUCE;
        main = st.dst;
        inputs.push([...st.inputs]);
        break;
      case 'copy':
        kind[i] = K_COPY;
        main = st.dst;
        inputs.push([st.src]);
        break;
    }
    buf[i] = main.buf;
    off[i] = main.offset;
    cnt[i] = main.count;
  });

  // Fusion analysis.
  const fuseInto = new Int32Array(n).fill(-1);
  const fuseOperand = new Int32Array(n).fill(-1);
  const writes = (i: number): Region => ({ buf: buf[i], offset: off[i], count: cnt[i] });
  const reads = (i: number): readonly Region[] =>
    kind[i] === K_SEND ? [writes(i)] : kind[i] === K_RECV ? [] : inputs[i];
  // Scratch buffers where every read is "owned" by a direct dependency writing exactly that region.
  const disciplined = new Map<number, boolean>();
  for (let i = 0; i < n; i++) {
    for (const r of reads(i)) {
      if (r.buf < 2 || r.count === 0) continue;
      const owned = s.steps[i].deps.some((d) => kind[d] !== K_SEND && same(writes(d), r));
      if (!owned) disciplined.set(r.buf, false);
      else if (!disciplined.has(r.buf)) disciplined.set(r.buf, true);
    }
  }
  for (let i = 0; i < n; i++) {
    if (kind[i] !== K_RECV || buf[i] < 2 || cnt[i] === 0 || disciplined.get(buf[i]) !== true) continue;
    const region = writes(i);
    let reader = -1;
    let readers = 0;
    for (const d of depLists[i]) {
      if (reads(d).some((r) => overlaps(r, region))) {
        readers++;
        reader = d;
      }
    }
    if (readers !== 1 || kind[reader] !== K_REDUCE) continue;
    const ops = inputs[reader];
    const at = ops.findIndex((r) => same(r, region));
    // The operand must appear once, and the destination must not be the received region.
    if (at < 0 || ops.filter((r) => same(r, region)).length !== 1 || overlaps(writes(reader), region)) continue;
    fuseInto[i] = reader;
    fuseOperand[i] = at;
  }

  // Multicast groups: marked sends keyed by region, dependencies, round and message index.
  let mcastGroup: Int32Array | undefined;
  const mcastMembers: number[][] = [];
  const groupOf = new Map<string, number>();
  s.steps.forEach((st, i) => {
    if (st.kind !== 'send' || st.multicast !== true) return;
    const key = `${buf[i]}:${off[i]}:${cnt[i]}:${st.round}:${msgIndex[i]}:${[...st.deps].sort((a, b) => a - b).join(',')}`;
    let g = groupOf.get(key);
    if (g === undefined) {
      g = mcastMembers.length;
      groupOf.set(key, g);
      mcastMembers.push([]);
    }
    mcastMembers[g].push(i);
    (mcastGroup ??= new Int32Array(n).fill(-1))[i] = g;
  });

  return {
    source: s,
    n,
    kind,
    peer,
    msgIndex,
    buf,
    off,
    cnt,
    inputs,
    ndeps,
    dependents: depLists.map((l) => Int32Array.from(l)),
    roots: Int32Array.from(roots),
    scratch: s.buffers.slice(2).map((b) => b.count),
    fuseInto,
    fuseOperand,
    messages,
    mcastGroup,
    mcastMembers: mcastMembers.map((m) => Int32Array.from(m)),
  };
}
