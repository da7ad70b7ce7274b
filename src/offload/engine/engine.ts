/**
 * The offload engine of a node: a dedicated thread in the role of the NIC's processor
 * (seed 000 ch. 3, seed 003 ch. 6). Its loop, like NIC firmware, polls two sources:
 *
 * - descriptors the node's ranks post (doorbell.ts): 'register' caches a communicator
 *   in one of 32 slots (seed 000 F11's cached communication structures), 'release'
 *   (comm.free()) gives the slot back once every rank that registered it has; a collective
 *   descriptor joins the group of its (slot, sequence number); once every local member
 *   of the communicator has posted, the group runs as a NodeOp (node-op.ts);
 * - its transport endpoint: messages from other engines (through the node proxy) and
 *   from host ranks playing intermediate-mode roles.
 *
 * It completes each rank's descriptor when the rank's part is done (result written to
 * its buffer), with an error code and message when the call fails (a local argument
 * mismatch, a timeout naming the missing ranks, a failed inter-node step). When idle
 * it polls for `spinUs`, then parks on the doorbell that both ranks and the transport
 * ring. It stops when the node process sets the stop word (every rank has returned).
 */
import { ArgumentError, CollectivesError, MismatchError, RestrictionError, TimeoutError } from '../../core/errors.js';
import { datatype as lookupDatatype } from '../../core/datatypes.js';
import { op as lookupOp } from '../../core/ops.js';
import { ioCounts, type Params } from '../../schedule/context.js';
import type { ShmEndpoint } from '../../transport/shm/endpoint.js';
import { isAborting, notifyIfSleeping, type Layout } from '../../transport/shm/layout.js';
import { MESSAGE_BYTES, type Claim, type EngineClaimer } from './doorbell.js';
import { MAX_CACHE_SLOTS } from './descriptor.js';
import { commNodes, makeNodePlan, offloadRestriction, type CommNodes, type NodeCallShape, type NodePlan } from './node-plan.js';
import { NodeOp, type MemberBuffers, type NodeOpContext } from './node-op.js';
import { CODE_ARGUMENT, CODE_FAILED, CODE_MISMATCH, CODE_RESTRICTION, CODE_TIMEOUT, type EngineFailure } from './spec.js';
import { NicPort } from './nic.js';
import { prng } from '../../core/random.js';
import { ANY, SPACE_P2P, type RecvOp } from '../../transport/types.js';
import type { Task } from '../../exec/task.js';
import type { Tracer } from '../../exec/trace.js';

export interface EngineConfig {
  readonly claimer: EngineClaimer;
  readonly endpoint: ShmEndpoint;
  readonly control: Int32Array;
  readonly layout: Layout;
  /** The engine's endpoint index. */
  readonly self: number;
  readonly stopWord: number;
  readonly arena: SharedArrayBuffer;
  /** Scratch memory for NodeOps (the engine's arena slice). */
  readonly scratch: NodeOpContext['alloc'];
  readonly freeScratch: NodeOpContext['free'];
  /** This node's index in the job, the job's size and the node of every transport address. */
  readonly node: number;
  readonly jobSize: number;
  readonly nodeOf: Int32Array;
  /** Local endpoint index → world rank. */
  readonly firstRank: number;
  readonly spinUs: number;
  /** Fault injection for tests: throw on this many-th collective claim (0 = never). */
  readonly failAfter?: number;
  /** Int32 indices where the engine publishes its counters. */
  readonly counters?: { completed: number; framesSent: number; framesDropped: number };
  /** Probability of dropping each NIC-protocol frame this engine sends (COLL_ENGINE_LOSS). */
  readonly loss?: number;
  /** Span recorder of the node's 'nic' lane (`coll run --trace`); absent: tracing is off. */
  readonly trace?: Tracer;
}

/** Tag of NIC-protocol frames between engines (p2p space, engine addresses). */
const NIC_TAG = 0x7ffffff0;
/** Smallest receive buffer for NIC-protocol frames. */
const NIC_FRAME_MIN = 64 * 1024;

