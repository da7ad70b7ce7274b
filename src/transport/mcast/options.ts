/**
 * Settings of the multicast broadcast path (seed 003 ch. 5) and its injected faults,
 * read from the environment of the node processes:
 *
 *   COLL_MCAST=off | channels=32,sets=4,fragment=8192,reliable=1,rto=10000,nack=1000,idle=20000,maxfail=4
 *   COLL_MCAST_FAULTS=loss=0.2,dup=0.05,reorder=0.1,corrupt=0.05,seed=7[,node=K]
 *   COLL_MCAST_GROUP=239.x.y.z:port      (default: derived from the job's secret)
 *   COLL_MCAST_IFACE=address             (default: the node's bind address, loopback on one host)
 *
 * Faults apply to what a node receives (the kernel here has no netem): each arriving
 * datagram is dropped, duplicated, held back (so later ones overtake it) or has one
 * byte flipped, from a seeded generator per node; `node=K` limits them to node K and
 * `loss=1` blocks its multicast reception entirely.
 */
import { ArgumentError } from '../../core/errors.js';
import { datagramBytes } from './wire.js';

export interface McastOptions {
  /** Payload bytes per fragment (one datagram; the seed fragments above 16 KB). */
  readonly fragmentBytes: number;
  /** Channels per sender and communicator: `sets` sets of channels/sets channels each. */
  readonly channels: number;
  /** Channel sets: 4 for split-phase synchronisation (seed B9), 1 to sync when all channels are used up (B8). */
  readonly sets: number;
  /** Checksums, ACKs, NACKs and retransmission (B10); false: the unreliable mode of B12. */
  readonly reliable: boolean;
  /** Sender: a used-up set not synced within this long is polled (µs; doubles per poll). */
  readonly rtoUs: number;
  /** Receiver: a hole older than this is NACKed to the manager (µs). */
  readonly nackUs: number;
  /** Sender: a partly used set is closed (synced) after this long without new data (µs). */
  readonly idleUs: number;
  /** Polls of one set without progress (and 4× as many rebroadcasts of one fragment) before fail-over to the point-to-point tree. */
  readonly maxFail: number;
}

export const DEFAULT_MCAST_OPTIONS: McastOptions = Object.freeze({
  fragmentBytes: 8192,
  channels: 32,
  sets: 4,
  reliable: true,
  rtoUs: 10000,
  nackUs: 1000,
  // Long enough that sets end by being used up (B8) at any steady pace of broadcasts;
  // a burst's last set is closed this long after its last broadcast.
  idleUs: 20000,
  maxFail: 4,
});

/** Largest UDP payload of IPv4 (65535 − 8 − 20). */
export const MAX_DATAGRAM_BYTES = 65507;

/** Parse COLL_MCAST; undefined: multicast is off. */
export function parseMcastOptions(text: string | undefined): McastOptions | undefined {
  const t = (text ?? '').trim();
  if (t === 'off' || t === '0') return undefined;
  if (t === '' || t === 'on' || t === '1') return DEFAULT_MCAST_OPTIONS;
  const o: { -readonly [K in keyof McastOptions]: McastOptions[K] } = { ...DEFAULT_MCAST_OPTIONS };
  const keys: Record<string, keyof McastOptions> = {
    fragment: 'fragmentBytes', channels: 'channels', sets: 'sets', reliable: 'reliable', rto: 'rtoUs', nack: 'nackUs', idle: 'idleUs', maxfail: 'maxFail',
  };
  for (const part of t.split(',')) {
    const [k, v, ...extra] = part.split('=').map((s) => s.trim());
    const key = keys[k];
    const x = Number(v);
    if (key === undefined) throw new ArgumentError(`COLL_MCAST: unknown key '${k}'`, `keys: ${Object.keys(keys).join(', ')}; or COLL_MCAST=off`);
    if (extra.length > 0 || v === undefined || v === '' || !Number.isFinite(x) || !Number.isInteger(x) || x < 0) {
      throw new ArgumentError(`COLL_MCAST: '${part}' is not key=non-negative integer`, 'e.g. COLL_MCAST=channels=16,sets=4,fragment=8192,reliable=1');
    }
    if (key === 'reliable') o.reliable = x !== 0;
    else o[key] = x;
  }
  checkMcastOptions(o);
  return o;
}

