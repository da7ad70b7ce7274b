/**
 * How an offloaded collective is split into node-level work, shared by the engine
 * (which runs it) and the ranks (which run the host parts of intermediate mode):
 *
 *   local-in   combine the node's contributions in shared memory
 *              (allreduce/reduce: fold in communicator-rank order; allgather: pack the
 *              node's blocks, padded to the largest node; bcast: the root's buffer)
 *   inter      one catalogue schedule over the communicator's NODES (rank = node index),
 *              e.g. allreduce/recursive_doubling among the engines
 *   local-out  hand the result to every local rank (allgather: unpack by rank)
 *
 * Modes (seed 000 §3.3.2, F12):
 *   offload       every node's engine runs its role in the inter-node schedule;
 *   intermediate  a node whose inter-node role, in every phase of the schedule, only
 *                 sends (a leaf) or only receives (the root of a reduce) runs it on the
 *                 host: one of its ranks (the root, else its lowest rank) executes those
 *                 steps from host memory; interior nodes (receive, combine, forward)
 *                 leave them to their engine. The default trees are the thesis's
 *                 binomial ones; schedules where every node both sends and receives
 *                 (dissemination, recursive doubling) run all-engine, and so do barrier
 *                 and allgather (no tree roles).
 * Messages are addressed per node: to the engine (job.size + node) or to the host rank
 * that plays the node's role.
 */
import { RestrictionError } from '../../core/errors.js';
import type { Datatype } from '../../core/datatypes.js';
import type { Op } from '../../core/ops.js';
import type { Params } from '../../schedule/context.js';
import { flatTopology } from '../../schedule/topology.js';
import type { CollectiveKind } from '../../schedule/types.js';
import { K_RECV, K_SEND } from '../../exec/compiled.js';
import { makePlan, type Plan } from '../../exec/plan.js';
import { isNicAlgorithm, nicChoice, type NicChoice } from './nic.js';

/** Collectives the engine runs (the seeds' NIC-based ones). */
export const OFFLOAD_KINDS: ReadonlySet<CollectiveKind> = new Set(['barrier', 'bcast', 'reduce', 'allreduce', 'allgather']);

export type OffloadMode = 'offload' | 'intermediate';

/** A communicator seen node by node. */
export interface CommNodes {
  readonly context: number;
  readonly size: number;
  readonly worldOf: Int32Array;
  /** Physical node of each communicator node index (order of first appearance by rank). */
  readonly nodes: readonly number[];
  /** Communicator rank → its node index. */
  readonly nodeIndexOf: Int32Array;
  /** Communicator rank → its index among its node's members. */
  readonly localIndexOf: Int32Array;
  /** Node index → communicator ranks on it, ascending. */
  readonly members: readonly (readonly number[])[];
  /** Largest number of members on one node. */
  readonly maxLocal: number;
}

export function commNodes(context: number, worldOf: Int32Array, nodeOfWorld: Int32Array): CommNodes {
  const index = new Map<number, number>();
  const nodes: number[] = [];
  const members: number[][] = [];
  const nodeIndexOf = new Int32Array(worldOf.length);
  const localIndexOf = new Int32Array(worldOf.length);
  for (let r = 0; r < worldOf.length; r++) {
    const phys = nodeOfWorld[worldOf[r]];
    let k = index.get(phys);
    if (k === undefined) {
      k = nodes.length;
      index.set(phys, k);
      nodes.push(phys);
      members.push([]);
    }
    nodeIndexOf[r] = k;
    localIndexOf[r] = members[k].length;
    members[k].push(r);
  }
  return { context, size: worldOf.length, worldOf, nodes, nodeIndexOf, localIndexOf, members, maxLocal: Math.max(...members.map((m) => m.length)) };
}

export interface NodeCallShape {
  readonly kind: CollectiveKind;
  /** MPI count of the call. */
  readonly count: number;
  readonly type: Datatype;
  readonly op: Op | undefined;
  /** Communicator rank of the root. */
  readonly root: number;
  readonly algorithm: string | undefined;
  readonly params: Params | undefined;
  readonly mode: OffloadMode;
}

export interface NodePlan {
  /** The inter-node plan of one node (undefined with a single node or a NIC protocol). */
  readonly inter: Plan | undefined;
  /** The NIC protocol that replaces the inter-node schedule (nic:* algorithms, offload mode). */
  readonly nic: NicChoice | undefined;
  /** Count of the inter-node call (allgather: a node's padded block). */
  readonly interCount: number;
  /** Root node index. */
  readonly rootNode: number;
  /** Per node index: whether its role runs on the host (intermediate mode). */
  readonly hostRole: readonly boolean[];
  /** Per node index: the communicator rank that plays a host role. */
  readonly executor: readonly number[];
  /** Per node index: the transport address its inter-node messages go to. */
  readonly addresses: Int32Array;
}

/** Default inter-node trees of intermediate mode (the thesis's binomial trees). */
const INTERMEDIATE_DEFAULT: Partial<Record<CollectiveKind, { algorithm: string; params: Params }>> = {
  reduce: { algorithm: 'fnomial', params: { f: 2 } },
  bcast: { algorithm: 'binomial', params: {} },
  allreduce: { algorithm: 'reduce_bcast', params: { f: 2 } },
};

