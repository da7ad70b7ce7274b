/**
 * Automatic algorithm selection: which schedule runs a collective when the caller
 * names none. One place for the rules, in this order:
 *
 * 1. a decision table (the tuner's JSON, `setDecisionTable()` or the file named by
 *    COLL_DECISION_TABLE), when it has a rule for the call;
 * 2. simple size/scale rules below: a preference list per collective and size class
 *    (latency-bound small messages vs bandwidth-bound large ones);
 * 3. any catalogue algorithm of the collective, in catalogue order;
 * 4. the runtime's built-in direct schedules (builtin.ts).
 *
 * A candidate is only taken when its restrictions hold (never auto-pick an algorithm
 * whose restrictions fail); an explicitly named algorithm whose restrictions fail is a
 * RestrictionError instead (see plan.ts).
 */
import { checkRestrictions, getAlgorithm, listAlgorithms } from '../algorithms/registry.js';
import type { AlgorithmSpec } from '../algorithms/types.js';
import type { ContextOptions, Params } from '../schedule/context.js';
import type { CollectiveKind } from '../schedule/types.js';
import { loadDecisionTable, lookupDecision, type DecisionTable } from '../tune/decision.js';
import { FALLBACK } from './builtin.js';

/** Messages up to this many bytes per rank are latency-bound. */
export const SMALL_BYTES = 16 * 1024;

const PREFERENCES: Record<CollectiveKind, { small: readonly string[]; large: readonly string[] }> = {
  barrier: { small: ['dissemination', 'pairwise_exchange', 'kary_tree', 'linear'], large: [] },
  bcast: { small: ['binomial', 'knomial'], large: ['scatter_allgather', 'chain', 'binomial'] },
  reduce: { small: ['binomial', 'fnomial'], large: ['rabenseifner', 'fnomial_split', 'binomial'] },
  allreduce: {
    small: ['recursive_doubling'],
    large: ['rabenseifner', 'ring', 'reduce_scatter_allgather', 'recursive_doubling'],
  },
  allgather: { small: ['recursive_doubling', 'bruck'], large: ['ring', 'recursive_doubling', 'bruck'] },
  reduce_scatter: { small: ['recursive_halving', 'pairwise'], large: ['pairwise', 'ring', 'recursive_halving'] },
  gather: { small: ['binomial', 'linear'], large: ['binomial', 'linear'] },
  scatter: { small: ['binomial', 'linear'], large: ['binomial', 'linear'] },
  alltoall: { small: ['bruck', 'pairwise'], large: ['pairwise', 'bruck'] },
  scan: { small: ['recursive_doubling', 'linear'], large: ['recursive_doubling', 'linear'] },
  exscan: { small: ['recursive_doubling', 'linear'], large: ['recursive_doubling', 'linear'] },
};

/**
 * Node-aware first on communicators that span several nodes with several ranks on
 * some node: the ranks of a node combine through shared memory and only one message
 * per node pair crosses the network. Measured (2 node processes × 2 ranks over TCP,
 * `coll bench <c> -n 4 --nodes 2 --all-algorithms`, 2026-11-25, medians of 2 runs):
 * - small (≤ 16 KiB): allreduce 8 B smp 103 µs, nap 135 µs, recursive doubling
 *   534–659 µs; barrier smp 278 µs, dissemination 554–765 µs; allgather 8 B smp 93 µs,
 *   recursive doubling 523–636 µs; reduce_scatter 8 B reduce-then-scatter 67 µs,
 *   recursive halving 344 µs;
 * - large: allreduce 64 KiB smp 189 µs, Rabenseifner 638 µs, 1 MiB 2.5 against
 *   2.6–4.5 ms (smp's leaders run recursive doubling, lg N·n bytes each: as good as
 *   Rabenseifner's 2n only up to 4 nodes); allgather 64 KiB smp 246 µs, ring 892 µs,
 *   1 MiB 3.8 against 3.9 ms, but 4 MiB ring 14.3 against smp 20.6 ms (the leader
 *   forwards the whole result inside its node); reduce_scatter 64 KiB–1 MiB
 *   reduce-then-scatter 0.35–5.0 ms, pairwise 0.54–8.3 ms (the reduce runs inside
 *   the nodes first; its root carries P·n, so only for few ranks).
 */
function nodeAwarePreferences(q: SelectionQuery, small: boolean): readonly string[] {
  const t = q.topology;
  if (!t || t.nodeCount <= 1 || t.maxPpn <= 1) return [];
  switch (q.collective) {
    case 'allreduce':
      return small ? ['smp', 'nap'] : t.nodeCount <= 4 ? ['smp'] : [];
    case 'barrier':
      return ['smp'];
    case 'allgather':
      return small || q.bytes <= 1 << 20 ? ['smp'] : [];
    case 'reduce_scatter':
      return q.size < FEW_RANKS && q.bytes <= 1 << 20 ? ['reduce_then_scatter'] : [];
    default:
      return [];
  }
}

