/**
 * The start-up exchange schemes (seed 003 ch. 2): every node ends up with exactly the
 * column of the endpoint-id table meant for it, under each scheme and for N = 1..9
 * (checked against the table itself), the counters equal the seed's volumes
 * (N(N−1)q in, N·N(N−1)q / N(N−1)q / 2Nq out; N−1 ring messages of (N−1)q per node),
 * and the ids are real: a pair whose ids disagree cannot connect.
 */
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BootstrapRing } from '../../src/launch/startup/bootstrap-ring.js';
import { exchangeInProcess } from '../../src/launch/startup/node-exchange.js';
import { LauncherExchange, expectedCounts, parseStartupScheme, STARTUP_SCHEMES } from '../../src/launch/startup/schemes.js';
import { TcpDevice } from '../../src/transport/tcp/device.js';
import { ID_BYTES, type PairIds } from '../../src/transport/tcp/endpoint-ids.js';
import { SPACE_COLL, type FrameHeader } from '../../src/transport/types.js';
import { launch } from '../../src/runtime/launcher.js';
import { wheres } from './where.js';

const secret = Buffer.alloc(32, 5);

describe('start-up exchange', () => {
  for (const scheme of STARTUP_SCHEMES) {
    it(`${scheme}: each node gets its column and every address; the counters are the seed's volumes (N = 2..9)`, async () => {
      for (let n = 2; n <= 9; n++) {
        const { launcher, results } = await exchangeInProcess(scheme, n, secret);
        const expected = expectedCounts(scheme, n);
        expect(launcher).toEqual(expected.launcher);
        for (let j = 0; j < n; j++) {
          const r = results[j];
          expect(r.addresses.map((a) => a.port)).toEqual(Array.from({ length: n }, (_, i) => 10_000 + i));
          // theirs[i] is what node i made for j: row i of the table, entry j.
          for (let i = 0; i < n; i++) expect(r.ids.theirs[i]).toBe(i === j ? 0 : results[i].ids.mine[j]);
          expect(r.ids.mine[j]).toBe(0);
          expect(r.ids.mine.every((v, i) => i === j || v !== 0)).toBe(true);
          if (scheme === 'bootstrap') {
            expect(r.counters.ring).toMatchObject({ messagesSent: n - 1, messagesReceived: n - 1, idBytesSent: expected.perNodeRing.idBytesSent, connections: 2 });
          } else expect(r.counters.ring).toBeUndefined();
        }
      }
    });
  }

  it('the formulas: 1024 processes move ≈4 MB into the launcher and ≈4 GB out of it under original, ≈4 MB under reassembly', () => {
    const o = expectedCounts('original', 1024).launcher;
    expect(o.idBytesReceived).toBe(1024 * 1023 * 4);
    expect(o.idBytesSent).toBe(1024 * 1024 * 1023 * 4);
    expect(expectedCounts('reassembly', 1024).launcher.idBytesSent).toBe(1024 * 1023 * 4);
    expect(expectedCounts('bootstrap', 1024).launcher.idBytesSent).toBe(2 * 1024 * 4);
    expect(expectedCounts('bootstrap', 1024).perNodeRing).toEqual({ messagesSent: 1023, idBytesSent: 1023 * 1023 * ID_BYTES });
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 4096 }), (n) => {
        const [o2, d, b] = STARTUP_SCHEMES.map((s) => expectedCounts(s, n).launcher.idBytesSent);
        return o2 === n * d && d === ((n - 1) / 2) * b;
      }),
    );
  });

  it('a launcher refuses a malformed or repeated record, and unknown scheme names are an argument error', () => {
    const l = new LauncherExchange('reassembly', 3);
    expect(() => l.receive(0, { type: 'endpoints', address: { host: 'h', port: 1 }, ids: 'AAAA' })).toThrow(/of 3 bytes, expected 8/);
    l.receive(0, { type: 'endpoints', address: { host: 'h', port: 1 }, ids: 'AAAAAAAAAAA' });
    expect(() => l.receive(0, { type: 'endpoints', address: { host: 'h', port: 1 }, ids: 'AAAAAAAAAAA' })).toThrow(/twice/);
    expect(() => parseStartupScheme('mpd')).toThrow(/original, reassembly, bootstrap/);
  });

  it('a ring neighbour that presents the wrong ids is refused; the right one is then accepted', async () => {
    const [a, b, evil] = await Promise.all([BootstrapRing.open('127.0.0.1', 2), BootstrapRing.open('127.0.0.1', 2), BootstrapRing.open('127.0.0.1', 2)]);
    const row = (node: number) => Uint32Array.from([node === 0 ? 0 : 11, node === 1 ? 0 : 22]);
    const run = (r: BootstrapRing, node: number, peer: BootstrapRing, peerToken: number) =>
      r.run({ node, nodes: 2, secret, lhs: { node: 1 - node, ring: peer.address, id: peerToken }, rhs: { node: 1 - node, ring: peer.address, id: peerToken }, row: row(node), address: { host: '127.0.0.1', port: 1 + node } });
    // The impostor claims to be node 1 but does not know the id node 0 made for node 1.
    const impostor = run(evil, 1, a, 12345).catch((e: Error) => e);
    const ra = run(a, 0, b, b.tokens[0]);
    const rb = run(b, 1, a, a.tokens[0]);
    const [x, y] = await Promise.all([ra, rb]);
    // Row 0 = [0, 22], row 1 = [11, 0]: node 0 learns 11, node 1 learns 22.
    expect(x.theirs[1]).toBe(11);
    expect(y.theirs[0]).toBe(22);
    expect(String(await impostor)).toMatch(/failed authentication|closed during the handshake|ECONNRESET/);
  });
});

