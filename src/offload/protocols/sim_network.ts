/**
 * A deterministic simulated packet network on virtual time, for testing the
 * NIC-style protocols: a discrete-event loop over packet deliveries, timers and
 * scheduled host actions, with seeded per-packet faults.
 *
 * Per packet sent on a link that is up: with probability `loss` it is lost;
 * otherwise it is delivered after a delay drawn uniformly from [minDelay, maxDelay]
 * (a spread reorders packets unless `fifo`), and with probability `duplicate` a second copy is
 * delivered after an independent delay. A link switched down (`setLinkDown`) drops
 * everything sent on it until switched up again; packets already in flight arrive.
 * `dropWhen` adds targeted faults (drop exactly the packets a predicate selects).
 *
 * Events at equal times run in the order they were scheduled, so a run is a pure
 * function of the seed, the options and the protocol code.
 */
import { MinHeap } from '../../core/min-heap.js';
import type { PacketCodec, PacketHandler, ProtocolEnv, TimerHandle } from './packet_network.js';
import { Rng } from '../../core/random.js';

export interface SimNetworkOptions<P> {
  readonly size: number;
  readonly seed: number;
  /** Per-packet loss probability (default 0). */
  readonly loss?: number;
  /** Probability that a delivered packet is delivered a second time (default 0). */
  readonly duplicate?: number;
  /** Delivery delay bounds (defaults 1 and minDelay). */
  readonly minDelay?: number;
  readonly maxDelay?: number;
  /**
   * Keep every link first-in first-out: a packet is never delivered before one sent
   * earlier on the same link (jitter without reordering, as on Myrinet or TCP).
   */
  readonly fifo?: boolean;
  /**
   * Carry packets as frames: encode at send, decode at each delivery (exercises the
   * codec and gives every receiver its own copy). Observers still see packets.
   */
  readonly codec?: PacketCodec<P>;
}

/** One packet on one link, as the observers see it. */
export interface PacketEvent<P> {
  readonly from: number;
  readonly to: number;
  readonly packet: P;
  readonly time: number;
}

export interface SimNetworkStats {
  /** send() calls. */
  sent: number;
  /** Copies handed to a handler (including duplicates). */
  delivered: number;
  /** Lost to the random loss, a down link or a `dropWhen` rule. */
  dropped: number;
  /** Extra copies created. */
  duplicated: number;
}

interface SimEvent {
  readonly time: number;
  readonly order: number;
  readonly run: () => void;
  cancelled: boolean;
}

type Listener<P> = (e: PacketEvent<P>) => void;

export class SimNetwork<P> {
  readonly size: number;
  readonly stats: SimNetworkStats = { sent: 0, delivered: 0, dropped: 0, duplicated: 0 };
  private readonly rng: Rng;
  private readonly loss: number;
  private readonly duplicate: number;
  private readonly minDelay: number;
  private readonly maxDelay: number;
  private readonly codec: PacketCodec<P> | undefined;
  /** fifo: latest delivery time scheduled per link. */
  private readonly lastArrival: Map<number, number> | undefined;
  private readonly queue = new MinHeap<SimEvent>((a, b) => a.time < b.time || (a.time === b.time && a.order < b.order));
  private readonly handlers: (PacketHandler<P> | undefined)[];
  private readonly down = new Set<number>();
  private readonly dropRules: ((e: PacketEvent<P>) => boolean)[] = [];
  private readonly sendListeners: Listener<P>[] = [];
  private readonly deliverListeners: Listener<P>[] = [];
  private order = 0;
  private time = 0;

  constructor(o: SimNetworkOptions<P>) {
    if (!Number.isInteger(o.size) || o.size < 1) throw new RangeError(`size must be a positive integer, got ${o.size}`);
    this.size = o.size;
    this.rng = new Rng(o.seed);
    this.loss = o.loss ?? 0;
    this.duplicate = o.duplicate ?? 0;
    this.minDelay = o.minDelay ?? 1;
    this.maxDelay = o.maxDelay ?? this.minDelay;
    this.codec = o.codec;
    this.lastArrival = o.fifo ? new Map() : undefined;
    if (!(this.loss >= 0 && this.loss < 1)) throw new RangeError(`loss must be in [0, 1), got ${this.loss}`);
    if (!(this.duplicate >= 0 && this.duplicate <= 1)) throw new RangeError(`duplicate must be in [0, 1], got ${this.duplicate}`);
    if (!(this.minDelay > 0 && this.maxDelay >= this.minDelay)) {
      throw new RangeError(`need 0 < minDelay ≤ maxDelay, got ${this.minDelay}, ${this.maxDelay}`);
    }
    this.handlers = new Array<PacketHandler<P> | undefined>(o.size).fill(undefined);
  }

