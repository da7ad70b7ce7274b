/**
 * NIC allgather by concurrent broadcasting with hopping packets (NIC-CB; seed 003
 * ch. 6 §6.5.4, M12, M15, §3 A12): every rank roots a binomial broadcast of its block
 * and all N broadcasts run at once. A packet (i, j) is forwarded by the NIC itself as
 * soon as it arrives — also before the host posts the op (early packets go to the
 * op's channel) — to (rank + 2^k) mod N for every k > j with rel + 2^k < N
 * (hopping.ts, mod-N rule). Packets are reused: the forwarded packet shares the
 * received block.
 *
 * State per op: the channel's status bit vector (one bit per origin) and arrival
 * counter; the op is complete when the counter reaches N − 1 (and the host posted).
 * The bit vector is scanned only when the op's timer expires: for each missing origin
 * i the rank NACKs its parent in i's tree, which resends (i, j) from its channel if it
 * has the block. Duplicates are dropped without forwarding (the first copy was).
 *
 * Packet cost without loss: every rank receives exactly N − 1 data packets per op
 * (one per origin) and sends as many, N·(N − 1) in all; peers are rank ± 2^k mod N.
 */
import { NicAllgather, type NicAllgatherOptions } from './allgather_node.js';
import type { ChannelSlot } from './allgather_channels.js';
import type { AllgatherNack, AllgatherPacket, HoppingPacket } from './allgather_packets.js';
import { arrivalHop, hopParent, hopTargets } from './hopping.js';
import type { ProtocolEnv } from './packet_network.js';

export class ConcurrentBcastAllgather extends NicAllgather {
  constructor(env: ProtocolEnv<AllgatherPacket>, o: NicAllgatherOptions) {
    super(env, o, env.size);
  }

  protected start(slot: ChannelSlot): void {
    const block = this.channels.block(slot, this.rank).slice();
    this.forward({ kind: 'ag-cb', op: slot.op, origin: this.rank, hop: -1, block });
  }

  protected isDone(slot: ChannelSlot): boolean {
    return slot.arrivals === this.N - 1;
  }

  protected onData(from: number, p: Exclude<AllgatherPacket, AllgatherNack>): void {
    if (
      p.kind !== 'ag-cb' ||
      p.origin === this.rank ||
      p.origin < 0 ||
      p.origin >= this.N ||
      p.block.length !== this.channels.blockBytes ||
      hopParent(this.rank, p.origin, this.N) !== from ||
      arrivalHop(this.rank, p.origin, this.N) !== p.hop
    ) {
      this.stats.unexpected++;
      return;
    }
    const slot = this.slotFor(p.op);
    if (!slot) return;
    if (!slot.status.set(p.origin)) {
      this.stats.duplicates++;
      return;
    }
    this.stats.dataReceived++;
    slot.arrivals++;
    this.channels.block(slot, p.origin).set(p.block);
    slot.have.set(p.origin);
    this.forward(p);
    this.checkCompletion();
  }

  protected scan(slot: ChannelSlot): void {
    // Only now is the bit vector read.
    for (const origin of slot.status.missing()) {
      if (origin === this.rank) continue;
      this.stats.nacksSent++;
      this.env.send(hopParent(this.rank, origin, this.N) as number, { kind: 'ag-nack', op: slot.op, index: origin });
    }
  }

  protected onNack(from: number, p: AllgatherNack): void {
    if (p.index < 0 || p.index >= this.N || hopParent(from, p.index, this.N) !== this.rank) {
      this.stats.unexpected++;
      return;
    }
    const slot = this.channels.lookup(p.op);
    if (!slot || !slot.have.get(p.index)) return; // not here yet: it will be forwarded on arrival
    this.stats.resent++;
    this.env.send(from, {
      kind: 'ag-cb',
      op: p.op,
      origin: p.index,
      hop: arrivalHop(from, p.index, this.N),
      block: this.channels.block(slot, p.index).slice(),
    });
  }

  /** Send packet p onwards along its tree (the hopping rule). */
  private forward(p: HoppingPacket): void {
    for (const { to, hop } of hopTargets(this.rank, p.origin, p.hop, this.N)) {
      this.stats.dataSent++;
      this.env.send(to, { ...p, hop });
    }
  }
}
