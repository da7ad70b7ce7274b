/**
 * The packet-network contract of the NIC-style protocols (seed 003 ch. 6).
 *
 * A protocol instance is one rank's "NIC firmware" for one operation group: a
 * deterministic state machine driven by three inputs only — host requests (method
 * calls), packets (`onPacket`) and timers — and producing packets through a
 * `PacketPort`. It never reads wall-clock time or randomness itself, so the same
 * code runs on virtual time in the simulated network of the tests and, later, in
 * the offload engine over shared memory, TCP or UDP.
 *
 * Assumptions on the network (the weakest a NIC sees): packets are small, may be
 * lost, duplicated and reordered, and are never corrupted (frames with a bad
 * checksum are dropped by the transport, i.e. turned into losses). Packets are
 * immutable once sent: the sender may hand the very same object to several
 * destinations (multisend) and keeps no right to change it.
 *
 * Frame transports carry `Uint8Array`s; a `PacketCodec` maps a protocol's typed
 * packets to frames and `framedEnv` / `framedHandler` adapt a protocol to them.
 */

/** Send side of one rank's network attachment. */
export interface PacketPort<P> {
  /** This rank, 0 ≤ rank < size. */
  readonly rank: number;
  /** Number of ranks reachable through the port. */
  readonly size: number;
  /** Queue `packet` for `to` (≠ rank). Fire and forget: no delivery guarantee. */
  send(to: number, packet: P): void;
}

/** Monotonic time in abstract units (the simulator's virtual time, or µs in the engine). */
export interface Clock {
  now(): number;
}

export interface TimerHandle {
  /** Cancel the timer; a no-op if it already fired or was cancelled. */
  cancel(): void;
}

/** One-shot timers. A callback never runs synchronously inside `setTimer`. */
export interface Timers {
  setTimer(delay: number, callback: () => void): TimerHandle;
}

/** Everything a protocol state machine may use. */
export interface ProtocolEnv<P> extends PacketPort<P>, Clock, Timers {}

/** Receive side: the network (or the engine's demultiplexer) calls this per packet. */
export interface PacketHandler<P> {
  onPacket(from: number, packet: P): void;
}

/** Typed packets ⇄ frames for byte transports (shared memory rings, TCP, UDP). */
export interface PacketCodec<P> {
  encode(packet: P): Uint8Array;
  /** Throws on a malformed frame. */
  decode(frame: Uint8Array): P;
}

/**
 * A typed-packet environment on top of a frame environment. Sending the same packet
 * object several times in a row (multisend) encodes it once and re-sends the frame.
 */
export function framedEnv<P>(env: ProtocolEnv<Uint8Array>, codec: PacketCodec<P>): ProtocolEnv<P> {
  let last: { packet: P; frame: Uint8Array } | undefined;
  return {
    rank: env.rank,
    size: env.size,
    send: (to, packet) => {
      if (last?.packet !== packet) last = { packet, frame: codec.encode(packet) };
      env.send(to, last.frame);
    },
    now: () => env.now(),
    setTimer: (delay, callback) => env.setTimer(delay, callback),
  };
}

/** A frame handler feeding a typed-packet handler. */
export function framedHandler<P>(handler: PacketHandler<P>, codec: PacketCodec<P>): PacketHandler<Uint8Array> {
  return { onPacket: (from, frame) => handler.onPacket(from, codec.decode(frame)) };
}
