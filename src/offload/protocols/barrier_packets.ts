/**
 * Packets of the NIC barriers (seed 003 ch. 6, M4–M5) and their frame codec.
 *
 * A barrier message is the "static packet" of M4: it carries only the barrier
 * sequence number and the algorithm round, so it can be regenerated at any time
 * instead of being kept for retransmission. A NACK names the (sequence, round) the
 * receiver is missing. The ACK exists only for the ACK-based comparison protocol.
 * Frame: [type u8][seq u32 LE][round u32 LE] — 9 bytes, the only packet cost of a
 * barrier message (sequence numbers wrap at 2^32 on the wire).
 */
import type { PacketCodec } from './packet_network.js';

export type BarrierPacketKind = 'barrier' | 'barrier-nack' | 'barrier-ack';

export interface BarrierPacket {
  readonly kind: BarrierPacketKind;
  /** Barrier sequence number (the n-th barrier of the group, from 0). */
  readonly seq: number;
  /** Algorithm round of the message. */
  readonly round: number;
}

/** Frame type bytes (distinct from the other protocols' so an engine can demultiplex on byte 0). */
export const BARRIER_FRAME_TYPES: Readonly<Record<BarrierPacketKind, number>> = {
  barrier: 0x10,
  'barrier-nack': 0x11,
  'barrier-ack': 0x12,
};

const KIND_OF = new Map<number, BarrierPacketKind>(
  Object.entries(BARRIER_FRAME_TYPES).map(([k, v]) => [v, k as BarrierPacketKind]),
);

export const barrierCodec: PacketCodec<BarrierPacket> = {
  encode(p) {
    const frame = new Uint8Array(9);
    const view = new DataView(frame.buffer);
    view.setUint8(0, BARRIER_FRAME_TYPES[p.kind]);
    view.setUint32(1, p.seq, true);
    view.setUint32(5, p.round, true);
    return frame;
  },
  decode(frame) {
    const kind = frame.length === 9 ? KIND_OF.get(frame[0]) : undefined;
    if (kind === undefined) throw new Error(`not a barrier frame (${frame.length} bytes, type ${frame[0]})`);
    const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
    return { kind, seq: view.getUint32(1, true), round: view.getUint32(5, true) };
  },
};
