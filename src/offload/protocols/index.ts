/**
 * NIC-style collective protocols of seed 003 ch. 6 as transport-agnostic,
 * deterministic state machines (for the offload engine of issue 4), with the
 * packet-network contract they run on and a simulated lossy network for tests.
 */
export * from './packet_network.js';
export { FrameMux } from './frame_mux.js';
export { SimNetwork, type SimNetworkOptions, type SimNetworkStats, type PacketEvent } from './sim_network.js';
export { BitVector } from './bitvector.js';

export { barrierPattern, BARRIER_ALGORITHMS, type BarrierAlgorithm, type BarrierPattern, type BarrierStep } from './barrier_pattern.js';
export { barrierCodec, BARRIER_FRAME_TYPES, type BarrierPacket, type BarrierPacketKind } from './barrier_packets.js';
export { BarrierProgress, type BarrierRecord } from './barrier_progress.js';
export { NicBarrier, type NicBarrierOptions, type BarrierStats } from './nic_barrier.js';
export { AckBarrier, type AckBarrierOptions } from './ack_barrier.js';

export {
  broadcastTree,
  assertIdOrdered,
  idOrderViolations,
  receiveTokenCycle,
  type BroadcastTree,
  type BroadcastTreeOptions,
  type TreeOrder,
} from './bcast_tree.js';
export { bcastCodec, BCAST_FRAME_TYPES, type BcastPacket, type BcastData, type BcastAck } from './bcast_packets.js';
export { multisend, type SendRecord } from './multisend.js';
export { TreeBroadcast, type TreeBroadcastOptions, type TreeBroadcastStats } from './tree_broadcast.js';

export { allgatherCodec, ALLGATHER_FRAME_TYPES, type AllgatherPacket, type HoppingPacket, type DoublingPacket, type AllgatherNack } from './allgather_packets.js';
export { RotatingChannels, type ChannelSlot } from './allgather_channels.js';
export { NicAllgather, type NicAllgatherOptions, type AllgatherStats } from './allgather_node.js';
export { ConcurrentBcastAllgather } from './allgather_cb.js';
export { RecursiveDoublingAllgather, doublingSteps, type DoublingStep } from './allgather_rd.js';
export { hopTargets, hopParent, arrivalHop, relativeRank } from './hopping.js';