interface Timer {
  due: number;
  cb: (() => void) | undefined;
}

interface CommSlot {
  readonly comm: CommNodes;
  /** This node's index in the communicator. */
  readonly me: number;
  readonly plans: Map<string, NodePlan>;
  /** Local ranks (node positions) that registered the communicator and have not released it. */
  readonly holders: Set<number>;
  /** NIC protocols of this communicator (created on first use). */
  nic?: { port: NicPort; recv: RecvOp | undefined; buf: Uint8Array; nodeOfAddress: Map<number, number> };
}

interface Group {
  readonly slot: number;
  readonly tag: number;
  readonly claims: Claim[];
  readonly since: number;
}

interface Running {
  readonly op: NodeOp;
  readonly group: Group;
  readonly deadline: number;
  readonly timeoutMs: number;
  readonly slot: CommSlot;
}

const PARK_MS = 50;

export class OffloadEngine {
  private readonly slots: (CommSlot | undefined)[] = new Array<CommSlot | undefined>(MAX_CACHE_SLOTS).fill(undefined);
  private readonly slotOfContext = new Map<number, number>();
  private readonly groups = new Map<string, Group>();
  private running: Running[] = [];
  private readonly options = new Map<number, { algorithm?: string; params?: Params }>();
  private claims = 0;
  private timers: Timer[] = [];
  private readonly drop: () => number;
  /** Collectives completed, NIC-protocol frames sent and dropped by loss injection (also published in shared memory). */
  completed = 0;
  framesSent = 0;
  framesDropped = 0;

  private count(what: 'completed' | 'framesSent' | 'framesDropped'): void {
    this[what]++;
    const w = this.c.counters;
    if (w) Atomics.store(this.c.control, w[what], this[what]);
  }

  constructor(private readonly c: EngineConfig) {
    this.drop = prng(0x5eed + c.node);
  }

  /** The engine loop; returns when the stop word is set or the job aborts. */
  run(): void {
    const { control: i32, layout, self, claimer, endpoint: ep } = this.c;
    const bell = layout.bellIndex(self);
    const sleep = layout.sleepIndex(self);
    let idleSince = 0;
    for (;;) {
      if (Atomics.load(i32, this.c.stopWord) !== 0 || isAborting(i32)) return;
      const v = Atomics.load(i32, bell);
      let busy = false;
      for (let cl = claimer.claimAny(); cl; cl = claimer.claimAny()) {
        this.onClaim(cl);
        busy = true;
      }
      if (ep.progress()) busy = true;
      if (this.timers.length > 0 && this.fireTimers()) busy = true;
      if (this.running.length > 0 && this.advance()) busy = true;
      if (busy) {
        idleSince = 0;
        continue;
      }
      const now = performance.now();
      if (this.groups.size > 0 || this.running.length > 0) this.checkTimeouts(now);
      if (idleSince === 0) idleSince = now;
      if ((now - idleSince) * 1000 < this.c.spinUs) continue;
      const park = this.timers.length > 0 ? Math.max(0, Math.min(PARK_MS, this.timers[0].due / 1000 - now)) : PARK_MS;
      Atomics.add(i32, sleep, 1);
      try {
        if (!ep.progress()) Atomics.wait(i32, bell, v, park);
      } finally {
        Atomics.sub(i32, sleep, 1);
      }
      idleSince = 0;
    }
  }

  /** Run due timers (NIC protocols); true if any ran. */
  private fireTimers(): boolean {
    const now = performance.now() * 1000;
    let ran = false;
    while (this.timers.length > 0 && this.timers[0].due <= now) {
      const t = this.timers.shift() as Timer;
      const cb = t.cb;
      t.cb = undefined;
      if (cb) {
        cb();
        ran = true;
      }
    }
    return ran;
  }

