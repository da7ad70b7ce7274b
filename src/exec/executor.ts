/**
 * Runtime executor: runs one rank's compiled schedule over real buffers and a
 * transport endpoint, with the semantics of the reference executor
 * (src/reference/executor.ts): a step becomes ready when its dependencies have
 * completed; a receive completes when its matching message (the k-th from that
 * peer in this collective) has arrived; reduce folds operands in the listed order
 * with the core kernels; a send completes once its payload is buffered by the
 * transport or consumed by the receiver.
 *
 * The execution is driven from outside (see engine.ts): `start()` runs what is
 * ready, transport callbacks complete steps and queue their dependents, and
 * `advance()` runs newly ready steps. Receives that the schedule feeds only into a
 * reduce may be fused: with a shared-arena payload the reduce reads the sender's
 * memory directly (see compiled.ts).
 *
 * Multicast: a group of multicast-marked sends (compiled.ts) is posted as one
 * `endpoint.imcast` to the members' world ranks when its first member runs (the
 * others are ready by then: same dependencies), and that one send's completion
 * completes every member. An endpoint without `imcast`, or one that declines
 * (returns undefined), gets the members as ordinary sends.
 */
import type { Kernel } from '../core/ops.js';
import { SPACE_COLL, type Endpoint, type RecvOp, type SendOp } from '../transport/types.js';
import type { Region } from '../schedule/types.js';
import { K_COPY, K_RECV, K_REDUCE, K_SEND, type CompiledSchedule } from './compiled.js';
import type { Task } from './task.js';
import type { Tracer } from './trace.js';

export interface ExecutionContext {
  readonly endpoint: Endpoint;
  /** World rank of each communicator rank. */
  readonly worldOf: Int32Array;
  readonly context: number;
  /** Collective sequence number (the message tag). */
  readonly seq: number;
  readonly elementSize: number;
  readonly kernel: Kernel | undefined;
  /** 16-bit call signature carried by and checked on every message (call-signature.ts); 0/absent: none. */
  readonly sig?: number;
  /** Records every step as a span (`coll run --trace`, trace.ts); absent: tracing is off. */
  readonly trace?: Tracer;
}

export class Execution implements Task {
  done = false;
  error: Error | undefined = undefined;
  private readonly pending: Int32Array;
  private readonly ready: number[] = [];
  private head = 0;
  private completed = 0;
  private readonly fused: Uint8Array;
  private readonly finished: Uint8Array;
  private readonly ops: (SendOp | RecvOp | undefined)[];
  /** Per multicast group: 0 not posted yet, 1 posted as one multicast, 2 declined (ordinary sends). */
  private readonly mcastState: Uint8Array | undefined;
  private started = false;
  /** Tracing: each step's start (µs since the job's origin; NaN once its span is recorded). Undefined: tracing is off. */
  private readonly t0: Float64Array | undefined;
  /** Called once when every step has completed (e.g. to recycle scratch buffers). */
  onSuccess: (() => void) | undefined;

  constructor(
    readonly cs: CompiledSchedule,
    /** Byte views of the buffers, by buffer id. */
    readonly bufs: readonly Uint8Array[],
    readonly x: ExecutionContext,
  ) {
    this.pending = cs.ndeps.slice();
    this.fused = new Uint8Array(cs.n);
    this.finished = new Uint8Array(cs.n);
    this.ops = new Array<SendOp | RecvOp | undefined>(cs.n);
    this.mcastState = cs.mcastGroup ? new Uint8Array(cs.mcastMembers.length) : undefined;
    this.t0 = x.trace !== undefined ? new Float64Array(cs.n) : undefined;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    if (this.cs.n === 0) {
      this.done = true;
      this.onSuccess?.();
      return;
    }
    const roots = this.cs.roots;
    for (let i = 0; i < roots.length; i++) this.ready.push(roots[i]);
    this.advance();
  }

  /** Run every ready step (and those they make ready). */
  advance(): void {
    if (this.done) return;
    while (this.head < this.ready.length) {
      const i = this.ready[this.head++];
      this.run(i);
      if (this.done) return;
    }
    this.ready.length = 0;
    this.head = 0;
  }

