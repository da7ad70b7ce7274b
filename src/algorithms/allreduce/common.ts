/**
 * Building blocks shared by the composite allreduce algorithms (reduce_bcast, smp,
 * nap): a k-nomial broadcast that mirrors the f-nomial reduce tree, and an
 * allreduce over a group in which only the first k members contribute (recursive
 * doubling among the contributors with MPICH's fold, then a doubling spread of the
 * result to the others). Group members are addressed by index; `rankOf` maps an
 * index to its global rank.
 */
import type { ScheduleBuilder } from '../../schedule/builder.js';
import { ceilLog, floorPow2 } from '../../schedule/partition.js';
import type { Region } from '../../schedule/types.js';
import { fnomialChildren, fnomialParent } from '../reduce/fnomial.js';

/** Rounds of a k-nomial broadcast over P ids (the depth of the f-nomial tree). */
export function knomialBcastRounds(P: number, f: number): number {
  return ceilLog(P, f);
}

/**
 * k-nomial broadcast of `data` from id 0 over ids 0..P−1: the f-nomial reduce tree
 * run backwards. An id receives from its parent, then sends to its children of the
 * latest phase first (they head the largest subtrees). Transfers of reduce phase p
 * happen in round round0 + D−1−p, D = ⌈log_f P⌉. Returns the steps that finish this
 * rank's part (or `after` if it has none).
 */
export function buildKnomialBcast(
  b: ScheduleBuilder,
  o: { me: number; P: number; f: number; data: Region; rankOf: (id: number) => number; after?: readonly number[]; round0: number },
): number[] {
  const { me, P, f, data, rankOf, round0 } = o;
  const D = knomialBcastRounds(P, f);
  const phases = fnomialChildren(me, P, f);
  let deps: number[] = [...(o.after ?? [])];
  if (me !== 0) {
    // me is a child in phase phases.length of the reduce tree.
    b.round = round0 + D - 1 - phases.length;
    deps = [b.recv(rankOf(fnomialParent(me, f)), data, deps)];
  }
  const sends: number[] = [];
  for (let p = phases.length - 1; p >= 0; p--) {
    b.round = round0 + D - 1 - p;
    for (const kid of phases[p]) sends.push(b.send(rankOf(kid), data, deps));
  }
  b.round = round0 + D;
  return sends.length > 0 ? sends : deps;
}

/** Rounds used by {@link buildSubsetAllreduce} for k contributors in a group of q. */
export function subsetAllreduceRounds(k: number, q: number): number {
  const pof2 = floorPow2(k);
  const rd = Math.log2(pof2) + (pof2 === k ? 0 : 2);
  let spread = 0;
  for (let h = k; h < q; h *= 2) spread++;
  return rd + spread;
}

export interface SubsetAllreduceOptions {
  /** Group size q (members 0..q−1). */
  size: number;
  /** Members 0..k−1 contribute (1 ≤ k ≤ q). */
  contributors: number;
  /** This rank's member index. */
  me: number;
  rankOf: (i: number) => number;
  /** This member's contribution (members < k). May be the same region as `output`. */
  input?: Region;
  /** Where every member ends with the result. */
  output: Region;
  /** Scratch for received operands (not overlapping input or output). */
  tmp: Region;
  /** Dependencies of the first steps (everything that must precede writing `output`). */
  after: readonly number[];
}

/**
 * Allreduce over a group of q members in which only members 0..k−1 contribute:
 * recursive doubling among the contributors (for k not a power of two, MPICH's fold:
 * among the first 2·(k − 2^⌊lg k⌋) contributors each even one folds into the next
 * and gets the result back at the end), then the holders [0, h) send to [h, 2h),
 * doubling h from k until everyone has it. Operands are combined lower index on the
 * left and the combining tree depends only on k, so every member ends with the same
 * bits, and the result is v0 ∘ v1 ∘ … ∘ v(k−1). Rounds start at b.round and take
 * subsetAllreduceRounds(k, q); b.round is left after them. Returns exit steps.
 */
export function buildSubsetAllreduce(b: ScheduleBuilder, o: SubsetAllreduceOptions): number[] {
  const { size: q, contributors: k, me, rankOf, output, tmp } = o;
  const round0 = b.round;
  const pof2 = floorPow2(k);
  const lgp = Math.log2(pof2);
  const rem = k - pof2;
  const off = rem > 0 ? 1 : 0;
  const rdRounds = lgp + 2 * off;
  let last: number[] = [...o.after];
  if (me < k) {
    const input = o.input;
    if (!input) throw new Error(`subset allreduce: contributor ${me} has no input`);
    let cur = input;
    let newrank = -1;
    if (me < 2 * rem) {
      b.round = round0;
      if (me % 2 === 0) {
        const s = b.send(rankOf(me + 1), input, last);
        b.round = round0 + lgp + 1;
        last = [b.recv(rankOf(me + 1), output, [s])];
      } else {
        const r = b.recv(rankOf(me - 1), tmp, last);
        last = [b.reduce([tmp, input], output, [...last, r])];
        cur = output;
        newrank = me >> 1;
      }
    } else {
      newrank = me - rem;
    }
    if (newrank >= 0) {
      for (let mask = 1, step = 0; mask < pof2; mask <<= 1, step++) {
        b.round = round0 + off + step;
        const nd = newrank ^ mask;
        const dst = nd < rem ? nd * 2 + 1 : nd + rem;
        const [s, r] = b.exchange(rankOf(dst), cur, tmp, last);
        last = [b.reduce(dst < me ? [tmp, cur] : [cur, tmp], output, [...last, s, r])];
        cur = output;
      }
      if (!sameRegion(cur, output)) last = [b.copy(cur, output, last)];
      if (me < 2 * rem) {
        b.round = round0 + lgp + 1;
        last = [b.send(rankOf(me - 1), output, last), ...last];
      }
    }
  }
  // Spread to the members that did not contribute.
  const exits: number[] = [];
  let h = k;
  for (let sr = 0; h < q; h *= 2, sr++) {
    b.round = round0 + rdRounds + sr;
    if (me < h && me + h < q) exits.push(b.send(rankOf(me + h), output, last));
    else if (me >= h && me < 2 * h) last = [b.recv(rankOf(me - h), output, last)];
  }
  b.round = round0 + subsetAllreduceRounds(k, q);
  return [...last, ...exits];
}

function sameRegion(a: Region, c: Region): boolean {
  return a.buf === c.buf && a.offset === c.offset && a.count === c.count;
}
