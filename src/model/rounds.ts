/**
 * Round-synchronous evaluation of a schedule (seed 001 / seed 004 style,
 * docs/cost-semantics.md "Round-synchronous evaluation"): the steps of round t
 * (`step.round`) of every rank happen together, each round costs the maximum over
 * nodes of that node's cost in the round, and rounds add up (plus the machine's
 * once-per-call `startup`).
 *
 * A round is a communication phase followed by a computation phase, each ending
 * when the slowest node finishes it: round time = max over nodes of communication +
 * max over nodes of computation (no overlap). This is how seed 004's timelines
 * charge a step (the busiest node's links plus the combine done in that step, even
 * when another node does the combining) and it equals "max over nodes of the sum"
 * whenever the same node is slowest in both, as in seed 001's closed forms.
 *
 * Per-rank laws (`hockney`, `split`, `maxrate`): a rank's communication is
 *   max(Σ send costs, Σ recv costs)
 * (full-duplex ports: an exchange costs one message; several messages in one
 * direction serialise) and a node's is its slowest rank's. Computation of a rank:
 * combines + copies + oSend per send + oRecv per recv; a node's is its slowest rank's.
 * - hockney: every message α + bβ with the inter-node parameters (seed 001 Eq. 1).
 * - split:   intra-node messages α_ℓ + bβ_ℓ, inter-node α + bβ (Eq. 2).
 * - maxrate: as split, but an inter-node send costs α + k·b/min(R_N, k·R_b) with k
 *            the ranks of the node sending inter-node messages in this round (Eq. 3;
 *            receives are not ejection-limited).
 * Node law (`nbl`, `nbl-literal`; seed 004, one rank per node intended): L = messages
 * the node sends plus receives in the round (a message between two ranks of one node
 * counts twice, as in schedule/stats.ts), S = its largest message; the node's
 * communication costs L·α + f(L)·β·S (form B) or L·(α + f(L)·β·S) (literal appendix),
 * with the inter-node α, β.
 *
 * Combines: a k-operand reduce of n elements costs the machine's per-element
 * combine[k]·n when given (seed 004's c2, c3), else (k−1)·c(n) as in the DAG model.
 */
import { ArgumentError } from '../core/errors.js';
import { flatTopology, type Topology } from '../schedule/topology.js';
import type { Schedule } from '../schedule/types.js';
import { combineTime, type Machine } from './machine.js';
import { maxRateTransfer } from './maxrate.js';
import { resolveF, type FFunction } from './nbl.js';
import { zeroTerms, type CostTerms } from './terms.js';

export type RoundLaw = 'hockney' | 'split' | 'maxrate' | 'nbl' | 'nbl-literal';
export const ROUND_LAWS: readonly RoundLaw[] = ['hockney', 'split', 'maxrate', 'nbl', 'nbl-literal'];

export interface RoundOptions {
  law: RoundLaw;
  topology?: Topology;
  elementSize?: number;
  op?: string;
  dtype?: string;
  /** f(L) for the NBL laws (default: the machine's, else nominal). */
  f?: FFunction;
}

export interface RoundCost {
  readonly round: number;
  readonly time: number;
  /** Node with the longer of the round's two phases. */
  readonly node: number;
  readonly terms: CostTerms;
}

export interface RoundResult {
  readonly time: number;
  readonly terms: CostTerms;
  readonly rounds: readonly RoundCost[];
}

interface RankRound {
  rank: number;
  sends: { bytes: number; inter: boolean }[];
  recvs: { bytes: number; inter: boolean }[];
  combine: number;
  copy: number;
}

