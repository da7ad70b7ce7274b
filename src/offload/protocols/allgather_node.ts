/**
 * The operation life cycle shared by the NIC allgathers (seed 003 ch. 6 §6.5, M13,
 * M16): the host posts its block and returns; the "NIC" starts op s once op s − 1 is
 * complete, receives into the op's rotating channel (early packets included), keeps
 * the status bit vector and arrival counter, scans the bit vector only when the op's
 * timer expires (sending NACKs), and signals completion with the gathered blocks.
 *
 * Packet classification at a rank that has completed ops 0..c−1:
 * op < c − 1 … stale (dropped); op ≤ c + 1 … stored in channel op mod 2; op ≥ c + 2 …
 * violation of the two-channel invariant (counted and dropped: it cannot happen when
 * every rank obeys the start rule; `postAhead` > 0 breaks the rule on purpose).
 * Completed op c − 1 stays in its channel so late NACKs can still be answered.
 *
 * Seed silence, chosen here: the timeout (a parameter), a periodic NACK round per
 * incomplete op, and in-order completion of ops.
 *
 * Cost: the protocol's data packets; per incomplete op and timeout, one NACK per
 * missing item (none without loss when the timeout exceeds the op's duration).
 */
import type { AllgatherNack, AllgatherPacket } from './allgather_packets.js';
import { RotatingChannels, type ChannelSlot } from './allgather_channels.js';
import type { PacketHandler, ProtocolEnv, TimerHandle } from './packet_network.js';

export interface NicAllgatherOptions {
  /** Bytes of every rank's block (the same in every op). */
  readonly blockBytes: number;
  /** Time after an op starts (and between NACK rounds) before missing packets are NACKed. */
  readonly timeout: number;
  /**
   * UNSAFE, for demonstrating the invariant only: how many ops a rank may start beyond
   * its oldest incomplete one. 0 (default) is the protocol's rule; 1 lets a rank start
   * op s + 1 early, so a fast peer can reach op s + 2 while this rank is still in op s.
   */
  readonly postAhead?: number;
  /** Op `op` completed: `result` holds the N blocks in rank order (a copy). */
  readonly onComplete?: (op: number, result: Uint8Array) => void;
}

export interface AllgatherStats {
  /** Data packets that brought something new. */
  dataReceived: number;
  /** Data packets sent for the first time (own and forwarded). */
  dataSent: number;
  /** Data packets resent after a NACK. */
  resent: number;
  nacksSent: number;
  /** Timer expiries with the op incomplete (bit-vector scans). */
  scans: number;
  duplicates: number;
  stale: number;
  /** Packets of op ≥ completed + 2: breaks the two-channel invariant. */
  violations: number;
  /** Packets that do not fit the pattern (wrong sender, size or index). */
  unexpected: number;
}

export abstract class NicAllgather implements PacketHandler<AllgatherPacket> {
  readonly stats: AllgatherStats = {
    dataReceived: 0, dataSent: 0, resent: 0, nacksSent: 0, scans: 0, duplicates: 0, stale: 0, violations: 0, unexpected: 0,
  };
  protected readonly N: number;
  protected readonly rank: number;
  protected readonly channels: RotatingChannels;
  private readonly queue: Uint8Array[] = [];
  private posted = 0;
  private started = 0;
  private done = 0;
  private readonly timers = new Map<number, TimerHandle>();

  protected constructor(
    protected readonly env: ProtocolEnv<AllgatherPacket>,
    private readonly o: NicAllgatherOptions,
    statusBits: number,
  ) {
    if (!(Number.isInteger(o.blockBytes) && o.blockBytes >= 0)) throw new RangeError(`blockBytes must be a non-negative integer, got ${o.blockBytes}`);
    if (!(o.timeout > 0)) throw new RangeError(`timeout must be positive, got ${o.timeout}`);
    if (o.postAhead !== undefined && o.postAhead !== 0 && o.postAhead !== 1) throw new RangeError(`postAhead must be 0 or 1, got ${o.postAhead}`);
    this.N = env.size;
    this.rank = env.rank;
    this.channels = new RotatingChannels(this.N, o.blockBytes, statusBits);
  }

  /** Ops completed at this rank. */
  get completed(): number {
    return this.done;
  }

  /** Post this rank's block for the next op (copied); returns the op number. */
  post(block: Uint8Array): number {
    if (block.length !== this.o.blockBytes) throw new RangeError(`block has ${block.length} bytes, expected ${this.o.blockBytes}`);
    this.queue.push(block.slice());
    const op = this.posted++;
    this.startReady();
    return op;
  }

  onPacket(from: number, p: AllgatherPacket): void {
    if (p.kind === 'ag-nack') this.onNack(from, p);
    else this.onData(from, p);
  }

  /** Protocol: handle a data packet (use `slotFor` to place it). */
  protected abstract onData(from: number, p: Exclude<AllgatherPacket, AllgatherNack>): void;
  /** Protocol: answer a NACK from the data kept in `channels`. */
  protected abstract onNack(from: number, p: AllgatherNack): void;
  /** Protocol: the host posted op (own block in place): send what can be sent. */
  protected abstract start(slot: ChannelSlot): void;
  /** Protocol: everything of the op has arrived. */
  protected abstract isDone(slot: ChannelSlot): boolean;
  /** Protocol: NACK the missing packets of an incomplete op (the bit-vector scan). */
  protected abstract scan(slot: ChannelSlot): void;

  /** The channel for a data packet of `op`, or undefined (stale or violation, counted). */
  protected slotFor(op: number): ChannelSlot | undefined {
    if (op >= this.done + 2) {
      this.stats.violations++;
      return undefined;
    }
    if (op < this.done) {
      this.stats.stale++;
      return undefined;
    }
    return this.channels.acquire(op);
  }

  /** Complete ops in order while they are done. */
  protected checkCompletion(): void {
    for (;;) {
      const slot = this.channels.lookup(this.done);
      if (!slot || !slot.posted || !this.isDone(slot)) return;
      slot.complete = true;
      const op = this.done++;
      this.timers.get(op)?.cancel();
      this.timers.delete(op);
      this.o.onComplete?.(op, slot.data.slice());
      this.startReady();
    }
  }

  private startReady(): void {
    const ahead = this.o.postAhead ?? 0;
    while (this.queue.length > 0 && this.started <= this.done + ahead) {
      const op = this.started++;
      const slot = this.channels.acquire(op);
      this.channels.block(slot, this.rank).set(this.queue.shift() as Uint8Array);
      slot.have.set(this.rank);
      slot.posted = true;
      this.start(slot);
      this.arm(op);
      this.checkCompletion();
    }
  }

  private arm(op: number): void {
    this.timers.set(
      op,
      this.env.setTimer(this.o.timeout, () => {
        this.timers.delete(op);
        const slot = this.channels.lookup(op);
        if (op < this.done || !slot) return;
        this.stats.scans++;
        this.scan(slot);
        this.arm(op);
      }),
    );
  }
}
