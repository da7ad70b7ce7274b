/**
 * The I/O servers of a job (`coll run --io-servers K` / `--io-server host:port,…`;
 * src/io/pfs): started by the launcher as processes on the launch host, each with its
 * own directory (`<dir>/server-<i>`), or given as addresses of running servers. The
 * ranks find them in COLL_IO_SERVERS; the first is the metadata service. At the end the
 * launcher asks each for its counters (the job report's `io`) and stops the ones it
 * started. Directories given with `--io-dir` stay, so a later job on the same directory
 * serves the same files; a temporary one made for the job is removed with it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ArgumentError, CollectivesError, checkIntRange } from '../core/errors.js';
import { PfsClient } from '../io/pfs/client.js';
import type { IoServerOptions } from '../io/pfs/server.js';

export interface JobIoOptions {
  /** Start this many servers for the job. */
  readonly servers?: number;
  /** Or use these running servers (host:port). */
  readonly addresses?: readonly string[];
  /** Parent directory of the started servers' directories, kept after the job (default a new temporary one, removed after it). */
  readonly dir?: string;
  /** Address the started servers listen on and the ranks reach them at (default 127.0.0.1; a job across hosts: this host's first external IPv4). */
  readonly host?: string;
  /** Messaging settings of the started servers. */
  readonly settings?: Omit<IoServerOptions, 'dir' | 'host' | 'port'>;
}

export interface JobIoReport {
  /** The started servers' directory, and whether it stays after the job. */
  readonly dir?: string;
  readonly kept?: boolean;
  readonly servers: readonly { readonly address: string; readonly counters?: Record<string, unknown>; readonly error?: string }[];
}

export interface JobIo {
  readonly addresses: readonly string[];
  /** Collect the counters and stop the started servers. */
  finish(): Promise<JobIoReport>;
}

function externalAddress(): string {
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return '127.0.0.1';
}

function startServer(main: string, loader: string | undefined, o: IoServerOptions): Promise<{ child: ChildProcess; address: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(loader ? ['--import', loader] : []), main, JSON.stringify(o)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr?.on('data', (b: Buffer) => (err += b.toString()));
    child.stdout?.on('data', (b: Buffer) => {
      out += b.toString();
      const line = out.split('\n').find((l) => l.startsWith('{"ioServer"'));
      if (line) resolve({ child, address: (JSON.parse(line) as { ioServer: string }).ioServer });
    });
    child.once('exit', (code) => reject(new CollectivesError('IO', `an I/O server (${o.dir}) exited with code ${code} before it listened: ${err.trim().split('\n').slice(-3).join(' | ')}`)));
  });
}

/** Start (or adopt) the job's I/O servers. `remote`: ranks run on other hosts too. */
export async function startJobIo(o: JobIoOptions, loader: string | undefined, remote: boolean): Promise<JobIo> {
  if ((o.servers === undefined) === (o.addresses === undefined)) throw new ArgumentError('give either a number of I/O servers to start or their addresses', '--io-servers K or --io-server host:port,…');
  if (o.addresses !== undefined) {
    if (o.addresses.length === 0) throw new ArgumentError('--io-server needs at least one host:port');
    const addresses = [...o.addresses];
    return { addresses, finish: () => collect(addresses, undefined) };
  }
  checkIntRange('I/O servers', o.servers ?? 0, 1, 64);
  const kept = o.dir !== undefined;
  const dir = kept ? resolvePath(o.dir as string) : mkdtempSync(join(tmpdir(), 'coll-io-'));
  const host = o.host ?? (remote ? externalAddress() : '127.0.0.1');
  const ts = import.meta.url.endsWith('.ts');
  const main = fileURLToPath(new URL(`../io/pfs/server-main.${ts ? 'ts' : 'js'}`, import.meta.url));
  const started: { child: ChildProcess; address: string }[] = [];
  try {
    for (let i = 0; i < (o.servers ?? 0); i++) {
      const sdir = join(dir, `server-${i}`);
      mkdirSync(sdir, { recursive: true });
      started.push(await startServer(main, ts ? loader : undefined, { ...o.settings, dir: sdir, host, port: 0 }));
    }
  } catch (e) {
    for (const s of started) s.child.kill('SIGKILL');
    throw e;
  }
  const addresses = started.map((s) => s.address);
  return {
    addresses,
    finish: async () => {
      const r = { ...(await collect(addresses, dir)), kept };
      await Promise.all(
        started.map(
          (s) =>
            new Promise<void>((resolve) => {
              if (s.child.exitCode !== null || s.child.signalCode !== null) resolve();
              else {
                s.child.once('exit', () => resolve());
                s.child.kill('SIGTERM');
              }
            }),
        ),
      );
      if (!kept) rmSync(dir, { recursive: true, force: true });
      return r;
    },
  };
}

async function collect(addresses: readonly string[], dir: string | undefined): Promise<JobIoReport> {
  const servers = await Promise.all(
    addresses.map(async (address, i) => {
      try {
        const one = new PfsClient([address], { name: 'launcher', connectTimeoutMs: 2000, requestTimeoutMs: 5000 });
        const [counters] = await one.stats();
        one.close();
        return { address, counters };
      } catch (e) {
        return { address, error: `server ${i}: ${(e as Error).message.split('\n')[0]}` };
      }
    }),
  );
  return { ...(dir !== undefined ? { dir } : {}), servers };
}
