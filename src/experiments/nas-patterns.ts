/**
 * Communication patterns of the NAS Parallel Benchmarks the seed ran for Table 3.2
 * (seed 003 §3.6: SP, BT, MG, LU, IS, EP, CG, class A, one process per node), as
 * (source, destination) messages for `connectionsFor` (src/transport/connections.ts).
 *
 * Each kernel is described by phases: a set of messages and how many times the run
 * repeats it. The point-to-point structure (process grids, partners, per-iteration
 * exchanges) follows the NPB 3.x MPI sources; the collectives are generated from this
 * project's own schedules (src/algorithms), picked by the runtime's selection rules
 * (src/exec/selection.ts) for the sizes the kernel passes, so their messages are the
 * ones this runtime would send. What each generator simplifies is said at the
 * generator. Common simplifications:
 * - messages are grouped by phase, not interleaved in program order (connectionsFor
 *   only counts messages per pair, so the order does not change which pairs connect);
 * - a message is one MPI send (the runtime may cut a large one into several frames);
 * - a process's messages to itself (CG's diagonal transpose, MG's axis of one
 *   process) go through memory and are not emitted;
 * - the collectives of the seed's MVAPICH 0.9.5 (MPICH 1.2 algorithms) are not known
 *   in detail; with this runtime's algorithms the rarely used pairs can differ.
 *
 * `messages(pattern)` is the whole run. `thresholdMessages(pattern, threshold)` gives
 * each pair min(count, threshold + 1) messages: connectionsFor connects a pair when its
 * count (both directions) exceeds the threshold, so the pairs that end up connected
 * are exactly those of the full run, at a fraction of the work for large N.
 */
import { checkRestrictions, generateRankSchedule } from '../algorithms/registry.js';
import { ArgumentError } from '../core/errors.js';
import { selectAlgorithm } from '../exec/selection.js';
import type { CollectiveKind } from '../schedule/types.js';

export const NAS_KERNELS = ['SP', 'BT', 'MG', 'LU', 'IS', 'EP', 'CG'] as const;
export type NasKernel = (typeof NAS_KERNELS)[number];

export type Message = readonly [number, number];

/** Messages repeated `times` times in a run. */
export interface Phase {
  readonly what: string;
  readonly messages: readonly Message[];
  readonly times: number;
  /** For a collective's phase: its algorithm, e.g. "allreduce recursive_doubling". */
  readonly collective?: string;
}

export interface KernelPattern {
  readonly kernel: NasKernel;
  readonly nodes: number;
  readonly phases: readonly Phase[];
  /** The collectives' algorithms, e.g. "allreduce recursive_doubling". */
  readonly algorithms: readonly string[];
}

const isPow2 = (n: number): boolean => Number.isInteger(n) && n >= 1 && (n & (n - 1)) === 0;
const isSquare = (n: number): boolean => Number.isInteger(Math.sqrt(n));
const log2 = (n: number): number => Math.round(Math.log2(n));

/** Whether NPB runs the kernel on n processes (CG, MG, LU: powers of two; SP, BT: squares; EP, IS: any). */
export function kernelSupports(kernel: NasKernel, n: number): boolean {
  if (!Number.isInteger(n) || n < 2) return false;
  if (kernel === 'SP' || kernel === 'BT') return isSquare(n);
  if (kernel === 'CG' || kernel === 'MG' || kernel === 'LU') return isPow2(n);
  return true;
}

/** Number of messages in the run (every phase repeated in full). */
export function messageCount(p: KernelPattern): number {
  return p.phases.reduce((a, ph) => a + ph.messages.length * ph.times, 0);
}

/** The run's messages, phase by phase, each phase repeated `times` times. */
export function* messages(p: KernelPattern): Generator<Message> {
  for (const ph of p.phases) for (let t = 0; t < ph.times; t++) yield* ph.messages;
}

/**
 * Each pair's messages of the run, at most threshold + 1 of them (lower node to
 * higher): for connectionsFor with the same threshold, the same connections as
 * messages(p).
 */