  private view(r: Region): Uint8Array;
  private view(buf: number, offset: number, count: number): Uint8Array;
  private view(a: Region | number, offset?: number, count?: number): Uint8Array {
    const es = this.x.elementSize;
    const b = typeof a === 'number' ? this.bufs[a] : this.bufs[a.buf];
    const o = typeof a === 'number' ? (offset as number) : a.offset;
    const c = typeof a === 'number' ? (count as number) : a.count;
    return b.subarray(o * es, (o + c) * es);
  }

  private run(i: number): void {
    const cs = this.cs;
    if (this.t0 !== undefined && this.t0[i] === 0) this.t0[i] = (this.x.trace as Tracer).now();
    switch (cs.kind[i]) {
      case K_SEND: {
        if (cs.mcastGroup !== undefined && cs.mcastGroup[i] >= 0 && this.multicast(i, cs.mcastGroup[i])) return;
        const x = this.x;
        this.ops[i] = x.endpoint.isend(
          { context: x.context, space: SPACE_COLL, tag: x.seq, src: x.endpoint.rank, dst: x.worldOf[cs.peer[i]], index: cs.msgIndex[i], sig: x.sig },
          this.view(cs.buf[i], cs.off[i], cs.cnt[i]),
          (op) => this.onDone(i, op),
        );
        return;
      }
      case K_RECV: {
        const x = this.x;
        const into = cs.fuseInto[i];
        this.ops[i] = x.endpoint.irecv(
          { context: x.context, space: SPACE_COLL, tag: x.seq, src: x.worldOf[cs.peer[i]], dst: x.endpoint.rank, index: cs.msgIndex[i], sig: x.sig },
          this.view(cs.buf[i], cs.off[i], cs.cnt[i]),
          into >= 0 ? { exact: true, consume: (payload) => this.fuse(i, into, payload) } : { exact: true },
          (op) => this.onDone(i, op),
        );
        return;
      }
      case K_COPY: {
        const src = this.view(cs.inputs[i][0]);
        const dst = this.view(cs.buf[i], cs.off[i], cs.cnt[i]);
        if (src.byteLength > 0) dst.set(src);
        this.complete(i);
        return;
      }
      case K_REDUCE:
        if (this.fused[i] === 0) this.reduce(i, -1, undefined);
        this.complete(i);
        return;
    }
  }

  /**
   * Send step `i` of multicast group `g`: post the whole group as one multicast the
   * first time one of its members runs. Returns false when the step is to be sent as
   * an ordinary send (no multicast path: the endpoint has no `imcast` or declined).
   */
  private multicast(i: number, g: number): boolean {
    const state = this.mcastState as Uint8Array;
    if (state[g] !== 0) return state[g] === 1;
    const x = this.x;
    const ep = x.endpoint;
    if (ep.imcast === undefined) {
      state[g] = 2;
      return false;
    }
    const cs = this.cs;
    const members = cs.mcastMembers[g];
    const dsts: number[] = [];
    for (let k = 0; k < members.length; k++) dsts.push(x.worldOf[cs.peer[members[k]]]);
    // Marked posted before the call: a completion callback run from inside imcast sees it.
    state[g] = 1;
    const op = ep.imcast(
      { context: x.context, space: SPACE_COLL, tag: x.seq, src: ep.rank, dst: dsts[0], index: cs.msgIndex[i], sig: x.sig },
      dsts,
      this.view(cs.buf[i], cs.off[i], cs.cnt[i]),
      (done) => this.onGroupDone(g, done),
    );
    if (op === undefined) {
      state[g] = 2;
      return false;
    }
    for (let k = 0; k < members.length; k++) if (this.finished[members[k]] === 0) this.ops[members[k]] = op;
    return true;
  }

  private onGroupDone(g: number, op: SendOp): void {
    if (op.error) {
      this.fail(op.error);
      return;
    }
    const members = this.cs.mcastMembers[g];
    for (let k = 0; k < members.length && !this.done; k++) this.complete(members[k]);
  }

  /** dst = in[0] ∘ in[1] ∘ … (operand `swap` replaced by `payload` when given). */
  private reduce(i: number, swap: number, payload: Uint8Array | undefined): void {
    const cs = this.cs;
    const kernel = this.x.kernel;
    if (!kernel) throw new Error('internal: a reduce step without an operator');
    const n = cs.cnt[i];
    if (n === 0) return;
    const ins = cs.inputs[i];
    const operand = (k: number): Uint8Array => (k === swap ? (payload as Uint8Array) : this.view(ins[k]));
    const dst = this.view(cs.buf[i], cs.off[i], n);
    const b = cs.buf[i];
    const o = cs.off[i];
    let aliasLater = false;
    for (let k = 2; k < ins.length; k++) if (ins[k].buf === b && ins[k].offset === o && k !== swap) aliasLater = true;
    const acc = aliasLater ? new Uint8Array(dst.byteLength) : dst;
    kernel(acc, operand(0), operand(1), n);
    for (let k = 2; k < ins.length; k++) kernel(acc, acc, operand(k), n);
    if (acc !== dst) dst.set(acc);
  }

