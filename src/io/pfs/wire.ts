/**
 * Frames of the I/O messaging layer (BMI's role in PVFS2) on a TCP stream:
 *
 *   u32 bytes after this field | u32 header bytes | header (JSON) | payload
 *
 * The header is a small control message (`t` names it, `id` matches a request to its
 * answers); the payload is raw data. A payload is written as a list of buffers (the
 * caller's memory regions, corked into one write), so list I/O gathers without packing.
 * `FrameReader` cuts a stream into frames; a payload that arrived within one read is a
 * view of that read's buffer, not a copy.
 */
import type { Socket } from 'node:net';

export interface Header {
  readonly t: string;
  readonly id?: number;
  readonly [k: string]: unknown;
}

export interface Frame {
  readonly h: Header;
  readonly payload: Uint8Array;
}

/** The largest frame accepted (a chunk of a bulk transfer is far smaller). */
export const MAX_FRAME = 64 << 20;

/** Write a frame; the payload's pieces go out back to back without being copied into one buffer. */
export function sendFrame(socket: Socket, h: Header, payload: readonly Uint8Array[] = []): boolean {
  const head = Buffer.from(JSON.stringify(h));
  const bytes = payload.reduce((s, p) => s + p.byteLength, 0);
  const pre = Buffer.allocUnsafe(8);
  pre.writeUInt32LE(4 + head.byteLength + bytes, 0);
  pre.writeUInt32LE(head.byteLength, 4);
  socket.cork();
  socket.write(pre);
  let ok = socket.write(head);
  for (const p of payload) if (p.byteLength > 0) ok = socket.write(p);
  socket.uncork();
  return ok;
}

export class FrameReader {
  private pending: Buffer[] = [];
  private have = 0;

  constructor(private readonly onFrame: (f: Frame) => void) {}

  push(chunk: Buffer): void {
    this.pending.push(chunk);
    this.have += chunk.byteLength;
    for (;;) {
      if (this.have < 4) return;
      const first = this.pending[0].byteLength >= 4 ? this.pending[0] : this.join();
      const len = first.readUInt32LE(0);
      if (len < 4 || len > MAX_FRAME) throw new Error(`bad frame length ${len}`);
      if (this.have < 4 + len) return;
      const buf = this.pending[0].byteLength >= 4 + len ? this.pending[0] : this.join();
      const hl = buf.readUInt32LE(4);
      if (hl > len - 4) throw new Error(`bad header length ${hl}`);
      const h = JSON.parse(buf.toString('utf8', 8, 8 + hl)) as Header;
      const payload = buf.subarray(8 + hl, 4 + len);
      const rest = buf.subarray(4 + len);
      this.pending = rest.byteLength > 0 ? [rest, ...this.pending.slice(1)] : this.pending.slice(1);
      this.have -= 4 + len;
      this.onFrame({ h, payload });
    }
  }

  private join(): Buffer {
    const b = Buffer.concat(this.pending, this.have);
    this.pending = [b];
    return b;
  }
}
