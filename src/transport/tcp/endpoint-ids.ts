/**
 * Per-pair endpoint records (seed 003 S2.1): as an InfiniBand process creates one queue
 * pair per peer and must learn the peer's queue-pair number before it can connect, a
 * node process creates one 32-bit endpoint id per peer node, and a connection between
 * nodes a and b authenticates with a key derived from the job secret and *both* ids of
 * the pair (tcp/device.ts): id(a→b), which only a created, and id(b→a). A node can
 * therefore not connect to a peer before the start-up exchange (launch/startup/
 * schemes.ts) has brought it the id that peer made for it: the exchange carries real data, not a formality.
 *
 * Node i's *row* is its ids for every node (ids[i] = 0); node j needs column j of the
 * N×N table (the id every other node made for it). The records are q = 4 bytes each, as
 * the seed's queue-pair ids; the start-up exchange (launch/startup) counts them exactly.
 */
import { createHmac, randomFillSync } from 'node:crypto';

/** Bytes of one endpoint id (the seed's "four-byte integer" QP id). */
export const ID_BYTES = 4;

/** This node's row: a fresh nonzero random id for every other node, 0 for itself. */
export function createRow(node: number, nodes: number): Uint32Array {
  const row = new Uint32Array(nodes);
  randomFillSync(row);
  for (let j = 0; j < nodes; j++) if (row[j] === 0) row[j] = 1;
  row[node] = 0;
  return row;
}

/** Endpoint ids of a pair of nodes: this node's row and what it learned (its column). */
export interface PairIds {
  /** mine[j]: the id this node made for node j. */
  readonly mine: Uint32Array;
  /** theirs[j]: the id node j made for this node. */
  readonly theirs: Uint32Array;
}

/**
 * The key that authenticates connections between `self` and `peer`, the same on both
 * sides; `label` separates uses (the data path, the start-up ring).
 */
export function pairKey(secret: Buffer, self: number, peer: number, ids: PairIds, label = 'pair'): Buffer {
  const [lo, hi] = self < peer ? [self, peer] : [peer, self];
  const loToHi = self < peer ? ids.mine[peer] : ids.theirs[peer];
  const hiToLo = self < peer ? ids.theirs[peer] : ids.mine[peer];
  const b = Buffer.alloc(16);
  b.writeUInt32LE(lo, 0);
  b.writeUInt32LE(hi, 4);
  b.writeUInt32LE(loToHi, 8);
  b.writeUInt32LE(hiToLo, 12);
  return createHmac('sha256', secret).update(label).update(b).digest();
}

/** Ids as text for the JSON control channel and key-value stores (base64url of the little-endian words: no '=', no spaces). */
export function encodeIds(ids: Uint32Array): string {
  return Buffer.from(ids.buffer, ids.byteOffset, ids.byteLength).toString('base64url');
}

export function decodeIds(text: string, expect: number): Uint32Array {
  const b = Buffer.from(text, 'base64url');
  if (b.length !== expect * ID_BYTES) throw new Error(`endpoint record of ${b.length} bytes, expected ${expect * ID_BYTES}`);
  const out = new Uint32Array(expect);
  for (let i = 0; i < expect; i++) out[i] = b.readUInt32LE(i * ID_BYTES);
  return out;
}

/** A row without its own (zero) entry: the N−1 ids a node sends, in peer order. */
export function peersOf(row: Uint32Array, node: number): Uint32Array {
  const out = new Uint32Array(row.length - 1);
  for (let j = 0, k = 0; j < row.length; j++) if (j !== node) out[k++] = row[j];
  return out;
}

/** The inverse of peersOf: the full row of node `node` from its N−1 ids. */
export function rowOf(ids: Uint32Array, node: number): Uint32Array {
  const row = new Uint32Array(ids.length + 1);
  for (let j = 0, k = 0; j < row.length; j++) row[j] = j === node ? 0 : ids[k++];
  return row;
}
