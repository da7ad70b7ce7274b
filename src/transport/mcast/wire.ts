/**
 * Datagrams of the multicast broadcast path (seed 003 ch. 5), little-endian:
 *
 *    0  magic "CMC1" u32        4  type u8 (1 DATA, 2 CLOSE, 3 SYNC_DOWN)
 *    5  flags u8 (1: checksummed, reliable mode; 2: sent again)
 *    6  retries u16 (rebroadcasts of this fragment)
 *    8  sender node u32        12  context i32 (the communicator)
 *   16  g u32: DATA: the fragment's number in the stream (context, sender node);
 *       CLOSE: the end of the set; SYNC_DOWN: the round set free
 *   20  round u32 (DATA, CLOSE: the set's round g / set size)
 *   24  message: first fragment u32   28  fragments u32   32  total bytes u32
 *   36  offset u32 (this fragment's place in the message)
 *   40  src i32 (world rank)   44  tag i32   48  index i32
 *   52  space u8, reserved u8, sig u16
 *   56  destinations u16, reserved u16
 *   60  timestamp u32 (µs, the sender's clock, mod 2³²)
 *   64  checksum u32: CRC-32 (zlib) of everything but itself and the MAC (reliable mode)
 *   68  destinations × i32 (world ranks; one per receiving node), then the payload
 *  end  HMAC-SHA256(job key, everything before it), truncated to 16 bytes
 *
 * The same bytes travel by multicast and, after a fail-over, as the payload of a
 * point-to-point frame down the tree (broadcaster.ts).
 */
import { crc32 } from 'node:zlib';

export const MCAST_MAGIC = 0x31434d43; // "CMC1" little-endian
export const T_DATA = 1;
export const T_CLOSE = 2;
export const T_SYNC_DOWN = 3;
export const F_CHECKSUM = 1;
export const F_RESENT = 2;
export const HEADER_BYTES = 68;
export const MAC_BYTES = 16;
const CHECKSUM_AT = 64;

export interface McastHeader {
  readonly type: number;
  readonly flags: number;
  readonly retries: number;
  readonly sender: number;
  readonly context: number;
  readonly g: number;
  readonly round: number;
  readonly first: number;
  readonly fragments: number;
  readonly total: number;
  readonly offset: number;
  readonly src: number;
  readonly tag: number;
  readonly index: number;
  readonly space: number;
  readonly sig: number;
  readonly timestamp: number;
  readonly dsts: readonly number[];
}

/** Bytes of a datagram with `dsts` destinations and `payload` bytes (MAC included). */
export function datagramBytes(dsts: number, payload: number): number {
  return HEADER_BYTES + 4 * dsts + payload + MAC_BYTES;
}

/** Encode a datagram; the MAC is left zero (sign() fills it). */
export function encodeDatagram(h: McastHeader, payload: Uint8Array): Buffer {
  const b = Buffer.allocUnsafe(datagramBytes(h.dsts.length, payload.byteLength));
  b.writeUInt32LE(MCAST_MAGIC, 0);
  b.writeUInt8(h.type, 4);
  b.writeUInt8(h.flags, 5);
  b.writeUInt16LE(Math.min(h.retries, 0xffff), 6);
  b.writeUInt32LE(h.sender, 8);
  b.writeInt32LE(h.context, 12);
  b.writeUInt32LE(h.g >>> 0, 16);
  b.writeUInt32LE(h.round >>> 0, 20);
  b.writeUInt32LE(h.first >>> 0, 24);
  b.writeUInt32LE(h.fragments >>> 0, 28);
  b.writeUInt32LE(h.total >>> 0, 32);
  b.writeUInt32LE(h.offset >>> 0, 36);
  b.writeInt32LE(h.src, 40);
  b.writeInt32LE(h.tag, 44);
  b.writeInt32LE(h.index, 48);
  b.writeUInt8(h.space, 52);
  b.writeUInt8(0, 53);
  b.writeUInt16LE(h.sig & 0xffff, 54);
  b.writeUInt16LE(h.dsts.length, 56);
  b.writeUInt16LE(0, 58);
  b.writeUInt32LE(h.timestamp >>> 0, 60);
  let at = HEADER_BYTES;
  for (const d of h.dsts) {
    b.writeInt32LE(d, at);
    at += 4;
  }
  b.set(payload, at);
  at += payload.byteLength;
  b.fill(0, at, at + MAC_BYTES);
  b.writeUInt32LE((h.flags & F_CHECKSUM) !== 0 ? checksumOf(b) : 0, CHECKSUM_AT);
  return b;
}

/** CRC-32 of the datagram without its checksum field and MAC. */
export function checksumOf(b: Uint8Array): number {
  let c = crc32(b.subarray(0, CHECKSUM_AT));
  c = crc32(b.subarray(CHECKSUM_AT + 4, b.byteLength - MAC_BYTES), c);
  return c >>> 0;
}

/** Mark a stored datagram as a rebroadcast (retries += 1) and refresh its checksum (the MAC is redone by the caller). */
export function markResent(b: Buffer): void {
  b.writeUInt8(b.readUInt8(5) | F_RESENT, 5);
  b.writeUInt16LE(Math.min(b.readUInt16LE(6) + 1, 0xffff), 6);
  if ((b.readUInt8(5) & F_CHECKSUM) !== 0) b.writeUInt32LE(checksumOf(b), CHECKSUM_AT);
}

export interface Decoded {
  readonly h: McastHeader;
  readonly payload: Uint8Array;
  /** False when the datagram is checksummed and the checksum does not match. */
  readonly intact: boolean;
}

/** Decode a datagram whose MAC has been checked; undefined when it is malformed. */
export function decodeDatagram(b: Buffer): Decoded | undefined {
  if (b.byteLength < HEADER_BYTES + MAC_BYTES || b.readUInt32LE(0) !== MCAST_MAGIC) return undefined;
  const nd = b.readUInt16LE(56);
  const payloadAt = HEADER_BYTES + 4 * nd;
  const end = b.byteLength - MAC_BYTES;
  if (payloadAt > end) return undefined;
  const flags = b.readUInt8(5);
  const dsts: number[] = [];
  for (let i = 0; i < nd; i++) dsts.push(b.readInt32LE(HEADER_BYTES + 4 * i));
  const h: McastHeader = {
    type: b.readUInt8(4),
    flags,
    retries: b.readUInt16LE(6),
    sender: b.readUInt32LE(8),
    context: b.readInt32LE(12),
    g: b.readUInt32LE(16),
    round: b.readUInt32LE(20),
    first: b.readUInt32LE(24),
    fragments: b.readUInt32LE(28),
    total: b.readUInt32LE(32),
    offset: b.readUInt32LE(36),
    src: b.readInt32LE(40),
    tag: b.readInt32LE(44),
    index: b.readInt32LE(48),
    space: b.readUInt8(52),
    sig: b.readUInt16LE(54),
    timestamp: b.readUInt32LE(60),
    dsts,
  };
  const intact = (flags & F_CHECKSUM) === 0 || b.readUInt32LE(CHECKSUM_AT) === checksumOf(b);
  return { h, payload: b.subarray(payloadAt, end), intact };
}

/** Control frames between node agents over the reliable point-to-point path. */
export const C_SYNC_UP = 1;
export const C_NACK = 2;
/** A datagram forwarded down the tree after a fail-over. */
export const C_TREE = 3;
