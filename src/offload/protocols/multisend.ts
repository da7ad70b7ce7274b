/**
 * NIC multisend (seed 003 ch. 6 §6.1, §6.4.1; M1, M7, §3 A8): one packet, built once,
 * transmitted to several destinations, with ONE send record for all of them.
 *
 * GM-2 does it with the packet descriptor's callback: when the transmission to one
 * destination completes, the callback rewrites the header with the next destination
 * and re-queues the same packet before it is freed. In the packet-network contract
 * the destination is an argument of `send`, so the "header rewrite" is the loop
 * below over one immutable packet object; on a frame transport `framedEnv` encodes
 * it once and re-sends the frame. The alternatives the seed rejects (one send token
 * per destination, saving only the host posts; rewriting during the DMA) have no
 * software counterpart worth having.
 *
 * Cost: d transmissions of one packet for d destinations, one record.
 */
import type { PacketPort } from './packet_network.js';

/** The bookkeeping for one packet sent to several destinations (M8, M9). */
export interface SendRecord<P> {
  /** The group's sequence number of the packet. */
  readonly seq: number;
  /** What to retransmit (its payload is the host copy, kept until every child ACKs). */
  readonly packet: P;
  /** Time of the last (re)transmission, for the timeout. */
  sentAt: number;
}

/** Send `packet` to each of `dests` in order; returns the number of transmissions. */
export function multisend<P>(port: PacketPort<P>, dests: readonly number[], packet: P): number {
  for (const d of dests) port.send(d, packet);
  return dests.length;
}
