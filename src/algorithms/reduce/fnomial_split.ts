/**
 * f-nomial split ("vector split", Van de Geijn), seed 000 §3.2.4 (§3.3 of the
 * notes): s recursive halvings of the vector with a partner exchange between the
 * two halves of each group, then an f-nomial reduce of each piece inside its group,
 * then every group root sends its fully reduced piece to the root.
 *
 * Choices where the seed is silent:
 * - Any P: fold first (MPICH reduce style). With P' = 2^⌊lg P⌋ and rem = P − P',
 *   among virtual ranks v < 2·rem every odd v sends its whole vector to v − 1, which
 *   combines own ∘ received and continues as u = v/2; v ≥ 2·rem continue as
 *   u = v − rem. Each survivor's data covers a contiguous range of virtual ranks.
 * - Partners and groups: at split level l (l = 0..s−1) u exchanges with u XOR 2^l,
 *   the lower u keeps the lower half (⌈len/2⌉ elements) of its current piece, the
 *   upper u the upper half, and both combine lower-ranks' data first. A group is the
 *   set of survivors with equal low s bits (members u = g·2^s + c, group rank g), so
 *   each level splits the current group into its even and odd members. After the
 *   split, group member g holds its piece reduced over the contiguous virtual ranks
 *   of u ∈ [g·2^s, (g+1)·2^s); the f-nomial tree combines members in group-rank
 *   order, so the whole result is in rank order: this scheme is order preserving.
 *   (Splitting at the top bit first, "contiguous halves", would interleave the
 *   ranges and need a commutative operator.)
 * - Root: virtual ranks are rank − root mod P when the operator is commutative, so
 *   the root is u = 0, the root of group 0, and keeps piece 0 in place; with a
 *   non-commutative operator v = rank and the root (any rank, possibly folded out)
 *   receives every piece from the group roots u = 0..2^s−1.
 * - Degrading: the effective number of splits is min(splits, ⌊lg P'⌋, ⌊lg count⌋)
 *   (0 for count = 0), so every piece is non-empty and every group has ≥ 1 member;
 *   with s = lg P' each group is one rank (reduce-scatter plus a direct gather).
 *
 * Cost (P' = P, s splits, G = P/2^s): s·α + (1 − 2^−s)·n(β + γ)
 *   + ⌈log_f G⌉(f−1)(α + (n/2^s)(β + γ)) + (2^s − 1)·α + (1 − 2^−s)·nβ
 *   [+ α + nβ + nγ for the fold when P is not a power of two].
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import { ceilLog, floorPow2 } from '../../schedule/partition.js';
import type { Region } from '../../schedule/types.js';
import { subSchedule } from '../params.js';
import type { AlgorithmSpec } from '../types.js';
import { fnomial } from './fnomial.js';

/** Number of splits actually used for `splits` requested at P ranks and `count` elements. */
export function effectiveSplits(splits: number, P: number, count: number): number {
  const maxByRanks = Math.log2(floorPow2(P));
  const maxByCount = count > 0 ? Math.log2(floorPow2(count)) : 0;
  return Math.min(splits, maxByRanks, maxByCount);
}

/** Element range [offset, offset+count) of the piece held after the split by survivors whose low s bits are c. */
export function splitPiece(count: number, s: number, c: number): { offset: number; count: number } {
  let lo = 0;
  let len = count;
  for (let l = 0; l < s; l++) {
    const lower = Math.ceil(len / 2);
    if ((c >> l) & 1) {
      lo += lower;
      len -= lower;
    } else {
      len = lower;
    }
  }
  return { offset: lo, count: len };
}

