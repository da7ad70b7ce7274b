/**
 * The three endpoint-exchange schemes of seed 003 ch. 2 (S2.1–S2.4, S2.8), served by
 * the launcher (or a launcher's key-value store) when a job's node processes start:
 *
 * - **original** (MVAPICH 0.9.1): every node sends its N−1 endpoint ids to the
 *   launcher, which sends the whole N×(N−1) table to every node. The launcher receives
 *   N(N−1)·q bytes and sends N·N(N−1)·q: O(N³).
 * - **reassembly** (Data Reassembly, DR): the launcher sends node j only column j, the
 *   N−1 ids the others made for it: it sends N(N−1)·q, O(N²).
 * - **bootstrap** (Bootstrap Channel, BC): the launcher (DR) only introduces every node
 *   to its two ring neighbours (2 ids in, 2 out per node); the nodes connect a ring
 *   and pass every node's row clockwise, each forwarding what it receives (pipelined):
 *   each node sends N−1 messages of N−1 ids, nothing goes through the launcher.
 *
 * q = 4 bytes (transport/tcp/endpoint-ids.ts). Node addresses (the seed's LIDs) travel beside the ids and
 * are not counted in the id bytes. This module holds the launcher's side and the
 * expected counts; the node's side is node-exchange.ts, the ring bootstrap-ring.ts.
 */
import { ArgumentError } from '../../core/errors.js';
import type { PeerAddress } from '../../transport/tcp/device.js';
import { decodeIds, encodeIds, ID_BYTES } from '../../transport/tcp/endpoint-ids.js';

export const STARTUP_SCHEMES = ['original', 'reassembly', 'bootstrap'] as const;
export type StartupScheme = (typeof STARTUP_SCHEMES)[number];
/** The default: DR moves the least through the launcher without the ring's set-up cost. */
export const DEFAULT_STARTUP: StartupScheme = 'reassembly';

export function parseStartupScheme(value: string, where = '--startup'): StartupScheme {
  if ((STARTUP_SCHEMES as readonly string[]).includes(value)) return value as StartupScheme;
  throw new ArgumentError(`${where} '${value}' is not a start-up scheme`, `use one of ${STARTUP_SCHEMES.join(', ')}`);
}

/** Node → launcher: this node's endpoints. */
export interface EndpointsMessage {
  readonly type: 'endpoints';
  /** Where this node's TCP server listens (the seed's LID). */
  readonly address: PeerAddress;
  /**
   * base64 ids (transport/tcp/endpoint-ids.ts): original and reassembly, the N−1 ids this node made for
   * the others in node order; bootstrap, the 2 ids it made for its left and right ring
   * neighbours.
   */
  readonly ids: string;
  /** bootstrap: where this node's ring endpoint listens. */
  readonly ring?: PeerAddress;
}

/** Launcher → node. */
export type ExchangeReply =
  /** original: every node's N−1 ids, rows in node order (N·(N−1) ids). */
  | { readonly type: 'peers'; readonly addresses: readonly PeerAddress[]; readonly table: string }
  /** reassembly: the N−1 ids the other nodes made for this one, in node order. */
  | { readonly type: 'peers'; readonly addresses: readonly PeerAddress[]; readonly column: string }
  /** bootstrap: the ring neighbours' ring addresses and the ids they made for this node. */
  | { readonly type: 'ring'; readonly lhs: RingPeer; readonly rhs: RingPeer };

export interface RingPeer {
  readonly node: number;
  readonly ring: PeerAddress;
  readonly id: number;
}

/** Messages and id bytes through one party of the exchange. */
export interface ExchangeCounters {
  readonly messagesReceived: number;
  readonly messagesSent: number;
  /** Endpoint-id bytes (q = 4 per id) received and sent. */
  readonly idBytesReceived: number;
  readonly idBytesSent: number;
}

export const zeroCounters: ExchangeCounters = { messagesReceived: 0, messagesSent: 0, idBytesReceived: 0, idBytesSent: 0 };

/**
 * The launcher's side: collects every node's endpoints, then answers each node as the
 * scheme says. `receive` returns the replies (by node) once the last node's endpoints
 * are in, undefined before.
 */