/** Why this call cannot be offloaded (undefined when it can). */
export function offloadRestriction(kind: CollectiveKind, op: Op | undefined, reproducible: boolean): { restriction: string; detail: string } | undefined {
  if (!OFFLOAD_KINDS.has(kind)) return { restriction: `one of ${[...OFFLOAD_KINDS].join(', ')}`, detail: `${kind} runs on the host` };
  if (op && !op.builtin) return { restriction: 'a built-in operator', detail: `user-defined operator '${op.name}' lives in one thread's heap` };
  if (op && !op.commutative) return { restriction: 'a commutative operator', detail: `the engine combines a node's ranks first, and '${op.name}' is not commutative` };
  if (reproducible && op) return { restriction: 'non-reproducible mode', detail: 'reproducible (rank-order) reductions run on the host' };
  return undefined;
}

export function checkOffloadable(kind: CollectiveKind, op: Op | undefined, reproducible: boolean, mode: OffloadMode): void {
  const why = offloadRestriction(kind, op, reproducible);
  if (why) throw new RestrictionError(`${kind} in ${mode} mode`, why.restriction, why.detail, "use { mode: 'host' } for this call");
}

/**
 * The node plan of node index `me` for one call. `jobSize` is the world size (engine
 * addresses follow the world ranks). Deterministic: every engine and rank computes
 * the same roles and addresses.
 */
export function makeNodePlan(c: CommNodes, me: number, shape: NodeCallShape, jobSize: number): NodePlan {
  const n = c.nodes.length;
  const rootNode = shape.kind === 'reduce' || shape.kind === 'bcast' ? c.nodeIndexOf[shape.root] : 0;
  const interCount = shape.kind === 'allgather' ? shape.count * c.maxLocal : shape.count;
  const executor = c.members.map((m, k) => (k === rootNode && (shape.kind === 'reduce' || shape.kind === 'bcast') ? shape.root : m[0]));
  const hostRole = new Array<boolean>(n).fill(false);
  let inter: Plan | undefined;
  let nic: NicChoice | undefined;
  if (isNicAlgorithm(shape.algorithm)) {
    if (shape.mode !== 'offload') {
      throw new RestrictionError(`${shape.kind}/${shape.algorithm}`, 'offload mode', `NIC protocols run in the engines only, not in ${shape.mode} mode`, "use { mode: 'offload' }");
    }
    nic = nicChoice(shape.kind, shape.algorithm, shape.params, n);
  } else if (n > 1 || shape.algorithm !== undefined || shape.params !== undefined) {
    const def = shape.mode === 'intermediate' && shape.algorithm === undefined ? INTERMEDIATE_DEFAULT[shape.kind] : undefined;
    const algorithm = shape.algorithm ?? def?.algorithm;
    const params = shape.params ?? def?.params;
    const plan = (rank: number): Plan => {
      try {
        return makePlan(
          { rank, size: n, topology: flatTopology(n), shmLimit: 0 },
          { kind: shape.kind, count: interCount, type: shape.type, op: shape.op, root: rootNode, algorithm, params, reproducible: false, blocking: false, topology: undefined },
        );
      } catch (e) {
        throw e instanceof RestrictionError ? interNodeRestriction(e, shape.mode, n) : e;
      }
    };
    // On one node there is no inter-node schedule; a named algorithm is still checked, so that an
    // unknown name or bad parameters fail on one node as they do on several.
    if (n === 1) plan(0);
    else inter = plan(me);
    if (inter && shape.mode === 'intermediate' && (shape.kind === 'reduce' || shape.kind === 'allreduce' || shape.kind === 'bcast')) {
      for (let k = 0; k < n; k++) hostRole[k] = k === me ? leafOrRoot(inter) : leafOrRoot(plan(k));
    }
  }
  const addresses = Int32Array.from({ length: n }, (_, k) => (hostRole[k] ? c.worldOf[executor[k]] : jobSize + c.nodes[k]));
  return { inter, nic: n > 1 ? nic : undefined, interCount, rootNode, hostRole, executor, addresses };
}

/**
 * A restriction of the inter-node schedule, saying that its P counts nodes: "requires a
 * power-of-two number of ranks: P = 3 ..." on a 7-rank communicator is otherwise a puzzle.
 */
function interNodeRestriction(e: RestrictionError, mode: OffloadMode, nodes: number): RestrictionError {
  const head = `algorithm '${e.algorithm}' requires ${e.restriction}: `;
  let detail = e.message.startsWith(head) ? e.message.slice(head.length) : e.message;
  const tail = e.hint === undefined ? '' : `\n  hint: ${e.hint}`;
  if (tail && detail.endsWith(tail)) detail = detail.slice(0, -tail.length);
  return new RestrictionError(e.algorithm, e.restriction, `${detail} (in ${mode} mode the algorithm is the inter-node schedule, whose ranks are the communicator's ${nodes} nodes)`, e.hint);
}

/** Whether, in every phase of the plan (and every phase label of its schedules), the node only sends or only receives. */
function leafOrRoot(plan: Plan): boolean {
  for (const ph of plan.phases) {
    const cs = ph.compiled;
    const steps = cs.source.steps;
    const sends = new Set<string>();
    const recvs = new Set<string>();
    for (let i = 0; i < cs.n; i++) {
      const label = steps[i].phase ?? '';
      if (cs.kind[i] === K_SEND) sends.add(label);
      else if (cs.kind[i] === K_RECV) recvs.add(label);
    }
    for (const label of sends) if (recvs.has(label)) return false;
  }
  return true;
}
