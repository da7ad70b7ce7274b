/**
 * Frames on a node-to-node TCP connection: a 36-byte little-endian header
 * (payload length, space | call signature << 16, context, tag, src, dst, index,
 * total, offset) followed by
 * the payload. The parser turns a byte stream into frames without copying payloads
 * that arrive in one piece (the callback gets a view of the socket's chunk and must
 * copy what it keeps).
 */
import type { FrameHeader, Space } from '../types.js';

export const FRAME_HEADER_BYTES = 36;

export function encodeHeader(h: FrameHeader, payloadBytes: number, out: Buffer, at = 0): void {
  out.writeUInt32LE(payloadBytes, at);
  out.writeUInt32LE((h.space | (h.sig << 16)) >>> 0, at + 4);
  out.writeInt32LE(h.context, at + 8);
  out.writeInt32LE(h.tag, at + 12);
  out.writeInt32LE(h.src, at + 16);
  out.writeInt32LE(h.dst, at + 20);
  out.writeInt32LE(h.index, at + 24);
  out.writeUInt32LE(h.total, at + 28);
  out.writeUInt32LE(h.offset, at + 32);
}

export function decodeHeader(b: Buffer, at: number): { h: FrameHeader; bytes: number } {
  const sw = b.readUInt32LE(at + 4);
  return {
    bytes: b.readUInt32LE(at),
    h: {
      space: (sw & 0xffff) as Space,
      sig: sw >>> 16,
      context: b.readInt32LE(at + 8),
      tag: b.readInt32LE(at + 12),
      src: b.readInt32LE(at + 16),
      dst: b.readInt32LE(at + 20),
      index: b.readInt32LE(at + 24),
      total: b.readUInt32LE(at + 28),
      offset: b.readUInt32LE(at + 32),
    },
  };
}

export class FrameParser {
  private readonly hdr = Buffer.alloc(FRAME_HEADER_BYTES);
  private hdrFill = 0;
  private current: FrameHeader | undefined;
  private payload: Buffer | undefined;
  private need = 0;
  private fill = 0;

  /**
   * `streamAbove`: a frame whose payload is larger than this and does not arrive in one
   * chunk is delivered in pieces as its bytes arrive, each as a frame of its own at its
   * offset in the message (header.offset advanced), instead of being assembled into a
   * new buffer first: one copy less, and the receiver starts on the first bytes while
   * the rest is on the way. Smaller frames are always whole (default: never stream).
   */
  constructor(
    private readonly onFrame: (h: FrameHeader, payload: Uint8Array, last: boolean) => void,
    private readonly streamAbove = Infinity,
  ) {}

  push(chunk: Buffer): void {
    let pos = 0;
    const len = chunk.length;
    while (pos < len) {
      if (!this.current) {
        let parsed: { h: FrameHeader; bytes: number };
        if (this.hdrFill === 0 && len - pos >= FRAME_HEADER_BYTES) {
          parsed = decodeHeader(chunk, pos);
          pos += FRAME_HEADER_BYTES;
        } else {
          const take = Math.min(FRAME_HEADER_BYTES - this.hdrFill, len - pos);
          chunk.copy(this.hdr, this.hdrFill, pos, pos + take);
          this.hdrFill += take;
          pos += take;
          if (this.hdrFill < FRAME_HEADER_BYTES) return;
          this.hdrFill = 0;
          parsed = decodeHeader(this.hdr, 0);
        }
        if (parsed.bytes === 0) {
          this.onFrame(parsed.h, new Uint8Array(0), true);
          continue;
        }
        if (len - pos >= parsed.bytes) {
          this.onFrame(parsed.h, chunk.subarray(pos, pos + parsed.bytes), true);
          pos += parsed.bytes;
          continue;
        }
        this.current = parsed.h;
        this.need = parsed.bytes;
        this.payload = parsed.bytes > this.streamAbove ? undefined : Buffer.allocUnsafe(parsed.bytes);
        this.fill = 0;
      }
      const take = Math.min(this.need - this.fill, len - pos);
      if (this.payload === undefined) {
        const h = this.current;
        const at = this.fill;
        this.fill += take;
        pos += take;
        const last = this.fill === this.need;
        if (last) this.current = undefined;
        this.onFrame({ ...h, offset: h.offset + at }, chunk.subarray(pos - take, pos), last);
        continue;
      }
      chunk.copy(this.payload as Buffer, this.fill, pos, pos + take);
      this.fill += take;
      pos += take;
      if (this.fill === this.need) {
        const h = this.current;
        const p = this.payload as Buffer;
        this.current = undefined;
        this.payload = undefined;
        this.onFrame(h, p, true);
      }
    }
  }
}
