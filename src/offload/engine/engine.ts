/**
 * The offload engine of a node: a dedicated thread in the role of the NIC's processor
 * (seed 000 ch. 3, seed 003 ch. 6). Its loop, like NIC firmware, polls two sources:
 *
 * - descriptors the node's ranks post (doorbell.ts): 'register' caches a communicator
 *   in one of 32 slots (seed 000 F11's cached communication structures); a collective
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
import type { Params } from '../../schedule/context.js';
import type { ShmEndpoint } from '../../transport/shm/endpoint.js';
import { isAborting, notifyIfSleeping, type Layout } from '../../transport/shm/layout.js';
import type { Claim, EngineClaimer } from './doorbell.js';
import { MAX_CACHE_SLOTS } from './descriptor.js';
import { commNodes, makeNodePlan, offloadRestriction, type CommNodes, type NodeCallShape, type NodePlan } from './node-plan.js';
import { NodeOp, type MemberBuffers, type NodeOpContext } from './node-op.js';
import { CODE_ARGUMENT, CODE_FAILED, CODE_MISMATCH, CODE_RESTRICTION, CODE_TIMEOUT, type EngineFailure } from './spec.js';

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
}

interface CommSlot {
  readonly comm: CommNodes;
  /** This node's index in the communicator. */
  readonly me: number;
  readonly plans: Map<string, NodePlan>;
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
  /** Collectives completed (for tests and statistics). */
  completed = 0;

  constructor(private readonly c: EngineConfig) {}

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
      if (this.running.length > 0 && this.advance()) busy = true;
      if (busy) {
        idleSince = 0;
        continue;
      }
      const now = performance.now();
      if (this.groups.size > 0 || this.running.length > 0) this.checkTimeouts(now);
      if (idleSince === 0) idleSince = now;
      if ((now - idleSince) * 1000 < this.c.spinUs) continue;
      Atomics.add(i32, sleep, 1);
      try {
        if (!ep.progress()) Atomics.wait(i32, bell, v, PARK_MS);
      } finally {
        Atomics.sub(i32, sleep, 1);
      }
      idleSince = 0;
    }
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
      this.slots[s] = { comm, me, plans: new Map() };
      this.slotOfContext.set(context, s);
    }
    this.c.claimer.complete(cl, 0, s);
    this.wake(cl.rank);
  }

  private startGroup(g: Group, slot: CommSlot): void {
    const claims = g.claims;
    const first = claims[0].descriptor;
    // Local agreement: every member must describe the same call.
    const sig = (c: Claim): string => {
      const x = c.descriptor;
      return `${x.kind}(count=${x.count}, datatype=${x.datatype}${x.op !== 'noop' ? `, op=${x.op}` : ''}, root=${x.root}, mode=${x.mode})`;
    };
    const sigs = claims.map(sig);
    if (sigs.some((s) => s !== sigs[0])) {
      const parts = claims.map((c, i) => `rank ${this.commRankOf(slot, c.rank)}: ${sigs[i]}`);
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
          const sendN = x.kind === 'barrier' || x.kind === 'bcast' ? 0 : bytes(x.count);
          const recvN =
            x.kind === 'barrier' ? 0 : x.kind === 'allgather' ? bytes(x.count * size) : x.kind === 'reduce' && rank !== x.root ? 0 : bytes(x.count);
          return { rank, send: region(x.sendOffset, sendN), recv: region(x.recvOffset, recvN) };
        })
        .sort((a, b) => a.rank - b.rank);
      const ctx: NodeOpContext = { endpoint: this.c.endpoint, alloc: this.c.scratch, free: this.c.freeScratch };
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
    this.completed++;
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
        const f = this.timeoutFailure(r.group, r.slot, r.timeoutMs, missing, 'on other nodes have not made the matching call');
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
    this.fail(claims, code, { message: e.message, hint, missing: e instanceof TimeoutError ? e.missingRanks : undefined });
  }

  private fail(claims: readonly Claim[], code: number, f: EngineFailure): void {
    const text = JSON.stringify(f);
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