export const fnomialSplit: AlgorithmSpec = {
  name: 'fnomial_split',
  collective: 'reduce',
  description: 'vector split: s recursive halvings with partner exchange, f-nomial reduce of each piece per group, pieces to the root',
  source: 'seed 000 §3.2.4 (f-nomial split, after Van de Geijn)',
  restrictions: [],
  params: [
    { name: 'splits', description: 'recursive halvings s of the vector (2^s pieces and groups); fewer are used when P or count is too small', type: 'int', default: 1, min: 0, max: 30 },
    { name: 'f', description: 'degree of the f-nomial tree inside each group', type: 'int', default: 4, min: 2, max: 1 << 20 },
  ],
  orderPreserving: true,
  cost: {
    formula: 's·α + (1−2^−s)n(β+γ) + ⌈log_f(P/2^s)⌉(f−1)(α + n/2^s·(β+γ)) + (2^s−1)α + (1−2^−s)nβ [+ α + n(β+γ) if P ≠ 2^k]',
    estimate: ({ P, n, alpha, beta, gamma, params }) => {
      const f = Number(params.f ?? 4);
      const pof2 = floorPow2(P);
      const s = Math.min(Number(params.splits ?? 1), Math.log2(pof2));
      const k = 2 ** s;
      const piece = n / k;
      return (
        s * alpha +
        (1 - 1 / k) * n * (beta + gamma) +
        ceilLog(pof2 / k, f) * (f - 1) * (alpha + piece * (beta + gamma)) +
        (k - 1) * alpha +
        (1 - 1 / k) * n * beta +
        (pof2 === P ? 0 : alpha + n * (beta + gamma))
      );
    },
  },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'fnomial_split');
    const { rank, size: P, root, count } = ctx;
    const f = Number(ctx.params.f);
    const shift = ctx.commutative ? root : 0;
    const v = (rank - shift + P) % P;
    const toRank = (vv: number): number => (vv + shift) % P;
    const pof2 = floorPow2(P);
    const rem = P - pof2;
    const s = effectiveSplits(Number(ctx.params.splits), P, count);
    const k = 1 << s;
    const G = pof2 >> s;
    const uToV = (u: number): number => (u < rem ? 2 * u : u + rem);
    const off = rem > 0 ? 1 : 0;
    const gatherRound = off + s + ceilLog(G, f);
    const isRoot = rank === root;

    // The root collects the pieces of every group root but itself.
    const collect = (): void => {
      b.phase = 'gather';
      b.round = gatherRound;
      for (let c = 0; c < k; c++) {
        const from = toRank(uToV(c));
        if (from === rank) continue;
        const p = splitPiece(count, s, c);
        b.recv(from, b.out(p.offset, p.count));
      }
    };

    // Fold.
    let src: Region = b.in(0, count);
    let last: number[] = [];
    let u: number;
    b.round = 0;
    if (v < 2 * rem) {
      b.phase = 'fold';
      if (v % 2 === 1) {
        b.send(toRank(v - 1), src);
        if (isRoot) collect();
        return b.build();
      }
      const tmp = b.region(b.scratch(count, 'tmp'), 0, count);
      const acc = b.region(b.scratch(count, 'acc'), 0, count);
      const r = b.recv(toRank(v + 1), tmp);
      last = [b.reduce([src, tmp], acc, [r])];
      src = acc;
      u = v / 2;
    } else {
      u = v - rem;
    }

    // Split: recursive halving with partner u XOR 2^l.
    if (s > 0) {
      b.phase = 'split';
      const accBuf = src.buf === 0 ? b.scratch(count, 'acc') : src.buf;
      const tmp = b.scratch(Math.ceil(count / 2), 'remote');
      let lo = 0;
      let len = count;
      for (let l = 0; l < s; l++) {
        b.round = off + l;
        const lower = Math.ceil(len / 2);
        const upper = (u >> l) & 1;
        const keep = upper ? { offset: lo + lower, count: len - lower } : { offset: lo, count: lower };
        const give = upper ? { offset: lo, count: lower } : { offset: lo + lower, count: len - lower };
        const partner = toRank(uToV(u ^ (1 << l)));
        const sendId = b.send(partner, b.region(src.buf, give.offset, give.count), last);
        const t = b.region(tmp, 0, keep.count);
        const recvId = b.recv(partner, t, last);
        const mine = b.region(src.buf, keep.offset, keep.count);
        const dst = b.region(accBuf, keep.offset, keep.count);
        last = [b.reduce(upper ? [t, mine] : [mine, t], dst, [sendId, recvId])];
        src = b.region(accBuf, 0, count);
        lo = keep.offset;
        len = keep.count;
      }
    }

    // f-nomial reduce of the piece inside the group (members with equal low s bits).
    const c = u & (k - 1);
    const g = u >> s;
    const piece = splitPiece(count, s, c);
    b.round = off + s;
    let result: Region;
    if (g === 0 && (isRoot || G > 1)) {
      result = isRoot ? b.out(piece.offset, piece.count) : b.region(b.scratch(piece.count, 'piece'), 0, piece.count);
    } else {
      result = b.in(0, 0);
    }
    let done: number[];
    if (G === 1 && !isRoot) {
      // A one-member group: its piece is already fully reduced.
      done = last;
      result = b.region(src.buf, piece.offset, piece.count);
    } else {
      const sub = subSchedule(fnomial, ctx, { collective: 'reduce', rank: g, size: G, count: piece.count, root: 0, params: { f } });
      done = b.embed(sub, {
        peer: (gg) => toRank(uToV(gg * k + c)),
        input: { buf: src.buf, offset: piece.offset },
        output: { buf: result.buf, offset: result.offset },
        after: last,
        phase: 'fnomial',
      });
    }

    // Group roots send their pieces to the root.
    if (g === 0 && !isRoot) {
      b.phase = 'gather';
      b.round = gatherRound;
      b.send(root, result, done);
    }
    if (isRoot) collect();
    return b.build();
  },
};