export function evaluateRounds(schedule: Schedule, machine: Machine, o: RoundOptions): RoundResult {
  const P = schedule.length;
  const topo = o.topology ?? flatTopology(Math.max(1, P));
  if (topo.size !== P) throw new ArgumentError(`topology has ${topo.size} ranks but the schedule has ${P}`);
  const es = o.elementSize ?? 8;
  const op = o.op ?? 'sum';
  const dtype = o.dtype ?? 'float64';
  const law = o.law;
  if (law === 'maxrate' && !machine.injection) {
    throw new ArgumentError(`the maxrate model needs injection bandwidths (R_N, R_b); machine '${machine.name}' has none`, 'use a machine with an injection section (e.g. bluewaters) or another model');
  }
  const f = o.f ?? resolveF(machine.nbl?.f ?? 'nominal');

  // Bucket steps by round, then by rank.
  const rounds = schedule.reduce((m, s) => Math.max(m, s.rounds), 0);
  const byRound: Map<number, RankRound>[] = Array.from({ length: rounds }, () => new Map());
  const get = (t: number, r: number): RankRound => {
    let x = byRound[t].get(r);
    if (!x) byRound[t].set(r, (x = { rank: r, sends: [], recvs: [], combine: 0, copy: 0 }));
    return x;
  };
  for (const s of schedule) {
    const node = topo.nodeOf(s.rank);
    for (const st of s.steps) {
      const x = get(st.round, s.rank);
      switch (st.kind) {
        case 'send':
          x.sends.push({ bytes: st.region.count * es, inter: topo.nodeOf(st.peer) !== node });
          break;
        case 'recv':
          x.recvs.push({ bytes: st.region.count * es, inter: topo.nodeOf(st.peer) !== node });
          break;
        case 'reduce':
          x.combine += combineTime(machine, st.inputs.length, op, dtype, st.dst.count);
          break;
        case 'copy':
          x.copy += st.dst.count * es * machine.copyPerByte;
          break;
      }
    }
  }

  const total = zeroTerms();
  const out: RoundCost[] = [];
  let time = 0;
  for (let t = 0; t < rounds; t++) {
    const ranks = [...byRound[t].values()];
    // Group by node.
    const nodes = new Map<number, RankRound[]>();
    for (const x of ranks) {
      const n = topo.nodeOf(x.rank);
      let l = nodes.get(n);
      if (!l) nodes.set(n, (l = []));
      l.push(x);
    }
    // Communication phase, then computation phase, each ending with the slowest node.
    let comm: { time: number; node: number; terms: CostTerms } | undefined;
    let comp: { time: number; node: number; terms: CostTerms } | undefined;
    for (const [node, members] of [...nodes.entries()].sort((a, b) => a[0] - b[0])) {
      const c = law === 'nbl' || law === 'nbl-literal' ? nblComm(members, machine, f, es, law === 'nbl-literal') : rankLawComm(members, machine, law);
      const ct = c.alpha + c.beta + c.injection;
      if (!comm || ct > comm.time) comm = { time: ct, node, terms: c };
      const k = nodeCompute(members, machine);
      const kt = k.gamma + k.cpu;
      if (!comp || kt > comp.time) comp = { time: kt, node, terms: k };
    }
    if (!comm || !comp) {
      out.push({ round: t, time: 0, node: -1, terms: zeroTerms() });
      continue;
    }
    const terms = zeroTerms();
    for (const k of Object.keys(terms) as (keyof CostTerms)[]) {
      terms[k] = comm.terms[k] + comp.terms[k];
      total[k] += terms[k];
    }
    const rt = comm.time + comp.time;
    out.push({ round: t, time: rt, node: comm.time >= comp.time ? comm.node : comp.node, terms });
    time += rt;
  }
  const startup = machine.startup ?? 0;
  total.constant += startup;
  return { time: time + startup, terms: total, rounds: out };
}

/** A node's communication time under the hockney / split / maxrate laws: its slowest rank's. */
function rankLawComm(members: RankRound[], m: Machine, law: RoundLaw): CostTerms {
  const injectors = members.filter((x) => x.sends.some((s) => s.inter)).length;
  let worst = zeroTerms();
  let worstT = -1;
  for (const x of members) {
    const dir = (msgs: { bytes: number; inter: boolean }[], sending: boolean): CostTerms => {
      const c = zeroTerms();
      for (const msg of msgs) {
        const l = law === 'hockney' || msg.inter ? m.inter : m.intra;
        c.alpha += l.alpha;
        if (law === 'maxrate' && msg.inter && m.injection) {
          const plain = msg.bytes / m.injection.Rb;
          c.beta += plain;
          if (sending) c.injection += maxRateTransfer(m.injection, injectors, msg.bytes) - plain;
        } else {
          c.beta += msg.bytes * l.beta;
        }
      }
      return c;
    };
    const s = dir(x.sends, true);
    const r = dir(x.recvs, false);
    const c = s.alpha + s.beta + s.injection >= r.alpha + r.beta + r.injection ? s : r;
    const ct = c.alpha + c.beta + c.injection;
    if (ct > worstT) {
      worstT = ct;
      worst = c;
    }
  }
  return worst;
}

/** A node's communication time under the NBL model (form B, or the literal appendix). */
function nblComm(members: RankRound[], m: Machine, f: FFunction, es: number, literal: boolean): CostTerms {
  let L = 0;
  let S = 0;
  for (const x of members) {
    L += x.sends.length + x.recvs.length;
    for (const msg of x.sends) S = Math.max(S, msg.bytes);
    for (const msg of x.recvs) S = Math.max(S, msg.bytes);
  }
  const c = zeroTerms();
  if (L > 0) {
    const fl = f.f(L, S / es);
    const one = m.inter.beta * S;
    c.alpha = L * m.inter.alpha;
    c.beta = one;
    c.injection = literal ? (L * fl - 1) * one : (fl - 1) * one;
  }
  return c;
}

/** A node's computation: its slowest rank's combines, copies and per-message overheads. */
function nodeCompute(members: RankRound[], m: Machine): CostTerms {
  let best = zeroTerms();
  let bestT = -1;
  for (const x of members) {
    const cpu = x.sends.length * m.oSend + x.recvs.length * m.oRecv + x.copy;
    if (x.combine + cpu > bestT) {
      bestT = x.combine + cpu;
      best = { ...zeroTerms(), gamma: x.combine, cpu };
    }
  }
  return best;
}