export function* thresholdMessages(p: KernelPattern, threshold: number): Generator<Message> {
  const n = p.nodes;
  const counts = new Map<number, number>();
  for (const ph of p.phases) {
    for (const [s, d] of ph.messages) {
      if (s === d) continue;
      const k = Math.min(s, d) * n + Math.max(s, d);
      counts.set(k, (counts.get(k) ?? 0) + ph.times);
    }
  }
  for (const [k, c] of counts) {
    const m: Message = [Math.floor(k / n), k % n];
    for (let i = Math.min(c, threshold + 1); i > 0; i--) yield m;
  }
}

/** Messages per unordered pair over the full run, keyed "a-b" with a < b (for tests and inspection). */
export function pairCounts(p: KernelPattern): Map<string, number> {
  const out = new Map<string, number>();
  for (const ph of p.phases) {
    for (const [s, d] of ph.messages) {
      if (s === d) continue;
      const k = `${Math.min(s, d)}-${Math.max(s, d)}`;
      out.set(k, (out.get(k) ?? 0) + ph.times);
    }
  }
  return out;
}

// ---- Collectives from the project's schedules.

const cache = new Map<string, { readonly algorithm: string; readonly messages: readonly Message[] }>();

/**
 * One call's messages of a collective as this runtime runs it: the algorithm the
 * selection rules pick for `count` elements of `elementSize` bytes (root 0), its
 * schedule's send steps as (rank, peer).
 */
