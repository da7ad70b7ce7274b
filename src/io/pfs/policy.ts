/**
 * The messaging layer's settings and its rendezvous rule (seed 003 P6–P9, Table 7.2).
 *
 * Messages up to `eager` bytes travel with their request or answer (the eager
 * protocol). Larger ones use a rendezvous: the sender announces the transfer (RTS) and
 * either the receiver pulls it chunk by chunk (the seed's RDMA read) or tells the
 * sender to push it (a clear-to-send; the seed's RDMA write). The receiver chooses:
 *
 *   'server'    PVFS2's default, the server does the work: it pulls what a client
 *               writes and pushes what a client reads.
 *   'adaptive'  the seed's rule, read as its prose says (Table 7.2 as printed depends
 *               only on whether the server is loaded): the receiver pulls under light
 *               load; a loaded server has the client do the work (the client pushes
 *               its writes and pulls its reads); a loaded client reading from an
 *               unloaded server lets the server push.
 *   'pull' / 'push'   always one way (for measurements).
 *
 * Load is a side's bulk transfers in progress or waiting; a side is loaded from
 * `loadedAt` on. The server admits at most `maxBulk` bulk transfers at once (the
 * throttle, P8); the rest wait in order. Completion ('event', P9) is the arrival of the
 * last byte; 'fin' adds the seed's explicit FIN / FIN_ACK message after it.
 */
export type RendezvousPolicy = 'adaptive' | 'server' | 'pull' | 'push';
export type Completion = 'event' | 'fin';

export interface MessagingOptions {
  /** Largest message sent eagerly, with its request or answer (bytes; the seed's 2 KiB). */
  readonly eager: number;
  /** Bytes per data frame of a bulk transfer. */
  readonly chunk: number;
  readonly rendezvous: RendezvousPolicy;
  readonly completion: Completion;
  /** Bulk transfers a server runs at once; the rest wait (the throttle). */
  readonly maxBulk: number;
  /** A side with this many bulk transfers in progress or waiting is loaded. */
  readonly loadedAt: number;
}

export const DEFAULT_MESSAGING: MessagingOptions = {
  eager: 2048,
  chunk: 1 << 20,
  rendezvous: 'adaptive',
  completion: 'event',
  maxBulk: 4,
  loadedAt: 2,
};

export const RENDEZVOUS_POLICIES: readonly RendezvousPolicy[] = ['adaptive', 'server', 'pull', 'push'];

/** Who moves a bulk transfer's bytes: the receiver pulls them or the sender pushes them. */
export function chooseMode(policy: RendezvousPolicy, dir: 'write' | 'read', serverLoad: number, clientLoad: number, loadedAt: number): 'pull' | 'push' {
  if (policy === 'pull' || policy === 'push') return policy;
  // A client write: the server receives. A client read: the client receives.
  if (policy === 'server') return dir === 'write' ? 'pull' : 'push';
  const serverLoaded = serverLoad >= loadedAt;
  const clientLoaded = clientLoad >= loadedAt;
  if (dir === 'write') return serverLoaded ? 'push' : 'pull';
  return clientLoaded && !serverLoaded ? 'push' : 'pull';
}
