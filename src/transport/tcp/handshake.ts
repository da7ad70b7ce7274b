/**
 * Connection authentication between the nodes of a job. Every job has a random
 * secret (32 bytes, handed to the node processes over their IPC channel, never on a
 * command line or in the environment); each pair of nodes authenticates with a key
 * derived from it and the pair's endpoint ids (endpoint-ids.ts), which the
 * two nodes learn in the start-up exchange. A connection carries no frame until both
 * sides have proven they know the pair's key, challenge-response with HMAC-SHA256:
 *
 *   server → client  "COLL" v1 nonceS(16)
 *   client → server  "COLL" clientNode(u32) nonceC(16) HMAC(secret, "c"|nonceS|nonceC|client|server)
 *   server → client  HMAC(secret, "s"|nonceS|nonceC|client|server)
 *
 * A foreign process can neither join (it cannot answer the challenge) nor pose as a
 * node (it cannot produce the server's answer); replays fail on fresh nonces. The
 * traffic itself is not encrypted: bind to loopback or a trusted network.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Socket } from 'node:net';
import { TransportError } from '../../core/errors.js';

const MAGIC = 0x4c4c4f43; // "COLL" little-endian
const VERSION = 1;
const HELLO_BYTES = 24;
const AUTH_BYTES = 56;
const MAC_BYTES = 32;
const MAX_PREAUTH = 4096;

/**
 * Reads exact byte counts from a socket during the handshake. At most MAX_PREAUTH
 * bytes may wait beyond the message being read, except after the side's last
 * handshake message: what follows it is the peer's first frames (a node with traffic
 * for the peer that just connected sends it at once), handed to the framing layer by
 * detach(), never counted as unauthenticated data.
 */
class Reader {
  private buf: Buffer = Buffer.alloc(0);
  private waiting: { n: number; final: boolean; resolve: (b: Buffer) => void; reject: (e: Error) => void } | undefined;
  private failed: Error | undefined;
  private readonly onData = (d: Buffer): void => {
    this.buf = this.buf.length === 0 ? d : Buffer.concat([this.buf, d]);
    const w = this.waiting;
    if (!(w?.final && this.buf.length >= w.n) && this.buf.length > MAX_PREAUTH) this.fail(new TransportError('too much data before authentication'));
    this.pump();
  };
  private readonly onEnd = (): void => this.fail(new TransportError('connection closed during the handshake'));
  private readonly onError = (e: Error): void => this.fail(new TransportError(`handshake failed: ${e.message}`));

  constructor(private readonly socket: Socket) {
    socket.on('data', this.onData);
    socket.on('end', this.onEnd);
    socket.on('close', this.onEnd);
    socket.on('error', this.onError);
  }

  /** The next n bytes; `final`: the last handshake message, after which frames may follow. */
  read(n: number, final = false): Promise<Buffer> {
    if (this.failed) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => {
      this.waiting = { n, final, resolve, reject };
      this.pump();
    });
  }

  private pump(): void {
    const w = this.waiting;
    if (w && this.buf.length >= w.n) {
      this.waiting = undefined;
      const out = this.buf.subarray(0, w.n);
      this.buf = this.buf.subarray(w.n);
      w.resolve(out);
    }
  }

  private fail(e: Error): void {
    this.failed = e;
    this.waiting?.reject(e);
    this.waiting = undefined;
  }

  /** Stop reading; returns bytes received beyond the handshake. */
  detach(): Buffer {
    this.socket.off('data', this.onData);
    this.socket.off('end', this.onEnd);
    this.socket.off('close', this.onEnd);
    this.socket.off('error', this.onError);
    return this.buf;
  }
}

/** The key of the pair (this node, `peer`): one buffer for every pair, or looked up (and perhaps awaited) per peer. */
export type PairKeys = Buffer | ((peer: number) => Buffer | Promise<Buffer>);

function keyOf(keys: PairKeys, peer: number): Promise<Buffer> {
  return Promise.resolve(Buffer.isBuffer(keys) ? keys : keys(peer));
}

function mac(secret: Buffer, who: 'c' | 's', nonceS: Buffer, nonceC: Buffer, client: number, server: number): Buffer {
  const ids = Buffer.alloc(8);
  ids.writeUInt32LE(client, 0);
  ids.writeUInt32LE(server, 4);
  return createHmac('sha256', secret).update(who).update(nonceS).update(nonceC).update(ids).digest();
}

function withTimeout<T>(p: Promise<T>, ms: number, socket: Socket): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      socket.destroy();
      reject(new TransportError(`handshake timed out after ${ms} ms`));
    }, ms);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

/** Server side: returns the authenticated client's node and any bytes that followed. */
export function acceptHandshake(socket: Socket, keys: PairKeys, self: number, timeoutMs = 10_000): Promise<{ node: number; rest: Buffer }> {
  const run = async (): Promise<{ node: number; rest: Buffer }> => {
    const reader = new Reader(socket);
    const nonceS = randomBytes(16);
    const hello = Buffer.alloc(HELLO_BYTES);
    hello.writeUInt32LE(MAGIC, 0);
    hello.writeUInt8(VERSION, 4);
    nonceS.copy(hello, 8);
    socket.write(hello);
    const auth = await reader.read(AUTH_BYTES);
    if (auth.readUInt32LE(0) !== MAGIC) throw new TransportError('not a collectives node (bad magic)');
    const node = auth.readUInt32LE(4);
    const nonceC = auth.subarray(8, 24);
    const secret = await keyOf(keys, node);
    const expect = mac(secret, 'c', nonceS, nonceC, node, self);
    if (!timingSafeEqual(expect, auth.subarray(24, 24 + MAC_BYTES))) {
      throw new TransportError(`node ${node} failed authentication (wrong job secret or endpoint ids)`);
    }
    socket.write(mac(secret, 's', nonceS, nonceC, node, self));
    return { node, rest: reader.detach() };
  };
  return withTimeout(run(), timeoutMs, socket);
}

/** Client side: authenticates to node `peer`; returns bytes that followed the handshake. */
export function connectHandshake(socket: Socket, keys: PairKeys, self: number, peer: number, timeoutMs = 10_000): Promise<Buffer> {
  const run = async (): Promise<Buffer> => {
    const reader = new Reader(socket);
    const secret = await keyOf(keys, peer);
    const hello = await reader.read(HELLO_BYTES);
    if (hello.readUInt32LE(0) !== MAGIC || hello.readUInt8(4) !== VERSION) {
      throw new TransportError(`node ${peer} is not a collectives node of this version`);
    }
    const nonceS = Buffer.from(hello.subarray(8, 24));
    const nonceC = randomBytes(16);
    const auth = Buffer.alloc(AUTH_BYTES);
    auth.writeUInt32LE(MAGIC, 0);
    auth.writeUInt32LE(self, 4);
    nonceC.copy(auth, 8);
    mac(secret, 'c', nonceS, nonceC, self, peer).copy(auth, 24);
    socket.write(auth);
    const answer = await reader.read(MAC_BYTES, true);
    if (!timingSafeEqual(answer, mac(secret, 's', nonceS, nonceC, self, peer))) {
      throw new TransportError(`node ${peer} failed authentication (wrong job secret or endpoint ids)`);
    }
    return reader.detach();
  };
  return withTimeout(run(), timeoutMs, socket);
}
