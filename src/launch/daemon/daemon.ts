/**
 * `coll daemon`: one host's member of the daemon ring (protocol.ts). It connects back
 * to `coll ring up` (as a node connects to its launcher), listens on the address that
 * connection left from, learns the members, dials its right neighbour and accepts its
 * left one. Then it serves, until `coll ring down` or its ring breaks:
 *
 * - **launch**: each daemon passes the request on, then starts its host's node
 *   processes (job secret on their standard input, derived from the ring's): the hosts
 *   start their nodes in parallel; when the request comes back around, the entry daemon
 *   answers its client with the time it reached each host. A node that cannot start is
 *   logged here and named by the launcher when it does not connect back.
 * - **status**: each daemon adds its pid, host and running node processes.
 * - **exit**: each daemon passes it on and exits (its running node processes end with
 *   it: their standard input closes).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { hostname } from 'node:os';
import { connectControl, ControlServer, nodeControlArgs, type ControlLink } from '../control.js';
import { readLines } from '../lines.js';
import { CLIENT, jobSecret, ringJobId, type DaemonMessage, type LaunchRequest } from './protocol.js';
import { addressText, type PeerAddress } from '../../transport/tcp/device.js';

type Link = ControlLink<DaemonMessage, DaemonMessage>;
type Circulating = Extract<DaemonMessage, { type: 'launch' | 'status' | 'exit' }> & { origin?: number };

export interface DaemonOptions {
  readonly member: number;
  readonly ringId: string;
  readonly secret: string;
  /** `coll ring up`'s control server, host:port candidates. */
  readonly control: readonly string[];
  readonly log: (line: string) => void;
}

export async function runDaemon(o: DaemonOptions): Promise<void> {
  const jobId = ringJobId(o.ringId);
  const started = Date.now();
  const up = await connectControl(o.control, jobId, o.member, o.secret);
  const boot = up.link as Link;
  let members: readonly PeerAddress[] = [];
  let left: Link | undefined;
  let right: Link | undefined;
  const children = new Set<ChildProcess>();
  /** Clients waiting for a request they made here to come back around. */
  const waiting = new Map<string, Link>();
  let seq = 0;
  const n = (): number => members.length;
  /** Ring connections from a left neighbour that learnt the members before this daemon did. */
  const early: [number, Link][] = [];

  const server = new ControlServer({
    jobId,
    secret: o.secret,
    repeatable: (node) => node === CLIENT,
    onReject: (from, why) => o.log(`refused ${from}: ${why}`),
    onNode: (node, l) => {
      const link = l as Link;
      if (node === CLIENT) return link.onMessage((m) => fromClient(m, link));
      if (n() === 0) return void early.push([node, link]);
      adoptLeft(node, link);
    },
  });
  function adoptLeft(node: number, link: Link): void {
    if (node !== (o.member - 1 + n()) % n() || left) return link.close();
    left = link;
    link.onMessage((m) => fromLeft(m as Circulating));
    link.onClose(() => {
      o.log('the ring broke (left neighbour gone); exiting');
      process.exit(1);
    });
    joined();
  }
  const port = await server.listen(up.localAddress);
  const address: PeerAddress = { host: up.localAddress, port };
  boot.send({ type: 'hello', member: o.member, address, pid: process.pid });
  boot.onMessage((m) => {
    if (m.type !== 'ring') return;
    members = m.members;
    for (const [node, link] of early.splice(0)) adoptLeft(node, link);
    const next = members[(o.member + 1) % n()];
    connectControl([addressText(next)], jobId, o.member, o.secret).then(
      (c) => {
        right = c.link as Link;
        right.onClose(() => {
          o.log('the ring broke (right neighbour gone); exiting');
          process.exit(1);
        });
        joined();
      },
      (e: Error) => {
        o.log(`cannot reach the right neighbour: ${e.message}`);
        process.exit(1);
      },
    );
  });
  // `coll ring up` goes away once the ring is formed: that is not a reason to stop; before, it is (it failed).
  boot.onClose(() => {
    if (!(left && right)) {
      o.log('coll ring up went away before the ring was formed; exiting');
      process.exit(1);
    }
  });
  function joined(): void {
    if (left && right) boot.send({ type: 'joined', member: o.member });
  }

  function fromClient(m: DaemonMessage, client: Link): void {
    if (m.type !== 'launch' && m.type !== 'status' && m.type !== 'exit') return;
    const key = `${m.type}-${++seq}`;
    waiting.set(key, client);
    const t0 = Date.now();
    const c: Circulating & { key: string } =
      m.type === 'launch' ? { type: 'launch', request: m.request, t0, outcomes: [], origin: o.member, key } : m.type === 'status' ? { type: 'status', members: [], origin: o.member, key } : { type: 'exit', origin: o.member, key };
    handle(c);
  }

  function fromLeft(m: Circulating & { key?: string }): void {
    if (m.origin === o.member) {
      // Back around: answer the client that asked.
      const client = m.key ? waiting.get(m.key) : undefined;
      if (m.key) waiting.delete(m.key);
      if (m.type === 'launch') client?.send({ type: 'launched', outcomes: m.outcomes ?? [] });
      else if (m.type === 'status') client?.send({ type: 'status', members: m.members });
      else client?.send({ type: 'exit' }, () => process.exit(0));
      return;
    }
    handle(m);
  }

  /** Pass a circulating message on, then do this member's part. */
  function handle(m: Circulating & { key?: string }): void {
    if (m.type === 'launch') {
      // Pass the request on first, then start this host's nodes: the request travels
      // without waiting for any fork, and every host starts its nodes in parallel.
      forward({ ...m, outcomes: [...(m.outcomes ?? []), { member: o.member, host: hostname(), atMs: Date.now() - (m.t0 ?? Date.now()) }] });
      setImmediate(() => startNodes(m.request));
    } else if (m.type === 'status') {
      forward({ ...m, members: [...(m.members ?? []), { member: o.member, host: hostname(), pid: process.pid, jobs: children.size, upS: Math.round((Date.now() - started) / 1000) }] });
    } else {
      forward(m);
      if (m.origin !== o.member) setTimeout(() => process.exit(0), 50);
    }
  }

  function forward(m: Circulating): void {
    if (!right) return o.log(`no ring yet: dropped a ${m.type} message`);
    right.send(m);
  }

  /** Start this host's node processes of a job; a failure is logged (the launcher names the host that never connects back). */
  function startNodes(r: LaunchRequest): void {
    for (const { node } of r.nodes.filter((x) => x.member === o.member)) {
      try {
        const [cmd, ...args] = r.argv;
        const child = spawn(cmd, [...args, ...nodeControlArgs(r.control, node, r.jobId), '--output', 'control'], {
          cwd: r.cwd,
          env: { ...process.env, ...r.env },
          stdio: ['pipe', 'pipe', 'pipe'],
        });
        children.add(child);
        child.on('error', (e) => o.log(`job ${r.jobId} node ${node}: ${e.message}`));
        child.on('exit', () => children.delete(child));
        child.stdin?.on('error', () => undefined);
        child.stdin?.write(`${jobSecret({ secret: o.secret }, r.jobId)}\n`);
        for (const s of [child.stdout, child.stderr]) if (s) readLines(s, (l) => o.log(`job ${r.jobId} node ${node}: ${l}`), true);
      } catch (e) {
        o.log(`job ${r.jobId} node ${node}: cannot start: ${(e as Error).message}`);
      }
    }
  }
}
