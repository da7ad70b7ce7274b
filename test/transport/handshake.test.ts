/**
 * The handshake hands bytes that follow its last message to the framing layer:
 * a server that sends its answer and a large frame in one write (what a node does
 * when it has traffic for the peer that just connected) must not trip the
 * pre-authentication cap on the dialling side; a client that floods the server
 * before authenticating still does.
 */
import { createHmac } from 'node:crypto';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { acceptHandshake, connectHandshake } from '../../src/transport/tcp/handshake.js';

const secret = Buffer.alloc(32, 5);
const MAGIC = 0x4c4c4f43;

function mac(who: 'c' | 's', nonceS: Buffer, nonceC: Buffer, client: number, server: number): Buffer {
  const ids = Buffer.alloc(8);
  ids.writeUInt32LE(client, 0);
  ids.writeUInt32LE(server, 4);
  return createHmac('sha256', secret).update(who).update(nonceS).update(nonceC).update(ids).digest();
}

/** A listening server running `onConn` per connection; resolves its port. */
function serve(onConn: (s: net.Socket) => void): Promise<{ port: number; server: net.Server }> {
  const server = net.createServer(onConn);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ port: (server.address() as net.AddressInfo).port, server })));
}

describe('handshake', () => {
  it('the dialling side keeps what follows the server answer, however large (one write)', async () => {
    const extra = Buffer.alloc(64 * 1024, 7);
    const { port, server } = await serve((s) => {
      // The server half of the protocol by hand, so answer and frame leave in one write.
      const nonceS = Buffer.alloc(16, 3);
      const hello = Buffer.alloc(24);
      hello.writeUInt32LE(MAGIC, 0);
      hello.writeUInt8(1, 4);
      nonceS.copy(hello, 8);
      s.write(hello);
      let buf = Buffer.alloc(0);
      s.on('data', (d: Buffer) => {
        buf = Buffer.concat([buf, d]);
        if (buf.length < 56) return;
        const nonceC = buf.subarray(8, 24);
        s.write(Buffer.concat([mac('s', nonceS, nonceC, buf.readUInt32LE(4), 1), extra]));
      });
    });
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    let rest = await connectHandshake(socket, secret, 0, 1);
    // Whatever did not come with the answer's chunk arrives on the socket afterwards.
    const more: Buffer[] = [];
    socket.on('data', (d: Buffer) => more.push(d));
    const deadline = Date.now() + 5000;
    while (rest.length + more.reduce((n, b) => n + b.length, 0) < extra.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    rest = Buffer.concat([rest, ...more]);
    expect(rest.length).toBe(extra.length);
    expect(rest.equals(extra)).toBe(true);
    socket.destroy();
    server.close();
  });

  it('the accepting side still refuses a flood before authentication', async () => {
    // The outcome is caught at once: the handshake may fail before the test looks at it.
    let result: Promise<string> | undefined;
    const { port, server } = await serve((s) => {
      result = acceptHandshake(s, secret, 1).then(
        () => 'accepted',
        (e: Error) => e.message,
      );
    });
    const socket = net.connect(port, '127.0.0.1', () => socket.write(Buffer.alloc(8192, 1)));
    socket.resume();
    socket.on('error', () => {});
    while (!result) await new Promise((r) => setTimeout(r, 5));
    expect(await result).toMatch(/not a collectives node|too much data/);
    socket.destroy();
    server.close();
  });
});
