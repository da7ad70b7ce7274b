/**
 * The bootstrap channel (seed 003 S2.4, S2.8): a ring among a job's node processes over
 * which every node's endpoint row travels clockwise, so that each node learns the ids
 * the others made for it without any central party.
 *
 * Each node listens on one ring endpoint, dials its right neighbour and accepts its
 * left one (2 connections per node; with 2 nodes one per direction), authenticated
 * like the data path (tcp/handshake.ts) with keys from the job secret and the ring ids
 * the launcher or key-value store introduced. Then it sends its own row (address and
 * N−1 ids) to the right, and forwards every row it receives from the left unless the
 * right neighbour is the row's origin: N−1 hops per row, each node sends N−1 messages
 * of N−1 ids, receiving and forwarding overlap (pipelining). Each node keeps the id
 * meant for it from each row. Messages are newline-delimited JSON.
 */
import net from 'node:net';
import { TransportError } from '../../core/errors.js';
import { acceptHandshake, connectHandshake } from '../../transport/tcp/handshake.js';
import { decodeIds, encodeIds, ID_BYTES, pairKey, peersOf, rowOf } from '../../transport/tcp/endpoint-ids.js';
import { addressText, listenOn, parseAddress, type PeerAddress } from '../../transport/tcp/device.js';
import { readLines } from '../lines.js';
import type { ExchangeCounters, RingPeer } from './schemes.js';

/** How long the ring may take to connect and circulate every row. */
const RING_MS = 60_000;

interface RowMessage {
  /** The row's origin node. */
  readonly o: number;
  /** Its data address, host:port. */
  readonly a: string;
  /** Its N−1 ids (base64). */
  readonly ids: string;
}

export interface RingResult {
  readonly addresses: PeerAddress[];
  /** theirs[j]: the id node j made for this node. */
  readonly theirs: Uint32Array;
  readonly counters: ExchangeCounters & { readonly connections: number };
}

export class BootstrapRing {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private accepted: ((s: net.Socket) => void) | undefined;
  private pendingAccept: net.Socket[] = [];
  /** The ids this node made for its left and right neighbours (the same one when they are one node). */
  readonly tokens: Uint32Array;

  private constructor(
    readonly address: PeerAddress,
    server: net.Server,
    tokens: Uint32Array,
  ) {
    this.server = server;
    this.tokens = tokens;
  }

  /** Open this node's ring endpoint (before the exchange: its address goes to the launcher). */
  static async open(bindHost: string, nodes: number): Promise<BootstrapRing> {
    const server = net.createServer();
    const address = await listenOn(server, bindHost);
    const tokens = new Uint32Array(2);
    do crypto.getRandomValues(tokens);
    while (tokens[0] === 0 || tokens[1] === 0);
    if (nodes === 2) tokens[1] = tokens[0];
    const ring = new BootstrapRing(address, server, tokens);
    server.on('connection', (s) => {
      ring.sockets.add(s);
      s.on('error', () => undefined);
      if (ring.accepted) ring.accepted(s);
      else ring.pendingAccept.push(s);
    });
    return ring;
  }

