/**
 * ScheduleBuilder: the small API algorithm generators write schedules with.
 *
 *   const b = new ScheduleBuilder(ctx, 'allreduce/ring');
 *   const t = b.scratch(n);
 *   b.round = 0;
 *   const s = b.send(peer, b.out(0, n));
 *   const r = b.recv(peer, b.region(t, 0, n));
 *   b.reduce([b.out(0, n), b.region(t, 0, n)], b.out(0, n), [s, r]);
 *   return b.build();
 *
 * Step ids are indices in creation order; dependencies always point to earlier
 * steps, so a rank's schedule is acyclic by construction.
 */
import { ScheduleError } from '../core/errors.js';
import { ioCounts, type ScheduleContext } from './context.js';
import { IN, OUT, type BufferDecl, type RankSchedule, type Region, type Step } from './types.js';

export interface EmbedOptions {
  /** Global rank of the sub-schedule's rank r. */
  peer: (subRank: number) => number;
  /** Where the sub-schedule's input (0) and output (1) live in this schedule. */
  input?: { buf: number; offset: number };
  output?: { buf: number; offset: number };
  /** Dependencies of the sub-schedule's entry steps. */
  after?: readonly number[];
  /** Phase label for the embedded steps (default: keep theirs). */
  phase?: string;
}

export class ScheduleBuilder {
  readonly ctx: ScheduleContext;
  readonly rank: number;
  readonly size: number;
  /** Current round for new steps. */
  round = 0;
  /** Current phase label for new steps. */
  phase: string | undefined;
  private readonly algorithm: string;
  private readonly buffers: BufferDecl[];
  private readonly steps: Step[] = [];
  private readonly hasDependents: boolean[] = [];

  constructor(ctx: ScheduleContext, algorithm: string) {
    this.ctx = ctx;
    this.rank = ctx.rank;
    this.size = ctx.size;
    this.algorithm = algorithm;
    const io = ioCounts(ctx.collective, ctx.rank, ctx.size, ctx.count, ctx.root);
    this.buffers = [
      { name: 'in', count: io.in },
      { name: 'out', count: io.out },
    ];
  }

  /** Declare a scratch buffer of `count` elements; returns its buffer id. */
  scratch(count: number, name?: string): number {
    const id = this.buffers.length;
    this.buffers.push({ name: name ?? `tmp${id - 2}`, count });
    return id;
  }

  /** Size in elements of a declared buffer. */
  bufferCount(buf: number): number {
    return this.buffers[buf].count;
  }

  region(buf: number, offset: number, count: number): Region {
    return { buf, offset, count };
  }

  in(offset: number, count: number): Region {
    return { buf: IN, offset, count };
  }

  out(offset: number, count: number): Region {
    return { buf: OUT, offset, count };
  }

  /**
   * Send `region` to `peer`. `multicast`: mark the send as one of a multicast (see
   * SendStep.multicast; {@link multicast} emits a whole group).
   */
  send(peer: number, region: Region, deps: readonly number[] = [], o?: { multicast?: boolean }): number {
    const step: Step = { kind: 'send', peer, region, deps: [...deps], round: this.round, phase: this.phase };
    return this.push(o?.multicast ? { ...step, multicast: true } : step);
  }

  /**
   * One multicast of `region` to every peer of `peers` (in that order): multicast-marked
   * sends with the same region, dependencies and round, which a transport with a
   * multicast path carries as one message and any other as one send per peer.
   * Returns the send ids.
   */
  multicast(peers: readonly number[], region: Region, deps: readonly number[] = []): number[] {
    return peers.map((p) => this.send(p, region, deps, { multicast: true }));
  }

  recv(peer: number, region: Region, deps: readonly number[] = []): number {
    return this.push({ kind: 'recv', peer, region, deps: [...deps], round: this.round, phase: this.phase });
  }

  /** dst = inputs[0] ∘ inputs[1] ∘ … (operand order matters for non-commutative operators). */
  reduce(inputs: readonly Region[], dst: Region, deps: readonly number[] = []): number {
    return this.push({ kind: 'reduce', inputs: [...inputs], dst, deps: [...deps], round: this.round, phase: this.phase });
  }

  copy(src: Region, dst: Region, deps: readonly number[] = []): number {
    return this.push({ kind: 'copy', src, dst, deps: [...deps], round: this.round, phase: this.phase });
  }

