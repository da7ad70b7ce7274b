/**
 * The transport contract: what the runtime needs from a transport, kept small and
 * Gloo-like so that shared memory and TCP (and later UDP multicast, on-demand
 * connections or an MPI binding) implement the same two interfaces.
 *
 * - An `Endpoint` is one rank's view: it posts sends and receives addressed by a
 *   `MessageKey`, reports completions through flags and callbacks, and is driven by
 *   `progress()` from the rank's own thread (no background threads per rank).
 * - A `NodeLink` moves frames between nodes (processes). The node's proxy bridges
 *   endpoints whose peer lives on another node to its NodeLink.
 *
 * Addressing: a message is identified by (context, space, tag, src, dst, index).
 * `context` is the communicator's context id; `space` separates collective traffic
 * (tag = the communicator's collective sequence number, index = the k-th message of
 * the schedule between src and dst), point-to-point traffic (tag = user tag; messages
 * of one sender match in order) and internal control traffic. Ranks are world ranks.
 *
 * Payloads are bytes. A payload that lives in the node's shared arena travels as a
 * region descriptor (offset, bytes) instead: the receiver reads it in place and the
 * send completes when the receiver has consumed it (zero-copy, synchronous).
 */

/** Message spaces. */
export const SPACE_COLL = 0;
export const SPACE_P2P = 1;
export const SPACE_CTRL = 2;
/** Frames between the node processes' multicast agents (transport/mcast), never for a rank. */
export const SPACE_MCAST = 3;
export type Space = typeof SPACE_COLL | typeof SPACE_P2P | typeof SPACE_CTRL | typeof SPACE_MCAST;

/** Wildcard for `src` and `tag` of point-to-point receives. */
export const ANY = -1;

export interface MessageKey {
  readonly context: number;
  readonly space: Space;
  /** Collective sequence number (SPACE_COLL), user tag (SPACE_P2P), or control tag. */
  readonly tag: number;
  /** World rank of the sender (ANY in p2p receives). */
  readonly src: number;
  /** World rank of the receiver. */
  readonly dst: number;
  /** k-th message of (context, tag, src, dst) in SPACE_COLL; ignored for matching otherwise. */
  readonly index: number;
  /**
   * 16-bit signature of the collective call (runtime/call-signature.ts); 0 or absent:
   * not checked. Not used for matching: a message that matches a receive whose key
   * carries another non-zero signature fails the receive with a MismatchError.
   */
  readonly sig?: number;
}

/** A byte range of the node's shared arena (see shm/arena.ts). */
export interface SharedRegion {
  readonly offset: number;
  readonly bytes: number;
}

/** Completion state shared by sends and receives. */
export interface Completion {
  /** Set once the operation has completed (successfully or not). */
  readonly done: boolean;
  /** Set when the operation failed; `done` is true then too. */
  readonly error: Error | undefined;
}

export type SendOp = Completion;

export interface RecvOp extends Completion {
  /** World rank the message came from (meaningful once done). */
  readonly source: number;
  /** Tag of the message (meaningful once done). */
  readonly tag: number;
  /** Bytes received (meaningful once done). */
  readonly bytes: number;
}

export interface RecvOptions {
  /**
   * Receives where only a total size match is acceptable (collectives): a message of
   * another size is a MismatchError. Point-to-point receives accept shorter messages.
   */
  readonly exact?: boolean;
  /**
   * Offered the payload where it lies (for shared-arena payloads: in the sender's
   * memory) before the default copy into `dest`. Return true when it consumed the
   * payload (e.g. reduced it straight into the destination); the copy is then skipped.
   */
  readonly consume?: (payload: Uint8Array) => boolean;
}

export type Callback<T> = (op: T) => void;

/** One rank's transport. All methods are called from the rank's thread. */
export interface Endpoint {
  /** World rank of this endpoint. */
  readonly rank: number;
  /** Post a send of `data` (bytes; may be a view into the shared arena). */
  isend(key: MessageKey, data: Uint8Array, onComplete?: Callback<SendOp>): SendOp;
  /**
   * Optional: one send of `data` to every world rank of `dsts` (each on another node,
   * one per node) through the node's multicast path (transport/mcast). `key.dst` is
   * ignored: every receiver matches the message as one from this rank with the key's
   * context, space, tag, index and signature. The send completes once the node has
   * buffered the data (the root may return before delivery, seed 003 B5). Absent, or
   * returning undefined (no multicast path on this node): the caller sends to each.
   */
  imcast?(key: MessageKey, dsts: readonly number[], data: Uint8Array, onComplete?: Callback<SendOp>): SendOp | undefined;
  /** Post a receive into `dest`. `key.src` and (p2p) `key.tag` may be ANY. */
  irecv(key: MessageKey, dest: Uint8Array, options?: RecvOptions, onComplete?: Callback<RecvOp>): RecvOp;
  /** Move data, match messages and fire callbacks; returns true if anything happened. */
  progress(): boolean;
  /**
   * Block the thread until something may have happened or `timeoutMs` elapsed.
   * `ready` is checked after the endpoint has announced that it sleeps, so a producer
   * outside the transport (the offload engine completing a descriptor) that wakes
   * sleeping endpoints after making `ready` true cannot be missed.
   */
  park(timeoutMs: number, ready?: () => boolean): void;
  /** Resolve when something may have happened or `timeoutMs` elapsed (event-loop friendly). */
  parkAsync(timeoutMs: number, ready?: () => boolean): Promise<void>;
  /** Describe why the job is being torn down, if it is (another rank failed). */
  aborted(): { rank: number; reason: string } | undefined;
  /** Cancel a posted receive that has not matched yet; returns false if it already matched. */
  cancel(op: RecvOp): boolean;
}

/** Header of a frame between nodes: a message key plus the chunk's place in the message. */
export interface FrameHeader extends MessageKey {
  readonly sig: number;
  /** Total bytes of the message. */
  readonly total: number;
  /** Byte offset of this frame's payload in the message. */
  readonly offset: number;
}

/** Node-to-node byte transport (TCP now; UDP multicast or MPI later). */
export interface NodeLink {
  /** This node's index. */
  readonly node: number;
  /**
   * Queue a frame to `node` (connecting on first use). `onSent` runs once the payload
   * bytes are no longer needed by the link (handed to the kernel).
   */
  send(node: number, header: FrameHeader, payload: Uint8Array, onSent?: () => void): void;
  /**
   * Frames from other nodes are delivered here, in order per sending node; frames that
   * arrive before a receiver is attached are held and delivered to it when it is. A
   * large frame may come in several pieces as its bytes arrive, each with its own
   * `offset` in the message (contiguous, in order); the payload is a view the receiver
   * must copy what it keeps of.
   */
  onFrame: (fromNode: number, header: FrameHeader, payload: Uint8Array) => void;
  /** Flush queued frames and close every connection gracefully. */
  close(): Promise<void>;
  /** Drop every connection now. */
  abort(reason: string): void;
}
