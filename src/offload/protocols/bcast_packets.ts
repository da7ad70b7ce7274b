/**
 * Packets of the NIC broadcast (seed 003 ch. 6 §6.4, M7–M10) and their frame codec.
 *
 * A data packet carries one MTU-sized piece of a message: the group's stream
 * sequence number (one per packet, shared by all children, M9), the message number
 * within the group, the piece's byte offset and the message's total length (so a
 * receiver can allocate the host buffer at the first piece). An ACK names the
 * in-order sequence number it acknowledges (cumulative: everything up to it).
 * Frames: data [type u8][group u32][seq u32][msg u32][offset u32][length u32][payload];
 * ACK [type u8][group u32][seq u32]; little-endian. Header cost: 21 bytes per data
 * packet (so a payload MTU of m needs frames of m + 21), 9 per ACK.
 */
import type { PacketCodec } from './packet_network.js';

export interface BcastData {
  readonly kind: 'bcast-data';
  readonly group: number;
  readonly seq: number;
  readonly msg: number;
  readonly offset: number;
  /** Total bytes of message `msg`. */
  readonly length: number;
  readonly payload: Uint8Array;
}

export interface BcastAck {
  readonly kind: 'bcast-ack';
  readonly group: number;
  readonly seq: number;
}

export type BcastPacket = BcastData | BcastAck;

export const BCAST_FRAME_TYPES: Readonly<Record<BcastPacket['kind'], number>> = { 'bcast-data': 0x20, 'bcast-ack': 0x21 };

/** Is `p` the last piece of its message? */
export function isLastPiece(p: BcastData): boolean {
  return p.offset + p.payload.length === p.length;
}

const DATA_HEADER = 21;
const ACK_BYTES = 9;

export const bcastCodec: PacketCodec<BcastPacket> = {
  encode(p) {
    if (p.kind === 'bcast-ack') {
      const frame = new Uint8Array(ACK_BYTES);
      const v = new DataView(frame.buffer);
      v.setUint8(0, BCAST_FRAME_TYPES['bcast-ack']);
      v.setUint32(1, p.group, true);
      v.setUint32(5, p.seq, true);
      return frame;
    }
    const frame = new Uint8Array(DATA_HEADER + p.payload.length);
    const v = new DataView(frame.buffer);
    v.setUint8(0, BCAST_FRAME_TYPES['bcast-data']);
    v.setUint32(1, p.group, true);
    v.setUint32(5, p.seq, true);
    v.setUint32(9, p.msg, true);
    v.setUint32(13, p.offset, true);
    v.setUint32(17, p.length, true);
    frame.set(p.payload, DATA_HEADER);
    return frame;
  },
  decode(frame) {
    const v = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
    if (frame.length === ACK_BYTES && frame[0] === BCAST_FRAME_TYPES['bcast-ack']) {
      return { kind: 'bcast-ack', group: v.getUint32(1, true), seq: v.getUint32(5, true) };
    }
    if (frame.length >= DATA_HEADER && frame[0] === BCAST_FRAME_TYPES['bcast-data']) {
      return {
        kind: 'bcast-data',
        group: v.getUint32(1, true),
        seq: v.getUint32(5, true),
        msg: v.getUint32(9, true),
        offset: v.getUint32(13, true),
        length: v.getUint32(17, true),
        payload: frame.subarray(DATA_HEADER),
      };
    }
    throw new Error(`not a broadcast frame (${frame.length} bytes, type ${frame[0]})`);
  },
};
