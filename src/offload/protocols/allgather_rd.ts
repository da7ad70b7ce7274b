/**
 * NIC allgather by recursive doubling (NIC-RD; seed 003 ch. 6 §6.5.3, M14, §3 A11),
 * with the step pattern taken from the catalogue's allgather/recursive_doubling
 * schedule: in step k rank r exchanges with r XOR 2^k the 2^k blocks of its group,
 * combined into one packet, so the data doubles each step; lg N steps (N a power of
 * two, as in the catalogue).
 *
 * State per op: the channel's status bit vector (one bit per step) and arrival
 * counter; a step-k packet that arrives early (before the op is posted or before
 * this rank reached step k) is stored in the op's channel at once — it carries
 * blocks disjoint from everything this rank has. Step k is sent as soon as the op is
 * posted and steps 0..k−1 have arrived. On timeout the bit vector is scanned and the
 * partner of each missing step NACKed; it resends from its channel if it has reached
 * that step (regenerating the packet from the channel's blocks).
 *
 * Packet cost without loss: every rank receives lg N data packets per op (one per
 * step) and sends lg N, N·lg N in all; step k's packet carries 2^k blocks, which the
 * seed combines into one packet while they fit the MTU (not enforced here).
 */
import { generateRankSchedule, getAlgorithm } from '../../algorithms/registry.js';
import { isPowerOfTwo } from '../../schedule/partition.js';
import { NicAllgather, type NicAllgatherOptions } from './allgather_node.js';
import type { ChannelSlot } from './allgather_channels.js';
import type { AllgatherNack, AllgatherPacket } from './allgather_packets.js';
import type { ProtocolEnv } from './packet_network.js';

export interface DoublingStep {
  readonly partner: number;
  /** Blocks sent: [sendFirst, sendFirst + count). */
  readonly sendFirst: number;
  /** Blocks received: [recvFirst, recvFirst + count). */
  readonly recvFirst: number;
  readonly count: number;
}

/** Rank's steps, from the catalogue schedule generated with one element per block. */
export function doublingSteps(rank: number, N: number): DoublingStep[] {
  if (!isPowerOfTwo(N)) throw new RangeError(`NIC recursive doubling needs a power-of-two size, got ${N}`);
  const schedule = generateRankSchedule(getAlgorithm('allgather', 'recursive_doubling'), rank, { size: N, count: 1 });
  const steps: DoublingStep[] = [];
  for (const st of schedule.steps) {
    if (st.kind !== 'send') continue;
    const recv = schedule.steps.find((x) => x.kind === 'recv' && x.round === st.round);
    if (!recv || recv.kind !== 'recv' || recv.peer !== st.peer || recv.region.count !== st.region.count) {
      throw new Error(`allgather/recursive_doubling: rank ${rank} round ${st.round} is not a pairwise exchange`);
    }
    steps[st.round] = { partner: st.peer, sendFirst: st.region.offset, recvFirst: recv.region.offset, count: st.region.count };
  }
  return steps;
}

export class RecursiveDoublingAllgather extends NicAllgather {
  private readonly steps: readonly DoublingStep[];

  constructor(env: ProtocolEnv<AllgatherPacket>, o: NicAllgatherOptions) {
    const steps = doublingSteps(env.rank, env.size);
    super(env, o, steps.length);
    this.steps = steps;
  }

  protected start(slot: ChannelSlot): void {
    this.progress(slot);
  }

  protected isDone(slot: ChannelSlot): boolean {
    return slot.arrivals === this.steps.length;
  }

  protected onData(from: number, p: Exclude<AllgatherPacket, AllgatherNack>): void {
    const step = p.kind === 'ag-rd' ? this.steps[p.step] : undefined;
    if (
      p.kind !== 'ag-rd' ||
      !step ||
      step.partner !== from ||
      step.recvFirst !== p.first ||
      p.blocks.length !== step.count * this.channels.blockBytes
    ) {
      this.stats.unexpected++;
      return;
    }
    const slot = this.slotFor(p.op);
    if (!slot) return;
    if (!slot.status.set(p.step)) {
      this.stats.duplicates++;
      return;
    }
    this.stats.dataReceived++;
    slot.arrivals++;
    slot.data.set(p.blocks, p.first * this.channels.blockBytes);
    for (let b = p.first; b < p.first + step.count; b++) slot.have.set(b);
    this.progress(slot);
    this.checkCompletion();
  }

  protected scan(slot: ChannelSlot): void {
    for (const k of slot.status.missing()) {
      this.stats.nacksSent++;
      this.env.send(this.steps[k].partner, { kind: 'ag-nack', op: slot.op, index: k });
    }
  }

  protected onNack(from: number, p: AllgatherNack): void {
    const step = this.steps[p.index];
    if (!step || step.partner !== from) {
      this.stats.unexpected++;
      return;
    }
    const slot = this.channels.lookup(p.op);
    if (!slot || slot.cursor <= p.index) return; // step not reached yet: it goes out when reached
    this.stats.resent++;
    this.env.send(from, this.packet(slot, p.index));
  }

  /** Send every step whose predecessors have arrived (cursor = steps sent). */
  private progress(slot: ChannelSlot): void {
    if (!slot.posted) return;
    while (slot.cursor < this.steps.length && (slot.cursor === 0 || slot.status.get(slot.cursor - 1))) {
      this.stats.dataSent++;
      this.env.send(this.steps[slot.cursor].partner, this.packet(slot, slot.cursor));
      slot.cursor++;
    }
  }

  private packet(slot: ChannelSlot, k: number): AllgatherPacket {
    const { sendFirst, count } = this.steps[k];
    const B = this.channels.blockBytes;
    return { kind: 'ag-rd', op: slot.op, step: k, first: sendFirst, blocks: slot.data.slice(sendFirst * B, (sendFirst + count) * B) };
  }
}