  /** Send and receive with one peer concurrently; returns [sendId, recvId]. */
  exchange(peer: number, send: Region, recv: Region, deps: readonly number[] = []): [number, number] {
    return [this.send(peer, send, deps), this.recv(peer, recv, deps)];
  }

  /** Number of steps so far (the id the next step will get). */
  get stepCount(): number {
    return this.steps.length;
  }

  /** Steps that nothing depends on yet: depend on all of them to run after everything so far. */
  frontier(): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.steps.length; i++) if (!this.hasDependents[i]) out.push(i);
    return out;
  }

  /**
   * Append another rank schedule (typically generated for a sub-group of ranks) into
   * this one: its ranks are renamed with `peer`, its input/output buffers placed at
   * the given buffers and offsets, its scratch buffers added here, and its entry
   * steps made to depend on `after`. Rounds continue from the current round, which
   * advances past the embedded rounds. Returns the embedded steps that nothing
   * depends on (the exits), to depend on what comes next.
   */
  embed(sub: RankSchedule, o: EmbedOptions): number[] {
    const base = this.steps.length;
    const bufMap = new Map<number, { buf: number; offset: number }>();
    if (sub.buffers[IN].count > 0) {
      if (!o.input) throw new ScheduleError(`embed: ${sub.algorithm} reads an input buffer but none was mapped`);
      bufMap.set(IN, o.input);
    }
    if (sub.buffers[OUT].count > 0) {
      if (!o.output) throw new ScheduleError(`embed: ${sub.algorithm} writes an output buffer but none was mapped`);
      bufMap.set(OUT, o.output);
    }
    for (let b = 2; b < sub.buffers.length; b++) {
      bufMap.set(b, { buf: this.scratch(sub.buffers[b].count, `${sub.buffers[b].name}`), offset: 0 });
    }
    const mapRegion = (r: Region): Region => {
      const m = bufMap.get(r.buf) ?? { buf: r.buf === IN ? IN : OUT, offset: 0 };
      return { buf: m.buf, offset: m.offset + r.offset, count: r.count };
    };
    const after = o.after ?? [];
    const round0 = this.round;
    const hasDep = new Array<boolean>(sub.steps.length).fill(false);
    for (const s of sub.steps) for (const d of s.deps) hasDep[d] = true;
    for (const s of sub.steps) {
      const deps = s.deps.length > 0 ? s.deps.map((d) => d + base) : [...after];
      const common = { deps, round: round0 + s.round, phase: o.phase ?? s.phase };
      switch (s.kind) {
        case 'send':
          this.push({ ...common, kind: 'send', peer: o.peer(s.peer), region: mapRegion(s.region), ...(s.multicast ? { multicast: true as const } : {}) });
          break;
        case 'recv':
          this.push({ ...common, kind: 'recv', peer: o.peer(s.peer), region: mapRegion(s.region) });
          break;
        case 'reduce':
          this.push({ ...common, kind: 'reduce', inputs: s.inputs.map(mapRegion), dst: mapRegion(s.dst) });
          break;
        case 'copy':
          this.push({ ...common, kind: 'copy', src: mapRegion(s.src), dst: mapRegion(s.dst) });
          break;
      }
    }
    this.round = round0 + sub.rounds;
    const exits: number[] = [];
    for (let i = 0; i < sub.steps.length; i++) if (!hasDep[i]) exits.push(base + i);
    // An empty sub-schedule passes its dependencies through.
    return sub.steps.length === 0 ? [...after] : exits;
  }

  build(): RankSchedule {
    let rounds = 0;
    for (const s of this.steps) rounds = Math.max(rounds, s.round + 1);
    return Object.freeze({
      collective: this.ctx.collective,
      algorithm: this.algorithm,
      rank: this.rank,
      size: this.size,
      buffers: Object.freeze([...this.buffers]),
      steps: Object.freeze([...this.steps]),
      rounds,
    });
  }

  private push(step: Step): number {
    const id = this.steps.length;
    for (const d of step.deps) {
      if (!Number.isInteger(d) || d < 0 || d >= id) {
        throw new ScheduleError(`${this.algorithm} rank ${this.rank}: step ${id} depends on invalid step ${d}`);
      }
      this.hasDependents[d] = true;
    }
    if (step.phase === undefined) delete (step as { phase?: string }).phase;
    this.steps.push(step);
    this.hasDependents.push(false);
    return id;
  }
}