export class LauncherExchange {
  private readonly got: (EndpointsMessage | undefined)[];
  private arrived = 0;
  private readonly c = { ...zeroCounters };

  constructor(
    readonly scheme: StartupScheme,
    readonly nodes: number,
  ) {
    this.got = new Array<EndpointsMessage | undefined>(nodes).fill(undefined);
  }

  get counters(): ExchangeCounters {
    return { ...this.c };
  }

  receive(node: number, m: EndpointsMessage): ExchangeReply[] | undefined {
    if (this.got[node]) throw new Error(`node ${node} sent its endpoints twice`);
    const expect = this.scheme === 'bootstrap' ? 2 : this.nodes - 1;
    if (this.scheme === 'bootstrap' && !m.ring) throw new Error(`node ${node} sent no ring address for the bootstrap scheme`);
    this.c.idBytesReceived += decodeIds(m.ids, expect).length * ID_BYTES; // also validates the size
    this.got[node] = m;
    this.c.messagesReceived++;
    if (++this.arrived < this.nodes) return undefined;
    const all = this.got as EndpointsMessage[];
    const n = this.nodes;
    const addresses = all.map((e) => e.address);
    const replies: ExchangeReply[] = [];
    if (this.scheme === 'original') {
      // Every row, concatenated: the same N(N−1) ids to each node.
      const table = encodeIds(concatIds(all.map((e) => decodeIds(e.ids, n - 1))));
      for (let j = 0; j < n; j++) replies.push({ type: 'peers', addresses, table });
    } else if (this.scheme === 'reassembly') {
      const rows = all.map((e) => decodeIds(e.ids, n - 1));
      for (let j = 0; j < n; j++) {
        // Node i's ids skip i itself: its id for j sits at j − (j > i ? 1 : 0).
        const column = new Uint32Array(n - 1);
        for (let i = 0, k = 0; i < n; i++) if (i !== j) column[k++] = rows[i][j > i ? j - 1 : j];
        replies.push({ type: 'peers', addresses, column: encodeIds(column) });
      }
    } else {
      const tokens = all.map((e) => decodeIds(e.ids, 2));
      for (let j = 0; j < n; j++) {
        const l = (j - 1 + n) % n;
        const r = (j + 1) % n;
        // My left neighbour's id for its right (me), my right neighbour's id for its left (me).
        const ring = (x: number): PeerAddress => all[x].ring as PeerAddress;
        replies.push({ type: 'ring', lhs: { node: l, ring: ring(l), id: tokens[l][1] }, rhs: { node: r, ring: ring(r), id: tokens[r][0] } });
      }
    }
    // Count what the replies carry (not what the scheme promises).
    for (const r of replies) {
      this.c.messagesSent++;
      this.c.idBytesSent += r.type === 'ring' ? 2 * ID_BYTES : encodedBytes('table' in r ? r.table : r.column);
    }
    return replies;
  }
}

/** Bytes held by an unpadded base64url text (as encodeIds writes it). */
function encodedBytes(text: string): number {
  return Math.floor((text.length * 3) / 4);
}

function concatIds(rows: Uint32Array[]): Uint32Array {
  const out = new Uint32Array(rows.reduce((a, r) => a + r.length, 0));
  let at = 0;
  for (const r of rows) {
    out.set(r, at);
    at += r.length;
  }
  return out;
}

/** The seed's volumes for N node processes (claim 1): what the counters must show. */
export function expectedCounts(scheme: StartupScheme, n: number): { launcher: ExchangeCounters; perNodeRing: { messagesSent: number; idBytesSent: number } } {
  const q = ID_BYTES;
  if (n < 2) return { launcher: zeroCounters, perNodeRing: { messagesSent: 0, idBytesSent: 0 } };
  const received = scheme === 'bootstrap' ? 2 * n * q : n * (n - 1) * q;
  const sent = scheme === 'original' ? n * n * (n - 1) * q : scheme === 'reassembly' ? n * (n - 1) * q : 2 * n * q;
  return {
    launcher: { messagesReceived: n, messagesSent: n, idBytesReceived: received, idBytesSent: sent },
    perNodeRing: scheme === 'bootstrap' ? { messagesSent: n - 1, idBytesSent: (n - 1) * (n - 1) * q } : { messagesSent: 0, idBytesSent: 0 },
  };
}
