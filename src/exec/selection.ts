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
 * Node-aware first for latency-bound calls on communicators that span several nodes
 * with several ranks on some node: the ranks of a node combine through shared memory and
 * only one message per node pair crosses the network. Measured (2 node processes × 2
 * ranks over TCP, OSU timing): allreduce 8 B smp 155 µs, nap 243 µs, recursive doubling
 * 736–887 µs; barrier smp 278 µs, dissemination 554–765 µs; allgather 8 B smp 350–359 µs,
 * recursive doubling 432–856 µs.
 */
const NODE_AWARE_SMALL: Partial<Record<CollectiveKind, readonly string[]>> = {
  allreduce: ['smp', 'nap'],
  barrier: ['smp'],
  allgather: ['smp'],
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
  const spread = (q.topology?.nodeCount ?? 1) > 1 && (q.topology?.maxPpn ?? 1) > 1;
  const names = [...(small && spread ? (NODE_AWARE_SMALL[q.collective] ?? []) : []), ...(small || prefs.large.length === 0 ? prefs.small : prefs.large)];
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