  private setTimer(delayUs: number, cb: () => void): { cancel(): void } {
    const t: Timer = { due: performance.now() * 1000 + Math.max(0, delayUs), cb };
    let i = this.timers.length;
    while (i > 0 && this.timers[i - 1].due > t.due) i--;
    this.timers.splice(i, 0, t);
    return {
      cancel: () => {
        t.cb = undefined;
        const k = this.timers.indexOf(t);
        if (k >= 0) this.timers.splice(k, 1);
      },
    };
  }

  /** The NIC protocol port of a communicator, with its frame receive posted. */
  private nicPort(slot: CommSlot): NicPort {
    if (slot.nic) return slot.nic.port;
    const comm = slot.comm;
    const addr = (k: number): number => this.c.jobSize + comm.nodes[k];
    const nodeOfAddress = new Map(comm.nodes.map((_, k) => [addr(k), k]));
    const ep = this.c.endpoint;
    const port = new NicPort({
      rank: slot.me,
      size: comm.nodes.length,
      send: (to, frame) => {
        this.count('framesSent');
        if (this.c.loss !== undefined && this.c.loss > 0 && this.drop() < this.c.loss) {
          this.count('framesDropped');
          return;
        }
        ep.isend({ context: comm.context, space: SPACE_P2P, tag: NIC_TAG, src: ep.rank, dst: addr(to), index: 0 }, frame.slice());
      },
      now: () => performance.now() * 1000,
      setTimer: (delay, cb) => this.setTimer(delay, cb),
    });
    slot.nic = { port, recv: undefined, buf: new Uint8Array(NIC_FRAME_MIN), nodeOfAddress };
    this.postFrameRecv(slot);
    return port;
  }

  private postFrameRecv(slot: CommSlot): void {
    const n = slot.nic;
    if (!n) return;
    const ep = this.c.endpoint;
    const key = { context: slot.comm.context, space: SPACE_P2P, tag: NIC_TAG, src: ANY, dst: ep.rank, index: 0 } as const;
    const buf = n.buf;
    n.recv = ep.irecv(key, buf, undefined, (op) => {
      if (op.error) throw op.error;
      const from = n.nodeOfAddress.get(op.source);
      const frame = buf.slice(0, op.bytes);
      this.postFrameRecv(slot);
      if (from !== undefined) n.port.onFrame(from, frame);
    });
  }

  /** Make sure NIC frames of up to `bytes` fit the posted receive. */
  private nicFrameRoom(slot: CommSlot, bytes: number): void {
    const n = slot.nic;
    if (!n || n.buf.byteLength >= bytes) return;
    n.buf = new Uint8Array(bytes);
    if (n.recv && this.c.endpoint.cancel(n.recv)) this.postFrameRecv(slot);
  }

  private nicTask(slot: CommSlot, plan: NodePlan, input: Uint8Array, output: Uint8Array): Task {
    const c = plan.nic;
    if (!c) throw new Error('internal: not a NIC plan');
    const port = this.nicPort(slot);
    const n = slot.comm.nodes.length;
    this.nicFrameRoom(slot, 256 + (c.kind === 'bcast' ? c.mtu : c.kind === 'allgather' ? n * input.byteLength : 0));
    return port.task(c, plan.rootNode, input, output);
  }

  private advance(): boolean {
    let finished = false;
    const keep: Running[] = [];
    for (const r of this.running) {
      r.op.advance();
      if (r.op.done) {
        finished = true;
        this.finishGroup(r.group, r.op.error);
      } else keep.push(r);
    }
    this.running = keep;
    return finished;
  }

