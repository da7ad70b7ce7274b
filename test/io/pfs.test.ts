/**
 * The pfs: parallel file system (src/io/pfs): the striping arithmetic against a
 * byte-by-byte walk; concurrent clients writing and reading random lists of regions
 * under every messaging setting (eager limits, rendezvous rules, completion by event
 * or FIN, the throttle, list I/O on and off), the file equal to a sequential reference;
 * ranks of a job through `coll run --io-servers`; dynamic clients; a server killed and
 * restarted; a missing stripe; bad input.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, unlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { launch } from '../../src/runtime/launcher.js';
import { PfsClient } from '../../src/io/pfs/client.js';
import { localSize, logicalEnd, split } from '../../src/io/pfs/layout.js';
import { RENDEZVOUS_POLICIES } from '../../src/io/pfs/policy.js';
import { IoServer, type IoServerOptions } from '../../src/io/pfs/server.js';
import { sendFrame } from '../../src/io/pfs/wire.js';
import { expectedFile, filePlan } from './plan.js';

const program = fileURLToPath(new URL('./programs/file-io.ts', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'coll-pfs-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const freshDir = (): string => join(root, `d${dirs++}`);

async function serve(n: number, o: Partial<IoServerOptions> = {}, dir = freshDir()): Promise<{ servers: IoServer[]; addresses: string[]; dir: string }> {
  const servers = Array.from({ length: n }, (_, i) => new IoServer({ ...o, dir: join(dir, `server-${i}`) }));
  return { servers, addresses: await Promise.all(servers.map((s) => s.listen())), dir };
}

describe('striping', () => {
  it('split, localSize and logicalEnd agree with a walk of the file byte by byte (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.tuple(fc.nat(200), fc.nat(60)), { maxLength: 6 }),
        fc.nat(300),
        (stripe, servers, regions, size) => {
          const l = { stripe, servers };
          const where = (x: number): [number, number] => [Math.floor(x / stripe) % servers, Math.floor(x / stripe / servers) * stripe + (x % stripe)];
          // Every byte of the regions, in buffer order: where split puts it.
          const want = new Map<number, [number, number][]>();
          let at = 0;
          for (const [offset, bytes] of regions) for (let x = offset; x < offset + bytes; x++) {
            const [s, local] = where(x);
            if (!want.has(s)) want.set(s, []);
            want.get(s)?.push([local, at++]);
          }
          for (const p of split(regions.map(([offset, bytes]) => ({ offset, bytes })), l)) {
            const got: [number, number][] = [];
            p.regions.forEach(([local, n], i) => {
              for (let k = 0; k < n; k++) got.push([local + k, p.bufAt[i] + k]);
            });
            expect(got).toEqual(want.get(p.server));
            want.delete(p.server);
          }
          expect(want.size).toBe(0);
          // A file of `size` bytes: each server's datafile length, and the size it implies back.
          for (let s = 0; s < servers; s++) {
            const bytes = Array.from({ length: size }, (_, x) => x).filter((x) => where(x)[0] === s);
            expect(localSize(size, s, l)).toBe(bytes.length);
            expect(logicalEnd(localSize(size, s, l), s, l)).toBe(bytes.length === 0 ? 0 : bytes[bytes.length - 1] + 1);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('pfs clients and servers', () => {
  it('concurrent clients write and read random region lists under every messaging setting; the file is the sequential reference (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          servers: fc.integer({ min: 1, max: 4 }),
          clients: fc.integer({ min: 1, max: 3 }),
          stripe: fc.integer({ min: 1, max: 9000 }),
          eager: fc.constantFrom(0, 64, 2048, 65536),
          rendezvous: fc.constantFrom(...RENDEZVOUS_POLICIES),
          completion: fc.constantFrom('event' as const, 'fin' as const),
          maxBulk: fc.integer({ min: 1, max: 3 }),
          listIo: fc.boolean(),
          seed: fc.nat(),
        }),
        async (c) => {
          const { servers, addresses } = await serve(c.servers, { eager: c.eager, chunk: 4096, rendezvous: c.rendezvous, completion: c.completion, maxBulk: c.maxBulk, loadedAt: 1 });
          const clients = Array.from({ length: c.clients }, (_, i) => new PfsClient(addresses, { name: `c${i}`, listIo: c.listIo }));
          try {
            const meta = await clients[0].open('f', 'w', { stripe: c.stripe });
            // Client k owns the bytes x with ⌊x/band⌋ mod clients = k: disjoint, interleaved regions.
            const band = 1 + (c.seed % 3000);
            const size = 1 + (c.seed % 40000);
            const want = new Uint8Array(size);
            const pieces = clients.map(() => [] as { at: number; data: Uint8Array }[]);
            for (let x = 0; x < size; x += band) {
              const k = Math.floor(x / band) % c.clients;
              const data = Uint8Array.from({ length: Math.min(band, size - x) }, (_, i) => (x + i + c.seed) & 255);
              want.set(data, x);
              pieces[k].push({ at: x, data });
            }
            await Promise.all(clients.map((cl, k) => cl.write(meta, pieces[k])));
            expect(await clients[clients.length - 1].size(meta)).toBe(pieces.flat().reduce((m, p) => Math.max(m, p.at + p.data.byteLength), 0));
            // Each client reads back another's regions, and the whole file.
            const back = await Promise.all(
              clients.map(async (cl, k) => {
                const mine = pieces[(k + 1) % c.clients].map((p) => ({ at: p.at, dst: new Uint8Array(p.data.byteLength) }));
                await cl.read(meta, mine);
                return mine.every((p, i) => Buffer.compare(p.dst, pieces[(k + 1) % c.clients][i].data) === 0);
              }),
            );
            expect(back.every(Boolean)).toBe(true);
            const whole = new Uint8Array(size);
            await clients[0].read(meta, [{ at: 0, dst: whole }]);
            expect(Buffer.compare(whole, want)).toBe(0);
            // The counters say which protocol moved the data.
            const stats = await clients[0].stats();
            const total = (k: string): number => stats.reduce((a, s) => a + Number(s[k]), 0);
            // Everything fits the largest eager limit (files are under 40 KB); nothing does the limit 0.
            if (c.eager === 65536) expect(total('rendezvousPull') + total('rendezvousPush')).toBe(0);
            if (c.eager === 0) expect(total('rendezvousPull') + total('rendezvousPush')).toBeGreaterThan(0);
            if (c.completion === 'event') expect(total('finMessages')).toBe(0);
            expect(Math.max(...stats.map((s) => Number(s.maxConcurrentBulk)))).toBeLessThanOrEqual(c.maxBulk);
          } finally {
            for (const cl of clients) cl.close();
            await Promise.all(servers.map((s) => s.close()));
          }
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);

  it('an explicit FIN per rendezvous only with completion fin; the throttle makes transfers wait; clients join and leave', async () => {
    for (const completion of ['event', 'fin'] as const) {
      const { servers, addresses } = await serve(1, { eager: 0, chunk: 4096, completion, maxBulk: 1 });
      const clients = [0, 1, 2].map((i) => new PfsClient(addresses, { name: `c${i}` }));
      const meta = await clients[0].open('g', 'w');
      await Promise.all(clients.map((cl, k) => cl.write(meta, [{ at: k * 10_000, data: new Uint8Array(10_000).fill(k + 1) }])));
      const [s] = await clients[0].stats();
      expect(Number(s.finMessages)).toBe(completion === 'fin' ? 3 : 0);
      expect(Number(s.throttled)).toBeGreaterThan(0);
      expect(s.maxConcurrentBulk).toBe(1);
      expect(s.clientsJoined).toBe(3);
      for (const cl of clients) cl.close();
      await new Promise((r) => setTimeout(r, 100));
      const probe = new PfsClient(addresses);
      const [t] = await probe.stats();
      expect(t.clientsLeft).toBe(3);
      expect(t.clientsActive).toBe(1);
      probe.close();
      await servers[0].close();
    }
  });

  it('a client that leaves in the middle of a transfer gives its throttle slot to the next one', async () => {
    const { servers, addresses } = await serve(1, { eager: 0, maxBulk: 1 });
    const c = new PfsClient(addresses);
    const meta = await c.open('t', 'w');
    // A raw client announces a 1 MB write and never sends it: it holds the only slot.
    const [host, port] = addresses[0].split(':');
    const raw = connect({ host, port: Number(port) });
    await new Promise((r) => raw.once('connect', r));
    sendFrame(raw, { t: 'hello', id: 1, client: 'stalled' });
    sendFrame(raw, { t: 'write', id: 2, handle: meta.handle, regions: [[0, 1_000_000]], rdv: true, load: 1 });
    await new Promise((r) => setTimeout(r, 100));
    let done = false;
    const w = c.write(meta, [{ at: 0, data: new Uint8Array(5000).fill(9) }]).then(() => (done = true));
    await new Promise((r) => setTimeout(r, 200));
    expect(done).toBe(false);
    raw.destroy();
    await w;
    const [s] = await c.stats();
    expect(s.throttled).toBe(1);
    expect(s.activeBulk).toBe(0);
    c.close();
    await servers[0].close();
  });

  it('frees a silent client after its timeout; the client reconnects on its next call', async () => {
    const { servers, addresses } = await serve(1, { clientTimeoutMs: 200 });
    const c = new PfsClient(addresses);
    const meta = await c.open('h', 'w');
    await new Promise((r) => setTimeout(r, 600));
    await c.write(meta, [{ at: 0, data: new Uint8Array([1, 2, 3]) }]);
    const [s] = await c.stats();
    expect(s.clientsTimedOut).toBeGreaterThanOrEqual(1);
    expect(c.counters.connects).toBe(2);
    c.close();
    await servers[0].close();
  });

  it('bad input: an unknown file, too many servers, a missing stripe, an unreachable server', async () => {
    const { servers, addresses, dir } = await serve(2);
    const c = new PfsClient(addresses);
    await expect(c.open('nope', 'r')).rejects.toThrow(/I\/O server 0 \(.*\): open pfs:nope: no file 'pfs:nope'/);
    await expect(c.open('x', 'w', { servers: 3 })).rejects.toThrow(/striped over 1 to 2 servers, not 3/);
    const meta = await c.open('m', 'w', { stripe: 10 });
    await c.write(meta, [{ at: 0, data: new Uint8Array(40).fill(7) }]);
    for (const f of readdirSync(join(dir, 'server-1', 'data'))) unlinkSync(join(dir, 'server-1', 'data', f));
    const fresh = await serve(2, {}, dir);
    const d = new PfsClient(fresh.addresses);
    await expect(d.read(meta, [{ at: 0, dst: new Uint8Array(40) }])).rejects.toThrow(/I\/O server 1 .*stripe datafile [0-9a-f]+ is missing/);
    d.close();
    await Promise.all(fresh.servers.map((s) => s.close()));
    await Promise.all(servers.map((s) => s.close()));
    await expect(c.size(meta)).rejects.toThrow(/I\/O server [01] \(127\.0\.0\.1:\d+\) (is unreachable \(connection refused\)|closed the connection during the size of pfs:m)/);
    await expect(c.size(meta)).rejects.toThrow(/I\/O server 0 \(127\.0\.0\.1:\d+\) is unreachable \(connection refused\)/);
    c.close();
    expect(() => new PfsClient([])).toThrow(/at least one I\/O server/);
    expect(() => new PfsClient(['nohost'])).toThrow(/not host:port/);
  });
});

/** A `coll io-server` process; resolves once it prints its address. */
function ioServerProcess(dir: string, port = 0): Promise<{ child: ChildProcess; address: string }> {
  const bin = fileURLToPath(new URL('../../src/cli/bin.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', bin, 'io-server', '--dir', dir, '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /on (127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve({ child, address: m[1] });
    });
    child.once('exit', (code) => reject(new Error(`coll io-server exited with ${code}`)));
  });
}

