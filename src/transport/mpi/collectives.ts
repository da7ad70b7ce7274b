/**
 * MPI's own collectives for `{ algorithm: 'mpi' }`: the rank thread calls the MPI
 * library of the MPI transport directly — blocking calls as MPI's blocking collectives
 * (MPI_Allreduce, …: its tuned algorithms), nonblocking ones as MPI_Iallreduce, … with
 * MPI_Test from the rank's wait loop — on an MPI communicator that mirrors ours — the same
 * processes in the same order, made with MPI_Comm_create_group on first use. One rank
 * per MPI process (tasks of one rank each), so that our ranks are MPI's processes.
 *
 * The addon is the MPI transport's (binding.ts), loaded again in this thread: its MPI
 * state is the process's, initialised by the node agent before init() returned.
 */
import { createRequire } from 'node:module';
import type { Datatype } from '../../core/datatypes.js';
import type { Op } from '../../core/ops.js';
import type { CollectiveKind } from '../../schedule/types.js';
import { addonPath, type MpiFlavour } from './binding.js';

interface CollectiveAddon {
  commCreate(worldRanks: Int32Array, tag: number): number;
  commFree(comm: number): void;
  start(kind: number, comm: number, send: Uint8Array, recv: Uint8Array, count: number, type: number, op: number, root: number): number;
  run(kind: number, comm: number, send: Uint8Array, recv: Uint8Array, count: number, type: number, op: number, root: number): void;
  test(request: number): boolean;
}

const KINDS: Record<CollectiveKind, number> = { barrier: 0, bcast: 1, reduce: 2, allreduce: 3, allgather: 4, reduce_scatter: 5, gather: 6, scatter: 7, alltoall: 8, scan: 9, exscan: 10 };
const TYPES = ['int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64', 'float32', 'float64'];
const OPS = ['sum', 'prod', 'min', 'max', 'land', 'lor', 'lxor', 'band', 'bor', 'bxor'];
const LOGICAL = new Set(['land', 'lor', 'lxor', 'band', 'bor', 'bxor']);

/**
 * Reductions an installed MPI gets wrong, found by comparing every datatype × operator
 * with this library's own algorithms (test/transport/programs/mpi-algorithm.ts checks
 * them all): MPICH 4.0 reduces uint8 with min and max as if it were signed
 * (pmodels/mpich#6083; measured here: the minimum of 200, 41 and 138 came out 138).
 * Open MPI 4.1's saturating AVX sums of int8/uint8 are avoided by turning its AVX
 * reductions off (binding.ts, MPI_ENVIRONMENT).
 */
const WRONG: Partial<Record<MpiFlavour, readonly { type: string; ops: readonly string[]; why: string }[]>> = {
  mpich: [{ type: 'uint8', ops: ['min', 'max'], why: 'MPICH 4.0 reduces uint8 with min and max as signed bytes (pmodels/mpich#6083)' }],
};

/** Why MPI cannot run a call of this datatype and operator (correctly), or undefined when it can. */
export function mpiCallUnsupported(type: Datatype, op: Op | undefined, flavour?: MpiFlavour): string | undefined {
  if (!TYPES.includes(type.name)) return `MPI has no predefined datatype for ${type.name} here (scalar types only)`;
  if (op === undefined) return undefined;
  if (!OPS.includes(op.name)) return `operator ${op.name} is not one of MPI's predefined operators (${OPS.join(', ')})`;
  if (LOGICAL.has(op.name) && type.name.startsWith('float')) return `MPI defines ${op.name} on integer types only, not ${type.name}`;
  const wrong = flavour ? WRONG[flavour]?.find((w) => w.type === type.name && w.ops.includes(op.name)) : undefined;
  return wrong ? `${wrong.why}: this library's own algorithms run it instead` : undefined;
}

/** The rank thread's handle on MPI's collectives. */
export class MpiCollectives {
  private readonly addon: CollectiveAddon;
  private readonly comms = new Map<number, number>();

  constructor(flavour: MpiFlavour) {
    this.addon = createRequire(import.meta.url)(addonPath(flavour)) as CollectiveAddon;
  }

  /** The MPI communicator of our communicator `context` over these world ranks (made on first use: collective over its members). */
  comm(context: number, worldRanks: Int32Array): number {
    let h = this.comms.get(context);
    if (h === undefined) {
      h = this.addon.commCreate(worldRanks, context & 0x7fff); // MPI guarantees tags up to 32767
      this.comms.set(context, h);
    }
    return h;
  }

  /** Free the mirror of a communicator being freed. */
  free(context: number): void {
    const h = this.comms.get(context);
    if (h === undefined) return;
    this.comms.delete(context);
    this.addon.commFree(h);
  }

  start(kind: CollectiveKind, comm: number, send: Uint8Array, recv: Uint8Array, count: number, type: Datatype, op: Op | undefined, root: number): number {
    return this.addon.start(KINDS[kind], comm, send, recv, count, TYPES.indexOf(type.name), op ? OPS.indexOf(op.name) : 0, root);
  }

  /** The blocking collective, MPI's fastest form: returns when MPI does (no timeout of ours). */
  run(kind: CollectiveKind, comm: number, send: Uint8Array, recv: Uint8Array, count: number, type: Datatype, op: Op | undefined, root: number): void {
    this.addon.run(KINDS[kind], comm, send, recv, count, TYPES.indexOf(type.name), op ? OPS.indexOf(op.name) : 0, root);
  }

  test(request: number): boolean {
    return this.addon.test(request);
  }
}
