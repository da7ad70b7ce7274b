/**
 * The engine's view: one frame transport per rank, a FrameMux, and a barrier, a
 * broadcast group and an allgather running side by side on their own channels over a
 * lossy network.
 */
import { describe, expect, it } from 'vitest';
import { ConcurrentBcastAllgather } from '../../src/offload/protocols/allgather_cb.js';
import { allgatherCodec } from '../../src/offload/protocols/allgather_packets.js';
import { barrierCodec } from '../../src/offload/protocols/barrier_packets.js';
import { bcastCodec } from '../../src/offload/protocols/bcast_packets.js';
import { broadcastTree } from '../../src/offload/protocols/bcast_tree.js';
import { FrameMux } from '../../src/offload/protocols/frame_mux.js';
import { NicBarrier } from '../../src/offload/protocols/nic_barrier.js';
import { SimNetwork } from '../../src/offload/protocols/sim_network.js';
import { TreeBroadcast } from '../../src/offload/protocols/tree_broadcast.js';

describe('FrameMux', () => {
  it('runs barrier → broadcast → allgather → barrier per rank, each protocol on its own channel', () => {
    const P = 10;
    const net = new SimNetwork<Uint8Array>({ size: P, seed: 21, loss: 0.15, duplicate: 0.05, minDelay: 1, maxDelay: 8 });
    const tree = broadcastTree({ algorithm: 'postal', params: { lambda: 2 }, size: P, root: 3 });
    const message = Uint8Array.from({ length: 1000 }, (_, i) => (i * 13) & 255);
    const log: string[][] = Array.from({ length: P }, () => []);
    const gathered: Uint8Array[] = [];
    const muxes: FrameMux[] = [];
    for (let r = 0; r < P; r++) {
      const mux = new FrameMux(net.endpoint(r));
      muxes.push(mux);
      net.attach(r, mux);
      const ag = mux.open(3, allgatherCodec, (env) =>
        new ConcurrentBcastAllgather(env, {
          blockBytes: 4,
          timeout: 40,
          onComplete: (_op, result) => {
            gathered[r] = result;
            log[r].push('allgather');
            barrier.enter();
          },
        }),
      );
      const bcast = mux.open(2, bcastCodec, (env) =>
        new TreeBroadcast(env, {
          group: 0,
          tree,
          mtu: 128,
          rto: 40,
          onMessage: (_m, data) => {
            expect(Buffer.from(data).equals(Buffer.from(message))).toBe(true);
            log[r].push('bcast');
            ag.post(Uint8Array.of(r, r, r, r));
          },
        }),
      );
      const barrier = mux.open(1, barrierCodec, (env) =>
        new NicBarrier(env, {
          algorithm: 'dissemination',
          timeout: 40,
          onComplete: (seq) => {
            log[r].push(`barrier${seq}`);
            if (seq === 0 && r === tree.root) {
              log[r].push('bcast');
              bcast.broadcast(message);
              ag.post(Uint8Array.of(r, r, r, r));
            }
          },
        }),
      );
      net.at(r * 3, () => barrier.enter());
    }
    net.run({ maxTime: 1e6 });
    for (let r = 0; r < P; r++) {
      expect(log[r]).toEqual(['barrier0', 'bcast', 'allgather', 'barrier1']);
      expect([...gathered[r]]).toEqual(Array.from({ length: P * 4 }, (_, i) => i >> 2));
      expect(muxes[r].unrouted).toBe(0);
    }
    expect(() => muxes[0].open(1, barrierCodec, (env) => new NicBarrier(env, { algorithm: 'dissemination', timeout: 1 }))).toThrow(/already open/);
  });
});
