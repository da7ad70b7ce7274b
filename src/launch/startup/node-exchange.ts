/**
 * A node process's side of the start-up exchange (schemes.ts): make this node's
 * endpoint ids, send them (or, for the bootstrap scheme, its ring endpoint) over the
 * control channel, and assemble from the reply — and the ring — every node's address
 * and the ids the others made for this node.
 */
import { ID_BYTES, createRow, decodeIds, encodeIds, peersOf, rowOf, type PairIds } from '../../transport/tcp/endpoint-ids.js';
import type { PeerAddress } from '../../transport/tcp/device.js';
import { BootstrapRing } from './bootstrap-ring.js';
import { LauncherExchange, type EndpointsMessage, type ExchangeCounters, type ExchangeReply, type StartupScheme } from './schemes.js';

/** This node's part of the job report's `startup` section. */
export interface NodeExchangeCounters {
  /** Over the control channel (to and from the launcher or its key-value store). */
  readonly control: ExchangeCounters;
  /** Over the bootstrap ring (bootstrap scheme only). */
  readonly ring?: ExchangeCounters & { readonly connections: number };
  /** From sending this node's endpoints to knowing every peer's, ms. */
  readonly ms: number;
}

export interface ExchangeResult {
  readonly addresses: PeerAddress[];
  readonly ids: PairIds;
  readonly counters: NodeExchangeCounters;
}

export async function exchangeEndpoints(o: {
  scheme: StartupScheme;
  node: number;
  nodes: number;
  /** This node's data address. */
  address: PeerAddress;
  secret: Buffer;
  bindHost: string;
  send: (m: EndpointsMessage) => void;
  reply: () => Promise<ExchangeReply>;
}): Promise<ExchangeResult> {
  const { node, nodes } = o;
  const t0 = performance.now();
  const mine = createRow(node, nodes);
  const ring = o.scheme === 'bootstrap' ? await BootstrapRing.open(o.bindHost, nodes) : undefined;
  const sentIds = ring ? 2 : nodes - 1;
  o.send({ type: 'endpoints', address: o.address, ids: encodeIds(ring ? ring.tokens : peersOf(mine, node)), ...(ring ? { ring: ring.address } : {}) });
  const reply = await o.reply().catch((e: unknown) => {
    ring?.close();
    throw e;
  });
  const control = (receivedIds: number): ExchangeCounters => ({ messagesSent: 1, messagesReceived: 1, idBytesSent: sentIds * ID_BYTES, idBytesReceived: receivedIds * ID_BYTES });
  const done = (addresses: PeerAddress[], theirs: Uint32Array, c: Omit<NodeExchangeCounters, 'ms'>): ExchangeResult => ({
    addresses,
    ids: { mine, theirs },
    counters: { ...c, ms: Math.round((performance.now() - t0) * 10) / 10 },
  });
  if (reply.type === 'ring') {
    if (!ring) throw new Error(`node ${node}: the launcher answered with a ring for the ${o.scheme} scheme`);
    const r = await ring.run({ node, nodes, secret: o.secret, lhs: reply.lhs, rhs: reply.rhs, row: mine, address: o.address });
    return done(r.addresses, r.theirs, { control: control(2), ring: r.counters });
  }
  ring?.close();
  const theirs = new Uint32Array(nodes);
  if ('table' in reply) {
    // original: every row; keep this node's column.
    const table = decodeIds(reply.table, nodes * (nodes - 1));
    for (let i = 0; i < nodes; i++) if (i !== node) theirs[i] = rowOf(table.subarray(i * (nodes - 1), (i + 1) * (nodes - 1)), i)[node];
    return done([...reply.addresses], theirs, { control: control(nodes * (nodes - 1)) });
  }
  const column = decodeIds(reply.column, nodes - 1);
  return done([...reply.addresses], rowOf(column, node), { control: control(nodes - 1) });
}

/**
 * N nodes exchanging in this process through an in-process launcher, as node-main and
 * launcher.ts do (the bootstrap ring over real loopback sockets; node i claims data
 * address 127.0.0.1:basePort+i): the launcher's counters and every node's result.
 */
export async function exchangeInProcess(scheme: StartupScheme, n: number, secret: Buffer, basePort = 10_000): Promise<{ launcher: ExchangeCounters; results: ExchangeResult[] }> {
  const launcher = new LauncherExchange(scheme, n);
  const replies: ((r: ExchangeReply) => void)[] = [];
  const waiting = Array.from({ length: n }, (_, i) => new Promise<ExchangeReply>((resolve) => (replies[i] = resolve)));
  const results = await Promise.all(
    Array.from({ length: n }, (_, node) =>
      exchangeEndpoints({
        scheme,
        node,
        nodes: n,
        address: { host: '127.0.0.1', port: basePort + node },
        secret,
        bindHost: '127.0.0.1',
        send: (m) => launcher.receive(node, m)?.forEach((r, j) => replies[j](r)),
        reply: () => waiting[node],
      }),
    ),
  );
  return { launcher: launcher.counters, results };
}
