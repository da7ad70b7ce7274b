/** The simulated packet network and the frame adapters of the packet-network contract. */
import { describe, expect, it } from 'vitest';
import { framedEnv, framedHandler, type PacketCodec, type PacketHandler } from '../../src/offload/protocols/packet_network.js';
import { SimNetwork } from '../../src/offload/protocols/sim_network.js';

interface Ping {
  readonly n: number;
}
const pingCodec: PacketCodec<Ping> = {
  encode: (p) => Uint8Array.of(p.n),
  decode: (f) => ({ n: f[0] }),
};

/** Rank 0 sends n packets to rank 1 at time 0; returns what arrived and when. */
function blast(o: { seed: number; loss?: number; duplicate?: number; maxDelay?: number; n?: number }): { got: number[]; times: number[]; net: SimNetwork<Ping> } {
  const net = new SimNetwork<Ping>({ size: 2, seed: o.seed, loss: o.loss, duplicate: o.duplicate, minDelay: 1, maxDelay: o.maxDelay ?? 1 });
  const got: number[] = [];
  const times: number[] = [];
  net.attach(1, { onPacket: (_from, p) => (got.push(p.n), times.push(net.now)) });
  const env = net.endpoint(0);
  for (let i = 0; i < (o.n ?? 200); i++) env.send(1, { n: i });
  net.run();
  return { got, times, net };
}

describe('SimNetwork', () => {
  it('is deterministic per seed and differs across seeds', () => {
    const a = blast({ seed: 7, loss: 0.2, duplicate: 0.2, maxDelay: 9 });
    const b = blast({ seed: 7, loss: 0.2, duplicate: 0.2, maxDelay: 9 });
    const c = blast({ seed: 8, loss: 0.2, duplicate: 0.2, maxDelay: 9 });
    expect(b.got).toEqual(a.got);
    expect(b.times).toEqual(a.times);
    expect(c.got).not.toEqual(a.got);
  });

  it('loses, duplicates and reorders at about the configured rates', () => {
    const { net, got } = blast({ seed: 1, loss: 0.3, duplicate: 0.25, maxDelay: 10, n: 4000 });
    expect(net.stats.sent).toBe(4000);
    expect(net.stats.dropped / 4000).toBeGreaterThan(0.26);
    expect(net.stats.dropped / 4000).toBeLessThan(0.34);
    expect(net.stats.duplicated / (4000 - net.stats.dropped)).toBeGreaterThan(0.2);
    expect(net.stats.delivered).toBe(got.length);
    expect(got.length).toBe(4000 - net.stats.dropped + net.stats.duplicated);
    const overtaken = got.filter((x, i) => i > 0 && x < got[i - 1]).length;
    expect(overtaken).toBeGreaterThan(100);
  });

  it('keeps FIFO links with jitter when asked', () => {
    const net = new SimNetwork<Ping>({ size: 2, seed: 4, minDelay: 1, maxDelay: 20, fifo: true });
    const got: number[] = [];
    net.attach(1, { onPacket: (_f, p) => got.push(p.n) });
    for (let i = 0; i < 300; i++) net.at(i / 10, () => net.endpoint(0).send(1, { n: i }));
    net.run();
    expect(got).toEqual(Array.from({ length: 300 }, (_, i) => i));
  });

  it('delivers in order with a fixed delay and no faults', () => {
    const { got, times } = blast({ seed: 3, n: 50 });
    expect(got).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(times.every((t) => t === 1)).toBe(true);
  });

  it('drops everything on a link that is down, per direction, until it is up again', () => {
    const net = new SimNetwork<Ping>({ size: 2, seed: 1 });
    const got: [number, number][] = [];
    net.attach(0, { onPacket: (_f, p) => got.push([0, p.n]) });
    net.attach(1, { onPacket: (_f, p) => got.push([1, p.n]) });
    net.setLinkDown(0, 1);
    net.at(0, () => (net.endpoint(0).send(1, { n: 1 }), net.endpoint(1).send(0, { n: 2 })));
    net.at(5, () => net.setLinkDown(0, 1, false));
    net.at(6, () => net.endpoint(0).send(1, { n: 3 }));
    net.run();
    expect(got).toEqual([[0, 2], [1, 3]]);
    expect(net.stats.dropped).toBe(1);
  });

  it('applies targeted drop rules and runs timers in time order; cancelled timers never fire', () => {
    const net = new SimNetwork<Ping>({ size: 2, seed: 1 });
    net.dropWhen((e) => e.packet.n === 2);
    const seen: string[] = [];
    net.attach(1, { onPacket: (_f, p) => seen.push(`p${p.n}@${net.now}`) });
    const env = net.endpoint(0);
    env.setTimer(5, () => seen.push(`t5@${net.now}`));
    env.setTimer(2, () => seen.push(`t2@${net.now}`)).cancel();
    env.setTimer(0, () => (env.send(1, { n: 1 }), env.send(1, { n: 2 })));
    net.run();
    expect(seen).toEqual(['p1@1', 't5@5']);
  });

  it('fails loudly on a protocol that never goes quiet', () => {
    const net = new SimNetwork<Ping>({ size: 2, seed: 1 });
    const env = net.endpoint(0);
    const tick = (): void => void env.setTimer(10, tick);
    tick();
    expect(() => net.run({ maxTime: 1000 })).toThrow(/still busy/);
    expect(() => net.endpoint(0).send(0, { n: 0 })).toThrow(/itself/);
  });

  it('carries frames: codec option, framedEnv/framedHandler, one encoding per multisend', () => {
    const viaCodec = new SimNetwork<Ping>({ size: 3, seed: 2, codec: pingCodec });
    const got: Ping[] = [];
    viaCodec.attach(1, { onPacket: (_f, p) => got.push(p) });
    viaCodec.attach(2, { onPacket: (_f, p) => got.push(p) });
    const p = { n: 42 };
    viaCodec.endpoint(0).send(1, p);
    viaCodec.endpoint(0).send(2, p);
    viaCodec.run();
    expect(got).toEqual([{ n: 42 }, { n: 42 }]);
    expect(got[0]).not.toBe(p); // every receiver decodes its own copy

    const frames = new SimNetwork<Uint8Array>({ size: 3, seed: 2 });
    let encodes = 0;
    const counting: PacketCodec<Ping> = { encode: (q) => (encodes++, pingCodec.encode(q)), decode: pingCodec.decode };
    const seen: number[] = [];
    const h: PacketHandler<Ping> = { onPacket: (from, q) => seen.push(from * 100 + q.n) };
    frames.attach(1, framedHandler(h, counting));
    frames.attach(2, framedHandler(h, counting));
    const env = framedEnv(frames.endpoint(0), counting);
    const q = { n: 7 };
    env.send(1, q);
    env.send(2, q);
    env.send(1, { n: 8 });
    frames.run();
    expect(seen.sort((a, b) => a - b)).toEqual([7, 7, 8]);
    expect(encodes).toBe(2);
    expect(env.rank).toBe(0);
    expect(env.size).toBe(3);
  });
});
