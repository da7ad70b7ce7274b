/**
 * The node agent's control channel when a cluster launcher started the job (task.ts):
 * there is no `coll run` to talk to, so the launcher protocol of node-main.ts is served
 * by the launcher's key-value store. 'start' is this task's own spec; the job secret
 * comes from task 0 through the store (put, fence, get); 'endpoints' runs the start-up
 * scheme through the store and answers as the launcher would; failures are printed
 * (the launcher ends the job when this process exits non-zero).
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { controlAddresses } from '../launch/hosts.js';
import type { ControlLink } from '../launch/control.js';
import { openKvs } from '../launch/external.js';
import type { Kvs } from '../launch/kvs.js';
import { MpiKvs } from '../launch/mpi-kvs.js';
import { MpiSession } from '../transport/mpi/binding.js';
import { decodeIds, encodeIds } from '../transport/tcp/endpoint-ids.js';
import type { EndpointsMessage, ExchangeReply, StartupScheme } from '../launch/startup/schemes.js';
import { addressText, parseAddress } from '../transport/tcp/device.js';
import type { TaskData } from './task.js';

const SECRET_KEY = 'coll-secret';
export const DEFAULT_STARTUP_MS = 120_000;

/**
 * The start-up exchange (launch/startup/schemes.ts) through the store, in place of the
 * launcher: original — put the row, fence, get every row; reassembly — put the address
 * and one key per peer holding the id made for it, fence, get the address and this
 * node's id from every peer; bootstrap (the seed's MPD-BC, S2.8) — put the ring
 * endpoint, fence, get the two neighbours' only.
 */
async function endpointsThroughKvs(kvs: Kvs, me: number, n: number, scheme: StartupScheme, m: EndpointsMessage): Promise<ExchangeReply> {
  const all = <T>(f: (r: number) => Promise<T>): Promise<T[]> => Promise.all(Array.from({ length: n }, (_, r) => f(r)));
  if (scheme === 'original') {
    await kvs.put('coll-row', `${addressText(m.address)},${m.ids}`);
    await kvs.fence();
    const rows = await all((r) => kvs.get(r, 'coll-row').then((v) => v.split(',')));
    const table = rows.map(([, ids]) => decodeIds(ids, n - 1));
    const joined = new Uint32Array(n * (n - 1));
    table.forEach((row, i) => joined.set(row, i * (n - 1)));
    return { type: 'peers', addresses: rows.map(([a]) => parseAddress(a)), table: encodeIds(joined) };
  }
  if (scheme === 'reassembly') {
    const ids = decodeIds(m.ids, n - 1);
    await kvs.put('coll-addr', addressText(m.address));
    for (let j = 0, k = 0; j < n; j++) if (j !== me) await kvs.put(`coll-id-${j}`, String(ids[k++]));
    await kvs.fence();
    const addresses = await all((r) => kvs.get(r, 'coll-addr').then(parseAddress));
    const column = await Promise.all(addresses.map((_, i) => i).filter((i) => i !== me).map((i) => kvs.get(i, `coll-id-${me}`).then(Number)));
    return { type: 'peers', addresses, column: encodeIds(Uint32Array.from(column)) };
  }
  if (!m.ring) throw new Error('the bootstrap scheme needs a ring address');
  await kvs.put('coll-ring', `${addressText(m.ring)},${m.ids}`);
  await kvs.fence();
  const l = (me - 1 + n) % n;
  const r = (me + 1) % n;
  const [lv, rv] = await Promise.all([kvs.get(l, 'coll-ring'), kvs.get(r, 'coll-ring')].map((p) => p.then((v) => v.split(','))));
  return {
    type: 'ring',
    lhs: { node: l, ring: parseAddress(lv[0]), id: decodeIds(lv[1], 2)[1] },
    rhs: { node: r, ring: parseAddress(rv[0]), id: decodeIds(rv[1], 2)[0] },
  };
}

export async function openTaskControl<In, Out extends { type: string }>(
  task: Pick<TaskData, 'launch' | 'spec'>,
  onError: (e: Error) => void,
): Promise<{ link: ControlLink<In, Out>; localAddress: string; secret: string }> {
  const { launch } = task;
  const store: { kvs?: Kvs } = {};
  // A fence that never completes (a task that never arrives) must not hang the job:
  // after the start-up timeout, ask the launcher to end it (PMI abort) and say why.
  // (On the MPI transport the wait may be in MPI_Init itself, whose PMI fence waits for
  // every task: then there is no store to abort through yet, and this task just fails.)
  const startupMs = Number(process.env.COLL_STARTUP_TIMEOUT_MS) || DEFAULT_STARTUP_MS;
  const startup = setTimeout(() => {
    const why = `rank ${launch.rank} of ${launch.size} (${launch.launcher}): the other tasks did not all arrive within ${startupMs / 1000} s (a fence of the launcher's key-value store never completed)`;
    // Say it (synchronously: this thread's stream output passes through the rank thread,
    // which is blocked in init()), then abort: the launcher ends every task, this one
    // too; the rank thread raises the error in case the launcher leaves it running.
    writeSync(2, `coll: ${why}; ending the job\n`);
    void (store.kvs ? store.kvs.abort(1, why) : Promise.resolve()).finally(() => onError(new Error(why)));
  }, startupMs);
  startup.unref();
  // On the MPI transport, MPI owns the launcher's PMI connection: the store runs over MPI.
  const kvs = task.spec.transport === 'mpi' && task.spec.mpiFlavour ? new MpiKvs(await MpiSession.open(task.spec.mpiFlavour)) : await openKvs(launch);
  store.kvs = kvs;
  const mine = randomBytes(32).toString('hex');
  if (launch.rank === 0) await kvs.put(SECRET_KEY, mine);
  await kvs.fence();
  const secret = launch.rank === 0 ? mine : await kvs.get(0, SECRET_KEY);
  const exchange = (m: EndpointsMessage): Promise<ExchangeReply> => endpointsThroughKvs(kvs, launch.rank, launch.size, task.spec.startup, m);
  const listeners: ((m: In) => void)[] = [];
  const backlog: In[] = [];
  const deliver = (m: unknown): void => {
    if (listeners.length === 0) backlog.push(m as In);
    for (const f of listeners) f(m as In);
  };
  const link: ControlLink<In, Out> = {
    send: (m, then) => {
      if (m.type === 'endpoints') {
        exchange(m as unknown as EndpointsMessage).then((reply) => {
          clearTimeout(startup);
          deliver(reply);
        }, onError);
      } else if (m.type === 'failed') {
        const f = m as unknown as { rank: number; reason: string };
        process.stderr.write(f.rank >= 0 ? `coll: rank ${f.rank} failed: ${f.reason}\n` : `coll: ${f.reason}\n`);
      } else if (m.type === 'done') {
        // Started by `coll run --transport mpi` (mpi-launch.ts): leave this node's part of the job report for it.
        const dir = process.env.COLL_REPORT_DIR;
        const report = (m as unknown as { report?: { node: number } }).report;
        if (dir && report) writeFileSync(join(dir, `node-${report.node}.json`), JSON.stringify(report));
        void kvs.close().finally(() => then?.());
        return;
      }
      then?.();
    },
    onMessage: (f) => {
      listeners.push(f);
      for (const m of backlog.splice(0)) f(m);
    },
    onClose: () => undefined,
    close: () => void kvs.close(),
  };
  // The first message is this task's own start spec.
  deliver({ type: 'start', spec: task.spec });
  return { link, localAddress: controlAddresses(launch.localSize === launch.size)[0], secret };
}