  private onClaim(cl: Claim): void {
    const d = cl.descriptor;
    if (d.command === 'register') {
      this.register(cl);
      return;
    }
    if (d.command === 'release') {
      this.release(cl);
      return;
    }
    if (this.c.failAfter !== undefined && this.c.failAfter > 0 && ++this.claims >= this.c.failAfter) {
      throw new Error(`injected engine fault at collective claim ${this.claims} (COLL_ENGINE_FAULT)`);
    }
    const slot = this.slots[d.cacheSlot];
    if (!slot) {
      this.fail([cl], CODE_ARGUMENT, { message: `offload descriptor names cache slot ${d.cacheSlot}, which holds no communicator` });
      return;
    }
    const key = `${d.cacheSlot}:${d.tag}`;
    let g = this.groups.get(key);
    if (!g) {
      g = { slot: d.cacheSlot, tag: d.tag, claims: [], since: performance.now() };
      this.groups.set(key, g);
    }
    g.claims.push(cl);
    if (g.claims.length === slot.comm.members[slot.me].length) {
      this.groups.delete(key);
      this.startGroup(g, slot);
    }
  }

  private register(cl: Claim): void {
    const d = cl.descriptor;
    const context = d.tag;
    let s = this.slotOfContext.get(context);
    if (s === undefined) {
      s = this.slots.indexOf(undefined);
      if (s < 0) {
        this.fail([cl], CODE_RESTRICTION, {
          message: `the offload engine of node ${this.c.node} caches at most ${MAX_CACHE_SLOTS} communicators`,
          hint: "run calls on further communicators with { mode: 'host' }",
        });
        return;
      }
      const worldOf = new Int32Array(d.count);
      worldOf.set(new Int32Array(this.c.arena, d.sendOffset, d.count));
      const comm = commNodes(context, worldOf, this.c.nodeOf);
      const me = comm.nodes.indexOf(this.c.node);
      this.slots[s] = { comm, me, plans: new Map(), holders: new Set() };
      this.slotOfContext.set(context, s);
    }
    this.slots[s]?.holders.add(cl.rank);
    this.c.claimer.complete(cl, 0, s);
    this.wake(cl.rank);
  }

  /**
   * A rank frees a communicator: drop its registration; the last holder's release
   * empties the slot (its NIC frame receive is cancelled, its plans dropped). The rank
   * has synchronised with the communicator's other ranks first, so none of its
   * collectives is still running.
   */
  private release(cl: Claim): void {
    const context = cl.descriptor.tag;
    const s = this.slotOfContext.get(context);
    const slot = s === undefined ? undefined : this.slots[s];
    if (s !== undefined && slot) {
      slot.holders.delete(cl.rank);
      if (slot.holders.size === 0) {
        if (slot.nic?.recv) this.c.endpoint.cancel(slot.nic.recv);
        this.slots[s] = undefined;
        this.slotOfContext.delete(context);
        for (const k of [...this.groups.keys()]) if (k.startsWith(`${s}:`)) this.groups.delete(k);
      }
    }
    this.c.claimer.complete(cl, 0, 0);
    this.wake(cl.rank);
  }

