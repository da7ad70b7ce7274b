/**
 * The control channel between the launcher and a node process: JSON messages in both
 * directions, over the node's IPC channel when the launcher spawned it on this
 * machine, or over TCP when it runs on another host (started through ssh or a launch
 * agent). A TCP control connection proves knowledge of the job's secret (which the
 * node received on its standard input, never on a command line) before anything else
 * crosses it: the launcher sends a nonce, the node answers with its index and an HMAC.
 *
 * Losing the channel means the launcher is gone: the node exits (no orphans).
 */
import type { ChildProcess } from 'node:child_process';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import net from 'node:net';
import { TransportError } from '../core/errors.js';
import { readLines } from './lines.js';
import { parseAddress } from '../transport/tcp/device.js';

export interface ControlLink<In, Out> {
  /** Send a message; `then` runs once it is handed to the channel (or dropped: the channel is closed). */
  send(m: Out, then?: () => void): void;
  onMessage(f: (m: In) => void): void;
  /** The channel is gone (the peer exited or the connection broke). */
  onClose(f: () => void): void;
  close(): void;
}

/** The node's side of its IPC channel (the process was spawned with an 'ipc' stdio entry). */
export function ipcNodeLink<In, Out>(): ControlLink<In, Out> {
  return {
    send: (m, then) => {
      if (process.connected && process.send) process.send(m, undefined, {}, () => then?.());
      else then?.();
    },
    onMessage: (f) => void process.on('message', (m) => f(m as In)),
    onClose: (f) => void process.on('disconnect', f),
    close: () => process.disconnect?.(),
  };
}

/** The launcher's side of a child's IPC channel. */
export function ipcChildLink<In, Out>(c: ChildProcess): ControlLink<In, Out> {
  return {
    send: (m, then) => {
      if (c.connected) c.send(m as object, (e) => (void e, then?.()));
      else then?.();
    },
    onMessage: (f) => void c.on('message', (m) => f(m as In)),
    onClose: (f) => void c.on('disconnect', f),
    // Nothing to do: the launcher ends a local node by killing it, which closes the
    // channel (disconnecting first, then killing, can leave the child's 'close' event
    // pending forever on Node 20).
    close: () => undefined,
  };
}

/** Newline-delimited JSON over a socket. */
class SocketLink<In, Out> implements ControlLink<In, Out> {
  private readonly listeners: ((m: In) => void)[] = [];
  private readonly backlog: In[] = [];
  private closed = false;

  constructor(readonly socket: net.Socket, first: string[]) {
    socket.setNoDelay(true);
    this.backlog.push(...first.filter((l) => l !== '').map((l) => JSON.parse(l) as In));
    readLines(socket, (line) => line !== '' && this.deliver(JSON.parse(line) as In));
    socket.on('close', () => (this.closed = true));
    socket.on('error', () => socket.destroy());
  }

  private deliver(m: In): void {
    if (this.listeners.length === 0) this.backlog.push(m);
    for (const f of this.listeners) f(m);
  }

  send(m: Out, then?: () => void): void {
    if (this.closed || this.socket.destroyed || this.socket.writableEnded) return void then?.();
    this.socket.write(`${JSON.stringify(m)}\n`, () => then?.());
  }

  onMessage(f: (m: In) => void): void {
    this.listeners.push(f);
    for (const m of this.backlog.splice(0)) f(m);
  }

  onClose(f: () => void): void {
    if (this.closed) queueMicrotask(f);
    else this.socket.on('close', f);
  }

  close(): void {
    this.socket.end();
  }
}

function mac(secret: string, jobId: string, node: number, nonce: string): Buffer {
  return createHmac('sha256', Buffer.from(secret, 'hex')).update(`coll-control|${jobId}|${node}|${nonce}`).digest();
}

export interface ControlServerOptions {
  readonly jobId: string;
  readonly secret: string;
  /** Called once per node that proved the secret. A second connection for the same node is refused, unless `repeatable` says otherwise. */
  readonly onNode: (node: number, link: ControlLink<unknown, unknown>, remoteAddress: string) => void;
  /** Called for a connection that failed the handshake (counted in the job report). */
  readonly onReject?: (from: string, why: string) => void;
  /** Nodes that may connect more than once (a daemon's clients). */
  readonly repeatable?: (node: number) => boolean;
}