  /**
   * Offered a shared-arena payload for receive `r`: run reduce `d` from it now, when
   * nothing else holds `d` back. Dependencies still pending may only be sends whose
   * region `d` does not overwrite (a send writes nothing, so `d` may run before it
   * completes; its dependents keep waiting for it as usual).
   */
  private fuse(r: number, d: number, payload: Uint8Array): boolean {
    if (this.fused[d] !== 0) return false;
    const cs = this.cs;
    if (this.pending[d] !== 1) {
      const deps = cs.source.steps[d].deps;
      const db = cs.buf[d];
      const d0 = cs.off[d];
      const d1 = d0 + cs.cnt[d];
      for (let k = 0; k < deps.length; k++) {
        const p = deps[k];
        if (p === r || this.finished[p] !== 0) continue;
        if (cs.kind[p] !== K_SEND) return false;
        if (cs.buf[p] === db && cs.off[p] < d1 && d0 < cs.off[p] + cs.cnt[p]) return false;
      }
    }
    if (this.t0 !== undefined) {
      // The fused reduce runs now, inside the receive's completion: its span is this.
      const start = (this.x.trace as Tracer).now();
      this.reduce(d, cs.fuseOperand[r], payload);
      this.t0[d] = start;
      this.traceStep(d);
    } else this.reduce(d, cs.fuseOperand[r], payload);
    this.fused[d] = 1;
    return true;
  }

  private onDone(i: number, op: SendOp | RecvOp): void {
    if (op.error) {
      this.fail(op.error);
      return;
    }
    this.complete(i);
  }

  private complete(i: number): void {
    if (this.t0 !== undefined) this.traceStep(i);
    this.ops[i] = undefined;
    this.finished[i] = 1;
    this.completed++;
    const deps = this.cs.dependents[i];
    for (let k = 0; k < deps.length; k++) {
      const d = deps[k];
      if (--this.pending[d] === 0) this.ready.push(d);
    }
    if (this.completed === this.cs.n) {
      this.done = true;
      this.onSuccess?.();
    }
  }

  /** Record step i's span (once), from its start to now, with its message's address. */
  private traceStep(i: number): void {
    const t0 = this.t0 as Float64Array;
    const start = t0[i];
    if (Number.isNaN(start)) return;
    t0[i] = NaN;
    const x = this.x;
    const tr = x.trace as Tracer;
    const cs = this.cs;
    const kind = cs.kind[i];
    const st = cs.source.steps[i];
    const peer = kind === K_SEND || kind === K_RECV ? x.worldOf[cs.peer[i]] : -1;
    const n = tr.span(kind + 1, start === 0 ? tr.now() : start, tr.now(), peer, cs.cnt[i] * x.elementSize, st.phase !== undefined ? tr.label(st.phase) : -1, i, st.round);
    const me = x.endpoint.rank;
    if (kind === K_SEND) tr.message(n, x.context, SPACE_COLL, x.seq, me, peer, cs.msgIndex[i]);
    else if (kind === K_RECV) tr.message(n, x.context, SPACE_COLL, x.seq, peer, me, cs.msgIndex[i]);
  }

  /** Fail the execution and withdraw its unmatched receives. */
  fail(e: Error): void {
    if (this.done) return;
    this.error = e;
    this.done = true;
    for (let i = 0; i < this.cs.n; i++) {
      const op = this.ops[i];
      if (op && !op.done && this.cs.kind[i] === K_RECV) this.x.endpoint.cancel(op as RecvOp);
    }
  }

  /** Communicator ranks this execution still waits for (unmatched receives, unconsumed sends). */
  waitingFor(): number[] {
    const out = new Set<number>();
    for (let i = 0; i < this.cs.n; i++) {
      const op = this.ops[i];
      if (op && !op.done) out.add(this.cs.peer[i]);
    }
    return [...out].sort((a, b) => a - b);
  }
}