  private startGroup(g: Group, slot: CommSlot): void {
    const claims = g.claims;
    const first = claims[0].descriptor;
    // Local agreement: every member must describe the same call.
    const sig = (c: Claim): string => {
      const x = c.descriptor;
      const o = this.readOptions(x.options);
      const alg = o.algorithm !== undefined ? `, algorithm=${o.algorithm}` : '';
      const params = o.params !== undefined ? `, params=${JSON.stringify(o.params)}` : '';
      return `${x.kind}(count=${x.count}, datatype=${x.datatype}${x.op !== 'noop' ? `, op=${x.op}` : ''}, root=${x.root}, mode=${x.mode === 'intermediate-only' ? 'intermediate' : 'offload'}${alg}${params})`;
    };
    const sigs = claims.map(sig);
    if (sigs.some((s) => s !== sigs[0])) {
      // One entry per distinct call, with its ranks in order (a node of many ranks would otherwise overflow the message).
      const bySig = new Map<string, number[]>();
      claims.forEach((c, i) => bySig.set(sigs[i], [...(bySig.get(sigs[i]) ?? []), this.commRankOf(slot, c.rank)]));
      const entries = [...bySig].map(([s, ranks]) => [ranks.sort((a, b) => a - b), s] as const).sort((a, b) => a[0][0] - b[0][0]);
      const parts = entries.map(([ranks, s]) => `${ranks.length === 1 ? 'rank' : 'ranks'} ${ranks.join(', ')}: ${s}`);
      this.fail(claims, CODE_MISMATCH, {
        message: `offloaded collective #${g.tag} on communicator ${slot.comm.context}: ranks disagree: ${parts.join('; ')}`,
        hint: 'every rank must call the same collectives in the same order with the same count, datatype, op and root',
      });
      return;
    }
    try {
      const type = lookupDatatype(first.datatype);
      const op = first.kind === 'reduce' || first.kind === 'allreduce' ? lookupOp(first.op) : undefined;
      const mode = first.mode === 'intermediate-only' ? 'intermediate' : 'offload';
      const why = offloadRestriction(first.kind, op, false);
      if (why) throw new RestrictionError(`${first.kind} in ${mode} mode`, why.restriction, why.detail);
      const o = this.readOptions(first.options);
      const shape: NodeCallShape = {
        kind: first.kind,
        count: first.count,
        type,
        op,
        root: first.root,
        algorithm: o.algorithm,
        params: o.params,
        mode,
      };
      const key = `${shape.kind}|${shape.count}|${type.name}|${op?.name ?? ''}|${shape.root}|${o.algorithm ?? ''}|${o.params ? JSON.stringify(o.params) : ''}|${shape.mode}`;
      let plan = slot.plans.get(key);
      if (!plan) {
        plan = makeNodePlan(slot.comm, slot.me, shape, this.c.jobSize);
        if (slot.plans.size > 64) slot.plans.clear();
        slot.plans.set(key, plan);
      }
      const bytes = (n: number): number => n * type.size;
      const size = slot.comm.size;
      const arena = this.c.arena;
      const region = (off: number, n: number): Uint8Array => (n === 0 ? new Uint8Array(0) : new Uint8Array(arena, off, n));
      const members: MemberBuffers[] = claims
        .map((c) => {
          const x = c.descriptor;
          const rank = this.commRankOf(slot, c.rank);
          const io = ioCounts(x.kind, rank, size, x.count, x.root);
          return { rank, send: region(x.sendOffset, bytes(io.in)), recv: region(x.recvOffset, bytes(io.out)) };
        })
        .sort((a, b) => a.rank - b.rank);
      const ctx: NodeOpContext = {
        endpoint: this.c.endpoint,
        alloc: this.c.scratch,
        free: this.c.freeScratch,
        nicTask: (p, input, output) => this.nicTask(slot, p, input, output),
        trace: this.c.trace,
      };
      const op2 = new NodeOp(ctx, slot.comm, slot.me, shape, plan, members, g.tag);
      const timeoutMs = first.timeoutMs;
      op2.start();
      if (op2.done) this.finishGroup(g, op2.error);
      else this.running.push({ op: op2, group: g, deadline: timeoutMs > 0 ? g.since + timeoutMs : Infinity, timeoutMs, slot });
    } catch (e) {
      this.failWith(claims, e as Error);
    }
  }

  private finishGroup(g: Group, error: Error | undefined): void {
    if (error) {
      this.failWith(g.claims, error);
      return;
    }
    this.count('completed');
    for (const cl of g.claims) {
      this.c.claimer.complete(cl);
      this.wake(cl.rank);
    }
  }

