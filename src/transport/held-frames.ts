/**
 * The receiving side of a NodeLink before its receiver is attached: frames that arrive
 * first (a peer that learned every address sooner may send at once) are held and
 * delivered to the receiver, in order, when it is attached. TcpDevice, DatagramPath and
 * AdaptiveLink expose it as their `onFrame` property.
 */
import type { FrameHeader, NodeLink } from './types.js';

export type FrameReceiver = NodeLink['onFrame'];

export class HeldFrames {
  private receiver: FrameReceiver | undefined;
  private readonly early: [number, FrameHeader, Uint8Array][] = [];

  /** `copy`: keep copies of held payloads (when they are views of buffers that are reused). */
  constructor(private readonly copy = false) {}

  /** The receiver, or one that holds the frame. */
  get(): FrameReceiver {
    return this.receiver ?? ((from, h, p) => void this.early.push([from, h, this.copy ? Uint8Array.from(p) : p]));
  }

  /** Attach the receiver; frames held until now are delivered to it first, in order. */
  set(f: FrameReceiver): void {
    this.receiver = f;
    for (const [from, h, p] of this.early.splice(0)) f(from, h, p);
  }
}
