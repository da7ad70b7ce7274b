/**
 * The node agent's control channel when a cluster launcher started the job (task.ts):
 * there is no `coll run` to talk to, so the launcher protocol of node-main.ts is served
 * by the launcher's key-value store. 'start' is this task's own spec; the job secret
 * comes from task 0 through the store (put, fence, get); 'listening' puts this node's
 * address and, after a fence, answers 'peers' with everyone's; failures are printed
 * (the launcher ends the job when this process exits non-zero).
 */
import { randomBytes } from 'node:crypto';
import { writeSync } from 'node:fs';
import { controlAddresses } from '../launch/hosts.js';
import type { ControlLink } from '../launch/control.js';
import { openKvs } from '../launch/external.js';
import type { PeerAddress } from '../transport/tcp/device.js';
import type { TaskData } from './task.js';

const SECRET_KEY = 'coll-secret';
export const DEFAULT_STARTUP_MS = 120_000;
const ADDRESS_KEY = 'coll-addr';

export async function openTaskControl<In, Out extends { type: string }>(
  task: Pick<TaskData, 'launch' | 'spec'>,
  onError: (e: Error) => void,
): Promise<{ link: ControlLink<In, Out>; localAddress: string; secret: string }> {
  const { launch } = task;
  const kvs = await openKvs(launch);
  // A fence that never completes (a task that never arrives) must not hang the job:
  // after the start-up timeout, ask the launcher to end it (PMI abort) and say why.
  const startupMs = Number(process.env.COLL_STARTUP_TIMEOUT_MS) || DEFAULT_STARTUP_MS;
  const startup = setTimeout(() => {
    const why = `rank ${launch.rank} of ${launch.size} (${launch.launcher}): the other tasks did not all arrive within ${startupMs / 1000} s (a fence of the launcher's key-value store never completed)`;
    // Say it (synchronously: this thread's stream output passes through the rank thread,
    // which is blocked in init()), then abort: the launcher ends every task, this one
    // too; the rank thread raises the error in case the launcher leaves it running.
    writeSync(2, `coll: ${why}; ending the job\n`);
    void kvs.abort(1, why).finally(() => onError(new Error(why)));
  }, startupMs);
  startup.unref();
  const mine = randomBytes(32).toString('hex');
  if (launch.rank === 0) await kvs.put(SECRET_KEY, mine);
  await kvs.fence();
  const secret = launch.rank === 0 ? mine : await kvs.get(0, SECRET_KEY);
  /** Put this node's address, fence, get everyone's. */
  const exchange = async (address: PeerAddress): Promise<PeerAddress[]> => {
    await kvs.put(ADDRESS_KEY, `${address.host}:${address.port}`);
    await kvs.fence();
    return Promise.all(
      Array.from({ length: launch.size }, (_, r) =>
        kvs.get(r, ADDRESS_KEY).then((v) => {
          const i = v.lastIndexOf(':');
          return { host: v.slice(0, i), port: Number(v.slice(i + 1)) };
        }),
      ),
    );
  };
  const listeners: ((m: In) => void)[] = [];
  const backlog: In[] = [];
  const deliver = (m: unknown): void => {
    if (listeners.length === 0) backlog.push(m as In);
    for (const f of listeners) f(m as In);
  };
  const link: ControlLink<In, Out> = {
    send: (m, then) => {
      if (m.type === 'listening') {
        const { address } = m as unknown as { address: PeerAddress };
        exchange(address).then((addresses) => {
          clearTimeout(startup);
          deliver({ type: 'peers', addresses });
        }, onError);
      } else if (m.type === 'failed') {
        const f = m as unknown as { rank: number; reason: string };
        process.stderr.write(f.rank >= 0 ? `coll: rank ${f.rank} failed: ${f.reason}\n` : `coll: ${f.reason}\n`);
      } else if (m.type === 'done') {
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
