/**
 * Several protocol instances on one frame transport: the offload engine's view.
 *
 * Each instance (one communicator's barrier, one broadcast group, one allgather …)
 * gets a channel number and its own typed environment; its packets travel as its
 * codec's frames behind a 4-byte channel prefix, and incoming frames are routed to
 * the instance by that prefix. Instances never share state, so one group's traffic
 * never waits behind another's (seed 003 ch. 6: a separate queue per group, M3, M10).
 * Timers and the clock are passed through unchanged.
 * Frame: [channel u32 LE][the protocol's frame].
 *
 * Cost: 4 bytes per frame, no extra packets; a multisent packet is encoded and
 * prefixed once.
 */
import { framedEnv, framedHandler, type PacketCodec, type PacketHandler, type ProtocolEnv } from './packet_network.js';

export class FrameMux implements PacketHandler<Uint8Array> {
  private readonly routes = new Map<number, PacketHandler<Uint8Array>>();
  /** Frames for channels nobody opened (dropped). */
  unrouted = 0;

  constructor(private readonly env: ProtocolEnv<Uint8Array>) {}

  /**
   * Open `channel` for a protocol instance: `make` receives the instance's typed
   * environment and returns its handler (usually the instance itself).
   */
  open<P, H extends PacketHandler<P>>(channel: number, codec: PacketCodec<P>, make: (env: ProtocolEnv<P>) => H): H {
    if (!(Number.isInteger(channel) && channel >= 0 && channel <= 0xffffffff)) throw new RangeError(`bad channel ${channel}`);
    if (this.routes.has(channel)) throw new Error(`channel ${channel} is already open`);
    let last: { frame: Uint8Array; out: Uint8Array } | undefined; // multisend: prefix once
    const prefixed: ProtocolEnv<Uint8Array> = {
      rank: this.env.rank,
      size: this.env.size,
      now: () => this.env.now(),
      setTimer: (delay, callback) => this.env.setTimer(delay, callback),
      send: (to, frame) => {
        if (last?.frame !== frame) {
          const out = new Uint8Array(4 + frame.length);
          new DataView(out.buffer).setUint32(0, channel, true);
          out.set(frame, 4);
          last = { frame, out };
        }
        this.env.send(to, last.out);
      },
    };
    const handler = make(framedEnv(prefixed, codec));
    this.routes.set(channel, framedHandler(handler, codec));
    return handler;
  }

  close(channel: number): void {
    this.routes.delete(channel);
  }

  onPacket(from: number, frame: Uint8Array): void {
    if (frame.length < 4) {
      this.unrouted++;
      return;
    }
    const channel = new DataView(frame.buffer, frame.byteOffset, frame.byteLength).getUint32(0, true);
    const route = this.routes.get(channel);
    if (!route) {
      this.unrouted++;
      return;
    }
    route.onPacket(from, frame.subarray(4));
  }
}
