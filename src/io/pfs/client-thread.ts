/**
 * The thread that runs a rank's `pfs:` client (blocking.ts starts it). Rank threads
 * block in collectives and cannot wait on sockets, so this thread owns the PfsClient
 * and its event loop. Calls come on two ports: the blocking one (the rank waits on a
 * shared flag, then takes the answer with receiveMessageOnPort) and the promise one.
 */
import { workerData, type MessagePort } from 'node:worker_threads';
import { PfsClient, type PfsClientOptions } from './client.js';
import { CLIENT_THREAD_KEY, type PfsCall, type PfsAnswer } from './blocking.js';

interface ThreadData {
  readonly servers: string[];
  readonly options: PfsClientOptions;
  readonly flag: Int32Array;
  readonly syncPort: MessagePort;
  readonly asyncPort: MessagePort;
}

const d = (workerData as Record<string, ThreadData>)[CLIENT_THREAD_KEY];
const client = new PfsClient(d.servers, d.options);

async function run(c: PfsCall): Promise<PfsAnswer> {
  switch (c.op) {
    case 'open':
      return { id: c.id, meta: await client.open(c.name, c.mode, c.layout) };
    case 'remove':
      await client.remove(c.name);
      return { id: c.id };
    case 'write': {
      let at = 0;
      await client.write(c.meta, c.runs.map((r) => ({ at: r.offset, data: c.data.subarray(at, (at += r.bytes)) })));
      return { id: c.id };
    }
    case 'read': {
      // Into the rank's memory when it is shared, else into a buffer handed back.
      const dst = c.into ?? new Uint8Array(c.runs.reduce((a, r) => a + r.bytes, 0));
      let at = 0;
      await client.read(c.meta, c.runs.map((r) => ({ at: r.offset, dst: dst.subarray(at, (at += r.bytes)) })));
      return c.into ? { id: c.id } : { id: c.id, data: dst };
    }
    case 'size':
      return { id: c.id, size: await client.size(c.meta) };
    case 'setSize':
      await client.setSize(c.meta, c.size);
      return { id: c.id };
    case 'sync':
      await client.sync(c.meta);
      return { id: c.id };
    case 'stats':
      return { id: c.id, stats: { client: { ...client.counters }, servers: await client.stats() } };
  }
}

async function answer(c: PfsCall): Promise<PfsAnswer> {
  try {
    return await run(c);
  } catch (e) {
    const err = e as Error & { code?: string; hint?: string };
    return { id: c.id, error: { name: err.name, message: err.message.split('\n  hint: ')[0], hint: err.hint, code: err.code } };
  }
}

d.syncPort.on('message', (c: PfsCall) => {
  void answer(c).then((a) => {
    d.syncPort.postMessage(a, a.data ? [a.data.buffer as ArrayBuffer] : []);
    Atomics.store(d.flag, 0, 1);
    Atomics.notify(d.flag, 0);
  });
});
d.asyncPort.on('message', (c: PfsCall) => {
  void answer(c).then((a) => d.asyncPort.postMessage(a, a.data ? [a.data.buffer as ArrayBuffer] : []));
});