export function collectiveMessages(collective: CollectiveKind, nodes: number, count: number, elementSize = 8): { readonly algorithm: string; readonly messages: readonly Message[] } {
  const key = `${collective}/${nodes}/${count}/${elementSize}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const choice = selectAlgorithm({ collective, size: nodes, count, root: 0, elementSize, commutative: true, datatype: elementSize === 4 ? 'int32' : 'float64', op: 'sum', bytes: count * elementSize });
  const o = { size: nodes, count, root: 0, elementSize, params: choice.params };
  checkRestrictions(choice.spec, o);
  const out: Message[] = [];
  // One rank's schedule at a time: Bruck's alltoall holds O(N) copy steps per rank.
  for (let r = 0; r < nodes; r++) {
    for (const step of generateRankSchedule(choice.spec, r, o).steps) if (step.kind === 'send' && step.peer !== r) out.push([r, step.peer]);
  }
  const r = { algorithm: `${collective} ${choice.spec.name}`, messages: out };
  cache.set(key, r);
  return r;
}

class Builder {
  readonly phases: Phase[] = [];
  readonly algorithms = new Set<string>();
  constructor(readonly nodes: number) {}
  p2p(what: string, messages: readonly Message[], times: number): this {
    const m = messages.filter(([s, d]) => s !== d);
    if (m.length > 0 && times > 0) this.phases.push({ what, messages: m, times });
    return this;
  }
  coll(what: string, collective: CollectiveKind, times: number, count = 1, elementSize = 8): this {
    if (times <= 0 || this.nodes < 2) return this;
    const c = collectiveMessages(collective, this.nodes, count, elementSize);
    this.algorithms.add(c.algorithm);
    if (c.messages.length > 0) this.phases.push({ what, messages: c.messages, times, collective: c.algorithm });
    return this;
  }
  done(kernel: NasKernel): KernelPattern {
    return { kernel, nodes: this.nodes, phases: this.phases, algorithms: [...this.algorithms] };
  }
}

const ranks = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

// ---- EP

/**
 * EP (embarrassingly parallel): no point-to-point traffic. NPB 3.x EP broadcasts the
 * timer flag, synchronises once with a barrier before timing, then sums sx, sy and the
 * 10 annulus counts with three allreduces and takes the maximum time with a fourth
 * (timers off: no final reduces). Exact up to the collectives' algorithms.
 */
export function epPattern(nodes: number): KernelPattern {
  return new Builder(nodes).coll('timer flag', 'bcast', 1, 1, 4).coll('barrier before timing', 'barrier', 1, 0).coll('sx, sy, q, time', 'allreduce', 3, 1).coll('time (max)', 'allreduce', 1, 1).done('EP');
}

// ---- IS

/** Class A IS: 2^23 keys, 2^19 maximum key, 10 timed iterations plus one untimed. */
export const IS_CLASS_A = { totalKeys: 2 ** 23, buckets: 1024, testArray: 5, iterations: 10 } as const;

/**
 * IS (integer sort), class A: 11 calls of rank() (one untimed, 10 timed), each with an
 * allreduce of the 1024 bucket sizes (+5 test entries, int32), an alltoall of one send
 * count per process and an alltoallv of the keys. The alltoallv is not a schedule here:
 * the runtime sends one block to every peer with a non-zero count
 * (communicator.ts alltoallvCall), and with uniformly spread keys every count is
 * non-zero, so it is one message from every process to every other. Then full_verify:
 * each process sends its boundary key to rank + 1, a reduce of the verification count
 * and one of the time. Simplified: the keys' actual distribution is not generated.
 */
export function isPattern(nodes: number): KernelPattern {
  const it = IS_CLASS_A.iterations + 1;
  const direct: Message[] = [];
  for (const s of ranks(nodes)) for (const d of ranks(nodes)) if (s !== d) direct.push([s, d]);
  return new Builder(nodes)
    .coll('bucket size totals', 'allreduce', it, IS_CLASS_A.buckets + IS_CLASS_A.testArray, 4)
    .coll('send counts', 'alltoall', it, 1, 4)
    .p2p('alltoallv of the keys (direct: one block to every peer)', direct, it)
    .p2p('full_verify: boundary key to rank + 1', ranks(nodes - 1).map((r): Message => [r, r + 1]), 1)
    .coll('verification count, time', 'reduce', 2, 1)
    .done('IS');
}

// ---- CG

/** NPB CG's 2-D process grid: npcols × nprows, npcols = nprows or 2·nprows. */
export function cgGrid(nodes: number): { readonly npcols: number; readonly nprows: number } {
  if (!isPow2(nodes)) throw new ArgumentError(`CG needs a power-of-two number of processes, got ${nodes}`);
  const l = log2(nodes);
  const nprows = 2 ** Math.floor(l / 2);
  return { npcols: nodes / nprows, nprows };
}

/** CG's partners of `me`: the l2npcols row-reduction partners and the transpose partner (me itself on the diagonal). */
export function cgPartners(me: number, nodes: number): { readonly row: readonly number[]; readonly transpose: number } {
  const { npcols, nprows } = cgGrid(nodes);
  const procRow = Math.floor(me / npcols);
  const procCol = me % npcols;
  const row: number[] = [];
  for (let div = npcols; div >= 2; div /= 2) row.push(procRow * npcols + ((procCol + div / 2) % div) + Math.floor(procCol / div) * div);
  let transpose: number;
  if (npcols === nprows) transpose = (me % nprows) * nprows + Math.floor(me / nprows);
  else {
    const h = Math.floor(me / 2);
    transpose = 2 * ((h % nprows) * nprows + Math.floor(h / nprows)) + (me % 2);
  }
  return { row, transpose };
}

/** Class A CG: niter 15, 25 CG iterations per conj_grad. */
export const CG_CLASS_A = { niter: 15, cgitmax: 25 } as const;

/**
 * CG (conjugate gradient), class A, on NPB's npcols × nprows grid (proc_row = me /
 * npcols). conj_grad runs 16 times (one untimed, niter = 15 timed); each exchanges
 * with every row partner (proc_col xor 2^i, i < log2 npcols) once for the initial
 * r·r, three times per CG iteration (the row sum of A·p, p·q, r·r) and twice at the
 * end (A·z and the residual norm): 1 + 3·25 + 2 = 78 messages each way; and with the
 * transpose partner once per matrix-vector product, 26 each way. The main loop adds
 * one row exchange per outer iteration (x·z and z·z together). Then a barrier and
 * the reduce of the time. Simplified: the vectors' segment sizes are not modelled.
 */
export function cgPattern(nodes: number): KernelPattern {
  const calls = CG_CLASS_A.niter + 1;
  const row: Message[] = [];
  const tr: Message[] = [];
  for (const me of ranks(nodes)) {
    const p = cgPartners(me, nodes);
    for (const r of p.row) row.push([me, r]);
    tr.push([me, p.transpose]);
  }
  return new Builder(nodes)
    .p2p('row reductions (r·r, A·p, p·q per CG iteration, A·z, norm; plus x·z, z·z)', row, calls * (1 + 3 * CG_CLASS_A.cgitmax + 2 + 1))
    .p2p('transpose exchange per matrix-vector product', tr, calls * (CG_CLASS_A.cgitmax + 1))
    .coll('barrier before timing', 'barrier', 1, 0)
    .coll('time (max)', 'reduce', 1, 1)
    .done('CG');
}

// ---- MG

/** Class A MG: 256³ points, 8 levels, 4 iterations. */
export const MG_CLASS_A = { points: 256, levels: 8, nit: 4 } as const;

/** NPB MG's 3-D process grid for `nodes` (a power of two): [pi1, pi2, pi3], rank = i1 + pi1·(i2 + pi2·i3). */
export function mgGrid(nodes: number): readonly [number, number, number] {
  if (!isPow2(nodes)) throw new ArgumentError(`MG needs a power-of-two number of processes, got ${nodes}`);
  const lp = log2(nodes);
  const dx = Math.floor(lp / 3);
  const dy = Math.floor((lp - dx) / 2);
  return [2 ** dx, 2 ** dy, nodes / 2 ** (dx + dy)];
}

interface MgProc {
  /** nbr[k][ax] = [+1 neighbour, −1 neighbour] at level k (1..levels). */
  readonly nbr: (readonly (readonly [number, number])[])[];
  readonly dead: boolean[];
  /** giveEx[k][ax]: the process sends the expansion data at level k (interp's comm3_ex). */
  readonly giveEx: boolean[][];
}

/**
 * NPB MG's setup for process `me`: at each level k the points per axis are
 * 2^k·(points/2^levels); a process whose share of an axis is empty is dead at that
 * level, and the neighbour distance on that axis doubles from there down (coarse
 * levels talk to processes 2, 4, … apart).
 */
export function mgSetup(me: number, nodes: number, points: number = MG_CLASS_A.points, levels: number = MG_CLASS_A.levels): MgProc {
  const pi = mgGrid(nodes);
  const idi = [me % pi[0], Math.floor(me / pi[0]) % pi[1], Math.floor(me / (pi[0] * pi[1]))];
  const rankOf = (c: readonly number[]): number => c[0] + pi[0] * (c[1] + pi[1] * c[2]);
  const next = [1, 1, 1];
  const nbr: (readonly (readonly [number, number])[])[] = [];
  const dead: boolean[] = [];
  const giveEx: boolean[][] = Array.from({ length: levels + 2 }, () => [false, false, false]);
  for (let k = levels; k >= 1; k--) {
    const ng = points / 2 ** (levels - k);
    const mi = [0, 0, 0];
    for (let ax = 0; ax < 3; ax++) {
      const share = (a: number): number => Math.floor((a * ng) / pi[ax]);
      mi[ax] = 2 + share(idi[ax] + 1) - share(idi[ax]);
      const mip = 2 + share(next[ax] + idi[ax] + 1) - share(next[ax] + idi[ax]);
      if (mip === 2 || mi[ax] === 2) next[ax] *= 2;
      if (k + 1 <= levels && mip === 2 && mi[ax] === 3) giveEx[k + 1][ax] = true;
    }
    dead[k] = mi.some((m) => m === 2);
    nbr[k] = [0, 1, 2].map((ax): readonly [number, number] => {
      const at = (dir: number): number => {
        const c = [...idi];
        c[ax] = (((idi[ax] + dir * next[ax]) % pi[ax]) + pi[ax]) % pi[ax];
        return rankOf(c);
      };
      return [at(1), at(-1)];
    });
  }
  return { nbr, dead, giveEx };
}

/**
 * MG (multigrid), class A: 256³ points on NPB's pi1 × pi2 × pi3 process grid with
 * periodic wrap, 8 levels. comm3 at level k sends each live process's two faces per
 * axis to its level-k neighbours (±1 on the fine levels; ±2, ±4, … on the coarse levels
 * where some processes hold no points, which are dead and skip comm3); interp's
 * comm3_ex sends the expansion data to the neighbours of processes that come alive.
 * Calls, as in NPB 3.x: mg3P runs 5 times (one start-up, nit = 4); each has comm3 at
 * level 1 twice (rprj3, psinv), at levels 2..7 three times (rprj3, resid, psinv), at the
 * finest level twice (resid, psinv) and comm3_ex at levels 2..8; the finest level has 9
 * more comm3 (7 resid, 2 zran3). Collectives: 7 bcasts of the inputs, 6 barriers, 88
 * allreduces (zran3 runs twice with 40: the ten largest and smallest values and their
 * positions; norm2u3 runs 4 times with 2), one reduce of the time. Simplified: face
 * sizes are not modelled; comm1p (one process) is not needed for N ≥ 2.
 */
export function mgPattern(nodes: number): KernelPattern {
  const { levels, nit } = MG_CLASS_A;
  const procs = ranks(nodes).map((me) => mgSetup(me, nodes));
  const comm3 = (k: number): Message[] => procs.flatMap((p, me) => (p.dead[k] ? [] : p.nbr[k].flatMap(([a, b]): Message[] => [[me, a], [me, b]])));
  const comm3ex = (k: number): Message[] => procs.flatMap((p, me) => p.nbr[k].flatMap(([a, b], ax): Message[] => (p.giveEx[k][ax] ? [[me, a], [me, b]] : [])));
  const cycles = nit + 1;
  const b = new Builder(nodes);
  for (let k = 1; k <= levels; k++) {
    const times = k === 1 ? 2 * cycles : k < levels ? 3 * cycles : 2 * cycles + nit + 3 + 2;
    b.p2p(`comm3 at level ${k}`, comm3(k), times);
    if (k >= 2) b.p2p(`comm3_ex at level ${k}`, comm3ex(k), cycles);
  }
  return b
    .coll('inputs', 'bcast', 7, 1, 4)
    .coll('barriers', 'barrier', 6, 0)
    .coll('zran3 (1 double, 4 ints) and norm2u3', 'allreduce', 88, 1)
    .coll('time (max)', 'reduce', 1, 1)
    .done('MG');
}

// ---- LU

/** NPB LU's 2-D grid: xdim × ydim with ydim the largest divisor ≤ √N; row = id mod xdim, col = id / xdim. */
export function luGrid(nodes: number): { readonly xdim: number; readonly ydim: number } {
  let ydim = Math.floor(Math.sqrt(nodes) + 1e-9);
  while (nodes % ydim !== 0) ydim--;
  return { xdim: nodes / ydim, ydim };
}

/** LU's north, south, west, east neighbours of `id` (no wrap; absent at the edges). */
export function luNeighbours(id: number, nodes: number): { readonly north?: number; readonly south?: number; readonly west?: number; readonly east?: number } {
  const { xdim, ydim } = luGrid(nodes);
  const row = id % xdim;
  const col = Math.floor(id / xdim);
  return {
    ...(row > 0 ? { north: id - 1 } : {}),
    ...(row < xdim - 1 ? { south: id + 1 } : {}),
    ...(col > 0 ? { west: id - xdim } : {}),
    ...(col < ydim - 1 ? { east: id + xdim } : {}),
  };
}

/** Class A LU: 64³ points (62 interior planes per sweep), 250 SSOR iterations. */
export const LU_CLASS_A = { planes: 62, itmax: 250 } as const;

/**
 * LU (SSOR with a pipelined 2-D wavefront), class A, on NPB's xdim × ydim grid
 * without wrap. Per SSOR iteration (250, plus the one that touches the pages): the
 * lower sweep sends one message per interior plane (62) to the south and east
 * neighbours, the upper sweep one per plane to the north and west, and rhs's
 * exchange_3 one to each neighbour. Collectives, approximately as in NPB 3.x: 10
 * bcasts of the inputs, 4 barriers, 10 allreduces (l2norm, error, pintgr's three
 * integrals, the time). Simplified: exchange_4/5/6 (pintgr's boundary data, with the
 * same neighbours) are left out, and the collective counts are a reading of the source
 * that decides which rarely used pairs pass 16 messages.
 */
export function luPattern(nodes: number): KernelPattern {
  const it = LU_CLASS_A.itmax + 1;
  const lower: Message[] = [];
  const upper: Message[] = [];
  const all: Message[] = [];
  for (const id of ranks(nodes)) {
    const n = luNeighbours(id, nodes);
    for (const d of [n.south, n.east]) if (d !== undefined) lower.push([id, d]);
    for (const d of [n.north, n.west]) if (d !== undefined) upper.push([id, d]);
    for (const d of [n.north, n.south, n.west, n.east]) if (d !== undefined) all.push([id, d]);
  }
  return new Builder(nodes)
    .p2p('lower-triangular sweep, one message per plane to south and east', lower, it * LU_CLASS_A.planes)
    .p2p('upper-triangular sweep, one message per plane to north and west', upper, it * LU_CLASS_A.planes)
    .p2p('rhs exchange_3 with every neighbour', all, it)
    .coll('inputs', 'bcast', 10, 1)
    .coll('barriers', 'barrier', 4, 0)
    .coll('norms, errors, integrals, time', 'allreduce', 10, 5)
    .done('LU');
}

// ---- SP and BT

/** The multipartition neighbours of `node` (NPB make_set): predecessor and successor in x, y and z. */
export function multipartitionNeighbours(node: number, nodes: number): { readonly predecessor: readonly number[]; readonly successor: readonly number[] } {
  if (!isSquare(nodes)) throw new ArgumentError(`SP and BT need a square number of processes, got ${nodes}`);
  const p = Math.round(Math.sqrt(nodes));
  const i = node % p;
  const j = Math.floor(node / p);
  const m = (x: number): number => ((x % p) + p) % p;
  return {
    predecessor: [m(i - 1) + p * j, i + p * m(j - 1), m(i + 1) + p * m(j - 1)],
    successor: [m(i + 1) + p * j, i + p * m(j + 1), m(i - 1) + p * m(j + 1)],
  };
}

/** Class A time steps: SP 400, BT 200. */
export const SPBT_CLASS_A = { SP: 400, BT: 200 } as const;

/**
 * SP and BT (ADI solvers on NPB's diagonal multipartition, √N × √N processes, each
 * owning √N cells along a diagonal): per time step (class A: SP 400, BT 200, plus the
 * one before timing) copy_faces sends one message to each of the 6 neighbours
 * (predecessor and successor in x, y, z), and each of x_solve, y_solve, z_solve sends
 * √N − 1 messages to the successor (forward substitution across the cells) and √N − 1
 * to the predecessor (back substitution). Collectives: 3 bcasts of the inputs, a
 * barrier, 2 allreduces (error and rhs norms), a reduce of the time. Simplified: the
 * real solvers' per-stage message contents (BT's block matrices, SP's scalar
 * pentadiagonal lines) differ, not their partners; SP and BT therefore have the same
 * connections.
 */
export function multipartitionPattern(kernel: 'SP' | 'BT', nodes: number): KernelPattern {
  const p = Math.round(Math.sqrt(nodes));
  const steps = SPBT_CLASS_A[kernel] + 1;
  const faces: Message[] = [];
  const solve: Message[] = [];
  for (const node of ranks(nodes)) {
    const nb = multipartitionNeighbours(node, nodes);
    for (let dir = 0; dir < 3; dir++) {
      faces.push([node, nb.predecessor[dir]], [node, nb.successor[dir]]);
      solve.push([node, nb.successor[dir]], [node, nb.predecessor[dir]]);
    }
  }
  return new Builder(nodes)
    .p2p('copy_faces to the 6 neighbours', faces, steps)
    .p2p('x/y/z_solve: forward to the successor and back to the predecessor, per cell stage', solve, steps * (p - 1))
    .coll('inputs', 'bcast', 3, 1, 4)
    .coll('barrier before timing', 'barrier', 1, 0)
    .coll('error and rhs norms', 'allreduce', 2, 5)
    .coll('time (max)', 'reduce', 1, 1)
    .done(kernel);
}

/** The pattern of `kernel` on `nodes` processes (throws if NPB does not run it there). */
export function kernelPattern(kernel: NasKernel, nodes: number): KernelPattern {
  if (!kernelSupports(kernel, nodes)) {
    throw new ArgumentError(`NAS ${kernel} does not run on ${nodes} processes`, kernel === 'SP' || kernel === 'BT' ? 'SP and BT need a square number' : 'CG, MG and LU need a power of two');
  }
  switch (kernel) {
    case 'EP':
      return epPattern(nodes);
    case 'IS':
      return isPattern(nodes);
    case 'CG':
      return cgPattern(nodes);
    case 'MG':
      return mgPattern(nodes);
    case 'LU':
      return luPattern(nodes);
    case 'SP':
    case 'BT':
      return multipartitionPattern(kernel, nodes);
  }
}
