/**
 * The client side of the daemon ring (protocol.ts, daemon.ts): `coll ring up` starts a
 * daemon on every host (through the launch agent for other hosts, as `coll run --hosts`
 * starts nodes) and joins them in a ring; the launcher, `coll ring status` and
 * `coll ring down` then talk to the ring through one daemon.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { TransportError } from '../../core/errors.js';
import { connectControl, ControlServer, type ControlLink } from '../control.js';
import { controlAddresses, isLocalHost, type HostSlots } from '../hosts.js';
import { readLines } from '../lines.js';
import { shellQuote } from '../shell.js';
import { addressText, type PeerAddress } from '../../transport/tcp/device.js';
import { CLIENT, ringJobId, type DaemonMessage, type RingFile, type RingMember } from './protocol.js';

type Link = ControlLink<DaemonMessage, DaemonMessage>;

/** The `coll` entry point of this installation (dist/cli/bin.js or src/cli/bin.ts) and the flags to run it. */
function collCommand(): string[] {
  const ts = import.meta.url.endsWith('.ts');
  const bin = fileURLToPath(new URL(`../../cli/bin.${ts ? 'ts' : 'js'}`, import.meta.url));
  return [process.execPath, ...(ts ? ['--import', 'tsx'] : []), bin];
}

/**
 * Start a daemon on every host and join them in a ring (hosts in the given order).
 * Fails — ending every daemon it started — when a host does not join in time.
 */
export async function ringUp(o: { hosts: readonly HostSlots[]; agent: string; timeoutMs?: number; log?: (line: string) => void }): Promise<RingFile> {
  const id = randomBytes(6).toString('hex');
  const secret = randomBytes(32).toString('hex');
  const n = o.hosts.length;
  const links: (Link | undefined)[] = new Array<Link | undefined>(n).fill(undefined);
  const hellos: (Extract<DaemonMessage, { type: 'hello' }> | undefined)[] = new Array(n).fill(undefined);
  const joined = new Set<number>();
  const errors: string[] = [];
  const anyRemote = o.hosts.some((h) => !isLocalHost(h.host));
  let settle: (() => void) | undefined;
  const all = new Promise<void>((resolve) => (settle = resolve));
  const server = new ControlServer({
    jobId: ringJobId(id),
    secret,
    onNode: (member, l) => {
      if (member >= n) return l.close();
      const link = (links[member] = l as Link);
      link.onMessage((m) => {
        if (m.type === 'hello') {
          hellos[member] = m;
          if (hellos.every(Boolean)) {
            const members = hellos.map((h) => (h as { address: PeerAddress }).address);
            for (const x of links) x?.send({ type: 'ring', members });
          }
        } else if (m.type === 'joined') {
          joined.add(m.member);
          if (joined.size === n) settle?.();
        }
      });
    },
  });
  const port = await server.listen(anyRemote ? '0.0.0.0' : '127.0.0.1');
  const targets = (anyRemote ? controlAddresses(false) : ['127.0.0.1']).map((h) => `${h}:${port}`);
  const starters = o.hosts.map((h, member) => {
    const words = ['cd', process.cwd(), '&&', 'exec', ...collCommand(), 'daemon', '--member', String(member), '--ring', id, '--control', targets.join(',')];
    const [cmd, ...agentArgs] = o.agent.split(/\s+/).filter(Boolean);
    const child = isLocalHost(h.host)
      ? spawn(words[4], words.slice(5), { stdio: ['pipe', 'pipe', 'pipe'] })
      : spawn(cmd, [...agentArgs, h.host, ...words.map((w) => (w === '&&' ? w : shellQuote(w)))], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(`${secret}\n`);
    const said: string[] = [];
    for (const s of [child.stdout, child.stderr]) if (s) readLines(s, (l) => (said.push(l), o.log?.(`${h.host}: ${l}`)), true);
    child.on('error', (e) => errors.push(`${h.host}: ${e.message}`));
    child.on('exit', (code) => {
      if (code !== 0 && !hellos[member]) errors.push(`${h.host}: the daemon did not start (exit code ${code}${said.length ? `: ${said.slice(-3).join(' | ')}` : ''})`);
    });
    return child;
  });
  const timeoutMs = o.timeoutMs ?? 60_000;
  const timer = new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref());
  const poll = setInterval(() => errors.length > 0 && settle?.(), 50);
  await Promise.race([all, timer]);
  clearInterval(poll);
  server.close();
  if (joined.size < n) {
    // Daemons leave when `coll ring up` goes before their ring is formed.
    for (const l of links) l?.close();
    for (const c of starters) if (c.exitCode === null) c.kill();
    const missing = o.hosts.filter((_, i) => !joined.has(i)).map((h) => h.host);
    throw new TransportError(`the daemon ring ${id} did not form: ${errors.length ? errors.join('; ') : `${missing.join(', ')} did not join within ${timeoutMs / 1000} s`}`);
  }
  for (const l of links) l?.close();
  const members: RingMember[] = o.hosts.map((h, i) => {
    const hello = hellos[i] as Extract<DaemonMessage, { type: 'hello' }>;
    return { host: h.host, slots: h.slots, address: hello.address, pid: hello.pid };
  });
  return { id, secret, created: new Date().toISOString(), members };
}

/** Send one request into the ring (through the first daemon that answers) and wait for its answer. */
export async function ringRequest(ring: RingFile, m: DaemonMessage, timeoutMs = 60_000): Promise<DaemonMessage> {
  const { link } = await connectControl(
    ring.members.map((x) => addressText(x.address)),
    ringJobId(ring.id),
    CLIENT,
    ring.secret,
  ).catch((e: Error) => {
    throw new TransportError(`the daemon ring is not reachable: ${e.message}`, "start it again with 'coll ring up'");
  });
  const l = link as Link;
  return new Promise<DaemonMessage>((resolve, reject) => {
    const timer = setTimeout(() => reject(new TransportError(`the daemon ring did not answer within ${timeoutMs / 1000} s (a daemon is gone? see 'coll ring status')`)), timeoutMs);
    l.onMessage((reply) => {
      clearTimeout(timer);
      resolve(reply);
      l.close();
    });
    l.onClose(() => {
      clearTimeout(timer);
      reject(new TransportError('the daemon ring closed the connection (a daemon is gone? see coll ring status)'));
    });
    l.send(m);
  });
}
