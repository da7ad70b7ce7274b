/**
 * ACK-based barrier: the comparison baseline of seed 003 ch. 6 §6.3 (M5). The same
 * message pattern and progress as the NIC barrier, but with the regular reliability
 * of point-to-point messages: every barrier message has its own send record and
 * timer, the receiver returns an ACK for every copy it gets, and the sender
 * retransmits on timeout until the ACK arrives.
 *
 * Packet cost without loss: two packets per message, 2·P·⌈lg P⌉ per barrier for DS —
 * twice the NIC barrier's, which is the seed's "reduce the number of total packets
 * by half" (§6 claim 6).
 */
import { barrierPattern, type BarrierAlgorithm } from './barrier_pattern.js';
import type { BarrierPacket } from './barrier_packets.js';
import { BarrierProgress } from './barrier_progress.js';
import { emptyBarrierStats } from './nic_barrier.js';
import type { PacketHandler, ProtocolEnv, TimerHandle } from './packet_network.js';

export interface AckBarrierOptions {
  readonly algorithm: BarrierAlgorithm;
  /** Retransmission timeout of each message. */
  readonly timeout: number;
  readonly onComplete?: (seq: number) => void;
}

export class AckBarrier implements PacketHandler<BarrierPacket> {
  readonly stats = emptyBarrierStats();
  private readonly progress: BarrierProgress;
  /** Unacknowledged messages: key "seq:peer:round" → retransmission timer. */
  private readonly unacked = new Map<string, TimerHandle>();

  constructor(
    private readonly env: ProtocolEnv<BarrierPacket>,
    private readonly o: AckBarrierOptions,
  ) {
    if (!(o.timeout > 0)) throw new RangeError(`timeout must be positive, got ${o.timeout}`);
    this.progress = new BarrierProgress(barrierPattern(o.algorithm, env.rank, env.size), {
      transmit: (seq, step) => {
        this.stats.messages++;
        this.transmit(seq, step.peer, step.round);
      },
      completed: (seq) => this.o.onComplete?.(seq),
    });
  }

  get completed(): number {
    return this.progress.completed;
  }

  /** Messages sent and not yet acknowledged. */
  get pending(): number {
    return this.unacked.size;
  }

  enter(): number {
    return this.progress.enter(this.env.now());
  }

  onPacket(from: number, p: BarrierPacket): void {
    switch (p.kind) {
      case 'barrier': {
        const outcome = this.progress.arrive(p.seq, from, p.round);
        if (outcome === 'duplicate') this.stats.duplicates++;
        else if (outcome === 'stale') this.stats.stale++;
        else if (outcome === 'violation') this.stats.violations++;
        if (outcome === 'unexpected') {
          this.stats.unexpected++;
          return;
        }
        // Every copy is acknowledged, or a sender whose ACK was lost would retry forever.
        this.stats.control++;
        this.env.send(from, { kind: 'barrier-ack', seq: p.seq, round: p.round });
        return;
      }
      case 'barrier-ack': {
        const key = `${p.seq}:${from}:${p.round}`;
        this.unacked.get(key)?.cancel();
        this.unacked.delete(key);
        return;
      }
      case 'barrier-nack':
        this.stats.unexpected++;
        return;
    }
  }

  private transmit(seq: number, peer: number, round: number): void {
    this.env.send(peer, { kind: 'barrier', seq, round });
    const key = `${seq}:${peer}:${round}`;
    this.unacked.set(
      key,
      this.env.setTimer(this.o.timeout, () => {
        this.stats.timeouts++;
        this.stats.resent++;
        this.transmit(seq, peer, round);
      }),
    );
  }
}
