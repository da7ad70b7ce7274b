/**
 * Rabenseifner's allreduce: reduce-scatter by recursive halving, then allgather by
 * recursive doubling (MPICH allreduce_intra_reduce_scatter_allgather). The vector is
 * cut into p' = 2^⌊lg P⌋ nearly equal blocks. In halving step k (mask 2^k) a rank
 * keeps half of its current block range, sends the other half to newrank XOR 2^k and
 * combines the half it keeps with what it receives; after lg p' steps it owns one
 * block fully reduced. The allgather retraces the steps backwards, exchanging owned
 * ranges until every rank has the whole vector. P not a power of two: MPICH's fold,
 * as in recursive_doubling (among the first 2·(P − p') ranks each even rank sends its
 * vector to rank + 1 and gets the result back at the end). No initial copy: the first
 * halving step reads the input and combines into the output.
 *
 * Operand order: after k halving steps a rank's partial covers a contiguous range of
 * newranks (and so of ranks, the fold keeping order), and the lower range is put on
 * the left, exactly as in recursive doubling. Each block is reduced once and copied,
 * so the result is v0 ∘ … ∘ v(P−1) with identical bits on every rank: the algorithm
 * is order preserving (MPICH restricts it to commutative operators; it does not
 * need to). count < p' gives empty blocks and empty messages.
 * Cost: 2⌊lg P⌋·α + 2·(p'−1)/p'·nβ + (p'−1)/p'·nγ, plus 2(α + nβ) + nγ when P is not
 * a power of two.
 */
import { ScheduleBuilder } from '../../schedule/builder.js';
import { blockRange, floorPow2, isPowerOfTwo } from '../../schedule/partition.js';
import type { Region } from '../../schedule/types.js';
import type { AlgorithmSpec } from '../types.js';

export const rabenseifner: AlgorithmSpec = {
  name: 'rabenseifner',
  collective: 'allreduce',
  description: 'recursive-halving reduce-scatter + recursive-doubling allgather; 2 lg P messages, 2(P−1)/P·n data',
  source: 'Rabenseifner 2004; Thakur, Rabenseifner & Gropp 2005; MPICH allreduce_intra_reduce_scatter_allgather; seed 001 §3.7',
  restrictions: [],
  params: [],
  orderPreserving: true,
  cost: {
    formula: "2⌊lg P⌋·α + 2(p'−1)/p'·nβ + (p'−1)/p'·nγ [+ 2(α + nβ) + nγ if P is not a power of two], p' = 2^⌊lg P⌋",
    estimate: ({ P, n, alpha, beta, gamma }) => {
      const p2 = floorPow2(P);
      const lg = Math.log2(p2);
      const main = 2 * lg * alpha + ((p2 - 1) / p2) * n * (2 * beta + gamma);
      return main + (isPowerOfTwo(P) ? 0 : 2 * (alpha + n * beta) + n * gamma);
    },
  },
  generate(ctx) {
    const b = new ScheduleBuilder(ctx, 'rabenseifner');
    const { rank, size: P, count } = ctx;
    if (P === 1) {
      b.copy(b.in(0, count), b.out(0, count));
      return b.build();
    }
    const pof2 = floorPow2(P);
    const lgp = Math.log2(pof2);
    const rem = P - pof2;
    const off = rem > 0 ? 1 : 0;
    const tmpBuf = b.scratch(count, 'tmp');
    const range = (buf: number, lo: number, hi: number): Region => {
      const r = blockRange(count, pof2, lo, hi - lo);
      return b.region(buf, r.offset, r.count);
    };
    const IN_BUF = 0;
    const OUT_BUF = 1;
    let last: number[] = [];
    let curBuf = IN_BUF;
    let newrank: number;
    if (rank < 2 * rem) {
      b.round = 0;
      b.phase = 'fold';
      if (rank % 2 === 0) {
        const s = b.send(rank + 1, b.in(0, count));
        b.phase = 'unfold';
        b.round = 2 * lgp + 1;
        b.recv(rank + 1, b.out(0, count), [s]);
        return b.build();
      }
      const r = b.recv(rank - 1, b.region(tmpBuf, 0, count));
      last = [b.reduce([b.region(tmpBuf, 0, count), b.in(0, count)], b.out(0, count), [r])];
      curBuf = OUT_BUF;
      newrank = rank >> 1;
    } else {
      newrank = rank - rem;
    }
    const peerOf = (nd: number): number => (nd < rem ? nd * 2 + 1 : nd + rem);

    // Reduce-scatter by recursive halving.
    b.phase = 'reduce-scatter';
    let lo = 0;
    let hi = pof2;
    const trail: { dst: number; lo: number; hi: number }[] = [];
    for (let mask = 1, k = 0; mask < pof2; mask <<= 1, k++) {
      b.round = off + k;
      const dst = peerOf(newrank ^ mask);
      const mid = (lo + hi) / 2;
      const lower = (newrank & mask) === 0;
      const [kLo, kHi, sLo, sHi] = lower ? [lo, mid, mid, hi] : [mid, hi, lo, mid];
      const s = b.send(dst, range(curBuf, sLo, sHi), last);
      const r = b.recv(dst, range(tmpBuf, kLo, kHi), last);
      const mine = range(curBuf, kLo, kHi);
      const theirs = range(tmpBuf, kLo, kHi);
      last = [b.reduce(dst < rank ? [theirs, mine] : [mine, theirs], range(OUT_BUF, kLo, kHi), [...last, s, r])];
      curBuf = OUT_BUF;
      trail.push({ dst, lo: sLo, hi: sHi });
      lo = kLo;
      hi = kHi;
    }

    // Allgather by recursive doubling, retracing the halving steps.
    b.phase = 'allgather';
    for (let k = trail.length - 1; k >= 0; k--) {
      b.round = off + lgp + (trail.length - 1 - k);
      const t = trail[k];
      const s = b.send(t.dst, range(OUT_BUF, lo, hi), last);
      const r = b.recv(t.dst, range(OUT_BUF, t.lo, t.hi), last);
      last = [s, r];
      lo = Math.min(lo, t.lo);
      hi = Math.max(hi, t.hi);
    }

    if (rank < 2 * rem) {
      b.phase = 'unfold';
      b.round = 2 * lgp + 1;
      b.send(rank - 1, b.out(0, count), last);
    }
    return b.build();
  },
};