/**
 * Fewer ranks than this: a broadcast or reduction of a large vector goes down one
 * binomial tree whole instead of being split (scatter + allgather, Rabenseifner).
 * MPICH draws the same line for broadcast (MPIR_CVAR_BCAST_MIN_PROCS = 8). Measured
 * across 2 node processes (2 and 4 ranks, 64 KiB – 4 MiB): binomial bcast 29–421 µs
 * at 2 ranks and 86–563 µs at 4 against scatter-allgather 161–942 and 367–1373 µs;
 * binomial reduce 40–635 µs and 119–627 µs against Rabenseifner 115–807 and
 * 292–1677 µs (splitting pays for more messages than a 2-level tree has).
 */
const FEW_RANKS = 8;
const FEW_RANKS_LARGE: Partial<Record<CollectiveKind, readonly string[]>> = {
  bcast: ['binomial'],
  reduce: ['binomial'],
};

/**
 * Allreduce algorithms known to leave bitwise-identical results on every rank
 * (each element is reduced once and then copied, or every rank folds the same
 * operands in the same grouping). Any other allreduce, e.g. one added to the
 * catalogue later, gets a broadcast of rank 0's result appended.
 * test/runtime/consistency.test.ts checks every entry with random floats through
 * the reference executor.
 */
export const RANK_CONSISTENT_ALLREDUCE: ReadonlySet<string> = new Set([
  'recursive_doubling',
  'rabenseifner',
  'ring',
  'reduce_bcast',
  'smp',
  'nap',
  'mesh_tree',
  'snake',
  'fence',
  'reproducible',
]);

export interface Choice {
  readonly spec: AlgorithmSpec;
  readonly params: Params;
  /** Where the choice came from, for `coll bench` and debug output. */
  readonly reason: 'table' | 'rules' | 'catalogue' | 'builtin';
}

let table: DecisionTable | undefined;
let tableLoaded = false;

/** Use a tuner decision table for automatic selection (undefined: back to the built-in rules). */
export function setDecisionTable(t: DecisionTable | undefined): void {
  table = t;
  tableLoaded = true;
}

function currentTable(): DecisionTable | undefined {
  if (!tableLoaded) {
    tableLoaded = true;
    const path = process.env.COLL_DECISION_TABLE;
    if (path) table = loadDecisionTable(path);
  }
  return table;
}

function applicable(spec: AlgorithmSpec, o: Omit<ContextOptions, 'rank'>): boolean {
  try {
    checkRestrictions(spec, o);
    return true;
  } catch {
    return false;
  }
}

function tryName(collective: CollectiveKind, name: string): AlgorithmSpec | undefined {
  try {
    return getAlgorithm(collective, name);
  } catch {
    return undefined;
  }
}

export interface SelectionQuery extends Omit<ContextOptions, 'rank' | 'params'> {
  readonly collective: CollectiveKind;
  readonly datatype: string;
  readonly op: string;
  /** Bytes of one rank's contribution (count × element size). */
  readonly bytes: number;
}

/**
 * The decision table's rule for a call, if a table is in use and has one (the tuner's
 * choice; plan.ts also reads it for the runtime paths a table may name, like 'mpi').
 */
export function tableRule(q: SelectionQuery): { algorithm: string; params: Params } | undefined {
  const t = currentTable();
  if (!t) return undefined;
  return lookupDecision(t, { collective: q.collective, P: q.size, bytes: q.bytes, datatype: q.datatype, op: q.op, ppn: q.topology?.maxPpn });
}

/** Pick the algorithm for a call (never one whose restrictions fail). */
export function selectAlgorithm(q: SelectionQuery): Choice {
  const base = { size: q.size, count: q.count, root: q.root, commutative: q.commutative, elementSize: q.elementSize, topology: q.topology };
  const t = currentTable();
  if (t) {
    const rule = lookupDecision(t, {
      collective: q.collective,
      P: q.size,
      bytes: q.bytes,
      datatype: q.datatype,
      op: q.op,
      ppn: q.topology?.maxPpn,
    });
    const spec = rule && tryName(q.collective, rule.algorithm);
    if (spec && rule && applicable(spec, { ...base, params: rule.params })) return { spec, params: rule.params, reason: 'table' };
    const fb = spec?.fallback ? tryName(q.collective, spec.fallback) : undefined;
    if (fb && applicable(fb, base)) return { spec: fb, params: {}, reason: 'table' };
  }
  const prefs = PREFERENCES[q.collective];
  const small = q.bytes <= SMALL_BYTES;
  const few = !small && q.size < FEW_RANKS ? (FEW_RANKS_LARGE[q.collective] ?? []) : [];
  const names = [...nodeAwarePreferences(q, small), ...few, ...(small || prefs.large.length === 0 ? prefs.small : prefs.large)];
  for (const name of names) {
    const spec = tryName(q.collective, name);
    if (spec && applicable(spec, base)) return { spec, params: {}, reason: 'rules' };
  }
  for (const spec of listAlgorithms(q.collective)) {
    if (spec.topology !== 'mesh' && applicable(spec, base)) return { spec, params: {}, reason: 'catalogue' };
  }
  const fb = FALLBACK[q.collective];
  if (fb) return { spec: fb, params: {}, reason: 'builtin' };
  throw new Error(`internal: no algorithm for ${q.collective} at P = ${q.size}`);
}