describe('pfs servers as processes and ranks of a job', () => {
  it('a server killed during a job’s life: a clear error naming it, then the same data once it restarts on its directory', async () => {
    const dir = freshDir();
    const a = await ioServerProcess(join(dir, 's0'));
    const b = await ioServerProcess(join(dir, 's1'));
    const c = new PfsClient([a.address, b.address]);
    const meta = await c.open('k', 'w', { stripe: 4096 });
    const data = Uint8Array.from({ length: 100_000 }, (_, i) => (i * 13) & 255);
    await c.write(meta, [{ at: 0, data }]);
    b.child.kill('SIGKILL');
    await new Promise((r) => b.child.once('exit', r));
    await expect(c.read(meta, [{ at: 0, dst: new Uint8Array(100_000) }])).rejects.toThrow(/I\/O server 1 \(127\.0\.0\.1:\d+\) (is unreachable|closed the connection)/);
    const port = Number(b.address.split(':')[1]);
    const b2 = await ioServerProcess(join(dir, 's1'), port);
    const back = new Uint8Array(100_000);
    await c.read(meta, [{ at: 0, dst: back }]);
    expect(Buffer.compare(back, data)).toBe(0);
    c.close();
    a.child.kill('SIGTERM');
    b2.child.kill('SIGTERM');
  }, 60_000);

  it('4 ranks on 2 nodes write and read a pfs: file through coll run --io-servers 3 (views, collective and independent calls); the servers’ directories hold the reference file', async () => {
    const dir = freshDir();
    const seed = 21;
    const r = await launch({ ranks: 4, nodes: 2, program, args: [String(seed), 'pfs:plan', '6', '40'], jobTimeoutMs: 120_000, io: { servers: 3, dir, settings: { eager: 256, chunk: 4096 } } });
    expect(r.exitCode, r.stderr).toBe(0);
    const reports = r.stdout.split('\n').filter((l) => l.includes('REPORT '));
    expect(reports).toHaveLength(4);
    expect(reports.every((l) => l.includes('"failures":[]')), reports.join('\n')).toBe(true);
    // The job report: each server's counters; data moved both eagerly and by rendezvous.
    const io = r.report.io;
    expect(io?.servers).toHaveLength(3);
    const sum = (k: string): number => (io?.servers ?? []).reduce((a, s) => a + Number(s.counters?.[k] ?? 0), 0);
    expect(sum('eager')).toBeGreaterThan(0);
    expect(sum('clientsJoined')).toBeGreaterThanOrEqual(4);
    // Served again from the same directories (the job's servers have stopped): the reference file.
    const again = await serve(3, {}, dir);
    const c = new PfsClient(again.addresses);
    const meta = await c.lookup('plan');
    const want = expectedFile(filePlan(seed, 4, 6), 4);
    expect(await c.size(meta)).toBe(want.byteLength);
    const got = new Uint8Array(want.byteLength);
    await c.read(meta, [{ at: 0, dst: got }]);
    expect(Buffer.compare(got, want)).toBe(0);
    c.close();
    await Promise.all(again.servers.map((s) => s.close()));
  }, 120_000);
});