  /** Current virtual time. */
  get now(): number {
    return this.time;
  }

  /** The environment a protocol instance of `rank` runs in. */
  endpoint(rank: number): ProtocolEnv<P> {
    this.checkRank(rank);
    return {
      rank,
      size: this.size,
      send: (to, packet) => this.send(rank, to, packet),
      now: () => this.time,
      setTimer: (delay, callback) => this.schedule(this.time + Math.max(0, delay), callback),
    };
  }

  /** Deliver `rank`'s packets to `handler` (packets for a rank without one are dropped). */
  attach(rank: number, handler: PacketHandler<P>): void {
    this.checkRank(rank);
    this.handlers[rank] = handler;
  }

  /** The "link down" switch, per direction (from → to). */
  setLinkDown(from: number, to: number, down = true): void {
    this.checkRank(from);
    this.checkRank(to);
    const key = from * this.size + to;
    if (down) this.down.add(key);
    else this.down.delete(key);
  }

  /** Drop every packet for which `rule` returns true (checked at send time). */
  dropWhen(rule: (e: PacketEvent<P>) => boolean): void {
    this.dropRules.push(rule);
  }

  /** Observe every send() (before the fault decision). */
  onSend(listener: Listener<P>): void {
    this.sendListeners.push(listener);
  }

  /** Observe every delivery, just before the handler runs. */
  onDeliver(listener: Listener<P>): void {
    this.deliverListeners.push(listener);
  }

  /** Run `action` at virtual time `time` (≥ now). */
  at(time: number, action: () => void): TimerHandle {
    if (time < this.time) throw new RangeError(`cannot schedule at ${time} before now (${this.time})`);
    return this.schedule(time, action);
  }

  after(delay: number, action: () => void): TimerHandle {
    return this.at(this.time + delay, action);
  }

  /**
   * Process events until none is left (quiescence). Throws if virtual time would pass
   * `maxTime` or more than `maxEvents` events run: a protocol that never goes quiet
   * (a livelock, or a timer left running) fails loudly instead of hanging.
   */
  run(o: { maxTime?: number; maxEvents?: number } = {}): void {
    const maxTime = o.maxTime ?? Number.POSITIVE_INFINITY;
    const maxEvents = o.maxEvents ?? 10_000_000;
    let events = 0;
    for (;;) {
      const e = this.queue.pop();
      if (!e) return;
      if (e.cancelled) continue;
      if (e.time > maxTime) throw new Error(`simulation still busy at virtual time ${maxTime}`);
      if (++events > maxEvents) throw new Error(`simulation exceeded ${maxEvents} events (t = ${this.time})`);
      this.time = e.time;
      e.run();
    }
  }

  private send(from: number, to: number, packet: P): void {
    this.checkRank(to);
    if (to === from) throw new Error(`rank ${from} sent a packet to itself`);
    this.stats.sent++;
    const e: PacketEvent<P> = { from, to, packet, time: this.time };
    for (const l of this.sendListeners) l(e);
    if (this.down.has(from * this.size + to) || this.dropRules.some((rule) => rule(e)) || this.rng.chance(this.loss)) {
      this.stats.dropped++;
      return;
    }
    const frame = this.codec?.encode(packet);
    this.deliverLater(from, to, packet, frame);
    if (this.rng.chance(this.duplicate)) {
      this.stats.duplicated++;
      this.deliverLater(from, to, packet, frame);
    }
  }

  private deliverLater(from: number, to: number, sent: P, frame: Uint8Array | undefined): void {
    let t = this.time + this.rng.between(this.minDelay, this.maxDelay);
    if (this.lastArrival) {
      const link = from * this.size + to;
      t = Math.max(t, this.lastArrival.get(link) ?? 0);
      this.lastArrival.set(link, t);
    }
    this.schedule(t, () => {
      const h = this.handlers[to];
      if (!h) {
        this.stats.dropped++;
        return;
      }
      this.stats.delivered++;
      const packet = frame && this.codec ? this.codec.decode(frame.slice()) : sent;
      const e: PacketEvent<P> = { from, to, packet, time: this.time };
      for (const l of this.deliverListeners) l(e);
      h.onPacket(from, packet);
    });
  }

  private schedule(time: number, run: () => void): TimerHandle {
    const e: SimEvent = { time, order: this.order++, run, cancelled: false };
    this.queue.push(e);
    return {
      cancel: () => {
        e.cancelled = true;
      },
    };
  }

  private checkRank(r: number): void {
    if (!Number.isInteger(r) || r < 0 || r >= this.size) throw new RangeError(`rank ${r} out of range [0, ${this.size})`);
  }
}