  private checkTimeouts(now: number): void {
    for (const [key, g] of this.groups) {
      const slot = this.slots[g.slot] as CommSlot;
      const t = g.claims[0].descriptor.timeoutMs;
      if (t > 0 && now - g.since >= t) {
        this.groups.delete(key);
        const posted = new Set(g.claims.map((c) => this.commRankOf(slot, c.rank)));
        const missing = slot.comm.members[slot.me].filter((r) => !posted.has(r));
        this.fail(g.claims, CODE_TIMEOUT, this.timeoutFailure(g, slot, t, missing, 'have not posted it on this node'));
      }
    }
    const keep: Running[] = [];
    for (const r of this.running) {
      if (now >= r.deadline) {
        const nodes = r.op.waitingFor();
        const missing = nodes.flatMap((k) => (r.slot.comm.members[k] ?? []) as number[]).sort((a, b) => a - b);
        // The engine knows which nodes it still waits for, not which of their ranks is late: name them all, as such.
        const f = this.timeoutFailure(r.group, r.slot, r.timeoutMs, missing, 'are on nodes whose offload engines have not sent their part (one of these ranks, or of a node they wait for, has not made the matching call)');
        r.op.abort(new TimeoutError(f.message, missing));
        this.fail(r.group.claims, CODE_TIMEOUT, f);
      } else keep.push(r);
    }
    this.running = keep;
  }

  private timeoutFailure(g: Group, slot: CommSlot, ms: number, missing: readonly number[], why: string): EngineFailure {
    const d = g.claims[0].descriptor;
    return {
      message: `offloaded ${d.kind} #${g.tag} on communicator ${slot.comm.context} did not complete within ${ms} ms${missing.length ? `: ranks [${missing.join(', ')}] ${why}` : ''}`,
      hint: 'the missing ranks have not made the matching call: check that every rank calls the same collectives in the same order, or raise timeoutMs',
      missing,
    };
  }

  private failWith(claims: readonly Claim[], e: Error): void {
    const code =
      e instanceof MismatchError ? CODE_MISMATCH : e instanceof TimeoutError ? CODE_TIMEOUT : e instanceof RestrictionError ? CODE_RESTRICTION : e instanceof ArgumentError ? CODE_ARGUMENT : CODE_FAILED;
    const hint = e instanceof CollectivesError ? e.hint : undefined;
    this.fail(claims, code, { message: this.engineNames(e.message), hint, missing: e instanceof TimeoutError ? e.missingRanks : undefined });
  }

  /** Transport errors name engines by their addresses (job size + node) as if they were ranks: say which engine. */
  private engineNames(text: string): string {
    return text.replace(/\brank (\d+)\b/g, (m: string, n: string) => (Number(n) >= this.c.jobSize ? `the offload engine of node ${Number(n) - this.c.jobSize}` : m));
  }

  private fail(claims: readonly Claim[], code: number, f: EngineFailure): void {
    let text = JSON.stringify(f);
    // The completion's message area holds MESSAGE_BYTES: shorten the message rather than cut the JSON (unreadable, hint lost).
    for (let keep = f.message.length; new TextEncoder().encode(text).byteLength > MESSAGE_BYTES - 4 && keep > 0; ) {
      keep = Math.max(0, keep - Math.max(16, new TextEncoder().encode(text).byteLength - (MESSAGE_BYTES - 4)));
      text = JSON.stringify({ ...f, message: `${f.message.slice(0, keep)} …`, missing: f.missing?.slice(0, 64) });
    }
    for (const cl of claims) {
      this.c.claimer.complete(cl, code, 0, text);
      this.wake(cl.rank);
    }
  }

  private wake(localRank: number): void {
    notifyIfSleeping(this.c.control, this.c.layout, localRank);
  }

  private commRankOf(slot: CommSlot, localRank: number): number {
    const w = this.c.firstRank + localRank;
    const r = slot.comm.worldOf.indexOf(w);
    if (r < 0) throw new ArgumentError(`world rank ${w} posted on communicator ${slot.comm.context}, which it is not a member of`);
    return r;
  }

  private readOptions(offset: number): { algorithm?: string; params?: Params } {
    if (offset === 0) return {};
    let o = this.options.get(offset);
    if (!o) {
      const len = new Int32Array(this.c.arena, offset, 1)[0];
      const text = new TextDecoder().decode(new Uint8Array(this.c.arena, offset + 4, len).slice());
      o = JSON.parse(text) as { algorithm?: string; params?: Params };
      this.options.set(offset, o);
    }
    return o;
  }
}
