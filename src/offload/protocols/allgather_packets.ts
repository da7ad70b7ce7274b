/**
 * Packets of the NIC allgathers (seed 003 ch. 6 §6.5, M13–M15) and their frame codec.
 *
 * - Concurrent broadcasting (NIC-CB): a hopping packet carries the flag (i, j) — i the
 *   originating rank, j the exponent of the hop that delivers it — and origin i's block.
 * - Recursive doubling (NIC-RD): the step-k packet carries the 2^k consecutive blocks
 *   of the sender's group, starting at block `first` (small blocks combined, M14).
 * - NACK (both): op and the missing item (CB: the origin; RD: the step).
 * Every packet names its operation (the global collective sequence number, which
 * selects the buffer channel op mod 2).
 * Frames (little-endian): CB [0x30][op u32][origin u32][hop u8][block];
 * RD [0x31][op u32][step u8][first u32][blocks]; NACK [0x32][op u32][index u32].
 * Header cost: 10 bytes per data packet, 9 per NACK.
 */
import type { PacketCodec } from './packet_network.js';

export interface HoppingPacket {
  readonly kind: 'ag-cb';
  readonly op: number;
  readonly origin: number;
  readonly hop: number;
  readonly block: Uint8Array;
}

export interface DoublingPacket {
  readonly kind: 'ag-rd';
  readonly op: number;
  readonly step: number;
  /** Index of the first block carried. */
  readonly first: number;
  readonly blocks: Uint8Array;
}

export interface AllgatherNack {
  readonly kind: 'ag-nack';
  readonly op: number;
  /** CB: missing origin; RD: missing step. */
  readonly index: number;
}

export type AllgatherPacket = HoppingPacket | DoublingPacket | AllgatherNack;

export const ALLGATHER_FRAME_TYPES: Readonly<Record<AllgatherPacket['kind'], number>> = { 'ag-cb': 0x30, 'ag-rd': 0x31, 'ag-nack': 0x32 };

export const allgatherCodec: PacketCodec<AllgatherPacket> = {
  encode(p) {
    switch (p.kind) {
      case 'ag-cb': {
        const f = new Uint8Array(10 + p.block.length);
        const v = new DataView(f.buffer);
        v.setUint8(0, ALLGATHER_FRAME_TYPES['ag-cb']);
        v.setUint32(1, p.op, true);
        v.setUint32(5, p.origin, true);
        v.setUint8(9, p.hop);
        f.set(p.block, 10);
        return f;
      }
      case 'ag-rd': {
        const f = new Uint8Array(10 + p.blocks.length);
        const v = new DataView(f.buffer);
        v.setUint8(0, ALLGATHER_FRAME_TYPES['ag-rd']);
        v.setUint32(1, p.op, true);
        v.setUint8(5, p.step);
        v.setUint32(6, p.first, true);
        f.set(p.blocks, 10);
        return f;
      }
      case 'ag-nack': {
        const f = new Uint8Array(9);
        const v = new DataView(f.buffer);
        v.setUint8(0, ALLGATHER_FRAME_TYPES['ag-nack']);
        v.setUint32(1, p.op, true);
        v.setUint32(5, p.index, true);
        return f;
      }
    }
  },
  decode(f) {
    const v = new DataView(f.buffer, f.byteOffset, f.byteLength);
    if (f.length >= 10 && f[0] === ALLGATHER_FRAME_TYPES['ag-cb']) {
      return { kind: 'ag-cb', op: v.getUint32(1, true), origin: v.getUint32(5, true), hop: v.getUint8(9), block: f.subarray(10) };
    }
    if (f.length >= 10 && f[0] === ALLGATHER_FRAME_TYPES['ag-rd']) {
      return { kind: 'ag-rd', op: v.getUint32(1, true), step: v.getUint8(5), first: v.getUint32(6, true), blocks: f.subarray(10) };
    }
    if (f.length === 9 && f[0] === ALLGATHER_FRAME_TYPES['ag-nack']) {
      return { kind: 'ag-nack', op: v.getUint32(1, true), index: v.getUint32(5, true) };
    }
    throw new Error(`not an allgather frame (${f.length} bytes, type ${f[0]})`);
  },
};