/** The launcher's TCP control server (listens on every interface, port chosen by the system). */
export class ControlServer {
  private readonly server: net.Server;
  private readonly seen = new Set<number>();
  rejected = 0;

  constructor(private readonly o: ControlServerOptions) {
    this.server = net.createServer((s) => this.accept(s));
  }

  listen(host = '0.0.0.0'): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, host, () => resolve((this.server.address() as net.AddressInfo).port));
    });
  }

  close(): void {
    this.server.close();
  }

  private accept(s: net.Socket): void {
    const nonce = randomBytes(16).toString('hex');
    const from = `${s.remoteAddress ?? '?'}:${s.remotePort ?? '?'}`;
    const reject = (why: string): void => {
      this.rejected++;
      this.o.onReject?.(from, why);
      s.destroy();
    };
    s.on('error', () => s.destroy());
    const timer = setTimeout(() => reject('no handshake within 10 s'), 10_000);
    let done = false;
    const lines: string[] = [];
    const reader = readLines(s, (l) => {
      if (done) return void lines.push(l);
      done = true;
      clearTimeout(timer);
      let hello: { node?: unknown; mac?: unknown };
      try {
        hello = JSON.parse(l) as typeof hello;
      } catch {
        return reject('handshake is not JSON');
      }
      const node = hello.node;
      if (typeof node !== 'number' || !Number.isInteger(node) || node < 0 || typeof hello.mac !== 'string') return reject('malformed handshake');
      const expect = mac(this.o.secret, this.o.jobId, node, nonce);
      const got = Buffer.from(hello.mac, 'hex');
      if (got.length !== expect.length || !timingSafeEqual(got, expect)) return reject(`node ${node}: wrong job secret`);
      if (this.seen.has(node) && !this.o.repeatable?.(node)) return reject(`node ${node} connected twice`);
      this.seen.add(node);
      // Hand the socket over: lines after the handshake belong to the link.
      queueMicrotask(() => {
        const rest = reader.stop();
        if (rest) s.unshift(Buffer.from(rest));
        this.o.onNode(node, new SocketLink(s, lines), s.remoteAddress ?? '');
      });
    });
    s.write(`${JSON.stringify({ nonce })}\n`);
  }
}

/** The arguments that tell a node process (node-main) where its launcher waits and who it is. */
export function nodeControlArgs(targets: readonly string[], node: number, jobId: string): string[] {
  return ['--control', targets.join(','), '--node', String(node), '--job', jobId];
}

/**
 * Connect a node to the launcher's control server: try each `host:port` candidate in
 * order (the launcher lists its addresses; the first that answers wins), prove the
 * secret, and return the link with the local address the connection left from (the
 * address on which this node is reachable from the launcher's network).
 */
export async function connectControl(
  candidates: readonly string[],
  jobId: string,
  node: number,
  secret: string,
  connectTimeoutMs = 3000,
): Promise<{ link: ControlLink<unknown, unknown>; localAddress: string }> {
  const errors: string[] = [];
  for (const c of candidates) {
    const { host, port } = parseAddress(c);
    try {
      return await attempt(host, port, jobId, node, secret, connectTimeoutMs);
    } catch (e) {
      errors.push(`${c}: ${(e as Error).message}`);
    }
  }
  throw new TransportError(`node ${node} could not reach the launcher: ${errors.join('; ')}`);
}

function attempt(host: string, port: number, jobId: string, node: number, secret: string, timeoutMs: number): Promise<{ link: ControlLink<unknown, unknown>; localAddress: string }> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host, port });
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    s.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    let first = true;
    const lines: string[] = [];
    const reader = readLines(s, (l) => {
      if (!first) return void lines.push(l);
      first = false;
      clearTimeout(timer);
      const { nonce } = JSON.parse(l) as { nonce: string };
      s.write(`${JSON.stringify({ node, mac: mac(secret, jobId, node, nonce).toString('hex') })}\n`);
      queueMicrotask(() => {
        const rest = reader.stop();
        if (rest) s.unshift(Buffer.from(rest));
        s.removeAllListeners('error');
        resolve({ link: new SocketLink(s, lines), localAddress: s.localAddress ?? host });
      });
    });
  });
}