describe('TcpDevice with endpoint ids', () => {
  const header: FrameHeader = { context: 1, space: SPACE_COLL, sig: 1, tag: 1, src: 0, dst: 1, index: 0, total: 4, offset: 0 };
  const ids = (mine: number[], theirs: number[]): PairIds => ({ mine: Uint32Array.from(mine), theirs: Uint32Array.from(theirs) });

  it('connects when the pair agrees on both ids, and refuses a peer whose column is wrong', async () => {
    const errors: Error[] = [];
    const lines: string[] = [];
    const mk = (node: number) => new TcpDevice({ node, secret, bindHost: '127.0.0.1', onError: (e) => errors.push(e), log: (l) => lines.push(l) });
    const [a, b, c] = [mk(0), mk(1), mk(2)];
    const peers = [await a.listen(), await b.listen(), await c.listen()];
    // Row 0 = [0, 7, 8], row 1 = [9, 0, 10], row 2 = [11, 12, 0]; node 2 has a wrong id from node 0.
    a.setPeers(peers, ids([0, 7, 8], [0, 9, 11]));
    b.setPeers(peers, ids([9, 0, 10], [7, 0, 12]));
    c.setPeers(peers, ids([11, 12, 0], [999, 10, 0]));
    const got: number[] = [];
    b.onFrame = (from) => got.push(from);
    a.onFrame = (from) => got.push(from);
    a.send(1, header, new Uint8Array(4));
    c.send(0, { ...header, src: 2, dst: 0 }, new Uint8Array(4));
    const deadline = Date.now() + 5000;
    while ((got.length < 1 || errors.length < 1) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(got).toEqual([0]);
    // Node 0 refuses node 2 (its proof is made with the wrong id) and closes; node 2 sees the close.
    expect(errors.map((e) => e.message).join()).toMatch(/node 2: connection to node 0 failed: connection closed during the handshake/);
    expect(a.rejected).toBe(1);
    expect(lines.join()).toMatch(/node 2 failed authentication \(wrong job secret or endpoint ids\)/);
    for (const d of [a, b, c]) await d.close();
  });
});

describe('coll run --startup', () => {
  const program = fileURLToPath(new URL('./programs/where.ts', import.meta.url));
  for (const [scheme, n] of [['original', 3], ['reassembly', 4], ['bootstrap', 5]] as const) {
    it(`${scheme}: a ${n}-node job (every pair connected) runs, and the report's counters are the seed's volumes`, async () => {
      // Static connections: every pair connects at start with the keys the exchange brought.
      const r = await launch({ ranks: n, nodes: n, program, startup: scheme, connections: { policy: 'static' }, arenaMb: 16, jobTimeoutMs: 60_000 });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(wheres(r.stdout).every((w) => w.ok)).toBe(true);
      const s = r.report.startup;
      expect(s?.scheme).toBe(scheme);
      expect(s?.launcher).toEqual(s?.expected.launcher);
      expect(s?.ring.messagesSent).toBe(n * (s?.expected.perNodeRing.messagesSent ?? -1));
      expect(s?.ring.idBytesSent).toBe(n * (s?.expected.perNodeRing.idBytesSent ?? -1));
      expect(s?.ring.connections).toBe(scheme === 'bootstrap' ? 2 * n : 0);
      expect(r.report.connections).toBe((n * (n - 1)) / 2); // all pairs, each with its own ids
      expect(r.report.tcp.rejected).toBe(0);
    });
  }
});
