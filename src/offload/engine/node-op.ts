/**
 * One offloaded collective as the engine runs it for its node: local-in (combine the
 * node's contributions straight from the ranks' shared buffers), the inter-node
 * schedule phases among the engines (and host roles in intermediate mode), local-out
 * (write the result into every rank's buffer). See node-plan.ts for the split.
 *
 * Reductions fold the node's members in communicator-rank order, so every rank of
 * every node gets bitwise the same result (the inter-node schedules are rank
 * consistent, see runtime/plan.ts).
 */
import type { Kernel } from '../../core/ops.js';
import { Execution } from '../../exec/executor.js';
import { EMPTY, overlaps } from '../../exec/buffers.js';
import type { Task } from '../../exec/task.js';
import type { Endpoint } from '../../transport/types.js';
import { SK_COLLECTIVE, type Tracer } from '../../exec/trace.js';
import type { CommNodes, NodeCallShape, NodePlan } from './node-plan.js';

export interface MemberBuffers {
  /** Communicator rank. */
  readonly rank: number;
  /** Send region (bytes) in the arena; empty when the call has none. */
  readonly send: Uint8Array;
  /** Receive region (bytes) in the arena; empty when the call has none. */
  readonly recv: Uint8Array;
}

export interface NodeOpContext {
  readonly endpoint: Endpoint;
  /** The NIC protocol step of a call (plans with `nic`). */
  nicTask?(plan: NodePlan, input: Uint8Array, output: Uint8Array): Task;
  /** Arena bytes for scratch (zero-copy to other nodes); undefined → private memory. */
  alloc(bytes: number): Uint8Array;
  free(buf: Uint8Array): void;
  /** The engine's span recorder (`coll run --trace`: the node's 'nic' lane); absent: tracing is off. */
  readonly trace?: Tracer;
}


export class NodeOp implements Task {
  done = false;
  error: Error | undefined = undefined;
  private exec: Task | undefined;
  private phase = 0;
  private readonly owned: Uint8Array[] = [];
  private input: Uint8Array = EMPTY;
  private output: Uint8Array = EMPTY;
  private readonly es: number;
  private readonly kernel: Kernel | undefined;
  /** Tracing: when the op started (µs since the job's origin). */
  private t0 = 0;

  constructor(
    private readonly x: NodeOpContext,
    private readonly comm: CommNodes,
    /** This node's index in the communicator. */
    private readonly me: number,
    private readonly shape: NodeCallShape,
    private readonly plan: NodePlan,
    /** The node's members, ascending by communicator rank. */
    private readonly members: readonly MemberBuffers[],
    /** The call's tag (collective sequence number); phase i uses tag + i. */
    private readonly tag: number,
  ) {
    this.es = shape.type.size;
    this.kernel = shape.op?.kernel(shape.type);
  }

  start(): void {
    if (this.x.trace !== undefined) this.t0 = this.x.trace.now();
    try {
      this.localIn();
      this.nextPhase();
    } catch (e) {
      this.finish(e as Error);
    }
  }

  advance(): void {
    if (this.done || !this.exec) return;
    this.exec.advance();
    if (!this.exec.done) return;
    if (this.exec.error) {
      this.finish(this.exec.error);
      return;
    }
    try {
      this.nextPhase();
    } catch (e) {
      this.finish(e as Error);
    }
  }

  /** Node indices (of the communicator) whose messages the current phase still waits for. */
  waitingFor(): number[] {
    return this.exec && !this.exec.done ? this.exec.waitingFor() : [];
  }

  /** Give up (a timeout): withdraw pending receives and release scratch. */
  abort(e: Error): void {
    this.finish(e);
  }

  /** Give back scratch; called once, by finish(). */
  private release(): void {
    for (const b of this.owned) this.x.free(b);
    this.owned.length = 0;
  }

  private scratch(bytes: number): Uint8Array {
    const b = this.x.alloc(bytes);
    this.owned.push(b);
    return b;
  }

  private finish(e: Error | undefined): void {
    if (this.done) return;
    if (this.exec instanceof Execution && !this.exec.done && e) this.exec.fail(e);
    this.error = e;
    this.done = true;
    this.release();
    const tr = this.x.trace;
    if (tr !== undefined && e === undefined) {
      const how = this.plan.nic !== undefined ? 'nic protocol' : (this.plan.inter?.algorithm ?? 'node');
      tr.span(SK_COLLECTIVE, this.t0, tr.now(), -1, this.shape.count * this.es, tr.label(`${this.shape.kind} ${this.shape.mode} ${how}`), -1, -1);
    }
  }