  /**
   * Connect the ring and circulate the rows: `row` is this node's full row of ids
   * (row[node] = 0), `address` its data address. Resolves with every node's address and
   * the column of ids meant for this node.
   */
  async run(o: { node: number; nodes: number; secret: Buffer; lhs: RingPeer; rhs: RingPeer; row: Uint32Array; address: PeerAddress }): Promise<RingResult> {
    const { node, nodes } = o;
    const sparse = (peer: number, mine: number, theirs: number): { mine: Uint32Array; theirs: Uint32Array } => {
      const m = new Uint32Array(nodes);
      const t = new Uint32Array(nodes);
      m[peer] = mine;
      t[peer] = theirs;
      return { mine: m, theirs: t };
    };
    const leftKey = pairKey(o.secret, node, o.lhs.node, sparse(o.lhs.node, this.tokens[0], o.lhs.id), 'ring');
    const rightKey = pairKey(o.secret, node, o.rhs.node, sparse(o.rhs.node, this.tokens[1], o.rhs.id), 'ring');
    const counters = { messagesReceived: 0, messagesSent: 0, idBytesReceived: 0, idBytesSent: 0, connections: 0 };
    const addresses: PeerAddress[] = new Array<PeerAddress>(nodes);
    addresses[node] = o.address;
    const theirs = new Uint32Array(nodes);
    const rowBytes = (nodes - 1) * ID_BYTES;

    const work = async (): Promise<void> => {
      // Accept the left neighbour (refusing anyone else) while dialling the right one.
      const left = new Promise<net.Socket>((resolve, reject) => {
        const tryOne = (s: net.Socket): void => {
          acceptHandshake(s, (peer) => (peer === o.lhs.node ? leftKey : Promise.reject(new TransportError(`node ${peer} is not the left ring neighbour of node ${node}`))), node).then(
            (r) => {
              this.accepted = undefined;
              // Hold what follows the handshake until the rows are read (below).
              s.pause();
              if (r.rest.length > 0) s.unshift(r.rest);
              resolve(s);
            },
            () => s.destroy(),
          );
        };
        this.accepted = tryOne;
        for (const s of this.pendingAccept.splice(0)) tryOne(s);
        setTimeout(() => reject(new TransportError(`node ${node}: the left ring neighbour (node ${o.lhs.node}) did not connect`)), RING_MS).unref();
      });
      left.catch(() => undefined); // awaited below, after the right side is connected
      const right = await new Promise<net.Socket>((resolve, reject) => {
        const s = net.connect(o.rhs.ring.port, o.rhs.ring.host);
        this.sockets.add(s);
        s.setNoDelay(true);
        s.once('error', (e) => reject(new TransportError(`node ${node}: cannot reach the right ring neighbour (node ${o.rhs.node}) at ${addressText(o.rhs.ring)}: ${e.message}`)));
        s.once('connect', () => connectHandshake(s, rightKey, node, o.rhs.node).then(() => resolve(s), reject));
      });
      counters.connections++;
      const send = (m: RowMessage): void => {
        right.write(`${JSON.stringify(m)}\n`);
        counters.messagesSent++;
        counters.idBytesSent += rowBytes;
      };
      send({ o: node, a: addressText(o.address), ids: encodeIds(peersOf(o.row, node)) });
      const leftSocket = await left;
      counters.connections++;
      await new Promise<void>((resolve, reject) => {
        if (nodes === 1) return resolve();
        const onRow = (line: string): void => {
          if (line === '') return;
          const m = JSON.parse(line) as RowMessage;
          counters.messagesReceived++;
          counters.idBytesReceived += rowBytes;
          // Forward first (the pipeline), then keep what is meant for this node.
          if ((node + 1) % nodes !== m.o) send(m);
          addresses[m.o] = parseAddress(m.a);
          theirs[m.o] = rowOf(decodeIds(m.ids, nodes - 1), m.o)[node];
          if (counters.messagesReceived === nodes - 1) resolve();
        };
        const short = (why: string): Error => new TransportError(`node ${node}: ${why} after ${counters.messagesReceived} of ${nodes - 1} rows from the ring`);
        leftSocket.on('error', (e) => reject(short(`the ring connection from node ${o.lhs.node} failed (${e.message})`)));
        leftSocket.on('close', () => reject(short(`node ${o.lhs.node} closed the ring connection`)));
        setTimeout(() => reject(short(`no progress within ${RING_MS / 1000} s`)), RING_MS).unref();
        readLines(leftSocket, onRow);
        leftSocket.resume();
      });
    };
    try {
      await work();
    } finally {
      this.close();
    }
    return { addresses, theirs, counters };
  }

  close(): void {
    this.server.close();
    for (const s of this.sockets) s.end();
  }
}