export function checkMcastOptions(o: McastOptions): void {
  if (o.sets < 1) throw new ArgumentError(`multicast: sets=${o.sets} must be at least 1`);
  if (o.channels < o.sets || o.channels % o.sets !== 0) {
    throw new ArgumentError(`multicast: channels=${o.channels} must be a positive multiple of sets=${o.sets}`, 'e.g. channels=32,sets=4 (four sets of eight channels)');
  }
  if (o.fragmentBytes < 16) throw new ArgumentError(`multicast: fragment=${o.fragmentBytes} bytes is below the 16-byte minimum`);
  if (datagramBytes(1, o.fragmentBytes) > MAX_DATAGRAM_BYTES) {
    throw new ArgumentError(
      `multicast: fragment=${o.fragmentBytes} bytes is above the datagram limit (${MAX_DATAGRAM_BYTES} bytes of UDP payload, ${datagramBytes(1, 0)} of them header and MAC)`,
      'choose fragment=16384 or less',
    );
  }
  if (o.maxFail < 1) throw new ArgumentError(`multicast: maxfail=${o.maxFail} must be at least 1`);
  if (o.rtoUs < 100 || o.nackUs < 100 || o.idleUs < 1) throw new ArgumentError('multicast: rto and nack must be at least 100 µs and idle at least 1 µs');
}

/** Faults injected into a node's multicast reception. */
export interface McastFaults {
  readonly loss: number;
  readonly dup: number;
  readonly reorder: number;
  readonly corrupt: number;
  readonly seed: number;
  /** Only this node's reception (undefined: every node's). */
  readonly node?: number;
}

/** Parse COLL_MCAST_FAULTS (`loss=0.2,dup=0.05,reorder=0.1,corrupt=0.05,seed=7,node=1`, any subset); empty: none. */
export function parseMcastFaults(text: string | undefined): McastFaults | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const out: { -readonly [K in keyof McastFaults]: McastFaults[K] } = { loss: 0, dup: 0, reorder: 0, corrupt: 0, seed: 1 };
  const hint = 'e.g. COLL_MCAST_FAULTS=loss=0.2,dup=0.05,reorder=0.1,corrupt=0.05,seed=7 (node=K: one node only)';
  for (const part of text.split(',')) {
    const [k, v, ...extra] = part.split('=').map((s) => s.trim());
    const x = Number(v);
    if (extra.length > 0 || v === undefined || v === '' || !Number.isFinite(x)) throw new ArgumentError(`COLL_MCAST_FAULTS: '${part}' is not key=number`, hint);
    if (k === 'loss' || k === 'dup' || k === 'reorder' || k === 'corrupt') {
      if (x < 0 || x > 1) throw new ArgumentError(`COLL_MCAST_FAULTS: ${k}=${v} is not a probability in [0, 1]`, hint);
      out[k] = x;
    } else if (k === 'seed' || k === 'node') {
      if (!Number.isInteger(x) || x < 0) throw new ArgumentError(`COLL_MCAST_FAULTS: ${k}=${v} is not a non-negative integer`, hint);
      out[k] = x;
    } else throw new ArgumentError(`COLL_MCAST_FAULTS: unknown key '${k}'`, `keys: loss, dup, reorder, corrupt, seed, node; ${hint}`);
  }
  return out;
}

/** Parse COLL_MCAST_GROUP `239.x.y.z:port`. */
export function parseMcastGroup(text: string): { address: string; port: number } {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+):(\d+)$/.exec(text.trim());
  const octets = m ? m.slice(1, 5).map(Number) : [];
  const port = m ? Number(m[5]) : NaN;
  if (!m || octets.some((o) => o > 255) || octets[0] < 224 || octets[0] > 239 || !(port > 0 && port < 65536)) {
    throw new ArgumentError(`COLL_MCAST_GROUP: '${text}' is not an IPv4 multicast address and port`, 'e.g. COLL_MCAST_GROUP=239.77.1.2:41234 (224.0.0.0 – 239.255.255.255)');
  }
  return { address: octets.join('.'), port };
}

/** The job's group: 239.77.x.y and a port from 20000 to 59999, both from the job secret. */
export function jobMcastGroup(secret: Buffer): { address: string; port: number } {
  const h = secret.length >= 4 ? secret.readUInt32LE(0) : 0x12345678;
  return { address: `239.77.${(h >>> 8) & 0xff}.${(h & 0xff) | 1}`, port: 20000 + ((h >>> 16) % 40000) };
}