  private localIn(): void {
    const { kind, count } = this.shape;
    const bytes = count * this.es;
    const ms = this.members;
    const root = this.shape.root;
    const single = this.plan.inter === undefined && this.plan.nic === undefined;
    switch (kind) {
      case 'barrier':
        return;
      case 'bcast': {
        const r = ms.find((m) => m.rank === root);
        this.output = r ? r.recv : ms[0].recv;
        return;
      }
      case 'reduce':
      case 'allreduce': {
        const kernel = this.kernel as Kernel;
        if (ms.length === 1 && !single && !overlaps(ms[0].send, ms[0].recv)) this.input = ms[0].send;
        else {
          // Fold the node's members in rank order (into the output directly on a one-node communicator).
          // The fold writes acc while it still reads the members' send buffers: acc may be
          // a receive buffer only if every send buffer overlapping it is read before the
          // first write, i.e. is exactly member 0's or 1's (the first kernel call reads each
          // element before writing it) — an in-place root at position 2 or more is not.
          const rootHere = kind === 'reduce' ? ms.find((m) => m.rank === root) : ms[0];
          const recv = rootHere?.recv;
          const direct = single && recv !== undefined && ms.every((m, i) => !overlaps(m.send, recv) || (i < 2 && sameRegion(m.send, recv)));
          const acc = direct ? recv : this.scratch(bytes);
          if (ms.length === 1) acc.set(ms[0].send);
          else {
            kernel(acc, ms[0].send, ms[1].send, count);
            for (let i = 2; i < ms.length; i++) kernel(acc, acc, ms[i].send, count);
          }
          this.input = acc;
        }
        if (single) this.output = this.input;
        else if (kind === 'allreduce') this.output = ms.length === 1 && !overlaps(this.input, ms[0].recv) ? ms[0].recv : this.scratch(bytes);
        else {
          const r = ms.find((m) => m.rank === root);
          this.output = r ? (r.recv === this.input || overlaps(r.recv, this.input) ? this.scratch(bytes) : r.recv) : EMPTY;
        }
        return;
      }
      case 'allgather': {
        const block = bytes;
        const packed = this.scratch(this.comm.maxLocal * block);
        packed.fill(0);
        for (let i = 0; i < ms.length; i++) packed.set(ms[i].send, i * block);
        this.input = packed;
        this.output = single ? packed : this.scratch(this.comm.nodes.length * this.comm.maxLocal * block);
        return;
      }
      default:
        throw new Error(`internal: ${kind} is not offloadable`);
    }
  }

  private nextPhase(): void {
    if (this.plan.nic && this.phase === 0) {
      if (!this.x.nicTask) throw new Error('internal: no NIC protocol support in this context');
      this.phase++;
      this.exec = this.x.nicTask(this.plan, this.input, this.output);
      this.exec.start();
      if (this.exec.done) this.advance();
      return;
    }
    const inter = this.plan.inter;
    if (inter && this.phase < inter.phases.length) {
      const ph = inter.phases[this.phase];
      const es = this.es;
      const scratch = ph.compiled.scratch.map((n) => this.scratch(n * es));
      this.exec = new Execution(ph.compiled, [ph.usesInput ? this.input : EMPTY, this.output, ...scratch], {
        endpoint: this.x.endpoint,
        worldOf: this.plan.addresses,
        context: this.comm.context,
        seq: this.tag + this.phase,
        elementSize: es,
        kernel: inter.kernel,
        trace: this.x.trace,
      });
      this.phase++;
      this.exec.start();
      if (this.exec.done) this.advance();
      return;
    }
    this.localOut();
    this.finish(undefined);
  }

  private localOut(): void {
    const { kind, count, root } = this.shape;
    const ms = this.members;
    const out = this.output;
    switch (kind) {
      case 'barrier':
        return;
      case 'bcast':
      case 'allreduce':
        for (const m of ms) if (m.recv !== out && m.recv.byteLength > 0) m.recv.set(out);
        return;
      case 'reduce': {
        const r = ms.find((m) => m.rank === root);
        if (r && r.recv !== out) r.recv.set(out);
        return;
      }
      case 'allgather': {
        const block = count * this.es;
        const c = this.comm;
        for (const m of ms) {
          for (let r = 0; r < c.size; r++) {
            const at = (c.nodeIndexOf[r] * c.maxLocal + c.localIndexOf[r]) * block;
            m.recv.set(out.subarray(at, at + block), r * block);
          }
        }
        return;
      }
      default:
        return;
    }
  }
}

/** Whether two views are the same bytes of the same buffer. */
function sameRegion(a: Uint8Array, b: Uint8Array): boolean {
  return a.buffer === b.buffer && a.byteOffset === b.byteOffset && a.byteLength === b.byteLength;
}
